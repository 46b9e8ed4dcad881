"""The record a page item gets: its page's core record first, then the induced fields kept
(:func:`pagesim_scrapy.core.record.item_record`). Runs in the worker thread."""

from __future__ import annotations

from typing import Any

from pagesim_scrapy.core.record import ItemRecord, item_record, read_record
from pagesim_scrapy.core.statefile import describe_error
from pagesim_scrapy.pipelines.induction.stores import logger


def compose_record(html: str | bytes, induced: dict[str, Any], url: str | None) -> ItemRecord:
    """The item's record from its page's HTML and the wrapper's record. Never raises: a page
    whose structured data cannot be read keeps its induced fields (with a WARNING)."""
    try:
        core = read_record(html, url or "")
    except Exception as exc:  # the reader skips bad blocks itself: this is a bug
        logger.warning("pagesim: no core record for page item %s: %s", url, describe_error(exc))
        core = None
    return item_record(core, induced, url)
