"""The learned template tree and incremental induction (seed 003, with repeating regions).

Every template node keeps ``count`` (appearCount: on how many pages it was found) and, for
nodes inside a repeating region, ``gcount`` (in how many record groups). Text nodes and data
attributes keep up to :data:`MAX_SAMPLES` distinct values: two or more means the value varies
between pages (a data slot); one value seen on several pages is template text.

Adding a page aligns it top-down with the template (:mod:`.align`); matched nodes get their
counters and samples updated, page nodes with no counterpart are inserted where the
alignment puts them. Consecutive similar sibling groups become one *repeat* node whose
children are a prototype record, itself grown by aligning each group in turn (partial tree
alignment, as in DEPTA). Nothing is discarded while learning: the ``ceil((n + 1) · λ)`` rule
is applied when the template is compiled for extraction, so later pages can still confirm a
node.

All walks are iterative: page depth is not limited by Python's recursion limit.
"""

from __future__ import annotations

import re
import sys
import zlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pagesim_scrapy.core.induce.align import align_tiers, merge_order
from pagesim_scrapy.core.induce.dom import (
    _SIG_IDS,
    LEAF_TAGS,
    TEXT_SIG,
    Element,
    PageItem,
    Run,
    clean_text,
    element_sig,
    element_text,
    find_runs,
    page_items,
    sig_id,
)
from pagesim_scrapy.core.induce.labels import LabelStats
from pagesim_scrapy.core.induce.sections import SectionStats
from pagesim_scrapy.core.induce.structured import JSONLD_TAG

__all__ = [
    "DATA_ATTRS",
    "ELEMENT",
    "MAX_SAMPLES",
    "REPEAT",
    "TEXT",
    "TNode",
    "TemplateTree",
    "attr_value",
    "deep_key",
    "page_fingerprint",
    "page_names",
]

ELEMENT = "e"
TEXT = "t"
REPEAT = "r"

#: Distinct values kept per text node / data attribute (two are enough to know it varies).
MAX_SAMPLES = 3
#: Sample values are cut to this many characters.
SAMPLE_CHARS = 160
_MAX_DEEP = 6

#: Attributes that hold data when their value varies between pages.
DATA_ATTRS: dict[str, tuple[str, ...]] = {
    "a": ("href",),
    "area": ("href",),
    "img": ("src", "alt"),
    "meta": ("content",),
    "link": ("href",),
    "time": ("datetime",),
    "iframe": ("src",),
    "source": ("src",),
    "video": ("src",),
    "audio": ("src",),
}

#: Attributes kept on template nodes for naming fields and for the readable view.
INFO_ATTRS: tuple[str, ...] = (
    "class", "id", "itemprop", "name", "property", "rel", "alt", "title", "aria-label",
)  # fmt: skip

_LAZY_SRC = ("data-src", "data-lazy-src", "data-original", "data-srcset", "srcset")


def attr_value(el: Element, attr: str) -> str | None:
    """The cleaned value of a data attribute; for images, the lazy-loading source when
    ``src`` is a placeholder."""
    value = el.get(attr)
    if attr == "src" and el.tag == "img" and (not value or value.startswith("data:")):
        for alt in _LAZY_SRC:
            candidate = el.get(alt)
            if candidate:
                value = candidate.split(",")[0].split()[0] if " " in candidate else candidate
                break
    if value is None:
        return None
    value = clean_text(value)
    return value or None


def deep_key(el: Element, sigs: Sequence[str] | None = None) -> str:
    """The element's signature plus its element items' signatures (runs of one signature
    collapsed): a strict token that anchors structurally unambiguous nodes. ``sigs`` are
    the signatures from :func:`page_items` when already known."""
    if sigs is None:
        sigs = page_items(el)[1]
    parts = [element_sig(el)]
    last = ""
    for s in sigs:
        if s != last and s != TEXT_SIG:
            parts.append(s)
            last = s
    return "|".join(parts)


def _add_sample(samples: list[str], value: str) -> None:
    if len(samples) >= MAX_SAMPLES:
        return
    value = value[:SAMPLE_CHARS]
    if value not in samples:
        samples.append(value)


def _stable_hash(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "replace"))


