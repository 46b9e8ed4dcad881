"""Label–value rows: fields named after a constant label, matched by that label on each page.

Detail pages carry much of their data in labelled rows whose order and presence vary from
page to page (optional rows shift the positions of the others), so a row is found by its
*label*, not by its place in the tree. The common forms are recognised anywhere in the body,
sections and tabs included:

* ``<dt>Label</dt><dd>value</dd>`` (several ``<dd>`` join),
* ``<tr><th>Label</th><td>value</td></tr>`` and two-cell rows ``<td>Label</td><td>value</td>``,
* a short label element followed by the value in the same parent:
  ``<li><strong>ISBN-13</strong>: 978…</li>``, ``<b>Vendor:</b> X<br><b>Date:</b> Y<br>``,
  ``<div><span class="label">Prep</span><span>10 min</span></div>``,
* ``Label: value`` in one text (a ``<p>``, a ``<li>``, a part between ``<br>``).

Learning counts, per normalised label, on how many pages it was found, whether it recurs
within a page (then it belongs to a list of records, not to the page), sample values, and how
its value is shaped (a run of links, a separated list). Compiling keeps the labels found on
enough pages whose values vary (constant rows are template) — a label found on only some
pages is an optional field — and decides each field's grain: one string, or a list when the
value is a run of links or a separated list whose number of parts varies between pages.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pagesim_scrapy.core.induce.dom import (
    INLINE_TAGS,
    LEAF_TAGS,
    Element,
    body_elements,
    clean_text,
    page_memo,
)
from pagesim_scrapy.core.induce.naming import kept_name, telling_class
from pagesim_scrapy.core.induce.structured import JSONLD_TAG

__all__ = [
    "LabelField",
    "LabelStats",
    "Row",
    "compile_labels",
    "extract_labels",
    "find_rows",
    "label_key",
    "row_value",
]

#: A label is at most this long, in characters and in words.
MAX_LABEL_CHARS = 40
MAX_LABEL_WORDS = 6
#: A value next to an explicit label (``dt``/``th``/a colon) is at most this long …
MAX_VALUE_CHARS = 600
#: … and next to a label that is only a short element before it, at most this long (a
#: heading followed by a whole section is a section, not a row).
MAX_LOOSE_VALUE_CHARS = 160
#: Distinct labels tracked per wrapper (pages full of small labelled widgets stay bounded).
MAX_LABELS = 400
#: Distinct values kept per label.
MAX_SAMPLES = 3
SAMPLE_CHARS = 160
#: Link texts must cover this share of a value for it to be a run of links.
LINK_COVER = 0.7
#: A part of a separated list is at most this long.
MAX_PART_CHARS = 60

#: Elements that can carry a label before a value in the same parent.
_LABEL_TAGS = frozenset(
    {
        "b", "strong", "em", "i", "u", "span", "label", "dfn", "small", "div", "p", "h2",
        "h3", "h4", "h5", "h6", "dt", "th", "abbr", "font", "bdi",
    }
)  # fmt: skip
#: Containers that hold rows themselves but are never one row.
_NOT_ROWS = frozenset(
    {"table", "tbody", "thead", "tfoot", "dl", "ul", "ol", "select", "html", "head", "body"}
)
_BREAKS = frozenset({"br", "hr"})
_SEPARATORS = ":：-–—|•·=>"
_COLON = re.compile(r"^([^:：]{1,%d}?)\s*[:：]\s*(\S.*)$" % MAX_LABEL_CHARS, re.S)  # noqa: UP031
_LIST_SEPARATORS = (" / ", " | ", "; ", " · ", " • ", ", ")
_AND = re.compile(r"\s+(?:and|&|und|et|y|e|en|og|och)\s+", re.I)
_TIME_LIKE = re.compile(r"^\d{1,2}[:.]\d{2}")
#: Between two pairs in one text: "Serves: 4 | Total Time: 35 minutes".
_PAIR_SEPARATOR = re.compile(r"\s+[|•·]\s+|\s*;\s+")


@dataclass
class Row:
    """One label–value row found on a page."""

    label: str  # as shown, without its separator
    value: str  # the value's text without label and separator
    text: str  # the whole row as shown ("ISBN-13: 978…")
    links: list[str]  # texts of the links in the value, in order
    link_chars: int  # characters of the value inside links
    #: dt/th/colon: the page says this is a label of its own (never a row inside one
    #: record of a list the page repeats: :func:`_in_record_of_list`)
    explicit: bool
    #: inside the page's navigation, site header, footer or aside (site chrome)
    chrome: bool = False
    #: inside one record of a list the page repeats (a review among reviews): that
    #: record's part, whose label is template text of the list, not a name of the page's
    listed: bool = False


def label_key(label: str) -> str:
    """The form labels are matched in: case-folded, whitespace and trailing marks removed."""
    text = clean_text(label).strip("*:：-–—|•· \u00a0").casefold()
    return " ".join(text.split())


def _is_label(text: str) -> bool:
    if not text or len(text) > MAX_LABEL_CHARS or len(text.split()) > MAX_LABEL_WORDS:
        return False
    letters = sum(map(str.isalpha, text))
    if letters < 2 or letters < len(text) / 3:
        return False  # "£3.00", "4.5 / 5", "12"
    return not text.startswith(("http", "www.", "©"))


def _strip_label(text: str) -> str:
    return clean_text(text).rstrip(" :：*\u00a0").strip()


def _strip_value(text: str) -> str:
    text = clean_text(text)
    while text and text[0] in _SEPARATORS and not _TIME_LIKE.match(text):
        text = text[1:].lstrip()
    return text


def _text(el: Element) -> str:
    """The element's cleaned text (its screen-reader copies once); read once per element
    while a page's rows are read (a label element is read as a label, then for its colon)."""
    texts: dict[Element, str] | None = getattr(_PAGE, "texts", None)
    if texts is None:
        return _read_text(el)
    text = texts.get(el)
    if text is None:
        text = texts[el] = _read_text(el)
    return text


