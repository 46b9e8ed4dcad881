"""Section lists: the list items under a heading, found by the heading on each page.

Free-form pages (blog posts, page builders) place the same section — "Ingredients",
"What you'll need", "Specifications" — at another depth or position on every page: a
varying number of paragraphs before it, an extra wrapper, several lists under sub-headings.
Positional alignment then learns it as a different node on each page, and no single field
holds it. Like label–value rows (:mod:`.labels`), such a section is matched by its
*heading*: learning counts, per normalised heading, on how many pages a section with list
items follows it; compiling keeps the headings found on most pages whose items vary; each
page's items under that heading become the field, a list of records (``{"text": item}``),
whatever their place in the tree.

A heading is an ``<h1>``–``<h6>`` or a short block that holds nothing but a label (a ``<p>``
or ``<div>`` whose whole text is one short phrase, ``<p><strong>Ingredients</strong></p>``).
The section is what follows the heading in its parent (climbing out of wrappers that hold
only the heading) up to the next heading of the same or a higher rank; sub-headings of a
lower rank stay inside, so a section with several lists ("For the sauce", "For the dough")
is one field; a heading inside an item (a product pop-up) does not end it. Its items are
the ``<li>`` of the lists alike to its first list: another kind of list in the same block
(nutrition facts) is left out, and a list of another kind inside an item (a note under an
ingredient) stays part of that item. Hidden copies and form controls are no part of an
item's or a heading's text ("Ingredients 1x 2x 3x" is "Ingredients").
"""

from __future__ import annotations

import math
import re
from collections.abc import Container, Iterator
from dataclasses import dataclass
from typing import Any

from pagesim_scrapy.core.induce.dom import (
    INLINE_TAGS,
    LEAF_TAGS,
    Element,
    clean_text,
    element_sig,
    page_memo,
    page_memo_peek,
)
from pagesim_scrapy.core.induce.naming import kept_name

__all__ = [
    "Section",
    "SectionField",
    "SectionStats",
    "compile_sections",
    "extract_sections",
    "find_sections",
    "heading_key",
]

#: A heading is at most this long, in characters and in words.
MAX_HEADING_CHARS = 40
MAX_HEADING_WORDS = 6
#: Sections with more items than this are page chrome (a sitemap, a long archive list).
MAX_ITEMS = 150
#: An item longer than this is prose, not a list item.
MAX_ITEM_CHARS = 400
#: Distinct headings tracked per wrapper.
MAX_HEADINGS = 200
#: How many wrapper levels holding only the heading are climbed to find the section.
MAX_CLIMB = 4
SAMPLE_CHARS = 160
MAX_SAMPLES = 3

_HEADING_RANK = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
#: The rank of a short block that only holds a label: below every real heading.
_BLOCK_RANK = 7
_BLOCK_HEADINGS = frozenset({"p", "div", "header", "span", "strong", "b", "legend", "label"})
#: Every tag a heading may have (lxml picks them out of the page's elements).
_HEADING_TAGS = (*_HEADING_RANK, *sorted(_BLOCK_HEADINGS))
#: What a short block that serves as a heading may hold besides text.
_HEADING_INSIDE = INLINE_TAGS | {"span", "br", "img", "svg", "path", "g", "use"}
#: Inline elements that are a heading only when they fill their parent.
_INLINE_HEADINGS = frozenset({"span", "strong", "b", "label"})
#: Form controls: their text is no part of a heading or of a section's content.
_CONTROLS = frozenset({"button", "select", "option", "input", "textarea", "form"})
_NON_KEY = re.compile(r"[^\w\s]+")
#: Classes that hide an element visually but keep it for screen readers.
_HIDDEN_CLASSES = frozenset(
    {"sr-only", "screen-reader-text", "visually-hidden", "visuallyhidden", "a11y-hidden"}
)


@dataclass
class Section:
    """One heading and the list items of the section below it, on one page."""

    heading: str  # as shown
    items: list[str]