class TNode:
    """One template node: an element, a text piece, or a repeating region (``kind``)."""

    __slots__ = (
        "avals",
        "children",
        "count",
        "deep",
        "gcount",
        "hashes",
        "info",
        "kind",
        "kv",
        "lchars",
        "name",
        "named",
        "pattern",
        "samples",
        "sig",
        "stamp",
        "tag",
        "tchars",
    )

    def __init__(self, kind: str, sig: str, tag: str) -> None:
        self.kind = kind
        self.sig = sig
        self.tag = tag
        self.children: list[TNode] = []
        self.count = 0
        self.gcount = 0
        self.stamp = 0
        self.samples: list[str] = []
        self.info: dict[str, str] = {}
        self.avals: dict[str, list[str]] = {}
        self.deep: dict[str, int] = {}
        self.name: str | None = None
        self.named = 0  # pages on which this text was the page's name (its <title>)
        self.pattern: tuple[str, ...] = ()
        self.hashes: list[int] = []
        self.kv: dict[str, list[Any]] = {}
        self.tchars = 0
        self.lchars = 0

    # tokens used by the alignment
    @property
    def token(self) -> int:
        if self.kind == REPEAT:
            return repeat_token(self.pattern)
        return sig_id(self.sig)

    @property
    def deep_token(self) -> int:
        if self.kind == ELEMENT and self.deep:
            return sig_id(max(self.deep.items(), key=lambda kv: kv[1])[0])
        return self.token

    @property
    def loose(self) -> tuple[str, frozenset[str]] | None:
        """Tag and classes, for the loose matching tier (None: text and regions)."""
        if self.kind == ELEMENT:
            return loose_key(self.sig)
        return None

    def varies(self) -> bool:
        return len(self.samples) >= 2

    def __repr__(self) -> str:
        return (
            f"TNode({self.kind}, {self.sig!r}, count={self.count}, children={len(self.children)})"
        )


def repeat_token(pattern: Sequence[str]) -> int:
    if len(pattern) == 1:
        return sig_id(pattern[0])
    return sig_id("R:" + "|".join(pattern))


def _page_token(item: PageItem) -> int:
    if isinstance(item, Run):
        return repeat_token(item.pattern)
    if isinstance(item, str):
        return sig_id(TEXT_SIG)
    return sig_id(element_sig(item))


def _page_deep(item: PageItem) -> int:
    if isinstance(item, (Run, str)):
        return _page_token(item)
    return sig_id(deep_key(item))


def page_deep_tokens(
    pitems: Sequence[PageItem], sigs_of: Callable[[Element], Sequence[str]] | None = None
) -> list[int]:
    """The strict (deep) alignment tokens of page items; ``sigs_of`` gives an element's
    item signatures when the caller already read them (:func:`page_items`)."""
    if sigs_of is None:
        return [_page_deep(p) for p in pitems]
    return [
        _page_token(p) if isinstance(p, (Run, str)) else sig_id(deep_key(p, sigs_of(p)))
        for p in pitems
    ]


def _deep_tokens(pitems: Sequence[PageItem], deep_of: Callable[[Element], str] | None) -> list[int]:
    """:func:`page_deep_tokens`, an element's deep key from ``deep_of`` when given."""
    if deep_of is None:
        return page_deep_tokens(pitems)
    return [_page_token(p) if isinstance(p, (Run, str)) else sig_id(deep_of(p)) for p in pitems]


class _PageReads:
    """What learning one page reads of each of its elements, once: aligning an element's
    children reads each child's items for its deep key, then the walk descends into the
    child and reads them again."""

    def __init__(self) -> None:
        self._items: dict[Element, tuple[list[Element | str], list[str]]] = {}
        self._deep: dict[Element, str] = {}

    def items(self, el: Element) -> tuple[list[Element | str], list[str]]:
        """:func:`.dom.page_items` of ``el``."""
        got = self._items.get(el)
        if got is None:
            got = self._items[el] = page_items(el)
        return got

    def deep_key(self, el: Element) -> str:
        """:func:`deep_key` of ``el``."""
        got = self._deep.get(el)
        if got is None:
            got = self._deep[el] = deep_key(el, self.items(el)[1])
        return got