def _read_text(el: Element) -> str:
    if el.tag in LEAF_TAGS:
        return ""
    copies: set[Element] | None = getattr(_PAGE, "copies", None)
    if (el not in copies) if copies is not None else not _has_reader_copy(el):
        return clean_text(" ".join(el.itertext()))
    return clean_text(" ".join(_shown_once(el)))


#: Per thread, while :func:`find_rows` reads a page: the elements whose subtree holds a
#: screen-reader copy (found once per page instead of once per text read).
_PAGE = threading.local()

#: Elements that hold a screen-reader copy of a text shown beside it.
_READER_COPY_TAGS = ("span", "div", "p", "strong", "b", "em", "small", "label")
_READER_CLASSES = frozenset(
    {"sr-only", "screen-reader-text", "visually-hidden", "visuallyhidden", "a-offscreen"}
)
_READER_HINT = re.compile("only|reader|visually|offscreen")


def _reader_only(el: Element) -> bool:
    classes = el.get("class") or ""
    if not _READER_HINT.search(classes):
        return False  # (every reader-only class holds one of these words)
    return any(c in _READER_CLASSES for c in classes.split())


def _has_reader_copy(el: Element) -> bool:
    return any(
        _reader_only(sub) for sub in el.iter(*_READER_COPY_TAGS) if sub.get("class") is not None
    )


def _shown_once(el: Element) -> list[str]:
    """The texts of an element, each once: beside a screen-reader copy (``a-offscreen``,
    ``sr-only``), the copy drawn for the eye (``aria-hidden="true"``, often cut short:
    "Ships…") is skipped, so "Sold by" is not read as "Sold by Sold by". (Iterative: pages
    nest deeper than Python's recursion limit.)"""
    copies: set[Element] | None = getattr(_PAGE, "copies", None)
    out: list[str] = []
    stack: list[Element | str] = [el]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
            continue
        if node.text:
            out.append(node.text)
        reader = any(isinstance(c.tag, str) and _reader_only(c) for c in node)
        pending: list[Element | str] = []
        for child in node:
            drawn_copy = reader and child.get("aria-hidden") == "true"
            if isinstance(child.tag, str) and child.tag not in LEAF_TAGS and not drawn_copy:
                if copies is not None and child not in copies:
                    pending.append(" ".join(child.itertext()))  # no copy below: plain texts
                else:
                    pending.append(child)
            if child.tail:
                pending.append(child.tail)
        stack.extend(reversed(pending))
    return out


