"""Apply a compiled template to a page: one record, plus the main region's records.

Extraction walks the template top-down along the alignment, but only into subtrees that hold
data: a page's fixed chrome is aligned at the level where it hangs and never descended into.
Required nodes the walk misses are looked for by a signature found once in the template (a
site with an extra wrapper level); groups of a repeated region with a structure already seen
reuse that group's alignment. The fit is the share of the template's *data skeleton* (the
required nodes that hold or lead to data) met on the page; a page below the wrapper's
``min_fit`` does not fit and yields an empty record with a reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pagesim_scrapy.core.induce.compiled import (
    GROUP_TEXT_FIELD,
    CNode,
    Compiled,
    group_blank,
    trim_affixes,
)
from pagesim_scrapy.core.induce.dom import (
    Element,
    PageItem,
    Run,
    element_sig,
    element_text,
    find_runs,
    page_items,
)
from pagesim_scrapy.core.induce.labels import extract_labels
from pagesim_scrapy.core.induce.sections import extract_sections
from pagesim_scrapy.core.induce.template import (
    ELEMENT,
    REPEAT,
    TEXT,
    align_template_page,
    attr_value,
    group_pieces,
    page_deep_tokens,
    page_tokens,
    split_lead,
)

__all__ = ["Extraction", "extract_compiled"]


@dataclass
class Extraction:
    """The result of applying a wrapper to one page.

    ``record`` is ``{field: value}`` (a list of sub-records for a repeating region);
    ``records`` the groups of the main region (the records of a list page); ``fit`` the share
    of the template's data skeleton found on the page; ``reason`` says why a page gave
    nothing (then ``record`` is empty).
    """

    record: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    fit: float = 0.0
    reason: str | None = None
    #: the whole text of each label field's row ("ISBN-13: 978…"), by field name
    rows: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.reason is None


class _Walk:
    """The state of one extraction: the records being filled and the fit counters."""

    def __init__(self, comp: Compiled) -> None:
        self.comp = comp
        self.record: dict[str, Any] = _fresh(comp.blank)
        self.records: list[dict[str, Any]] = []
        self.found: set[int] = set()  # ids of the required data-bearing nodes met
        self.filled = 0
        self.stack: list[tuple[CNode, Any, dict[str, Any]]] = []
        self.missing: list[tuple[CNode, dict[str, Any]]] = []
        self.matched: dict[int, Element] = {}  # required element nodes -> their page element
        #: each page element's items, read once per extraction (alignment reads a child's
        #: items for its deep token, then the walk descends into it)
        self.items: dict[Element, tuple[list[Element | str], list[str]]] = {}

    def page_items(self, el: Element) -> tuple[list[Element | str], list[str]]:
        """:func:`.dom.page_items` of a page element, read once per extraction."""
        got = self.items.get(el)
        if got is None:
            got = self.items[el] = page_items(el)
        return got

    def _sigs(self, el: Element) -> list[str]:
        return self.page_items(el)[1]

    def run(self) -> None:
        stack = self.stack
        found = self.found
        while stack:
            c, item, rec = stack.pop()
            if c.counted and item is not None:
                found.add(id(c))
                if c.kind == ELEMENT:
                    self.matched[id(c)] = item
            if c.kind == TEXT:
                if c.field and isinstance(item, str) and rec.get(c.field) is None:
                    rec[c.field] = item
                    self.filled += 1
                    if c.trim_field and c.trim is not None:
                        rec[c.trim_field] = trim_affixes(item, c.trim)
            elif c.kind == REPEAT:
                if c.kv is not None:
                    self._key_values(c, item, rec)
                if c.kv is None or c.field is not None:
                    self._region(c, item, rec)
            elif item is not None:
                self._element(c, item, rec)

    def _key_values(self, c: CNode, run: Run, rec: dict[str, Any]) -> None:
        assert c.kv is not None
        for group in run.groups:
            lead, value = split_lead(group_pieces(group))
            name = c.kv.get(lead) if lead else None
            if name and value:
                rec[name] = value
                self.filled += 1

    def _region(self, c: CNode, run: Run, rec: dict[str, Any]) -> None:
        out: list[dict[str, Any]] = []
        blank = self.comp.group_blanks.get(id(c))
        if blank is None:
            blank = self.comp.group_blanks[id(c)] = group_blank(c)
        deeper = any(k.has_data for k in c.children)
        memo = self.comp.plans.setdefault(id(c), {}) if deeper and c.flat else None
        for group in run.groups:
            sub = _fresh(blank)
            sub[GROUP_TEXT_FIELD] = _text_of(group)
            if memo is not None:
                key = _group_key(group)
                plan = memo.get(key)
                if plan is None:
                    plan = _make_plan(c, group)
                    if len(memo) < MAX_PLANS:
                        memo[key] = plan
                self.filled += _apply_plan(plan, group, sub)
            elif deeper:
                for i, j in align_template_page(c.children, group):
                    child = c.children[i]
                    if child.has_data:
                        self.stack.append((child, _fit_item(child, group[j]), sub))
            out.append(sub)
        if c.field:
            rec[c.field].extend(out)
            self.filled += len(out)
        if c is self.comp.main:
            self.records.extend(out)

    def _element(self, c: CNode, el: Element, rec: dict[str, Any]) -> None:
        if c.attr_fields:
            self._attributes(c, el, rec)
        if not c.children or not c.has_data:
            return
        pitems, p_tok = _page_children(c, self.page_items(el))
        if c.tokens == p_tok:
            self._push_in_step(c.children, pitems, rec)
        else:
            self._push_aligned(c, pitems, p_tok, rec)

    def _attributes(self, c: CNode, el: Element, rec: dict[str, Any]) -> None:
        for attr, name in c.attr_fields:
            value = attr_value(el, attr)
            if value is not None and rec.get(name) is None:
                rec[name] = value
                self.filled += 1

    def _push_in_step(
        self, children: list[CNode], pitems: Sequence[PageItem], rec: dict[str, Any]
    ) -> None:
        """The page's children have the template's shape: child k goes with item k."""
        stack = self.stack
        for child, pitem in zip(children, pitems):
            if child.has_data:
                if child.kind == TEXT or (child.kind == ELEMENT and pitem.__class__ is not Run):
                    stack.append((child, pitem, rec))
                else:
                    self._push_matched(child, pitem, rec)

    def _push_aligned(
        self, c: CNode, pitems: Sequence[PageItem], p_tok: Sequence[int], rec: dict[str, Any]
    ) -> None:
        """The page's children differ from the template's: align them; required element
        children left unmatched are remembered for :meth:`rescue`."""
        children = c.children
        pairs = self._align(c, pitems, p_tok)
        for i, j in pairs:
            child = children[i]
            if child.has_data:
                self._push_matched(child, pitems[j], rec)
        if c.scope is None and len(pairs) < len(children):
            matched = {i for i, _ in pairs}
            for i, child in enumerate(children):
                if i not in matched and child.has_data and child.kind == ELEMENT:
                    self.missing.append((child, rec))

    def _align(
        self, c: CNode, pitems: Sequence[PageItem], p_tok: Sequence[int]
    ) -> list[tuple[int, int]]:
        """:func:`.template.align_template_page` of the node's children and the page's,
        remembered per node by everything the alignment reads of the page's side (tokens,
        deep tokens, which items are runs or text): the same layout is aligned once."""
        p_deep = page_deep_tokens(pitems, self._sigs)
        kinds = tuple(0 if p.__class__ is str else 1 if p.__class__ is Run else 2 for p in pitems)
        key = (tuple(p_tok), tuple(p_deep), kinds)
        memo = self.comp.alignments.setdefault(id(c), {})
        pairs = memo.get(key)
        if pairs is None:
            pairs = align_template_page(c.children, pitems, c.tokens, p_tok, p_deep)
            if len(memo) < MAX_PLANS:
                memo[key] = pairs
        return pairs

    def _push_matched(self, child: CNode, pitem: PageItem, rec: dict[str, Any]) -> None:
        if isinstance(pitem, Run) and child.kind == ELEMENT:
            # one template node, several on this page: each brings its lists
            for group in reversed(pitem.groups):
                self.stack.append((child, group[0], rec))
        else:
            self.stack.append((child, _fit_item(child, pitem), rec))

    def repair(self, root: Element) -> None:
        """Required fields still empty: walk again from their closest anchor (an ancestor
        with a signature unique in the template) if the page has it once, somewhere else
        than where the walk put it; keep only what fills the empty fields."""
        record = self.record
        empty = [c for c in self.comp.repairable if not record.get(c.field or "")]
        if not empty:
            return
        anchors = self.comp.anchors
        starts: dict[int, CNode] = {}
        for c in empty:
            anchor = _anchor_of(c, anchors)
            if anchor is not None:
                starts[id(anchor)] = anchor
        if not starts:
            return
        wanted = {a.sig for a in starts.values()}
        index = _elements_by_sig(root, wanted)
        for anchor in starts.values():
            hits = index.get(anchor.sig)
            if not hits or len(hits) != 1 or self.matched.get(id(anchor)) is hits[0]:
                continue
            scratch = _fresh(self.comp.blank)
            self.stack.append((anchor, hits[0], scratch))
            self.run()
            for key, value in scratch.items():
                if value and not record.get(key):
                    record[key] = value

    def rescue(self, root: Element) -> bool:
        """Find required data-bearing template nodes the top-down walk missed (a layout with
        an extra or a missing wrapper level) by their signature, when it is unique on both
        sides."""
        anchors = self.comp.anchors
        pending = [(c, rec) for c, rec in self.missing if not c.optional]
        self.missing = []
        if not pending:
            return False
        # the anchors that could be wanted: the missing nodes and their data descendants
        wanted: set[str] = set()
        stack = [c for c, _ in pending]
        while stack:
            c = stack.pop()
            if c.sig in anchors:
                wanted.add(c.sig)
            stack.extend(k for k in c.children if k.has_data and k.kind == ELEMENT)
        if not wanted:
            return False
        index = _elements_by_sig(root, wanted)
        rescued = False
        while pending:
            c, rec = pending.pop()
            hits = index.get(c.sig)
            if hits is not None and len(hits) == 1:
                self.stack.append((c, hits.pop(), rec))
                rescued = True
                continue
            for child in c.children:
                if child.has_data and child.kind == ELEMENT:
                    pending.append((child, rec))
        return rescued


def _elements_by_sig(root: Element, wanted: set[str]) -> dict[str, list[Element]]:
    """The page's elements with each of the ``wanted`` signatures, in document order."""
    tags = {sig.split(".", 1)[0].split("#", 1)[0].split("[", 1)[0] for sig in wanted}
    index: dict[str, list[Element]] = {}
    for el in root.iter(*tags):
        sig = element_sig(el)
        if sig in wanted:
            index.setdefault(sig, []).append(el)
    return index