_LOOSE_CACHE: dict[str, tuple[str, frozenset[str]]] = {}
#: Two elements with the same tag match loosely when this share of their classes agree.
LOOSE_CLASS_SIMILARITY = 0.5


def loose_key(sig: str) -> tuple[str, frozenset[str]]:
    """``(tag, class set)`` of a signature, cached."""
    key = _LOOSE_CACHE.get(sig)
    if key is None:
        head = sig.split("[", 1)[0].split("#", 1)[0]
        tag, _, classes = head.partition(".")
        key = (tag, frozenset(classes.split(".")) if classes else frozenset())
        if len(_LOOSE_CACHE) > 100_000:
            _LOOSE_CACHE.clear()
        _LOOSE_CACHE[sig] = key
    return key


def _page_loose(item: PageItem) -> tuple[str, frozenset[str]] | None:
    if isinstance(item, (Run, str)):
        return None
    return loose_key(element_sig(item))


def _same_tag(a: tuple[str, frozenset[str]] | None, b: tuple[str, frozenset[str]] | None) -> bool:
    return a is not None and b is not None and a[0] == b[0]


def loose_match(a: tuple[str, frozenset[str]] | None, b: tuple[str, frozenset[str]] | None) -> bool:
    """Same tag, and either no classes on both or mostly the same classes."""
    if a is None or b is None or a[0] != b[0]:
        return False
    ca, cb = a[1], b[1]
    if not ca and not cb:
        return True
    if not ca or not cb:
        return False
    return len(ca & cb) / len(ca | cb) >= LOOSE_CLASS_SIMILARITY


def page_tokens(pitems: Sequence[PageItem], sigs: Sequence[str] | None = None) -> list[int]:
    """Alignment tokens of page items; ``sigs`` (when the items are not runs) saves work."""
    if sigs is not None and len(sigs) == len(pitems):
        ids = _SIG_IDS
        out = []
        for s in sigs:
            v = ids.get(s)
            out.append(v if v is not None else sig_id(s))
        return out
    return [_page_token(p) for p in pitems]


def align_template_page(
    tnodes: Sequence[Any],
    pitems: Sequence[PageItem],
    t_tok: Sequence[int] | None = None,
    p_tok: Sequence[int] | None = None,
    p_deep: Sequence[int] | None = None,
    deep_of: Callable[[Element], str] | None = None,
) -> list[tuple[int, int]]:
    """Align template nodes (anything with ``token``/``deep_token``/``loose``) with page
    items: identical signature sequences pair up directly, otherwise the tiered LCS.
    Precomputed token lists (:func:`page_deep_tokens` for ``p_deep``) may be passed, or
    ``deep_of``, an element's :func:`deep_key` as the caller reads it once per element."""
    n_t, n_p = len(tnodes), len(pitems)
    if n_t == 0 or n_p == 0:
        return []
    if t_tok is None:
        t_tok = [t.token for t in tnodes]
    if p_tok is None:
        p_tok = [_page_token(p) for p in pitems]
    if t_tok == p_tok:
        return [(i, i) for i in range(n_t)]
    t_loose = [t.loose for t in tnodes]
    p_loose = [_page_loose(p) for p in pitems]
    return align_tiers(
        n_t,
        n_p,
        (lambda: [t.deep_token for t in tnodes], lambda: t_tok),
        (lambda: p_deep if p_deep is not None else _deep_tokens(pitems, deep_of), lambda: p_tok),
        lambda i, j: loose_match(t_loose[i], p_loose[j]),
        lambda i, j: _same_tag(t_loose[i], p_loose[j]),
    )


def _group_text(group: Iterable[Element | str]) -> tuple[str, int]:
    """Cleaned text of a record group and how much of it is link text."""
    parts: list[str] = []
    link = 0
    for item in group:
        if isinstance(item, str):
            parts.append(item)
            continue
        parts.append(element_text(item))
        if item.tag == "a":
            link += len(parts[-1])
        else:
            for a in item.iter("a"):
                link += len(element_text(a))
    return clean_text(" ".join(parts)), link


#: Most distinct leading texts tracked per region.
MAX_LEADS = 64
_LEAD_CHARS = 60