def _links(nodes: Iterable[Element | str]) -> tuple[list[str], int]:
    texts: list[str] = []
    chars = 0
    for node in nodes:
        if isinstance(node, str):
            continue
        anchors = [node] if node.tag == "a" else list(node.iter("a"))
        for a in anchors:
            text = _text(a)
            if text:
                texts.append(text)
                chars += len(text)
    return texts, chars


def _nodes_text(nodes: Iterable[Element | str]) -> str:
    parts = []
    for node in nodes:
        if isinstance(node, str):
            parts.append(node)
        else:
            parts.append(_text(node))
    return clean_text(" ".join(parts))


def _is_inline_only(el: Element) -> bool:
    return all(sub.tag in INLINE_TAGS or sub.tag == "a" for sub in el.iterdescendants())


def _label_element(el: Element) -> str | None:
    """The label an element shows, when it is a small leaf-like element holding only one."""
    if el.tag not in _LABEL_TAGS or not _is_inline_only(el):
        return None
    if any(True for _ in el.iter("a")):
        return None  # a link is navigation or a value, not a label
    text = _text(el)
    label = _strip_label(text)
    if ":" in label or "：" in label:
        return None  # "Label: value" itself, found at its own level
    return label if _is_label(label) else None


def _segments(el: Element) -> Iterator[list[Element | str]]:
    """The element's content as lists of nodes (text pieces and child elements) split at
    ``<br>``/``<hr>`` elements."""
    seg: list[Element | str] = []
    if el.text and el.text.strip():
        seg.append(el.text)
    for child in el:
        if not isinstance(child.tag, str):
            pass
        elif child.tag in _BREAKS:
            if seg:
                yield seg
            seg = []
        else:
            seg.append(child)
        if child.tail and child.tail.strip():
            seg.append(child.tail)
    if seg:
        yield seg


def _row(
    label: str, nodes: list[Element | str], whole: str | list[Element | str], explicit: bool
) -> Row | None:
    """The row of ``label`` and its value ``nodes``; ``whole`` is the row's text, or the
    segment that holds it (read only for a row: most segments are none). The label is
    checked first: a text that is no label spares reading the value."""
    if not _is_label(label):
        return None
    value = _strip_value(_nodes_text(nodes))
    limit = MAX_VALUE_CHARS if explicit else MAX_LOOSE_VALUE_CHARS
    if not value or len(value) > limit:
        return None
    if label_key(label) == value.casefold():
        return None
    links, chars = _links(nodes)
    text = whole if isinstance(whole, str) else _nodes_text(whole)
    return Row(label, value, text, links, chars, explicit)


def _rows_of_segment(seg: list[Element | str], siblings_alike: bool) -> Row | None:
    first = seg[0]
    if isinstance(first, str):
        # "Label: value" in one text, or a text label before an element ("Serves <b>4</b>")
        match = _COLON.match(clean_text(first))
        if match:
            rest: list[Element | str] = [match.group(2), *seg[1:]]
            return _row(_strip_label(match.group(1)), rest, seg, True)
        return None
    if len(seg) < 2 and first.tag not in INLINE_TAGS:
        return None  # an element alone: no row whatever its label (read below)
    label = _label_element(first)
    if label is None or len(seg) < 2:
        if label is None and first.tag in INLINE_TAGS and len(seg) >= 1:
            # "<b>Label: value</b>" or "<strong>ISBN:</strong>978" both end up here
            match = _COLON.match(_text(first))
            if match and _is_inline_only(first):
                tail = [match.group(2), *seg[1:]]
                return _row(_strip_label(match.group(1)), tail, seg, True)
        return None
    rest = seg[1:]
    if siblings_alike and len(seg) > 2:
        return None  # a list of alike items, not a label and its value
    raw = _text(first)
    explicit = raw.rstrip().endswith((":", "：")) or first.tag in INLINE_TAGS
    return _row(label, rest, seg, explicit)