def heading_key(text: str) -> str:
    """The form headings are matched in: case-folded, marks and symbols (emoji, colons)
    removed, whitespace collapsed."""
    text = _NON_KEY.sub(" ", clean_text(text).casefold()).replace("_", " ")
    return " ".join(text.split())


def _text(el: Element) -> str:
    if el.tag in LEAF_TAGS:
        return ""
    return clean_text(" ".join(el.itertext()))


def _shown_text(el: Element, cache: dict[Element, str] | None = None) -> str:
    """The element's text without form controls and hidden copies: a heading "Ingredients"
    with servings buttons "1x 2x 3x" or a "Print" button is "Ingredients". With ``cache``
    (one page's texts), each element's text is read once: headings are asked for it again
    and again while their sections are read."""
    if cache is not None:
        text = cache.get(el)
        if text is None:
            text = cache[el] = _shown_text(el)
        return text
    if el.tag in LEAF_TAGS or el.tag in _CONTROLS:
        return ""
    return _visible_text(el)


def _shows_text(el: Element, cache: dict[Element, str]) -> bool:
    """Whether :func:`_shown_text` of ``el`` is not empty, read only as far as its first
    visible word (a sibling that holds the rest of the page is not read whole)."""
    text = cache.get(el)
    if text is not None:
        return bool(text)
    if el.tag in LEAF_TAGS or el.tag in _CONTROLS:
        return False
    return any(not part.isspace() for part in _visible_parts(el) if part)


def _hidden(el: Element) -> bool:
    classes = (el.get("class") or "").split()
    return (
        any(c in _HIDDEN_CLASSES for c in classes)
        or el.get("aria-hidden") == "true"
        or el.get("hidden") is not None
    )


def _visible_text(el: Element) -> str:
    """The element's text without screen-reader-only copies (a visually hidden span that
    repeats the label of a checkbox or the amount)."""
    return clean_text(" ".join(_visible_parts(el)))


def _visible_parts(el: Element) -> Iterator[str]:
    """The text pieces of :func:`_visible_text`, in document order, read lazily."""
    stack: list[Any] = [el]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            yield node
            continue
        if not isinstance(node.tag, str) or node.tag in LEAF_TAGS or node.tag in _CONTROLS:
            if node.tail:
                stack.append(node.tail)
            continue
        if node is not el and _hidden(node):
            if node.tail:
                stack.append(node.tail)
            continue
        # push in reverse: tail last, then children, then own text first
        if node is not el and node.tail:
            stack.append(node.tail)
        for child in reversed(list(node)):
            stack.append(child)
        if node.text:
            stack.append(node.text)


def _is_heading_text(text: str) -> bool:
    if not text or len(text) > MAX_HEADING_CHARS or len(text.split()) > MAX_HEADING_WORDS:
        return False
    letters = sum(map(str.isalpha, text))
    return letters >= 3 and letters >= len(text) / 3


def _heading_rank(el: Element, shown: dict[Element, str] | None = None) -> int:
    """The rank of a heading element (1–7), 0 if the element is no heading."""
    tag = el.tag
    rank = _HEADING_RANK.get(tag) if isinstance(tag, str) else None
    if rank is None:
        if tag not in _BLOCK_HEADINGS:
            return 0
        # a short block of inline content only: <p><strong>Ingredients</strong></p>
        for sub in el.iterdescendants():
            if isinstance(sub.tag, str) and sub.tag not in _HEADING_INSIDE:
                return 0
        if any(True for _ in el.iter("a")):
            return 0  # a link is navigation, not a heading
        parent = el.getparent()
        if tag in _INLINE_HEADINGS and (parent is None or not _fills(el, parent)):
            return 0  # bold words inside a sentence
        if parent is not None and parent.tag in ("li", "td", "th", "dd", "dt", "a", "label"):
            return 0
        rank = _BLOCK_RANK
    text = shown.get(el) if shown is not None else None
    if text is None:
        text = _shown_within(el, MAX_HEADING_CHARS)
        if text is None:
            return 0  # a paragraph: not read whole to be told it is too long for a heading
        if shown is not None:
            shown[el] = text
    return rank if _is_heading_text(text) else 0