def group_pieces(group: Iterable[Element | str]) -> list[str]:
    """The cleaned text pieces of a record group, in document order."""
    pieces: list[str] = []
    for item in group:
        if isinstance(item, str):
            pieces.append(item)
        elif item.tag not in LEAF_TAGS:
            for piece in item.itertext():
                piece = clean_text(piece)
                if piece:
                    pieces.append(piece)
    return pieces


def split_lead(pieces: Sequence[str]) -> tuple[str | None, str]:
    """A group's leading label and the value after it: ``["Price", "£3"]`` → ``("Price",
    "£3")``; ``["Diameter: 45cm"]`` → ``("Diameter", "45cm")``; no label → ``(first, rest)``
    with a lead that has no letter reported as None."""
    if not pieces:
        return None, ""
    first = pieces[0]
    head, sep, rest = first.partition(":")
    if sep and 0 < len(head) <= 40 and any(ch.isalpha() for ch in head):
        value = clean_text(" ".join([rest, *pieces[1:]]))
        return head.strip()[:_LEAD_CHARS], value
    if not any(ch.isalpha() for ch in first):
        return None, clean_text(" ".join(pieces))
    return first[:_LEAD_CHARS], clean_text(" ".join(pieces[1:]))


def _observe_leads(kv: dict[str, list[Any]], groups: Iterable[Iterable[Element | str]]) -> None:
    """Count, per leading text, the pages and groups it leads (key/value tables have the
    same leading labels on every page; real lists do not)."""
    seen: set[str] = set()
    unlabelled = 0
    for group in groups:
        lead, value = split_lead(group_pieces(group))
        if lead is None:
            unlabelled += 1
            continue
        entry = kv.get(lead)
        if entry is None:
            if len(kv) >= MAX_LEADS:
                unlabelled += 1
                continue
            entry = kv[lead] = [0, 0, []]
        if lead not in seen:
            seen.add(lead)
            entry[0] += 1
        entry[1] += 1
        if value:
            _add_sample(entry[2], value)
    if unlabelled:
        entry = kv.setdefault("", [0, 0, []])
        entry[0] += 1
        entry[1] += unlabelled


#: Page fingerprints remembered to skip pages learned already (a URL variant, a re-fetch).
MAX_DOCS = 10_000
#: Separators between the parts of a document title ("Tomato Risotto | Feasting At Home").
_TITLE_PARTS = re.compile(r"\s+[|\-–—:·•»~/]+\s+")
_NAME_META = ("og:title", "twitter:title")


_SITE_META = ("og:site_name", "application-name")


def _head_values(root: Element) -> tuple[str, str, list[str], str]:
    """``(title, canonical URL, [og:title, twitter:title], site name)`` from the head."""
    head = root.find("head")
    if head is None:
        return "", "", [], ""
    title = clean_text(head.findtext("title") or "")
    canonical = ""
    site = ""
    metas: list[str] = []
    for el in head:
        tag = el.tag
        if tag == "link" and not canonical:
            if "canonical" in (el.get("rel") or "").lower().split():
                canonical = (el.get("href") or "").strip()
        elif tag == "meta":
            prop = el.get("property") or el.get("name")
            if prop in _NAME_META:
                metas.append(clean_text(el.get("content") or ""))
            elif prop in _SITE_META and not site:
                site = clean_text(el.get("content") or "")
            elif prop == "og:url" and not canonical:
                canonical = (el.get("content") or "").strip()
    return title, canonical, metas, site


def page_fingerprint(root: Element, body_text: str) -> int:
    """What makes two fetched pages the same document: the same canonical URL and the same
    title, or — without a canonical URL — the same text and embedded data. (A title is
    needed with the canonical URL: some sites point every canonical link to the home page.)"""
    title, canonical, _, _ = _head_values(root)
    if canonical:
        key = f"{canonical}\x1f{title}"
    else:
        # the embedded data too: a client-side rendered page may show only "Loading…"
        embedded = root.find(JSONLD_TAG)
        extra = element_text(embedded) if embedded is not None else ""
        key = f"\x1e{title}\x1f{body_text}\x1f{extra}"
    raw = key.encode("utf-8", "replace")
    return (zlib.crc32(raw) << 32) | zlib.adler32(raw)


def page_body_text(root: Element) -> str:
    """The page's cleaned body text (the whole page's without a ``<body>``)."""
    body = root.find("body")
    return element_text(body if body is not None else root)