def _page_children(
    c: CNode, read: tuple[list[Element | str], list[str]]
) -> tuple[list[PageItem], list[int]]:
    """The page element's children (its :func:`.dom.page_items`, ``read``) as items, its
    known regions collapsed into runs, and their alignment tokens."""
    items, sigs = read
    pitems: list[PageItem]
    if c.known or c.implicit:
        pitems = find_runs(items, sigs, c.known, discover=False)
        if c.implicit:
            pitems = _implicit_runs(pitems, c.implicit)
    else:
        pitems = items  # type: ignore[assignment]
    return pitems, page_tokens(pitems, sigs if len(pitems) == len(items) else None)


# --- repeated groups: one alignment per distinct group structure ----------------------------

#: Distinct group structures remembered per region.
MAX_PLANS = 64

#: One extraction step of a group: (field, group item, element index in the item's preorder
#: or -1 for the item itself as text, attribute or None, index of the text piece).
Step = tuple[str, int, int, str | None, int]


def _group_key(group: tuple[Element | str, ...]) -> tuple[Any, ...]:
    """Everything the alignment of a group depends on: each element's signature (its tag,
    stable classes and id, itemprop: what alignment compares), whether it has a class or
    an id at all (an inline element without either is read as text), and where non-blank
    text is. Not the raw class or id: a card list whose every card has an id of its own
    ("pc-12554") has one structure, aligned once, not one per card."""
    key: list[Any] = []
    for item in group:
        if isinstance(item, str):
            key.append(0)
            continue
        for el in item.iter():
            text = el.text
            tail = el.tail if el is not item else None
            get = el.get
            key.append(
                (
                    element_sig(el),
                    bool(get("class")),
                    bool(get("id")),
                    get("itemprop"),
                    bool(text and not text.isspace()),
                    bool(tail and not tail.isspace()),
                )
            )
        key.append(1)
    return tuple(key)


