"""Items the extension adds to a crawl's output."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class PageItem:
    """One target page, emitted by the page-item spider middleware.

    The induction pipeline learns a page type's template from these and fills ``record``
    (one record per detail page) and ``records`` (the groups of a list page's main region).
    ``html`` is the decoded page; the pipeline may drop it before export
    (``PAGESIM_PAGE_ITEMS_KEEP_HTML``). ``relevance`` (with ``PAGESIM_QUERY``) and
    ``main_text`` (with a query or ``PAGESIM_MAIN_TEXT``) repeat the verdict's, so an export
    has them without digging into ``verdict``.
    """

    url: str
    label: str | None
    score: float
    verdict: dict[str, Any] = field(default_factory=dict)
    html: str | None = None
    record: dict[str, Any] | None = None
    records: list[dict[str, Any]] | None = None
    relevance: float | None = None
    main_text: str | None = None