def document_fingerprint(root: Element) -> int:
    """:func:`page_fingerprint` of a parsed page, as :meth:`TemplateTree.add_page` takes it:
    a page can be told a duplicate before it is learned."""
    return page_fingerprint(root, page_body_text(root))


def page_names(root: Element) -> frozenset[str]:
    """The page's name as its head states it: the title, og:title, twitter:title and their
    parts around separators except the site's name (og:site_name), case-folded. Without a
    stated site name, the site-name part of the title is among them: only a page with no
    other page to compare to uses these."""
    title, _, metas, site = _head_values(root)
    site = site.casefold()
    out: set[str] = set()
    for text in (title, *metas):
        if not text:
            continue
        folded = text.casefold()
        out.add(folded)
        for part in _TITLE_PARTS.split(folded):
            if len(part) >= 3 and part != site:
                out.add(part)
    return frozenset(out)


class TemplateTree:
    """The mutable learning state: the template tree and how many pages built it."""

    def __init__(self) -> None:
        self.root: TNode | None = None
        self._sig_counts: dict[str, int] | None = None
        self._claimed: set[Element] = set()
        #: what learning the current page read of its elements (:class:`_PageReads`)
        self._reads = _PageReads()
        self.pages = 0
        self.text_chars = 0  # total cleaned body text over the pages (for list-page detection)
        self.docs: set[int] = set()  # fingerprints of the learned pages
        self.duplicates = 0  # pages skipped as already learned
        self._stamp = 0
        #: label–value rows seen, per label (matched by label, not position)
        self.labels = LabelStats()
        #: list items under a heading, per heading (matched by heading, not position)
        self.sections = SectionStats()

    # --- adding a page -------------------------------------------------------------------

    def add_page(self, root: Element) -> bool:
        """Align one parsed page with the template and fold it in. A page already learned
        (the same document fetched again, see :func:`page_fingerprint`) is skipped: it
        would make its data look constant. Returns whether the page was learned."""
        body_text = page_body_text(root)
        if not self._remember(page_fingerprint(root, body_text)):
            return False
        self.pages += 1
        self._stamp += 1
        stamp = self._stamp
        self.text_chars += len(body_text)
        self.labels.observe(root)
        self.sections.observe(root)
        names = page_names(root)
        longest = max((len(x) for x in names), default=0)
        if self.root is None:
            self.root = self._new_node(root)
        self._claimed = set()
        self._reads = _PageReads()
        try:
            self._fold(root, stamp, names, longest)
        finally:  # the page's elements are not held past its learning
            self._claimed = set()
            self._reads = _PageReads()
        return True

    def _fold(self, root: Element, stamp: int, names: frozenset[str], longest: int) -> None:
        """Walk the page and the template together, folding each page item into its node."""
        assert self.root is not None
        stack: list[tuple[TNode, Any, bool]] = [(self.root, root, False)]
        while stack:
            node, item, grouped = stack.pop()
            if node.kind == REPEAT:
                if isinstance(item, tuple):  # one record group of a run
                    self._merge_children(node.children, list(item), stamp, stack, True)
                else:
                    self._observe_run(node, item, stamp, stack)
                continue
            self._touch(node, stamp)
            if node.kind == TEXT:
                _add_sample(node.samples, item)
                if not grouped and len(item) <= longest and item.casefold() in names:
                    node.named += 1
                continue
            self._add_element(node, item, stamp, stack, grouped)

    def _remember(self, fingerprint: Any) -> bool:
        """Whether the page is new; a new one is remembered (up to :data:`MAX_DOCS`)."""
        if fingerprint in self.docs:
            self.duplicates += 1
            return False
        if len(self.docs) < MAX_DOCS:
            self.docs.add(fingerprint)
        return True

    def _add_element(
        self, node: TNode, item: Element, stamp: int, stack: list[Any], grouped: bool
    ) -> None:
        """Fold one page element into its template node and align their children."""
        items, sigs = self._reads.items(item)
        self._observe_element(node, item, self._reads.deep_key(item))
        if self._claimed:
            keep = [k for k, x in enumerate(items) if isinstance(x, str) or x not in self._claimed]
            items = [items[k] for k in keep]
            sigs = [sigs[k] for k in keep]
        if not items and not node.children:
            return
        known = frozenset(c.pattern for c in node.children if c.kind == REPEAT)
        pitems = find_runs(items, sigs, known, discover=True)
        p_tok = page_tokens(pitems, sigs if len(pitems) == len(items) else None)
        self._merge_children(node.children, pitems, stamp, stack, grouped, p_tok)

    @staticmethod
    def _touch(node: TNode, stamp: int) -> None:
        if node.stamp != stamp:
            node.stamp = stamp
            node.count += 1
        node.gcount += 1

    @staticmethod
    def _observe_element(node: TNode, el: Element, key: str) -> None:
        """Count the element's attribute values and its deep key (:func:`deep_key`)."""
        attrs = DATA_ATTRS.get(node.tag)
        if attrs:
            for attr in attrs:
                value = attr_value(el, attr)
                if value is not None:
                    _add_sample(node.avals.setdefault(attr, []), value)
        deep = node.deep
        if key in deep:
            deep[key] += 1
        elif len(deep) < _MAX_DEEP:
            deep[sys.intern(key)] = 1  # one copy of a key many nodes and labels share

    def _observe_run(self, node: TNode, run: Run, stamp: int, stack: list[Any]) -> None:
        if node.stamp != stamp:
            node.stamp = stamp
            node.count += 1
        node.gcount += len(run.groups)
        texts: list[str] = []
        for group in run.groups:
            text, link = _group_text(group)
            texts.append(text)
            node.tchars += len(text)
            node.lchars += link
            if text:
                _add_sample(node.samples, text)
        _observe_leads(node.kv, run.groups)
        digest = _stable_hash("\x1f".join(texts))
        if digest not in node.hashes and len(node.hashes) < 2:
            node.hashes.append(digest)
        for group in reversed(run.groups):
            stack.append((node, group, True))

    def _new_node(self, item: PageItem) -> TNode:
        if isinstance(item, str):
            return TNode(TEXT, TEXT_SIG, TEXT_SIG)
        if isinstance(item, Run):
            node = TNode(REPEAT, "R:" + "|".join(item.pattern), "")
            node.pattern = item.pattern
            return node
        node = TNode(ELEMENT, element_sig(item), str(item.tag))
        for name in INFO_ATTRS:
            value = item.get(name)
            if value:
                node.info[name] = sys.intern(value[:200])  # classes repeat over nodes
        return node

    def _merge_children(
        self,
        tlist: list[TNode],
        pitems: Sequence[PageItem],
        stamp: int,
        stack: list[Any],
        grouped: bool,
        p_tok: Sequence[int] | None = None,
    ) -> None:
        pairs = align_template_page(tlist, pitems, None, p_tok, deep_of=self._reads.deep_key)
        if len(pairs) == len(tlist) == len(pitems):
            for i, j in pairs:
                self._push_pair(tlist, i, pitems[j], stack, grouped)
            return
        consumed: set[int] = set()
        if not grouped and len(pairs) < min(len(tlist), len(pitems)) + 1:
            consumed = self._rescue(tlist, pitems, pairs, stack)
        merged: list[TNode] = []
        for ti, pj in merge_order(len(tlist), len(pitems), pairs):
            if ti is None:
                assert pj is not None
                if pj in consumed:
                    continue
                new = self._new_node(pitems[pj])
                merged.append(new)
                self._push(new, pitems[pj], stack, grouped)
            elif pj is None:
                merged.append(tlist[ti])
            else:
                self._push_pair(tlist, ti, pitems[pj], stack, grouped)
                merged.append(tlist[ti])
        tlist[:] = merged

    def _rescue(
        self,
        tlist: list[TNode],
        pitems: Sequence[PageItem],
        pairs: Sequence[tuple[int, int]],
        stack: list[Any],
    ) -> set[int]:
        """Match across an extra or a missing wrapper level (a site's two layouts): an
        unmatched page element whose signature is found once below an unmatched template
        node, or an unmatched template node whose signature is found once below an
        unmatched page element. Only signatures with a class or id that are unique in the
        template count. Returns the page items consumed."""
        matched_t = {i for i, _ in pairs}
        matched_p = {j for _, j in pairs}
        free_t = [t for i, t in enumerate(tlist) if i not in matched_t and t.kind == ELEMENT]
        free_p = [
            (j, p)
            for j, p in enumerate(pitems)
            if j not in matched_p and not isinstance(p, (str, Run))
        ]
        if not free_t or not free_p:
            return set()
        counts = self.sig_counts()
        consumed = _rescue_missing_wrapper(free_t, free_p, counts, stack)
        self._rescue_extra_wrapper(free_t, free_p, consumed, counts, stack)
        return consumed

    def _rescue_extra_wrapper(
        self,
        free_t: list[TNode],
        free_p: list[tuple[int, Any]],
        consumed: set[int],
        counts: dict[str, int],
        stack: list[Any],
    ) -> None:
        """The page has a wrapper level the template lacks: a free template node matches
        the one element below a free page element that has its signature."""
        wanted = {t.sig: t for t in free_t if counts.get(t.sig) == 1 and _anchor(t.sig)}
        if not wanted:
            return
        below_p: dict[str, list[Element]] = {}
        for j, p in free_p:
            if j in consumed:
                continue
            for el in _page_descendants(p, RESCUE_DEPTH):
                if el.get("class") or el.get("id"):
                    sig = element_sig(el)
                    if sig in wanted:
                        below_p.setdefault(sig, []).append(el)
        for sig, els in below_p.items():
            if len(els) == 1:
                stack.append((wanted[sig], els[0], False))
                self._claimed.add(els[0])

    def sig_counts(self) -> dict[str, int]:
        """How many template elements (outside regions) carry each signature."""
        if self._sig_counts is None:
            counts: dict[str, int] = {}
            if self.root is not None:
                stack = [self.root]
                while stack:
                    node = stack.pop()
                    if node.kind == ELEMENT:
                        counts[node.sig] = counts.get(node.sig, 0) + 1
                        stack.extend(node.children)
            self._sig_counts = counts
        return self._sig_counts

    def _push_pair(
        self, tlist: list[TNode], i: int, item: PageItem, stack: list[Any], grouped: bool
    ) -> None:
        node = tlist[i]
        if isinstance(item, Run) and node.kind != REPEAT:
            node = _upgrade_to_repeat(node, item.pattern)
            tlist[i] = node
        self._push(node, item, stack, grouped)

    def _push(self, node: TNode, item: PageItem, stack: list[Any], grouped: bool) -> None:
        if node.kind == REPEAT and not isinstance(item, Run):
            item = Run(node.pattern, ((item,),))
        if node.kind == ELEMENT and not grouped and node.count == 0:
            counts = self.sig_counts()
            counts[node.sig] = counts.get(node.sig, 0) + 1
        stack.append((node, item, grouped))

    # --- merging another template ------------------------------------------------------

    def merge(self, other: TemplateTree) -> None:
        """Fold another template (learned from other pages of the same type) into this one."""
        if other.root is None:
            return
        self.pages += other.pages
        self.text_chars += other.text_chars
        self.duplicates += other.duplicates
        for fingerprint in other.docs:
            if len(self.docs) >= MAX_DOCS:
                break
            self.docs.add(fingerprint)
        self._sig_counts = None
        self.labels.merge(other.labels)
        self.sections.merge(other.sections)
        if self.root is None:
            self.root = other.root
            return
        stack: list[tuple[TNode, TNode]] = [(self.root, other.root)]
        while stack:
            a, b = stack.pop()
            _merge_stats(a, b)
            if a.kind == REPEAT:
                b_children = b.children if b.kind == REPEAT else [b]
            else:
                b_children = b.children
            _merge_child_lists(a.children, b_children, stack)