def _make_plan(c: CNode, group: tuple[Element | str, ...]) -> list[Step]:
    """Align a region's prototype with one group and record where each sub-field was found,
    so that groups of the same structure are read without aligning again."""
    steps: list[Step] = []
    orders: list[dict[Element, int]] = [
        {} if isinstance(item, str) else {el: k for k, el in enumerate(item.iter())}
        for item in group
    ]
    stack: list[tuple[CNode, PageItem, int, int, int]] = []
    for i, j in align_template_page(c.children, group):
        child = c.children[i]
        if child.has_data:
            stack.append((child, group[j], j, -1, 0))
    while stack:
        node, item, g, parent, piece = stack.pop()
        if node.kind == TEXT:
            if node.field and isinstance(item, str):
                steps.append((node.field, g, parent, None, piece))
            continue
        if node.kind != ELEMENT or isinstance(item, (str, Run)):
            continue
        idx = orders[g].get(item, -1)
        for attr, name in node.attr_fields:
            steps.append((name, g, idx, attr, 0))
        if not node.children:
            continue
        items, _sigs = page_items(item)
        pieces = 0
        piece_of: dict[int, int] = {}
        for k, x in enumerate(items):
            if isinstance(x, str):
                piece_of[k] = pieces
                pieces += 1
        for i, j in align_template_page(node.children, items):
            child = node.children[i]
            if child.has_data:
                stack.append((child, items[j], g, idx, piece_of.get(j, 0)))
    return steps