def _shown_within(el: Element, limit: int) -> str | None:
    """:func:`_shown_text` of ``el``, or None as soon as it holds more than ``limit``
    non-space characters (its cleaned text is then longer than ``limit``)."""
    if el.tag in LEAF_TAGS or el.tag in _CONTROLS:
        return ""
    parts: list[str] = []
    count = 0
    for part in _visible_parts(el):
        parts.append(part)
        count += sum(map(len, part.split()))
        if count > limit:
            return None
    return clean_text(" ".join(parts))


def _fills(el: Element, parent: Element) -> bool:
    """Whether ``el`` is all the text of its parent (no text before, after or beside it)."""
    if (parent.text or "").strip() or (el.tail or "").strip():
        return False
    for sibling in parent:
        if sibling is el:
            continue
        if (sibling.tail or "").strip() or (
            isinstance(sibling.tag, str) and any(t.strip() for t in sibling.itertext())
        ):
            return False
    return True


def _following(heading: Element, shown: dict[Element, str]) -> Iterator[Element]:
    """The elements after the heading in its parent; when the heading is alone in a
    wrapper (``<div><h2>…</h2></div>``, ``<p><strong>…</strong></p>``), after the wrapper.
    ``shown`` caches the page's texts (:func:`_shown_text`)."""
    el = heading
    text = _shown_text(heading, shown)
    for _ in range(MAX_CLIMB + 1):
        siblings = [s for s in el.itersiblings() if isinstance(s.tag, str)]
        if any(_shows_text(s, shown) for s in siblings) or el.getparent() is None:
            yield from siblings
            return
        parent = el.getparent()
        if (
            parent is None
            or parent.tag in ("body", "html", "main", "article")
            or (_shown_text(parent, shown) != text)
        ):
            yield from siblings
            return
        el = parent


def _section_items(
    heading: Element,
    rank: int,
    ranks: dict[Element, int],
    texts: dict[Element, str],
    shown: dict[Element, str],
) -> list[str]:
    """The items of the section below a heading: the ``<li>`` of the lists alike to its
    first list (sub-lists under sub-headings included); a list of another kind inside an
    item (a note under an ingredient) stays part of that item."""
    reader = _SectionReader(rank, ranks, texts)
    for sibling in _following(heading, shown):
        if sibling.tag in LEAF_TAGS:
            continue
        own = ranks.get(sibling, 0)
        if own and own <= rank:
            break
        outcome = reader.read(sibling)
        if outcome == _FULL:
            return []
        if outcome == _STOPPED:
            break
    return reader.items


_STOPPED = "stopped"  # the next section starts inside the sibling read
_FULL = "full"  # more than MAX_ITEMS items: not a section of a page's data