def _rescue_missing_wrapper(
    free_t: list[TNode], free_p: list[tuple[int, Any]], counts: dict[str, int], stack: list[Any]
) -> set[int]:
    """The page lacks a wrapper level the template has: a free page element matches the one
    node below a free template node that has its signature. Returns the page items used."""
    below_t: dict[str, list[TNode]] = {}
    for t in free_t:
        for node in _descendants(t, RESCUE_DEPTH):
            if node.kind == ELEMENT and counts.get(node.sig) == 1 and _anchor(node.sig):
                below_t.setdefault(node.sig, []).append(node)
    consumed: set[int] = set()
    for j, p in free_p:
        hits = below_t.get(element_sig(p))
        if hits is not None and len(hits) == 1:
            stack.append((hits[0], p, False))
            consumed.add(j)
    return consumed


def _upgrade_to_repeat(node: TNode, pattern: tuple[str, ...]) -> TNode:
    """A node seen once per page so far turns out to be a list on this page."""
    rep = TNode(REPEAT, "R:" + "|".join(pattern), "")
    rep.pattern = pattern
    rep.children = [node]
    rep.count = node.count
    rep.gcount = node.gcount
    rep.stamp = node.stamp
    rep.hashes = [-1]  # earlier pages had a single item: the region's content differs
    return rep


