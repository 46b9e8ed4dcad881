"""The demo shop's product pages and an induction pipeline whose product label learned them,
for the tests of what a settled label hands its held items."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import Any

from scrapy.utils.test import get_crawler

from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

ITEMS = Path(__file__).resolve().parent.parent / "sample_project" / "demo_site" / "item"


def item_pages(count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` of the demo shop's product pages (HTML, URL), in an order shuffled by ``seed``."""
    pages = [(p.read_text(encoding="utf-8"), p.as_uri()) for p in sorted(ITEMS.glob("*.html"))]
    random.Random(seed).shuffle(pages)
    return pages[:count]


def product_pipeline(**settings: Any) -> tuple[TemplateInductionPipeline, Any]:
    """An induction pipeline (``settings`` added) and its product label's state."""
    # an empty store of its own: not the wrappers and signatures a crawl from this folder saved
    store = tempfile.mkdtemp(prefix="pagesim-demo-items-")
    base = {"PAGESIM_INDUCTION_ENABLED": True, "PAGESIM_INDUCTION_DIR": store}
    pipeline = TemplateInductionPipeline.from_crawler(
        get_crawler(settings_dict={**base, **settings})
    )
    return pipeline, pipeline._label("product")


def take_all(pipeline: TemplateInductionPipeline, state: Any, pages: list[tuple[str, str]]) -> None:
    """The label takes ``pages`` as the crawl's items hold them."""
    for html, url in pages:
        pipeline._take(state, html, url)
