"""Scrapy project package of the demo shop crawl.

Paths are computed from this file so nothing machine-specific is committed.
"""

from __future__ import annotations

from pathlib import Path

#: The generated offline shop (``sample_project/demo_site``).
DEMO_SITE_DIR = Path(__file__).resolve().parent.parent / "demo_site"

#: Ground truth ``{relative page path: page type}`` written by ``generate_demo_site.py``.
DEMO_LABELS_FILE = DEMO_SITE_DIR / "labels.json"
