"""Find robust XPath selectors for a field's values, and the reader the exported code uses.

A candidate is built around the node that holds a field's value on an example page, anchored
on what survives a change of the page's content: stable attributes (``id``, ``itemprop``,
``property``…), class tokens, the text of a label beside it or of a heading before it, an
anchored ancestor. Never a positional path through the tree: a selector that counts siblings
breaks on the next page with one more paragraph. The caller keeps a candidate only when it
gives pagesim's own value on every example page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any, TypeGuard
from urllib.parse import urljoin

from lxml import etree

from pagesim_scrapy.core.induce.dom import URL_ATTRS
from pagesim_scrapy.core.record import tidy

__all__ = ["RUNTIME_SOURCE", "Selector", "candidates", "page_index", "read_value"]

#: The reader of the exported module, exec'd here too so that validation runs the same code.
#: ``_kept`` leaves out what the record leaves out by the value's shape alone (the patterns
#: are the record's own, :mod:`pagesim_scrapy.core.record.tidy`), so a page object does not
#: return a counter, a section heading with its count, a share link or script text on a
#: page where pagesim's record has no such field.
_RUNTIME_TEMPLATE = '''
import re

_FOLDED_CHROME = re.compile(FOLDED_PATTERN)
_RAW_CHROME = re.compile(RAW_PATTERN)


def _kept(text):
    """The text, or None when pagesim's record leaves such a value out as chrome."""
    folded = text.casefold()
    if folded == "#" or _FOLDED_CHROME.match(folded) or _RAW_CHROME.search(text):
        return None
    return text


def _clean(raw):
    """Whitespace collapsed, None when blank or chrome (as pagesim cleans the values it
    extracts)."""
    text = " ".join(raw.split()) if raw else ""
    return _kept(text) if text else None


def _value(page, query, how):
    """The value of the first node the XPath query selects: its text pieces joined with
    spaces ("words"), its string value ("string"), an attribute or text node ("value"), or a
    link attribute made absolute against the page's URL ("link")."""
    found = page.xpath(query)
    if not found:
        return None
    node = found[0]
    if how == "words":
        return _clean(" ".join(node.xpath(".//text()").getall()))
    if how == "string":
        return _clean(node.xpath("string()").get())
    value = _clean(node.root if isinstance(node.root, str) else node.get())
    if how == "link" and value:
        return _clean(str(page.urljoin(value)))
    return value


def _repeats(page, value, earlier):
    """Whether an earlier field of the record reads the same value (pagesim keeps a value
    once, under its first name)."""
    folded = value.casefold()
    for query, how in earlier:
        other = _value(page, query, how)
        if other is not None and other.casefold() == folded:
            return True
    return False


def _elsewhere(page, value):
    """Whether the URL is also a linked picture's (a card of another product) or a meta
    value of the page (its og:image): pagesim's record holds it there already."""
    held = page.xpath("//a[@href]//img/@src | //meta/@content").getall()
    return any(str(page.urljoin(link.strip())) == value for link in held if link.strip())


def _read(page, query, how, earlier=(), elsewhere=False):
    """The field's value (see ``_value``), or None where pagesim's record leaves it out as
    a repeat: of an ``earlier`` field's value, or (``elsewhere``) of a link the page holds
    in another place too (a linked picture, a meta value)."""
    value = _value(page, query, how)
    if value is None:
        return None
    if earlier and _repeats(page, value, earlier):
        return None
    if elsewhere and _elsewhere(page, value):
        return None
    return value