def _apply_plan(plan: list[Step], group: tuple[Element | str, ...], sub: dict[str, Any]) -> int:
    filled = 0
    elements: dict[int, list[Element]] = {}
    texts: dict[tuple[int, int], list[str]] = {}
    for name, g, idx, attr, piece in plan:
        item = group[g]
        if idx < 0:
            if isinstance(item, str):
                value: str | None = item
            else:
                continue
        else:
            if isinstance(item, str):
                continue
            els = elements.get(g)
            if els is None:
                els = elements[g] = list(item.iter())
            if idx >= len(els):
                continue
            el = els[idx]
            if attr is not None:
                value = attr_value(el, attr)
            else:
                pieces = texts.get((g, idx))
                if pieces is None:
                    pieces = texts[(g, idx)] = [x for x in page_items(el)[0] if isinstance(x, str)]
                value = pieces[piece] if piece < len(pieces) else None
        if value is not None and sub.get(name) is None:
            sub[name] = value
            filled += 1
    return filled


def _anchor_of(c: CNode, anchors: frozenset[str]) -> CNode | None:
    """The closest ancestor with a signature found once in the template."""
    node = c.parent
    while node is not None and node.parent is not None:
        if node.sig in anchors and node.scope is None:
            return node
        node = node.parent
    return None


def _fresh(blank: dict[str, Any]) -> dict[str, Any]:
    """A new empty record: the blank's None values shared, its lists new."""
    out = dict(blank)
    for key, value in blank.items():
        if value is not None and value.__class__ is list:
            out[key] = []
    return out


def _text_of(group: tuple[Element | str, ...]) -> str:
    """The cleaned text of a record group."""
    if len(group) == 1:
        item = group[0]
        return item if isinstance(item, str) else element_text(item)
    return " ".join(" ".join((x if isinstance(x, str) else element_text(x)) for x in group).split())


def extract_compiled(comp: Compiled, root: Element, min_fit: float) -> Extraction:
    croot = comp.root
    if croot.tag != root.tag:
        return Extraction({}, [], 0.0, f"page root <{root.tag!s}> is not <{croot.tag}>")
    walk = _Walk(comp)
    walk.stack.append((croot, root, walk.record))
    walk.run()
    if walk.rescue(root):
        walk.run()
    walk.repair(root)
    rows: dict[str, str] = {}
    for name, (value, text) in extract_labels(comp.labels, root).items():
        walk.record[name] = value
        rows[name] = text
        walk.filled += 1
    for name, items in extract_sections(comp.sections, root).items():
        walk.record[name] = items
        walk.filled += 1
    required = comp.required_data
    found = len(walk.found)
    fit = min(1.0, found / required) if required else 1.0
    if fit < min_fit:
        return Extraction(
            {},
            [],
            fit,
            f"page does not fit the template: {found} of the {required} nodes that hold or "
            f"lead to data on every learned page found (fit {fit:.2f} < {min_fit:.2f})",
        )
    if walk.filled == 0 and comp.fields:
        return Extraction({}, [], fit, "no data slot of the template found on the page")
    return Extraction(walk.record, walk.records, fit, None, rows)


def _implicit_runs(pitems: list[PageItem], sigs: frozenset[str]) -> list[PageItem]:
    """Consecutive page elements sharing the signature of a template node that holds lists
    (the template saw one ingredient list per page, this page has three)."""
    out: list[PageItem] = []
    i, n = 0, len(pitems)
    while i < n:
        item = pitems[i]
        if isinstance(item, (str, Run)):
            out.append(item)
            i += 1
            continue
        sig = element_sig(item)
        j = i + 1
        if sig in sigs:
            while j < n:
                nxt = pitems[j]
                if isinstance(nxt, (str, Run)) or element_sig(nxt) != sig:
                    break
                j += 1
        if j - i >= 2:
            run_items = [x for x in pitems[i:j] if not isinstance(x, (str, Run))]
            out.append(Run((sig,), tuple((x,) for x in run_items)))
        else:
            out.append(item)
        i = j
    return out


def _fit_item(c: CNode, item: PageItem) -> Any:
    """Shape a page item for the template node it matched (a run for a region, an element
    for an element)."""
    if c.kind == REPEAT:
        if isinstance(item, Run):
            return item
        return Run(c.src.pattern, ((item,),))
    if isinstance(item, Run):
        return item.groups[0][0]
    if c.kind == ELEMENT and isinstance(item, str):
        return None
    return item