def _explicit_label(node: Element | str) -> bool:
    """An inline element holding a label that ends with a colon ("<b>Serves:</b>")."""
    if isinstance(node, str) or (node.tag not in INLINE_TAGS and node.tag != "span"):
        return False
    return _label_element(node) is not None and _text(node).endswith((":", "："))


def _split_at_labels(seg: list[Element | str]) -> list[list[Element | str]]:
    """Several rows without ``<br>`` between them (``<b>Serves:</b> 4 <b>Time:</b> 1 h``):
    the segment split before each colon label after the first."""
    if len(seg) < 4 or not _explicit_label(seg[0]):
        return [seg]
    out: list[list[Element | str]] = [[seg[0]]]
    for node in seg[1:]:
        if _explicit_label(node) and len(out[-1]) >= 2:
            out.append([node])
        else:
            out[-1].append(node)
    return out


def _split_pairs(row: Row) -> list[Row]:
    """A text holding several pairs ("Serves: 4 | Total Time: 35 minutes"): one row per
    pair, each split at a separator followed by another "Label:"."""
    if row.links or not _PAIR_SEPARATOR.search(row.value):
        return [row]
    parts = _PAIR_SEPARATOR.split(row.value)
    out = [parts[0]]
    for part in parts[1:]:
        match = _COLON.match(part)
        if match and _is_label(_strip_label(match.group(1))) and not _TIME_LIKE.match(part):
            out.append(part)
        else:
            out[-1] += " | " + part  # not a pair: the separator was part of the value
    if len(out) == 1:
        return [row]
    rows = [Row(row.label, out[0].strip(), f"{row.label}: {out[0].strip()}", [], 0, True)]
    for part in out[1:]:
        match = _COLON.match(part)
        assert match is not None
        label, value = _strip_label(match.group(1)), _strip_value(match.group(2))
        if value:
            rows.append(Row(label, value, clean_text(part), [], 0, True))
    return rows


def find_rows(root: Element) -> list[Row]:
    """Every label–value row of a page's body, in document order (the JSON-LD subtree and
    head excluded). Read once per page (learning and extraction share it)."""
    return list(page_memo(root, "label_rows", _read_rows, keep=True))


def _read_rows(root: Element) -> list[Row]:
    body, preorder = body_elements(root)
    copies: set[Element] = set()
    for el in preorder:
        if el.get("class") is not None and _reader_only(el):
            copies.update(el.iterancestors())
    _PAGE.copies, _PAGE.texts = copies, {}
    try:
        return _find_rows(body, preorder)
    finally:
        _PAGE.copies = _PAGE.texts = None


def _find_rows(body: Element, preorder: list[Element]) -> list[Row]:
    rows: list[tuple[int, Row]] = []
    used: set[Element] = set()  # label elements and row containers already read
    # descendants before their ancestors: a row is read at its own level, never again above
    for k in range(len(preorder) - 1, -1, -1):
        el = preorder[k]
        tag = el.tag
        if tag == JSONLD_TAG or tag in LEAF_TAGS or not isinstance(tag, str):
            continue
        if tag == "dl":
            rows.extend((k, r) for r in _definition_rows(el, used))
            continue
        if tag == "tr":
            _read_table_row(el, k, rows, used)
            continue
        if tag in _NOT_ROWS:
            continue
        if not len(el) and not (el.text and not el.text.isspace()):
            continue  # an empty leaf (an image, a blank cell) holds no row
        if _holds_no_row(el) or not used.isdisjoint(el):  # (or a child holds a row already)
            continue
        if _element_rows(el, k, rows):
            used.add(el)
    rows.sort(key=lambda kv: kv[0])
    chrome: dict[Element, bool] = {}
    items: dict[Element, bool] = {}
    out = []
    for k, row in rows:
        if _in_chrome(preorder[k], body, chrome):
            row.chrome = True
        if _in_record_of_list(preorder[k], body, row, items):
            row.listed, row.explicit = True, False
        out.append(row)
    return out


