"""Export learned wrappers as web-poet page objects a project owns and runs without pagesim.

One page object class per label, one ``@field`` per field of pagesim's record for the page
(the core record first, then the wrapper's fields), each an XPath read with parsel. A field's
selector is searched around the node that holds its value on the label's example pages and
kept only when it gives pagesim's own value on every one of them; a field no candidate
reproduces is left out, with the reason, so the module never claims what it cannot do.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pagesim_scrapy.core.induce import PageParseError, Wrapper, parse_html
from pagesim_scrapy.core.record import item_record
from pagesim_scrapy.core.record.build import read_page
from pagesim_scrapy.core.record.landmarks import landmark_texts
from pagesim_scrapy.core.record.rows import page_rows
from pagesim_scrapy.poet.selectors import Selector, candidates, page_index

__all__ = [
    "ExamplePage",
    "ExportedField",
    "PageObjectSpec",
    "SkippedField",
    "class_name",
    "export_label",
    "exported_record",
    "reference_record",
]


@dataclass(frozen=True)
class ExamplePage:
    """A page of the label: its URL (any, used as the response's URL) and its bytes."""

    url: str
    body: bytes


@dataclass(frozen=True)
class ExportedField:
    name: str  # the field's name in pagesim's record
    attr: str  # the page object's field (``name`` unless that is not a usable identifier)
    selector: Selector


@dataclass(frozen=True)
class SkippedField:
    name: str
    reason: str


@dataclass
class PageObjectSpec:
    """What was exported for one label, and what could not be."""

    label: str | None
    class_name: str
    fields: list[ExportedField] = field(default_factory=list)
    skipped: list[SkippedField] = field(default_factory=list)
    pages: int = 0


def reference_record(wrapper: Wrapper, body: bytes, url: str | None = None) -> dict[str, Any]:
    """pagesim's record of a page as a crawl's induction pipeline gives it (the core record
    under its standard names, then the induced fields kept), links made absolute against
    ``url``: the page object is checked against what the next crawl will compare it with."""
    core, root = read_page(body, url or "")
    try:
        tree = parse_html(body, structured=wrapper.structured, base_url=url)
    except PageParseError:
        return item_record(core, wrapper.extract(body, url=url).record, url).record
    # the crawl's record reads the page's labelled rows and its header and footer too
    induced = wrapper.extract(tree, url=url).record
    return item_record(core, induced, url, page_rows(tree), landmark_texts(root), root).record


def exported_record(spec: PageObjectSpec, record: dict[str, Any]) -> dict[str, Any]:
    """The part of pagesim's ``record`` the page object returns, under its field names."""
    return {f.attr: record.get(f.name) for f in spec.fields}


def class_name(label: str | None) -> str:
    """``blog_post`` → ``BlogPostPage``."""
    words = re.findall(r"[A-Za-z0-9]+", label or "")
    base = "".join(w[:1].upper() + w[1:] for w in words) or "Layout"
    if base[0].isdigit():
        base = "Page" + base
    return base + "Page"


def _reserved() -> frozenset[str]:
    from web_poet import WebPage

    # the module's own names too: a field named ``field`` would shadow the decorator of
    # the fields after it in the class body
    return frozenset(dir(WebPage)) | {"to_item", "response", "page_params", "field", "re"}


def attribute_name(name: str, taken: set[str]) -> str:
    """A Python identifier for a record field that does not shadow ``WebPage``'s own names."""
    attr = re.sub(r"[^A-Za-z0-9_]", "_", name) or "field"
    if attr[0].isdigit():
        attr = "field_" + attr
    if keyword.iskeyword(attr) or attr in _reserved() or attr.startswith("_"):
        attr = attr.strip("_") + "_field"
    base, k = attr, 2
    while attr in taken:
        attr = f"{base}_{k}"
        k += 1
    taken.add(attr)
    return attr


def _responses(pages: Sequence[ExamplePage]) -> list[Any]:
    from web_poet import HttpResponse

    return [HttpResponse(p.url, p.body, headers={"Content-Type": "text/html"}) for p in pages]


def _why_not_text(values: list[Any]) -> str | None:
    """Why a field's values cannot be one selector's text, or None when they can."""
    present = [v for v in values if v not in (None, "", [], {})]
    if not present:
        return "no value on the example pages"
    if any(isinstance(v, list) for v in present):
        return "a list of values or of records (a repeated region): only single values are exported"
    if not all(isinstance(v, str) for v in present):
        return "not a text value"
    return None


def _first_valid(
    options: list[Selector], responses: list[Any], values: list[str | None]
) -> Selector | None:
    for selector in options:
        if all(selector.read(r) == v for r, v in zip(responses, values)):
            return selector
    return None


def _find_selector(
    responses: list[Any], indexes: list[Any], values: list[str | None]
) -> Selector | None:
    """Try the candidates built around the value on each page in turn (a page whose node
    has no usable anchor may be followed by one where it has)."""
    tried: set[Selector] = set()
    for index, value in zip(indexes, values):
        if value is None:
            continue
        options = [s for s in candidates(index, value) if s not in tried]
        found = _first_valid(options, responses, values)
        if found is not None:
            return found
        tried.update(options)
        if len(tried) > 120:
            break
    return None


def record_order(records: Sequence[dict[str, Any]]) -> list[str]:
    """The field names of several records in one order that each record's order agrees
    with: a name first seen on a later page goes right after the name before it there, so
    a field's repeat check reads the fields the record put before it."""
    order: list[str] = []
    for record in records:
        at = 0
        for name in record:
            if name in order:
                at = order.index(name) + 1
            else:
                order.insert(at, name)
                at += 1
    return order


def _with_repeat_checks(
    selector: Selector, spec: PageObjectSpec, responses: list[Any], values: list[str | None]
) -> Selector:
    """The selector with the record's repeat drops (a value an earlier field holds, a link
    the page holds elsewhere), the strictest that still gives pagesim's value on every
    example page: a page object then leaves out, on a new page, what the record leaves out
    there."""
    earlier = tuple((f.selector.query, f.selector.how) for f in spec.fields)
    found = _first_valid(selector.guarded(earlier), responses, values)
    return found or selector


def export_label(wrapper: Wrapper, pages: Sequence[ExamplePage]) -> PageObjectSpec:
    """The page object of the wrapper's label, its selectors checked on ``pages`` (pages the
    wrapper does not fit are left out of the check: they have no record to reproduce)."""
    spec = PageObjectSpec(wrapper.label, class_name(wrapper.label))
    fitting = [p for p in pages if wrapper.extract(p.body).ok]
    spec.pages = len(fitting)
    if not fitting:
        return spec
    records = [reference_record(wrapper, p.body, p.url) for p in fitting]
    responses = _responses(fitting)
    indexes = [page_index(r.selector.root, str(r.url)) for r in responses]
    names = record_order(records)
    taken: set[str] = set()
    for name in names:
        values = [rec.get(name) for rec in records]
        reason = _why_not_text(values)
        if reason is None:
            texts = [v or None for v in values]
            selector = _find_selector(responses, indexes, texts)
            if selector is not None:
                selector = _with_repeat_checks(selector, spec, responses, texts)
                spec.fields.append(ExportedField(name, attribute_name(name, taken), selector))
                continue
            reason = "no robust selector gives pagesim's value on every example page"
        spec.skipped.append(SkippedField(name, reason))
    return spec