def _merge_stats(a: TNode, b: TNode) -> None:
    a.count += b.count
    a.gcount += b.gcount
    a.named += b.named
    for value in b.samples:
        _add_sample(a.samples, value)
    for attr, values in b.avals.items():
        mine = a.avals.setdefault(attr, [])
        for value in values:
            _add_sample(mine, value)
    for key, n in b.deep.items():
        if key in a.deep:
            a.deep[key] += n
        elif len(a.deep) < _MAX_DEEP:
            a.deep[key] = n
    for digest in b.hashes:
        if digest not in a.hashes and len(a.hashes) < 2:
            a.hashes.append(digest)
    for lead, (pages, groups, samples) in b.kv.items():
        entry = a.kv.get(lead)
        if entry is None:
            if len(a.kv) >= MAX_LEADS:
                continue
            entry = a.kv[lead] = [0, 0, []]
        entry[0] += pages
        entry[1] += groups
        for value in samples:
            _add_sample(entry[2], value)
    a.tchars += b.tchars
    a.lchars += b.lchars
    if a.name is None:
        a.name = b.name
    for key, value in b.info.items():
        a.info.setdefault(key, value)


def _merge_child_lists(
    alist: list[TNode], blist: Sequence[TNode], stack: list[tuple[TNode, TNode]]
) -> None:
    n_a, n_b = len(alist), len(blist)
    if n_b == 0:
        return
    b_tok = [b.token for b in blist]
    a_loose = [a.loose for a in alist]
    b_loose = [b.loose for b in blist]
    pairs = align_tiers(
        n_a,
        n_b,
        (lambda: [a.deep_token for a in alist], lambda: [a.token for a in alist]),
        (lambda: [b.deep_token for b in blist], lambda: b_tok),
        lambda i, j: loose_match(a_loose[i], b_loose[j]),
        lambda i, j: _same_tag(a_loose[i], b_loose[j]),
    )
    merged: list[TNode] = []
    for ai, bj in merge_order(n_a, n_b, pairs):
        if ai is None:
            assert bj is not None
            merged.append(blist[bj])
        elif bj is None:
            merged.append(alist[ai])
        else:
            a, b = alist[ai], blist[bj]
            if b.kind == REPEAT and a.kind != REPEAT:
                a = _upgrade_to_repeat(a, b.pattern)
            elif a.kind == REPEAT and b.kind != REPEAT:
                b = _upgrade_to_repeat(b, a.pattern)
            merged.append(a)
            stack.append((a, b))
    alist[:] = merged


#: How deep below an unmatched node a wrapper-level rescue looks.
RESCUE_DEPTH = 4


def _anchor(sig: str) -> bool:
    return "." in sig or "#" in sig


def _descendants(node: TNode, depth: int) -> Iterable[TNode]:
    """Element descendants down to ``depth`` levels, not entering regions."""
    stack = [(child, 1) for child in node.children]
    while stack:
        cur, d = stack.pop()
        if cur.kind != ELEMENT:
            continue
        yield cur
        if d < depth:
            stack.extend((child, d + 1) for child in cur.children)


def _page_descendants(el: Element, depth: int) -> Iterable[Element]:
    stack = [(child, 1) for child in el if isinstance(child.tag, str)]
    while stack:
        cur, d = stack.pop()
        yield cur
        if d < depth and cur.tag not in LEAF_TAGS:
            stack.extend((child, d + 1) for child in cur if isinstance(child.tag, str))


def iter_nodes(root: TNode) -> Iterable[TNode]:
    """All nodes of a template tree in document order (iterative)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))