class _SectionReader:
    """The items of one section, collected sibling by sibling below its heading."""

    def __init__(self, rank: int, ranks: dict[Element, int], texts: dict[Element, str]) -> None:
        self.rank = rank
        self.ranks = ranks
        self.texts = texts
        self.items: list[str] = []
        self.first_list: str | None = None
        self.taken: set[Element] = set()

    def read(self, sibling: Element) -> str:
        """Collect the items inside one sibling: :data:`_STOPPED`, :data:`_FULL` or ''."""
        for sub in sibling.iter():
            if not isinstance(sub.tag, str):
                continue
            if sub is not sibling and sub.tag != "li" and self._starts_section(sub):
                return _STOPPED
            if sub.tag != "li" or _inside_hidden(sub, sibling):
                continue
            if not self._is_item(sub):
                continue
            self._add(sub)
            if len(self.items) > MAX_ITEMS:
                return _FULL
        return ""

    def _starts_section(self, sub: Element) -> bool:
        """A heading of this rank or higher (one inside an item -- a product pop-up -- is
        the item's own)."""
        sub_rank = self.ranks.get(sub, 0)
        return bool(
            sub_rank and sub_rank <= self.rank and next(sub.iterancestors("li"), None) is None
        )

    def _is_item(self, sub: Element) -> bool:
        if any(anc in self.taken for anc in sub.iterancestors("li")):
            return False  # a note list inside an item is part of the item
        kind = _list_sig(sub)
        nested = list(sub.iterdescendants("li"))
        if self.first_list is None:
            if nested:
                return False  # a group of items ("For the sauce" over its own list)
            self.first_list = kind
        if kind != self.first_list:
            return False  # another kind of list in the same block (nutrition facts, links)
        # a group holding items of the same kind: they are the items
        return not any(_list_sig(li) == self.first_list for li in nested)

    def _add(self, sub: Element) -> None:
        self.taken.add(sub)
        text = self.texts.get(sub)
        if text is None:  # an item under nested headings is read once per page
            text = self.texts[sub] = _visible_text(sub)
        if text and len(text) <= MAX_ITEM_CHARS:
            self.items.append(text)


def _list_sig(item: Element) -> str:
    """The signature of the list an item belongs to."""
    parent = item.getparent()
    return element_sig(parent) if parent is not None else ""


def _inside_hidden(el: Element, top: Element) -> bool:
    node: Element | None = el
    while node is not None and node is not top:
        if _hidden(node):
            return True
        node = node.getparent()
    return False


def find_sections(root: Element, keys: Container[str] | None = None) -> list[Section]:
    """Every heading of the page's body followed by list items, in document order (the
    JSON-LD subtree excluded); with ``keys``, only the headings of these keys
    (:func:`heading_key`): extraction reads no section a wrapper does not want."""
    body = root.find("body")
    if body is None:
        body = root
    out: list[Section] = []
    # every heading of the page once (the sections' walks ask for them again and again)
    ranks: dict[Element, int] = {}
    shown: dict[Element, str] = {}
    for el in body.iter(*_HEADING_TAGS):  # (others are no heading)
        rank = _heading_rank(el, shown)
        if rank:
            ranks[el] = rank
    texts: dict[Element, str] = {}
    for el, rank in ranks.items():
        parent = el.getparent()
        if parent is not None and el.tag in _INLINE_HEADINGS and parent in ranks:
            continue  # <p><strong>X</strong></p>: the block is the heading
        heading = _shown_text(el, shown).rstrip(" :：").strip()
        if keys is not None and heading_key(heading) not in keys:
            continue
        items = _section_items(el, rank, ranks, texts, shown)
        if items:
            out.append(Section(heading, items))
    return out


def _page_sections(root: Element) -> dict[str, tuple[str, list[str]]]:
    """Per heading key, the heading as shown and its items. A heading met several times
    (a summary in the article and the recipe card, a print copy) gives the section of
    shortest items: a list of data, not bullet points of prose. Read once per page
    (learning and extraction share it; the callers only read it)."""
    return page_memo(root, "sections", _read_sections, keep=True)


def _read_sections(
    root: Element, keys: Container[str] | None = None
) -> dict[str, tuple[str, list[str]]]:
    seen: dict[str, tuple[str, list[str]]] = {}
    for section in find_sections(root, keys):
        key = heading_key(section.heading)
        if not key:
            continue
        have = seen.get(key)
        if have is None or _mean_len(section.items) < _mean_len(have[1]):
            seen[key] = (section.heading, section.items)
    return seen


def _mean_len(items: list[str]) -> float:
    return sum(len(x) for x in items) / len(items) if items else 0.0