def _in_record_of_list(
    el: Element, body: Element, row: Row, items: dict[Element, bool] | None = None
) -> bool:
    """Whether the row read at ``el`` is a part of one record of a list the page repeats
    (:func:`_list_item`) that holds more than the row (a spec list's item that is the row
    alone is no record). A label in every record of a list ("Reply from <shop>" under each
    review) names a part of each record, not one value of the page. ``items`` keeps each
    ancestor's answer for the page's other rows (the rows of a page share ancestors)."""
    items = {} if items is None else items
    node = el.getparent()
    while node is not None and node is not body:
        item = items.get(node)
        if item is None:
            item = items[node] = _list_item(node)
        if item:
            return len(_text(node)) > len(row.text) + MIN_RECORD_EXTRA
        node = node.getparent()
    return False


#: A record of a list holds at least this many characters besides the row read in it …
MIN_RECORD_EXTRA = 20
#: … and at most this share of the text of the list's items together.
MAX_RECORD_SHARE = 0.75
#: Items of a list the page marks as one by their tag alone (other elements by a class).
_LIST_ITEM_TAGS = frozenset({"li", "article"})


def _list_item(el: Element) -> bool:
    """Whether ``el`` is one record of a list: a sibling has its tag and class, the class
    says what the items are (``review``; not a grid column's ``col-sm-12``, not a bare
    ``div``) or the tag says they are items, and ``el`` holds no more than
    :data:`MAX_RECORD_SHARE` of the items' text (a page's main column beside narrow ones
    is no record)."""
    parent = el.getparent()
    if parent is None or len(parent) < 2:
        return False
    tag, cls = el.tag, el.get("class")
    if tag not in _LIST_ITEM_TAGS and not telling_class(cls or ""):
        return False
    items = [sib for sib in parent if sib.tag == tag and sib.get("class") == cls]
    if len(items) < 2:
        return False
    return len(_text(el)) <= MAX_RECORD_SHARE * sum(len(_text(item)) for item in items)


def _read_table_row(tr: Element, k: int, rows: list[tuple[int, Row]], used: set[Element]) -> None:
    row = _table_row(tr)
    if row is not None:
        rows.append((k, row))
        used.add(tr)
        used.update(tr.iterdescendants())


def _holds_no_row(el: Element) -> bool:
    """Whether every segment of ``el`` (:func:`_segments`) is one block element alone or
    begins with a text without a colon: neither is ever a row (most elements of a page: a
    link's text, a wrapper of one block), so their segments need no reading."""
    first = _text_first(el.text, None)
    if first == _MAYBE:
        return False
    for child in el:
        tag = child.tag
        if isinstance(tag, str):
            if tag in _BREAKS:
                first = None  # a new segment
            elif first is None and tag not in INLINE_TAGS:
                first = _BLOCK
            elif first != _TEXT:
                return False  # an inline element first, or a block and more
        first = _text_first(child.tail, first)
        if first == _MAYBE:
            return False
    return True


#: what a segment begins with, as :func:`_holds_no_row` reads it
_TEXT, _BLOCK, _MAYBE = "text", "block", "maybe"


def _text_first(text: str | None, first: str | None) -> str | None:
    """The segment's beginning after a piece of text: a text without a colon (no row), a
    block followed by more (perhaps a row), or what it was."""
    if not text or text.isspace():
        return first
    if first is None:
        return _MAYBE if ":" in text or "：" in text else _TEXT
    return _MAYBE if first == _BLOCK else first


def _read_element_rows(el: Element, k: int, rows: list[tuple[int, Row]]) -> bool:
    """The label/value rows of one element's own text and children; whether it held any."""
    return not _holds_no_row(el) and _element_rows(el, k, rows)


def _element_rows(el: Element, k: int, rows: list[tuple[int, Row]]) -> bool:
    """:func:`_read_element_rows` of an element that may hold a row (:func:`_holds_no_row`)."""
    found = False
    alike = False
    if len(el) >= 2:  # (most elements have fewer children: no list of alike items)
        kids = [c for c in el if isinstance(c.tag, str) and c.tag not in _BREAKS]
        alike = len(kids) >= 2 and len({(c.tag, c.get("class")) for c in kids}) == 1
    for whole in _segments(el):
        for seg in _split_at_labels(whole):
            row = _rows_of_segment(seg, alike)
            if row is None:
                continue
            for part in _split_pairs(row):
                rows.append((k, part))
            found = True
    return found


