"""Sphinx configuration: ``sphinx-build -W -b html docs docs/_build/html``."""

from __future__ import annotations

import sys
from importlib.metadata import version as installed_version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))  # the checkout's package, also when not installed

project = "pagesim-scrapy"
author = "pagesim-scrapy developers"
copyright = "2026, pagesim-scrapy developers"
try:
    release = installed_version("pagesim-scrapy")
except Exception:  # building from a checkout that is not installed
    release = "0.1.0"
version = release

extensions = ["myst_parser", "pagesim_docs"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
exclude_patterns = ["_build", "figures_*.md"]

html_theme = "furo"
html_title = f"pagesim-scrapy {release}"