class SectionStats:
    """What the learned pages showed, per heading key (the learning state)."""

    def __init__(self) -> None:
        #: key -> {"heading", "pages", "samples", "name"}
        self.entries: dict[str, dict[str, Any]] = {}

    def observe(self, root: Element) -> None:
        for key, (heading, items) in _page_sections(root).items():
            entry = self.entries.get(key)
            if entry is None:
                if len(self.entries) >= MAX_HEADINGS:
                    continue
                entry = self.entries[key] = _new_entry(heading)
            entry["pages"] += 1
            sample = " | ".join(items)[:SAMPLE_CHARS]
            if sample not in entry["samples"] and len(entry["samples"]) < MAX_SAMPLES:
                entry["samples"].append(sample)

    def merge(self, other: SectionStats) -> None:
        for key, theirs in other.entries.items():
            mine = self.entries.get(key)
            if mine is None:
                if len(self.entries) >= MAX_HEADINGS:
                    continue
                self.entries[key] = _copy_entry(theirs)
                continue
            mine["pages"] += theirs["pages"]
            for value in theirs["samples"]:
                if value not in mine["samples"] and len(mine["samples"]) < MAX_SAMPLES:
                    mine["samples"].append(value)
            mine["name"] = mine["name"] or theirs["name"]

    def to_json(self) -> dict[str, Any]:
        return {key: _copy_entry(entry) for key, entry in self.entries.items()}

    @classmethod
    def from_json(cls, data: Any) -> SectionStats:
        """Read what :meth:`to_json` wrote; a wrapper written before sections existed has
        none."""
        stats = cls()
        if not data:
            return stats
        if not isinstance(data, dict):
            raise ValueError("sections must be an object")
        for key, raw in data.items():
            if not isinstance(raw, dict):
                raise ValueError(f"section {key!r}: an object expected")
            entry = _new_entry(str(raw.get("heading", key)))
            entry["pages"] = int(raw.get("pages", 0))
            entry["samples"] = [str(x) for x in raw.get("samples", [])][:MAX_SAMPLES]
            given = raw.get("name")
            entry["name"] = str(given) if given else None
            stats.entries[str(key)] = entry
        return stats


def _new_entry(heading: str) -> dict[str, Any]:
    return {"heading": heading, "pages": 0, "samples": [], "name": None}


def _copy_entry(entry: dict[str, Any]) -> dict[str, Any]:
    out = dict(entry)
    out["samples"] = list(entry["samples"])
    return out


@dataclass
class SectionField:
    """A list field read from the items under this heading, wherever the page has it."""

    key: str
    heading: str
    name: str
    pages: int
    optional: bool
    samples: list[str]


def compile_sections(
    stats: SectionStats, pages: int, threshold: int, taken: set[str]
) -> list[SectionField]:
    """The section fields of a template learned from ``pages`` pages: headings followed by
    list items on most pages (at least two), whose items vary. Their names are added to
    ``taken`` and remembered in ``stats``."""
    if pages < 2:
        return []  # one page cannot tell a section's data from the site's chrome
    need = max(2, threshold, math.ceil(pages / 2))
    fields: list[SectionField] = []
    for key, entry in stats.entries.items():
        seen = entry["pages"]
        if seen < need or len(entry["samples"]) < 2:
            continue
        name = kept_name(entry, entry["heading"], "section", taken)
        fields.append(
            SectionField(key, entry["heading"], name, seen, seen < pages, list(entry["samples"]))
        )
    return fields


def extract_sections(fields: list[SectionField], root: Element) -> dict[str, list[dict[str, str]]]:
    """``{field name: [{"text": item}, …]}`` for the section fields found on a page."""
    if not fields:
        return {}
    wanted = {f.key: f for f in fields}
    # a page learned just before has all its sections read; else only the wanted ones
    sections = page_memo_peek(root, "sections")
    if sections is None:
        sections = _read_sections(root, wanted)
    out: dict[str, list[dict[str, str]]] = {}
    for key, (_, items) in sections.items():
        f = wanted.get(key)
        if f is not None:
            out[f.name] = [{"text": item} for item in items]
    return out
