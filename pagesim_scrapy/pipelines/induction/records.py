"""The record a page item gets: its page's core record first, then its labelled rows, then
the induced fields kept (:func:`pagesim_scrapy.core.record.item_record`). Runs in the worker
thread. The core record's gaps are filled from the body fields the site's own metadata
names on its other pages of the label (:class:`pagesim_scrapy.core.record.naming.BodyNaming`,
one per label and site, learned from the label's kept pages in canonical order: :mod:`.naming`).
A plain page is typed as the records that naming learned from mostly are
(:func:`~pagesim_scrapy.core.record.build.typed_by_label`): the site says what its label's
pages are where one page alone cannot."""

from __future__ import annotations

from typing import Any

from pagesim_scrapy.core.induce import parse_html
from pagesim_scrapy.core.induce.dom import Element, forget_page
from pagesim_scrapy.core.record.item import ItemRecord, item_record
from pagesim_scrapy.core.record.landmarks import LandmarkTexts, landmark_texts
from pagesim_scrapy.core.record.model import CoreRecord
from pagesim_scrapy.core.record.naming import BodyNaming
from pagesim_scrapy.core.record.rows import page_rows
from pagesim_scrapy.core.statefile import describe_error
from pagesim_scrapy.pipelines.induction.naming import PageRead, body_naming
from pagesim_scrapy.pipelines.induction.stores import logger

# the namings moved to :mod:`.naming`; the names stay importable from here
__all__ = [
    "body_naming",
    "compose_record",
    "label_type_of",
    "labelled_rows",
    "page_tree",
    "site_chrome_texts",
]


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


def _filled(
    core: CoreRecord,
    root: Any,
    url: str | None,
    naming: BodyNaming,
    every_field: dict[str, str] | None = None,
) -> CoreRecord:
    """``core`` after the page taught ``naming`` (only while it still learns as pages come:
    :mod:`.naming`) and took from its body what its metadata lacks; ``core`` itself if that
    fails (logged: a bug, the record keeps its metadata). ``every_field``: the page's body
    fields, all of them, read already (the wanted ones are what reading them alone gives)."""
    try:
        wanted = naming.wanted()
        body = _body(root, url, wanted, every_field)
        naming.observe(core, body)
        if wanted is not None:
            body = _with_anchors(core, root, url, naming, (body, every_field))
        from pagesim_scrapy.core.record.build import fill_from_body

        return fill_from_body(naming, core, body, root)
    except Exception as exc:
        logger.warning("pagesim: no body fields for page item %s: %s", url, describe_error(exc))
        return core


def _with_anchors(
    core: CoreRecord,
    root: Any,
    url: str | None,
    naming: BodyNaming,
    read: tuple[dict[str, str], dict[str, str] | None],
) -> dict[str, str]:
    """The wanted body fields, and where the page lacks a name's learned keys, the fields
    near their anchors (an anchored naming reads a slot one element deeper or nested
    elsewhere): a settled label reads its learned keys only, so it would never find them.
    Only those elements are read, not the whole page (from ``every_field`` if read)."""
    body, every_field = read
    steps = naming.missing_anchors(core, body)
    if not steps:
        return body
    if every_field is not None:
        return every_field
    from pagesim_scrapy.core.record.bodyfields import anchor_fields

    return {**body, **anchor_fields(root, url or "", steps, naming.options.anchor_depth)}


def _body(
    root: Any, url: str | None, wanted: frozenset[str] | None, every_field: dict[str, str] | None
) -> dict[str, str]:
    """The page's ``wanted`` body fields (every one for None), from ``every_field`` if read."""
    if every_field is None:
        from pagesim_scrapy.core.record.bodyfields import body_fields

        return body_fields(root, url or "", wanted)
    if wanted is None:
        return every_field
    return {key: value for key, value in every_field.items() if key in wanted}


def compose_record(
    html: str | bytes,
    induced: dict[str, Any],
    url: str | None,
    rows: dict[str, Any] | None = None,
    naming: BodyNaming | None = None,
    read: PageRead | None = None,
) -> ItemRecord:
    """The item's record from its page's HTML, its labelled rows and the wrapper's record;
    with ``naming``, the page teaches it and its core record's gaps are filled from the body.
    ``read`` is what the record reader gave for the page already (the naming learned from
    it): the page is not read again. Never raises: a page whose structured data cannot be
    read keeps its other fields (with a WARNING)."""
    core, root, every_field = read if read is not None else (*_read_page(html, url), None)
    if core is not None and naming is not None:
        core = _typed(core, root, url, naming)
        core = _filled(core, root, url, naming, every_field)
    record = item_record(core, induced, url, rows, site_chrome_texts(root, url), root)
    forget_page()  # the page's trees and element lists are not needed past its record
    return record


def label_type_of(naming: BodyNaming) -> str | None:
    """The page type most of the records ``naming`` learned from have, once it learns no
    more (None while it learns as pages come: which pages it saw would depend on their
    order, and so would the records)."""
    from pagesim_scrapy.core.record.build import label_type

    if naming.learning:
        return None
    return label_type(naming.type_counts())


def _typed(core: CoreRecord, root: Any, url: str | None, naming: BodyNaming) -> CoreRecord:
    """``core`` typed as its label's records mostly are; ``core`` itself if that fails
    (logged: a bug, the record keeps the type guessed from the page alone)."""
    from pagesim_scrapy.core.record.build import typed_by_label

    try:
        return typed_by_label(core, root, label_type_of(naming))
    except Exception as exc:
        logger.warning("pagesim: no label type for page item %s: %s", url, describe_error(exc))
        return core


def _read_page(html: str | bytes, url: str | None) -> tuple[CoreRecord | None, Any]:
    """The page's core record and the tree it was read from; (None, None) on a bug (logged)."""
    # the structured-data reader (extruct, rdflib) loads with the first page item
    from pagesim_scrapy.core.record.build import read_page

    try:
        return read_page(html, url or "")
    except Exception as exc:  # the reader skips bad blocks itself: this is a bug
        logger.warning("pagesim: no core record for page item %s: %s", url, describe_error(exc))
        return None, None


def site_chrome_texts(root: Any, url: str | None) -> LandmarkTexts:
    """What only the page's header and footer show; never raises (a failure keeps them)."""
    try:
        return landmark_texts(root)
    except Exception as exc:  # a bug: the record keeps the header's and footer's fields
        logger.warning("pagesim: no site chrome for page item %s: %s", url, describe_error(exc))
        return LandmarkTexts()