#: Containers of a site's chrome: rows inside them are no data of the page.
_CHROME_TAGS = frozenset({"nav", "footer", "aside"})
# (not <header>: shops put the product's own header — name, code, rating — in one)
_CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "search", "complementary"})
#: Elements that hold the whole page, whatever their classes say ("js-wide-navigation").
_NEVER_CHROME = frozenset({"html", "body", "main", "article"})
#: A class or id naming a footer, a navigation bar or a site header ("navFooter",
#: "site-footer", "main-navigation").
_CHROME_NAME = re.compile(
    r"(?:^|[\s_-])(?:site-?)?(?:footer|navbar|navigation|masthead|site-header)(?:$|[\s_-])"
    r"|navFooter|^footer",
    re.I,
)


def _chrome_root(el: Element) -> bool:
    """A navigation, footer or aside (by tag), or a banner, navigation or footer named by
    its role, class or id (a form is not chrome: a shop's buy box, with its condition and
    price rows, is one)."""
    if not isinstance(el.tag, str) or el.tag in _NEVER_CHROME:
        return False
    return bool(
        el.tag in _CHROME_TAGS
        or (el.get("role") or "") in _CHROME_ROLES
        or _CHROME_NAME.search(el.get("id") or "")
        or _CHROME_NAME.search(el.get("class") or "")
    )


def _in_chrome(el: Element, body: Element, memo: dict[Element, bool]) -> bool:
    """Whether ``el`` is a chrome container of the body or inside one (:func:`_chrome_root`),
    read up its ancestors to the body: only the elements that hold rows are asked, and
    ``memo`` keeps the answer of every element passed on the way."""
    path: list[Element] = []
    node: Element | None = el
    inside = False
    while node is not None:
        known = memo.get(node)
        if known is not None:
            inside = known
            break
        path.append(node)
        if _chrome_root(node):
            inside = True
            break
        if node is body:
            break
        node = node.getparent()
    for passed in path:
        memo[passed] = inside
    return inside


def prose(label: str, value: str) -> bool:
    """A tip, not a labelled value: a phrase of three words or more before a sentence of
    four words or more ("Don't overcrowd the pan: give the chicken space to brown.")."""
    return (
        len(label.split()) >= 3
        and len(value.split()) >= 4
        and value.rstrip().endswith((".", "!", "?", "…"))
    )


def _definition_rows(dl: Element, used: set[Element]) -> list[Row]:
    rows: list[Row] = []
    label: str | None = None
    label_raw = ""
    values: list[Element | str] = []

    def flush() -> None:
        if label is not None and values:
            row = _row(label, values, clean_text(label_raw + " " + _nodes_text(values)), True)
            if row is not None:
                rows.append(row)

    # a <dl> may wrap each pair in a <div>
    items: list[Element] = []
    for child in dl:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "div":
            items.extend(c for c in child if isinstance(c.tag, str))
        else:
            items.append(child)
    for child in items:
        if child.tag == "dt":
            flush()
            label_raw = _text(child)
            label = _strip_label(label_raw)
            values = []
        elif child.tag == "dd" and label is not None:
            values.append(child)
    flush()
    if rows:
        used.add(dl)
        used.update(dl.iterdescendants())
    return rows


def _table_row(tr: Element) -> Row | None:
    cells = [c for c in tr if isinstance(c.tag, str) and c.tag in ("th", "td")]
    if len(cells) != 2:
        return None
    head, cell = cells
    if cell.tag == "th":
        return None  # a header row
    label = _strip_label(_text(head))
    if head.tag == "td" and any(True for _ in head.iter("a", "img", "input", "button")):
        return None
    return _row(label, [cell], clean_text(_text(head) + " " + _text(cell)), True)