'''
_FOLDED, _RAW = tidy.shape_chrome_patterns()
RUNTIME_SOURCE = _RUNTIME_TEMPLATE.replace("FOLDED_PATTERN", repr(_FOLDED)).replace(
    "RAW_PATTERN", repr(_RAW)
)

_RUNTIME: dict[str, Any] = {}
exec(compile(RUNTIME_SOURCE, "<pagesim export runtime>", "exec"), _RUNTIME)
read_value: Callable[..., str | None] = _RUNTIME["_read"]
clean: Callable[[str | None], str | None] = _RUNTIME["_clean"]

#: Attributes that name what an element is, most telling first.
NAMING_ATTRS = ("id", "itemprop", "property", "name", "rel", "data-testid", "role", "type")
#: Attributes whose value may itself be a field's value.
VALUE_ATTRS = ("content", "href", "src", "alt", "title", "datetime", "value")
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
LABEL_TAGS = ("th", "dt", "label", "strong", "b", "span", "div", "td", "h3", "h4", "p")
#: A label or heading longer than this is content, not a label.
MAX_LABEL_CHARS = 60
#: How far up an anchored ancestor is looked for.
MAX_ANCESTORS = 6
#: Candidates tried per value node.
MAX_CANDIDATES = 40

_VOLATILE = re.compile(r"\d{4,}|[0-9a-f]{8,}|^css-|^sc-|^jsx-|^ember\d|__[a-zA-Z0-9]{5}$")


@dataclass(frozen=True)
class Selector:
    """An XPath query and how its first node is read (see ``RUNTIME_SOURCE``)."""

    query: str
    how: str  # "words", "string", "value" or "link"
    anchor: str  # what the selector is anchored on, for the reader of the module
    #: the (query, how) of the fields before it in the record: a value one of them reads
    #: is a repeat, left out as the record leaves it out
    earlier: tuple[tuple[str, str], ...] = ()
    #: a link left out where the page holds the same URL in another place too
    elsewhere: bool = False

    def read(self, page: Any) -> str | None:
        return read_value(page, self.query, self.how, self.earlier, self.elsewhere)

    def guarded(self, earlier: tuple[tuple[str, str], ...]) -> list[Selector]:
        """This selector with the record's repeat checks, strictest first."""
        options = [replace(self, earlier=earlier)] if earlier else []
        if self.how in ("link", "value"):
            options.insert(0, replace(self, earlier=earlier, elsewhere=True))
        return options


def literal(text: str) -> str:
    """An XPath string literal for any text."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    parts = text.split("'")
    return "concat(" + ', "\'", '.join(f"'{p}'" for p in parts) + ")"


def _stable(value: str) -> bool:
    return 0 < len(value) <= 60 and not _VOLATILE.search(value) and "\n" not in value


def _class_pred(token: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {token} ')"


def _preds(el: etree._Element) -> list[tuple[str, str]]:
    """Predicates that pick the element by what it is: (predicate, anchor kind)."""
    out: list[tuple[str, str]] = []
    for attr in NAMING_ATTRS:
        value = el.get(attr)
        if value and _stable(value) and "'" not in value:
            out.append((f"@{attr}={literal(value)}", attr))
    for token in (el.get("class") or "").split():
        if _stable(token) and token.isascii() and "'" not in token:
            out.append((_class_pred(token), "class"))
    return out


def _words(el: etree._Element) -> str | None:
    return clean(" ".join(el.itertext()))


def _string(el: etree._Element) -> str | None:
    return clean("".join(el.itertext()))


@dataclass
class PageIndex:
    """Where each cleaned value sits on one page: (element, how, attribute or text index)."""

    hits: dict[str, list[tuple[etree._Element, str, str]]]


def page_index(root: etree._Element, base_url: str = "") -> PageIndex:
    """Every value of the page (and, with ``base_url``, its links made absolute, as pagesim's
    record holds them) with the nodes that hold it."""
    hits: dict[str, list[tuple[etree._Element, str, str]]] = {}

    def add(value: str | None, el: etree._Element, how: str, extra: str = "") -> None:
        if value:
            hits.setdefault(value, []).append((el, how, extra))

    for el in root.iter():
        if not isinstance(el.tag, str) or el.tag in ("script", "style"):
            continue
        for attr in VALUE_ATTRS:
            add(clean(el.get(attr)), el, "value", attr)
        if base_url:
            for attr in URL_ATTRS.get(el.tag, ()):
                add(_absolute(base_url, el.get(attr)), el, "link", attr)
        words = _words(el)
        add(words, el, "words")
        string = _string(el)
        if string != words:
            add(string, el, "string")
        texts = [t for t in el.xpath("text()") if t.strip()]
        for k, text in enumerate(texts, start=1):
            add(clean(text), el, "text", str(k))
    return PageIndex(hits)


def _absolute(base_url: str, value: str | None) -> str | None:
    """A relative link made absolute (None for an absolute one: its plain value is indexed)."""
    value = clean(value)
    if not value or value.startswith(("#", "data:", "javascript:", "mailto:", "tel:")):
        return None
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", value):
        return None
    try:
        return urljoin(base_url, value)
    except ValueError:
        return None


def _is_label(text: str | None) -> TypeGuard[str]:
    """Words of a label or heading, not a value (a count, a date) that changes by page."""
    return bool(text) and len(text or "") <= MAX_LABEL_CHARS and not re.search(r"\d", text or "")


def _step(el: etree._Element) -> str:
    return el.tag if isinstance(el.tag, str) else "*"


def _node_queries(el: etree._Element) -> Iterator[tuple[str, str]]:
    """XPath queries for the element itself, most robust first: (query, anchor)."""
    tag = _step(el)
    preds = _preds(el)
    for pred, kind in preds:
        if kind != "class":
            yield f"//{tag}[{pred}]", kind
    yield from _label_queries(el)
    for pred, kind in preds:
        if kind == "class":
            yield f"//{tag}[{pred}]", kind
    yield from _ancestor_queries(el, preds)


def _label_queries(el: etree._Element) -> Iterator[tuple[str, str]]:
    """Anchored on a short label just before the element ("Price" | £3) or on a heading
    before it or before one of its ancestors."""
    tag = _step(el)
    prev = el.getprevious()
    while prev is not None and not isinstance(prev.tag, str):
        prev = prev.getprevious()
    if prev is not None and prev.tag in LABEL_TAGS:
        text = _string(prev)
        if _is_label(text):
            yield (
                f"//{prev.tag}[normalize-space()={literal(text)}]/following-sibling::{tag}[1]",
                "label",
            )
    node, path = el, ""
    for _ in range(3):
        for sib in node.itersiblings(preceding=True):
            if isinstance(sib.tag, str) and sib.tag in HEADINGS:
                text = _string(sib)
                if _is_label(text):
                    first = f"following-sibling::{_step(node)}[1]"
                    yield (
                        f"//{sib.tag}[normalize-space()={literal(text)}]/{first}{path}",
                        "heading",
                    )
                break
        parent = node.getparent()
        if parent is None:
            break
        path = path or f"//{tag}"
        node = parent


def _ancestor_queries(
    el: etree._Element, preds: list[tuple[str, str]]
) -> Iterator[tuple[str, str]]:
    tag = _step(el)
    own = [f"{tag}[{pred}]" for pred, _ in preds[:3]] + [tag]
    chain = [tag]
    anc = el.getparent()
    for _ in range(MAX_ANCESTORS):
        if anc is None or not isinstance(anc.tag, str) or anc.tag in ("html", "body"):
            return
        for pred, kind in _preds(anc):
            base = f"//{anc.tag}[{pred}]"
            yield f"{base}/{'/'.join(chain)}", f"ancestor {kind}"
            for step in own:
                yield f"{base}//{step}", f"ancestor {kind}"
        chain.insert(0, anc.tag)
        anc = anc.getparent()


def candidates(index: PageIndex, value: str) -> list[Selector]:
    """Selectors that read ``value`` from the page of ``index``, most robust first (not yet
    checked on any page)."""
    out: list[Selector] = []
    seen: set[tuple[str, str]] = set()
    for el, how, extra in index.hits.get(value, ())[:8]:
        for query, anchor in _node_queries(el):
            if how in ("value", "link"):
                key = (f"{query}/@{extra}", how)
            elif how == "text":
                key = (f"{query}/text()[normalize-space()][{extra}]", "value")
            else:
                key = (query, how)
            if key not in seen:
                seen.add(key)
                out.append(Selector(key[0], key[1], anchor))
    out.sort(key=_rank)
    return out[:MAX_CANDIDATES]


#: The order anchors are tried in: names a site gives on purpose before layout classes.
_ANCHOR_RANK = {
    "id": 0,
    "itemprop": 0,
    "property": 0,
    "name": 1,
    "rel": 1,
    "data-testid": 1,
    "label": 2,
    "heading": 2,
    "class": 3,
}


def _rank(selector: Selector) -> tuple[int, int]:
    anchor = selector.anchor
    if anchor.startswith("ancestor "):
        return (4 + _ANCHOR_RANK.get(anchor[9:], 4), len(selector.query))
    return (_ANCHOR_RANK.get(anchor, 4), len(selector.query))
