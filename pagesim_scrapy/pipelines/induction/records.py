"""The record a page item gets: its page's core record first, then its labelled rows, then
the induced fields kept (:func:`pagesim_scrapy.core.record.item_record`). Runs in the worker
thread."""

from __future__ import annotations

from typing import Any

from pagesim_scrapy.core.induce import parse_html
from pagesim_scrapy.core.induce.dom import Element
from pagesim_scrapy.core.record.item import ItemRecord, item_record
from pagesim_scrapy.core.record.rows import page_rows
from pagesim_scrapy.core.statefile import describe_error
from pagesim_scrapy.pipelines.induction.stores import logger


def page_tree(page: str | bytes | Element, url: str | None, structured: bool) -> Element | None:
    """The page's tree as the wrapper parses it (None when it cannot be parsed: the
    wrapper's extraction then says why)."""
    if not isinstance(page, (str, bytes)):
        return page
    try:
        return parse_html(page, structured=structured, base_url=url)
    except Exception:  # PageParseError, or lxml errors on a hostile page
        return None


def labelled_rows(root: Element | None, url: str | None) -> dict[str, Any]:
    """The page's own labelled rows; never raises (a failure loses the rows only)."""
    if root is None:
        return {}
    try:
        return dict(page_rows(root))
    except Exception as exc:  # a bug: the record keeps its other parts
        logger.warning("pagesim: no labelled rows for page item %s: %s", url, describe_error(exc))
        return {}


def compose_record(
    html: str | bytes,
    induced: dict[str, Any],
    url: str | None,
    rows: dict[str, Any] | None = None,
) -> ItemRecord:
    """The item's record from its page's HTML, its labelled rows and the wrapper's record.
    Never raises: a page whose structured data cannot be read keeps its other fields (with a
    WARNING)."""
    # the structured-data reader (extruct, rdflib) loads with the first page item
    from pagesim_scrapy.core.record.build import read_record

    try:
        core = read_record(html, url or "")
    except Exception as exc:  # the reader skips bad blocks itself: this is a bug
        logger.warning("pagesim: no core record for page item %s: %s", url, describe_error(exc))
        core = None
    return item_record(core, induced, url, rows)