# --- values at the right grain ------------------------------------------------------------


def link_run(row: Row) -> bool:
    """Two or more links that make up the value ("By: A, B, C")."""
    if len(row.links) < 2:
        return False
    return row.link_chars >= LINK_COVER * len(row.value.replace(",", "").replace(" ", "")) * 0.8


def split_parts(value: str) -> tuple[str, list[str]]:
    """The separator that splits a value into short parts, and the parts ("A, B and C" →
    ``(", ", ["A", "B", "C"])``); ``("", [value])`` when no separator does."""
    for sep in _LIST_SEPARATORS:
        if sep in value:
            parts = [p.strip() for p in value.split(sep)]
            if sep == ", " and parts:
                last = _AND.split(parts[-1])
                parts = parts[:-1] + [p.strip() for p in last]
            parts = [p for p in parts if p]
            if len(parts) >= 2 and all(len(p) <= MAX_PART_CHARS for p in parts):
                return sep, parts
    return "", [value]


def row_value(row: Row, kind: str, sep: str) -> str | list[str]:
    """A row's value at its field's grain: the text, or a list (link texts, separated
    parts)."""
    if kind != "values":
        return row.value
    if link_run(row):
        return list(row.links)
    if sep and sep in row.value:
        found, parts = split_parts(row.value)
        if found == sep:
            return parts
    return [row.value]


# --- learning -----------------------------------------------------------------------------


class LabelStats:
    """What the learned pages showed, per normalised label (the learning state)."""

    def __init__(self) -> None:
        #: key -> {"label", "pages", "multi", "samples", "links", "seps", "name"}
        self.entries: dict[str, dict[str, Any]] = {}

    def observe(self, root: Element) -> None:
        seen: dict[str, list[Row]] = {}
        for row in find_rows(root):
            key = label_key(row.label)
            if key:
                seen.setdefault(key, []).append(row)
        for key, rows in seen.items():
            entry = self.entries.get(key)
            if entry is None:
                if len(self.entries) >= MAX_LABELS:
                    continue
                entry = self.entries[key] = _new_entry(rows[0].label)
            row = rows[0]
            entry["pages"] += 1
            if len(rows) > 1 and len({r.value for r in rows}) > 1:
                entry["multi"] += 1
            if row.explicit:
                entry["explicit"] += 1
            if row.chrome or prose(row.label, row.value):
                entry["noise"] += 1
            value = row.value[:SAMPLE_CHARS]
            if value not in entry["samples"] and len(entry["samples"]) < MAX_SAMPLES:
                entry["samples"].append(value)
            if link_run(row):
                entry["links"] += 1
            sep, parts = split_parts(row.value)
            counts: dict[str, list[int]] = entry["seps"]
            if sep:
                seen_counts = counts.setdefault(sep, [])
                if len(parts) not in seen_counts and len(seen_counts) < 4:
                    seen_counts.append(len(parts))
            else:
                entry["single"] += 1

    def merge(self, other: LabelStats) -> None:
        for key, theirs in other.entries.items():
            mine = self.entries.get(key)
            if mine is None:
                if len(self.entries) >= MAX_LABELS:
                    continue
                self.entries[key] = _copy_entry(theirs)
                continue
            for name in ("pages", "multi", "links", "single", "explicit", "noise"):
                mine[name] += theirs.get(name, 0)
            for value in theirs["samples"]:
                if value not in mine["samples"] and len(mine["samples"]) < MAX_SAMPLES:
                    mine["samples"].append(value)
            for sep, counts in theirs["seps"].items():
                have = mine["seps"].setdefault(sep, [])
                for k in counts:
                    if k not in have and len(have) < 4:
                        have.append(k)
            mine["name"] = mine["name"] or theirs["name"]

    def to_json(self) -> dict[str, Any]:
        return {key: _copy_entry(entry) for key, entry in self.entries.items()}

    @classmethod
    def from_json(cls, data: Any) -> LabelStats:
        """Read what :meth:`to_json` wrote; a wrapper written before labels existed has none."""
        stats = cls()
        if not data:
            return stats
        if not isinstance(data, dict):
            raise ValueError("labels must be an object")
        for key, raw in data.items():
            if not isinstance(raw, dict):
                raise ValueError(f"label {key!r}: an object expected")
            entry = _new_entry(str(raw.get("label", key)))
            for name in ("pages", "multi", "links", "single", "explicit", "noise"):
                entry[name] = int(raw.get(name, 0))
            entry["samples"] = [str(x) for x in raw.get("samples", [])][:MAX_SAMPLES]
            entry["seps"] = {
                str(sep): [int(k) for k in counts] for sep, counts in raw.get("seps", {}).items()
            }
            given = raw.get("name")
            entry["name"] = str(given) if given else None
            stats.entries[str(key)] = entry
        return stats


def _new_entry(label: str) -> dict[str, Any]:
    return {
        "label": label,
        "pages": 0,
        "multi": 0,
        "explicit": 0,
        "noise": 0,  # pages where the row sat in the site's chrome or read as a sentence
        "samples": [],
        "links": 0,
        "single": 0,
        "seps": {},
        "name": None,
    }


def _copy_entry(entry: dict[str, Any]) -> dict[str, Any]:
    out = dict(entry)
    out["samples"] = list(entry["samples"])
    out["seps"] = {k: list(v) for k, v in entry["seps"].items()}
    return out


# --- compiling ----------------------------------------------------------------------------


@dataclass
class LabelField:
    """A field read from the row with this label, wherever the page has it."""

    key: str
    label: str
    name: str
    kind: str  # "text" (one string) or "values" (a list of strings)
    sep: str  # the separator of a separated list ("" for a run of links or a text)
    pages: int
    optional: bool
    samples: list[str]


def compile_labels(
    stats: LabelStats, pages: int, threshold: int, taken: set[str]
) -> list[LabelField]:
    """The label fields of a template learned from ``pages`` pages; their names are added to
    ``taken`` (and remembered in ``stats``, so a name once given stays)."""
    fields: list[LabelField] = []
    need = 1 if pages == 1 else max(2, threshold)
    for key, entry in stats.entries.items():
        seen = entry["pages"]
        if seen < need:
            continue
        if entry["multi"] * 2 > seen:
            continue  # the label leads each record of a list: the list's business
        if pages == 1 and entry.get("noise", 0):
            continue  # one page cannot show that it varies: chrome rows and tips stay out
        if pages >= 2 and len(entry["samples"]) < 2 and not _data_row(entry):
            continue  # the same value on every page, and no row that says it is data
        if pages >= 2 and not entry["explicit"] and seen < max(2, math.ceil(pages / 2)):
            continue  # a loose label (no colon, no dt/th) must be on most pages
        kind, sep = "text", ""
        if entry["links"]:
            kind = "values"
        else:
            for candidate, counts in entry["seps"].items():
                # the parts vary: some pages show another number of them (or a single one)
                if max(counts) >= 2 and (len(counts) >= 2 or entry["single"]) and pages >= 2:
                    kind, sep = "values", candidate
                    break
        name = kept_name(entry, entry["label"], "field", taken)
        fields.append(
            LabelField(
                key,
                entry["label"],
                name,
                kind,
                sep,
                seen,
                seen < pages,
                list(entry["samples"]),
            )
        )
    return fields


def _data_row(entry: dict[str, Any]) -> bool:
    """A row the page labels as data on every page it is on (``dt``/``th``/a colon) and never
    in the site's chrome: its value is a field even when it is the same on every page."""
    return entry["explicit"] >= entry["pages"] and not entry.get("noise", 0)


def extract_labels(fields: list[LabelField], root: Element) -> dict[str, tuple[Any, str]]:
    """``{field name: (value at its grain, the whole row's text)}`` for the label fields
    found on a page; a label found more than once gives its first row."""
    if not fields:
        return {}
    wanted = {f.key: f for f in fields}
    out: dict[str, tuple[Any, str]] = {}
    for row in find_rows(root):
        f = wanted.get(label_key(row.label))
        if f is None or f.name in out:
            continue
        out[f.name] = (row_value(row, f.kind, f.sep), row.text)
    return out
