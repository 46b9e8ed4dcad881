"""Compile a learned template into the read-only form extraction uses.

Compiling applies seed 003's rule — drop nodes whose appearCount is below
``ceil((n + 1) · λ)`` — marks optional nodes (found on fewer than all pages, or in fewer than
all groups of their region), decides which text nodes, attributes and regions are data,
names the fields, and picks the main repeating region (the records of a list page).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from pagesim_scrapy.core.induce.labels import LabelField, compile_labels, label_key
from pagesim_scrapy.core.induce.naming import best_class, label_text, snake, unique_name
from pagesim_scrapy.core.induce.sections import SectionField, compile_sections
from pagesim_scrapy.core.induce.structured import JSONLD_PREFIX, JSONLD_TAG
from pagesim_scrapy.core.induce.template import (
    DATA_ATTRS,
    ELEMENT,
    REPEAT,
    SAMPLE_CHARS,
    TEXT,
    TemplateTree,
    TNode,
)

__all__ = ["CNode", "Compiled", "FieldInfo", "compile_tree", "min_count"]

#: A region is a list of records only if it has at least this many groups per page on average.
MIN_GROUPS = 2.0
#: …and at most this share of its text inside links (menus, tag clouds are link lists).
MAX_LINK_SHARE = 0.6
#: A region is a key/value table (rows "Price | £3" with the same labels on every page)
#: when at least this share of its groups start with a text seen on two pages or more.
KV_SHARE = 0.6
#: …a label counting as constant when found on at least this share of the region's pages.
KV_PAGE_SHARE = 0.5
#: A page is a list page when its main region holds at least this share of the page's text.
LIST_PAGE_SHARE = 0.4

GROUP_TEXT_FIELD = "text"


def min_count(pages: int, lam: float) -> int:
    """Seed 003's threshold: nodes found on fewer pages than this are discarded."""
    return max(1, math.ceil((pages + 1) * lam - 1e-9))


#: Shared empty sets: an empty frozenset is a new 216-byte object each time it is built, and
#: most compiled nodes have none.
_NO_SIGS: frozenset[str] = frozenset()
_NO_PATTERNS: frozenset[tuple[str, ...]] = frozenset()


class CNode:
    """A compiled template node (only the kept ones)."""

    __slots__ = (
        "attr_fields",
        "children",
        "count",
        "counted",
        "deep_token",
        "field",
        "flat",
        "gcount",
        "has_data",
        "has_list",
        "implicit",
        "index",
        "kind",
        "known",
        "kv",
        "loose",
        "n_required",
        "optional",
        "parent",
        "path",
        "scope",
        "sig",
        "src",
        "tag",
        "token",
        "tokens",
        "trim",
        "trim_field",
    )

    def __init__(self, src: TNode, parent: CNode | None, scope: CNode | None) -> None:
        self.src = src
        self.kind = src.kind
        self.tag = src.tag
        self.sig = src.sig
        self.token = src.token
        self.deep_token = src.deep_token
        self.loose = src.loose
        self.count = src.count
        self.gcount = src.gcount
        self.parent = parent
        self.scope = scope  # the repeat whose records this node belongs to (None: the page)
        self.children: list[CNode] = []
        self.index = 0
        self.optional = False
        self.field: str | None = None
        self.attr_fields: list[tuple[str, str]] = []
        self.has_data = False
        self.counted = False  # required, holds or leads to data, in the page record
        self.has_list = False  # a data region somewhere below
        self.flat = False  # a region with no region inside its records
        self.implicit: frozenset[str] = _NO_SIGS
        self.known: frozenset[tuple[str, ...]] = _NO_PATTERNS
        self.kv: dict[str, str] | None = None  # a key/value table: leading label → field
        self.n_required = 0
        self.tokens: list[int] = []
        self.path = ""
        #: constant (prefix, suffix) around a text field's data, and the field without them
        self.trim: tuple[str, str] | None = None
        self.trim_field: str | None = None

    @property
    def info(self) -> dict[str, str]:
        return self.src.info

    def __repr__(self) -> str:
        return f"CNode({self.kind}, {self.path!r}, field={self.field!r})"


@dataclass
class FieldInfo:
    """One field of the page record (or of a region's records), for people and evaluation."""

    name: str
    kind: str  # "text", "attribute", "list"
    path: str
    scope: str | None  # the list field this is a sub-field of, or None
    attribute: str | None = None
    optional: bool = False
    pages: int = 0
    samples: list[str] = field(default_factory=list)
    #: the row label a label field is read by ("ISBN-13"), None for the other fields
    label: str | None = None


@dataclass
class Compiled:
    root: CNode
    pages: int
    min_count: int
    fields: list[FieldInfo]
    blank: dict[str, Any]
    main: CNode | None
    kind: str  # "list" or "detail"
    optional_nodes: list[CNode]
    discarded: int
    anchors: frozenset[str]  # signatures with a class or id found once in the template
    required_data: int  # required page-level nodes that hold or lead to data (fit's base)
    repairable: list[CNode]  # required page-level fields (text and lists) worth a second look
    #: per region, the extraction plans of the group structures met so far
    plans: dict[int, dict[tuple[Any, ...], Any]] = field(default_factory=dict)
    #: per element node, the alignments of the page children met so far (by their tokens):
    #: a settled wrapper meets the same few layouts again and again
    alignments: dict[int, dict[tuple[Any, ...], list[tuple[int, int]]]] = field(
        default_factory=dict
    )
    #: per region, the empty record of one group
    group_blanks: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: fields read from label–value rows, by their label (see :mod:`.labels`)
    labels: list[LabelField] = field(default_factory=list)
    #: list fields read from the items under a heading (see :mod:`.sections`)
    sections: list[SectionField] = field(default_factory=list)


def _segment(node: TNode) -> str:
    if node.kind == TEXT:
        return "text()"
    if node.kind == REPEAT:
        return "(" + " + ".join(p.split("[")[0] for p in node.pattern) + ")*"
    prop = node.info.get("itemprop", "")
    if prop.startswith(JSONLD_PREFIX + "."):
        return prop.rsplit(".", 1)[-1]  # html > jsonld > Recipe > name > text()
    seg = node.tag
    cls = best_class(node)
    if cls and node.info.get("class") and cls in node.info.get("class", ""):
        seg += "." + cls
    elif node.info.get("id"):
        seg += "#" + node.info["id"][:30]
    return seg


def compile_tree(tree: TemplateTree, lam: float, const_pages: int = 1) -> Compiled:
    """The extraction form of a template. Text that is the same on every learned page becomes
    template text only once ``const_pages`` pages are learned: fewer pages may share a value
    by chance (1: from the second page on, seed 003's rule)."""
    if tree.root is None:
        raise ValueError("the template has learned no page")
    n = tree.pages
    threshold = min_count(n, lam)
    root, order, discarded = _compile_nodes(tree.root, n, threshold)
    _mark_data(order, n, threshold, early=n < const_pages)
    reserved: set[str] = set()
    labels = compile_labels(tree.labels, n, threshold, reserved)
    _drop_covered_keys(order, {f.key for f in labels})
    sections = compile_sections(tree.sections, n, threshold, reserved)
    fields = _name_fields(order, n, reserved, _site_name(order))
    fields.extend(_label_and_section_fields(labels, sections))
    blank = _blank(root)
    for f in labels:
        blank[f.name] = None
    for section in sections:
        blank[section.name] = []
    main, kind = _main_region(order, tree)
    optional_nodes = [c for c in order if c.optional and c.kind != TEXT]
    required_data = _count_required_data(order)
    return Compiled(
        root,
        n,
        threshold,
        fields,
        blank,
        main,
        kind,
        optional_nodes,
        discarded,
        _anchors(order),
        required_data,
        [c for c in order if c.scope is None and c.field and not c.optional],
        labels=labels,
        sections=sections,
    )


def _compile_nodes(src_root: TNode, n: int, threshold: int) -> tuple[CNode, list[CNode], int]:
    """The kept template nodes as compiled nodes: the root, all of them in document order,
    and how many were discarded (seen on fewer than ``threshold`` pages)."""
    discarded = 0
    root = CNode(src_root, None, None)
    root.path = src_root.tag
    stack: list[CNode] = [root]
    order: list[CNode] = []  # document order
    while stack:
        c = stack.pop()
        order.append(c)
        scope = c if c.kind == REPEAT else c.scope
        kept: list[CNode] = []
        for child in c.src.children:
            if child.count < threshold:
                discarded += 1
                continue
            kept.append(_compile_child(c, child, scope, len(kept), n))
        c.children = kept
        c.tokens = [k.token for k in kept]
        c.known = frozenset(k.src.pattern for k in kept if k.kind == REPEAT) or _NO_PATTERNS
        c.n_required = sum(1 for k in kept if not k.optional)
        stack.extend(reversed(kept))
    return root, order, discarded


def _compile_child(c: CNode, child: TNode, scope: CNode | None, index: int, n: int) -> CNode:
    """One kept child of ``c``: optional when it is missing from some of the pages (or
    occurrences of its repeat) that have its parent."""
    cc = CNode(child, c, scope)
    cc.index = index
    if c.kind == REPEAT:
        cc.optional = child.gcount < c.src.gcount
    elif scope is not None:
        cc.optional = child.gcount < c.gcount
    else:
        cc.optional = child.count < n
    seg = _segment(child)
    cc.path = f"{c.path} > {seg}" if c.path else seg
    return cc


def _label_and_section_fields(
    labels: list[LabelField], sections: list[SectionField]
) -> list[FieldInfo]:
    """The field descriptions of the label rows and the sections."""
    fields = [
        FieldInfo(
            f.name,
            f.kind,
            f'row "{f.label}"',
            None,
            None,
            f.optional,
            f.pages,
            list(f.samples),
            f.label,
        )
        for f in labels
    ]
    fields.extend(
        FieldInfo(
            f.name,
            "list",
            f'section "{f.heading}"',
            None,
            None,
            f.optional,
            f.pages,
            list(f.samples),
        )
        for f in sections
    )
    return fields


def _anchors(order: list[CNode]) -> frozenset[str]:
    """Signatures (with a class or id) of exactly one element outside repeats."""
    counts: dict[str, int] = {}
    for c in order:
        if c.kind == ELEMENT and c.scope is None and ("." in c.sig or "#" in c.sig):
            counts[c.sig] = counts.get(c.sig, 0) + 1
    return frozenset(sig for sig, k in counts.items() if k == 1)


def _count_required_data(order: list[CNode]) -> int:
    """Mark the data nodes every page must have (``counted``) and count them."""
    required_data = 0
    for c in order:
        c.counted = c.has_data and c.scope is None and not c.optional
        required_data += c.counted
    return required_data


def _drop_covered_keys(order: list[CNode], keys: set[str]) -> None:
    """Rows of a key/value region that a label field reads already (anywhere on the page)
    are not fields of the region too."""
    if not keys:
        return
    for c in order:
        if c.kv:
            c.kv = {lead: name for lead, name in c.kv.items() if label_key(lead) not in keys}


# --- which nodes hold data -----------------------------------------------------------------


def _unknown(node: TNode, n: int, scope: CNode | None) -> bool:
    """Seen only once, so constant and varying cannot be told apart: treated as data,
    except on a one-page template outside lists (everything would be data)."""
    if scope is not None:
        return node.gcount <= 1 and scope.gcount <= 1
    return n >= 2 and node.count == 1


#: A separator that may end a constant prefix ("Recipe: ", "Site | ") …
_PREFIX_SEP = re.compile(r"\s*[|\-–—:·•»~/]+\s+")
#: … or start a constant suffix (" | Site", " - Site").
_SUFFIX_SEP = re.compile(r"\s+[|\-–—:·•»~/]+\s*")


def _common_prefix(texts: list[str]) -> str:
    first = min(texts, key=len)
    for k, char in enumerate(first):
        if any(t[k] != char for t in texts):
            return first[:k]
    return first


def constant_affixes(samples: list[str]) -> tuple[str, str] | None:
    """The constant prefix and suffix, each ending / starting at a separator, that every
    sample of a varying text shares: "X | Deliciously Ella" and "Y | Deliciously Ella" give
    ``("", " | Deliciously Ella")``. Seed 003's rule (constant text is template, varying text
    is data) applied inside one text; None when there is none."""
    if len(set(samples)) < 2 or any(len(x) >= SAMPLE_CHARS for x in samples):
        return None  # a sample cut short cannot show its suffix
    head = _common_prefix(samples)
    prefix = ""
    for found in _PREFIX_SEP.finditer(head):
        prefix = head[: found.end()]
    tail = _common_prefix([x[::-1] for x in samples])[::-1]
    match = _SUFFIX_SEP.search(tail)
    suffix = tail[match.start() :] if match is not None else ""
    if not prefix and not suffix:
        return None
    if any(len(x) <= len(prefix) + len(suffix) for x in samples):
        return None
    return prefix, suffix


def trim_affixes(value: str, affixes: tuple[str, str]) -> str:
    """``value`` without the constant prefix / suffix (each only where the value has it)."""
    prefix, suffix = affixes
    if prefix and value.startswith(prefix) and len(value) > len(prefix):
        value = value[len(prefix) :]
    if suffix and value.endswith(suffix) and len(value) > len(suffix):
        value = value[: -len(suffix)]
    return value.strip()


def _page_name(node: TNode, n: int, scope: CNode | None) -> bool:
    """On a template learned from a single page, constant and varying text cannot be told
    apart; a text that is the page's name (its title, or a part of it) is data anyway."""
    return n == 1 and scope is None and node.named > 0


def _kv_labels(src: TNode, n: int, threshold: int) -> dict[str, str] | None:
    """The labels of a key/value region whose values vary, or None if it is a real list."""
    if n < 2 or src.count < 2 or not src.kv:
        return None
    total = sum(entry[1] for entry in src.kv.values())
    # a label of a key/value table is on most pages that have the table; a heading that
    # merely recurs (for the sauce) is not
    needed = max(2, math.ceil(KV_PAGE_SHARE * src.count))
    constant = sum(entry[1] for lead, entry in src.kv.items() if lead and entry[0] >= needed)
    if not total or constant / total < KV_SHARE:
        return None
    return {
        lead: ""
        for lead, (pages, _groups, values) in src.kv.items()
        if lead and pages >= max(2, threshold) and len(values) >= 2 and label_text(lead)
    }


def _mark_data(order: list[CNode], n: int, threshold: int, early: bool = False) -> None:
    for c in order:
        if c.scope is None or _scope_is_data(c.scope, n):
            _mark_node(c, n, threshold, early)
    _drop_echoes(order)
    _mark_data_below(order)
    for c in reversed(order):
        if c.kind == REPEAT:
            c.flat = not _has_region_below(c)
    for c in order:
        if c.kind == ELEMENT and c.children:
            c.implicit = _implicit_sigs(c)


def _mark_node(c: CNode, n: int, threshold: int, early: bool = False) -> None:
    """Mark one node as a field (a text or a region) or give it attribute fields; ``early``:
    too few pages learned to take constant text for template text."""
    src = c.src
    if c.kind == REPEAT:
        c.kv = _kv_labels(src, n, threshold)
        if c.kv is not None and not _has_region_below(c):
            return
        # a heading-keyed region with regions inside stays transparent: besides its
        # heading-keyed fields, its records and what they hold are fields too
    if c.kind == TEXT:
        if _text_is_data(c, n, early):
            c.field = ""  # named later
            if c.scope is None:
                c.trim = constant_affixes(src.samples)
    elif c.kind == ELEMENT:
        for attr in DATA_ATTRS.get(c.tag, ()):
            values = src.avals.get(attr)
            if values and _attr_is_data(c, values, n):
                c.attr_fields.append((attr, ""))
    elif c.kind == REPEAT and _scope_is_data(c, n) and src.tchars + len(src.samples) > 0:
        c.field = ""


def _text_is_data(c: CNode, n: int, early: bool) -> bool:
    """A text is data when it varies, cannot be told (seen once), names the page, sits in a
    data position, or too few pages are learned to call a constant text template."""
    src = c.src
    return (
        src.varies()
        or _unknown(src, n, c.scope)
        or _page_name(src, n, c.scope)
        or _data_position(c.parent)
        or (early and n >= 2)
    )


def _attr_is_data(c: CNode, values: list[str], n: int) -> bool:
    """An attribute is data when its value varies, cannot be told, or the element marks it as
    data (``itemprop``) and it is not an address."""
    if len(values) >= 2 or _unknown(c.src, n, c.scope):
        return True
    return _data_position(c) and not _is_address(values[0])


def _data_position(el: CNode | None) -> bool:
    """The page's body marks the element's value as data (a schema.org ``itemprop``): it is
    a field even when it is the same on every page (a brand that is the shop's name, the one
    author of a news site). JSON-LD's constants (the publisher) stay template: the core record
    reads the structured data itself."""
    if el is None or el.kind != ELEMENT:
        return False
    prop = el.info.get("itemprop", "")
    return bool(prop) and not prop.startswith(JSONLD_PREFIX + ".")


def _is_address(value: str) -> bool:
    """A URL: the same image or link on every page is the site's (a logo, an icon)."""
    return "://" in value or value.startswith(("/", "#"))


def _mark_data_below(order: list[CNode]) -> None:
    """``has_data`` and ``has_list`` of every node, children before parents."""
    for c in reversed(order):
        if c.field is not None or c.attr_fields or c.kv or any(k.has_data for k in c.children):
            c.has_data = True
        if (c.kind == REPEAT and c.field is not None) or any(k.has_list for k in c.children):
            c.has_list = True


def _implicit_sigs(c: CNode) -> frozenset[str]:
    """Signatures of the children that hold a list and occur once among their siblings."""
    sigs = [k.sig for k in c.children if k.kind == ELEMENT]
    return (
        frozenset(
            k.sig
            for k in c.children
            if k.kind == ELEMENT and k.has_list and k.scope is None and sigs.count(k.sig) == 1
        )
        or _NO_SIGS
    )


def _drop_echoes(order: list[CNode]) -> None:
    """A record group whose only text is one data slot: that slot would repeat the group's
    ``text`` field word for word, so it is not a field of its own."""
    for c in order:
        if c.kind != REPEAT or c.field is None:
            continue
        texts: list[CNode | None] = []
        stack = list(c.children)
        while stack and len(texts) < 2:
            k = stack.pop()
            if k.kind == TEXT:
                texts.append(k)
            elif k.kind == ELEMENT:
                stack.extend(k.children)
            else:
                texts.append(None)  # a region inside: the group text is more than one slot
        only = texts[0] if len(texts) == 1 else None
        if only is not None and only.field == "":
            only.field = None


def _has_region_below(c: CNode) -> bool:
    stack = list(c.children)
    while stack:
        k = stack.pop()
        if k.kind == REPEAT:
            return True
        stack.extend(k.children)
    return False


def _scope_is_data(rep: CNode, n: int) -> bool:
    """A region is data when its content differs between pages (a menu repeated identically
    on every page is template), or when it cannot be known (one page, or seen once)."""
    src = rep.src
    if rep.kv is not None and not _has_region_below(rep):
        return False
    if len(src.hashes) >= 2 or n == 1 or src.count == 1:
        return rep.scope is None or _scope_is_data(rep.scope, n)
    return False


# --- naming ----------------------------------------------------------------------------------


#: Elements whose block is a form, not a label: its texts name its own controls (a legend
#: captions the controls of its fieldset).
_FORM_CONTROLS = frozenset(
    {"select", "option", "input", "textarea", "button", "form", "fieldset", "legend"}
)


def _holds_form_control(c: CNode) -> bool:
    """Whether a form control is anywhere below ``c`` (repeated parts included: a row of
    colour swatches is a repeated button)."""
    stack = list(c.children)
    while stack:
        k = stack.pop()
        if k.kind == ELEMENT and k.tag in _FORM_CONTROLS:
            return True
        stack.extend(k.children)
    return False


def _const_label(c: CNode) -> str | None:
    """The text of a constant node usable as a label, or None."""
    if c.has_data:
        return None
    if c.kind == TEXT:
        return label_text(c.src.samples[0]) if c.src.samples else None
    if c.kind != ELEMENT:
        return None
    if c.tag in _FORM_CONTROLS:
        return None
    texts: list[str] = []
    stack = list(c.children)
    while stack:
        k = stack.pop()
        if k.kind == TEXT and k.src.samples:
            texts.append(k.src.samples[0])
        elif k.kind == ELEMENT:
            if k.tag in _FORM_CONTROLS:
                return None  # a block of choices (size, colour) labels none of its neighbours
            stack.extend(k.children)
        elif _holds_form_control(k):
            return None
        if len(texts) > 2:
            return None
    if not texts:
        return None
    return label_text(" ".join(reversed(texts)))


def _label_before(c: CNode) -> str | None:
    parent = c.parent
    if parent is None:
        return None
    for k in reversed(parent.children[: c.index]):
        if k.has_data:
            return None
        label = _const_label(k)
        if label:
            return label
        if k.kind == ELEMENT and k.children:
            return None  # a non-label block sits between
    return None


#: Tags too generic to add meaning to an ancestor's class in a field name.
_PLAIN_TAGS = frozenset(
    {"div", "span", "section", "article", "main", "aside", "header", "footer", "nav", "body"}
)


#: A heading that has no name of its own (no itemprop, label or class) is named by its rank:
#: the item's title and the line under it, not its container (``midcol_h1``, ``midcol_h2``).
_HEADING_NAMES = {"h1": "title", "h2": "subtitle"}


def _context_name(el: CNode, levels: int = 3, with_tag: bool = True) -> str | None:
    """itemprop, label, or class of the element or of one of its close ancestors (then
    followed by the element's tag when that says more: ``sidebar_li``); a classless ``h1`` or
    ``h2`` is the ``title`` or ``subtitle``."""
    prop = el.info.get("itemprop")
    if prop:
        return prop
    label = _label_before(el)
    if label:
        return label
    node: CNode | None = el
    for _ in range(levels):
        if node is None or node.kind != ELEMENT or node is node.scope:
            break
        cls = best_class(node)
        if cls:
            if with_tag and node is not el and el.tag in _HEADING_NAMES:
                return _HEADING_NAMES[el.tag]
            if with_tag and node is not el and el.tag not in _PLAIN_TAGS:
                return f"{cls}_{el.tag}"
            return cls
        label = _label_before(node) if node is not el else None
        if label:
            return label
        node = node.parent
    return None


_TAG_NAMES = {
    "title": "page_title",
    **_HEADING_NAMES,
    "a": "link",
    "img": "image",
    "p": "paragraph",
}


def _text_name(c: CNode) -> str:
    label = _label_before(c)
    if label:
        return label
    parent = c.parent
    if parent is None or parent.kind != ELEMENT:
        return "text"
    if parent.tag == "title" and parent.scope is None:
        return "page_title"
    name = _context_name(parent)
    if name:
        return name
    return _TAG_NAMES.get(parent.tag, parent.tag)


def _attr_name(c: CNode, attr: str) -> str:
    info = c.info
    if c.tag == "meta":
        return info.get("property") or info.get("name") or info.get("itemprop") or "meta_content"
    if c.tag == "link":
        return (info.get("rel") or "link") + "_url"
    suffix = {"href": "_url", "src": "_src", "datetime": "_datetime"}.get(attr, "_" + attr)
    if c.tag == "img":
        base = _context_name(c, with_tag=False)
        suffix = "_image" if attr == "src" else "_" + attr
        return base + suffix if base else "image" + ("" if attr == "src" else suffix)
    if c.tag == "a":
        base = _context_name(c, with_tag=False) or "link"
        return base + suffix
    return (_context_name(c, with_tag=False) or c.tag) + suffix


def _repeat_name(c: CNode) -> str:
    proto = next((k for k in c.children if k.kind == ELEMENT), None)
    if proto is not None and proto.info.get("itemprop"):
        return proto.info["itemprop"]
    parent = c.parent
    if parent is not None and parent.kind == ELEMENT and parent is not parent.scope:
        cls = best_class(parent)
        if cls:
            return cls
    label = _label_before(c) or (_label_before(parent) if parent is not None else None)
    if label:
        return label
    if proto is not None:
        cls = best_class(proto)
        if cls:
            return cls
        return "list_" + proto.tag
    return "list"


#: Words left at the edge of a label once the site's name is cut out of it ("Reply from").
_EDGE_WORDS = frozenset({"from", "by", "at", "of", "to", "for", "with", "on", "the", "a"})


def _site_name(order: list[CNode]) -> tuple[str, ...]:
    """The site's name as snake-case words: the constant part every learned page's
    ``<title>`` shares ("Mira Boot | Northwind Outfitters"); empty when the titles share none."""
    for c in order:
        parent = c.parent
        if c.kind != TEXT or c.trim is None or parent is None or parent.tag != "title":
            continue
        words = tuple(w for part in c.trim for w in snake(part).split("_") if w)
        return words if any(w.isalpha() for w in words) else ()
    return ()


def without_site_name(base: str, site: tuple[str, ...]) -> str:
    """``base`` (a field's name) without the site's name and the words it leaves dangling:
    a label that names the shop ("Reply from Northwind Outfitters") names the value by what
    it is (``reply``); the same on every page of the site, the name says nothing. ``base``
    when nothing else would be left."""
    words = snake(base).split("_")
    size = len(site)
    if not site or size > len(words):
        return base
    for start in range(len(words) - size + 1):
        if tuple(words[start : start + size]) == site:
            rest = words[:start] + words[start + size :]
            while rest and rest[-1] in _EDGE_WORDS:
                rest.pop()
            while rest and rest[0] in _EDGE_WORDS:
                rest.pop(0)
            return "_".join(rest) if rest else base
    return base


def _name_fields(
    order: list[CNode], n: int, reserved: set[str], site: tuple[str, ...] = ()
) -> list[FieldInfo]:
    namer = _FieldNamer(reserved, site)
    # names given earlier stay (stable across learning more pages)
    for c in order:
        namer.keep_earlier_names(c)
    fields: list[FieldInfo] = []
    for c in order:
        scope_field = _scope_path(c.scope)
        namer.name_text(c, scope_field, fields)
        if c.trim is not None and c.field:
            namer.name_trimmed(c, scope_field, fields)
        if c.kv:
            namer.name_kv(c, scope_field, fields)
        if c.attr_fields:
            namer.name_attributes(c, scope_field, fields)
    return fields


class _FieldNamer:
    """Unique field names per scope (the page, or one repeat), earlier names kept."""

    def __init__(self, reserved: set[str], site: tuple[str, ...] = ()) -> None:
        self.taken: dict[int, set[str]] = {id(None): reserved}
        #: the site's name, cut out of the names given (:func:`without_site_name`)
        self.site = site

    def scope_names(self, c: CNode) -> set[str]:
        key = id(c.scope)
        names = self.taken.get(key)
        if names is None:
            names = {GROUP_TEXT_FIELD} if c.scope is not None else set()
            self.taken[key] = names
        return names

    def keep_earlier_names(self, c: CNode) -> None:
        if c.field == "" and c.src.name and c.src.name not in self.scope_names(c):
            c.field = c.src.name
            self.scope_names(c).add(c.src.name)
        if c.trim is not None:
            prev = c.src.info.get("field:core")
            if prev and prev not in self.scope_names(c):
                self.scope_names(c).add(prev)
                c.trim_field = prev
        if c.attr_fields:
            kept: list[tuple[str, str]] = []
            for attr, name in c.attr_fields:
                prev = c.src.info.get("field:" + attr)
                if prev and prev not in self.scope_names(c):
                    self.scope_names(c).add(prev)
                    kept.append((attr, prev))
                else:
                    kept.append((attr, name))
            c.attr_fields = kept

    def name_text(self, c: CNode, scope_field: str | None, fields: list[FieldInfo]) -> None:
        if c.field == "":
            base = _repeat_name(c) if c.kind == REPEAT else _text_name(c)
            base = without_site_name(base, self.site)
            c.field = unique_name(snake(base), self.scope_names(c))
            c.src.name = c.field
        if c.field:
            kind = "list" if c.kind == REPEAT else "text"
            fields.append(
                FieldInfo(
                    c.field,
                    kind,
                    c.path,
                    scope_field,
                    None,
                    c.optional,
                    c.count,
                    list(c.src.samples),
                )
            )

    def name_trimmed(self, c: CNode, scope_field: str | None, fields: list[FieldInfo]) -> None:
        assert c.trim is not None and c.field
        if c.trim_field is None:
            c.trim_field = unique_name(f"{c.field}_core", self.scope_names(c))
            c.src.info["field:core"] = c.trim_field
        trim = c.trim
        fields.append(
            FieldInfo(
                c.trim_field,
                "text",
                f"{c.path} [constant affixes removed]",
                scope_field,
                None,
                c.optional,
                c.count,
                [trim_affixes(x, trim) for x in c.src.samples],
            )
        )

    def name_kv(self, c: CNode, scope_field: str | None, fields: list[FieldInfo]) -> None:
        assert c.kv
        for lead in list(c.kv):
            stored = c.src.info.get("kv:" + lead)
            names = self.scope_names(c)
            if stored and stored not in names:
                names.add(stored)
                name = stored
            else:
                name = unique_name(snake(lead), names)
                c.src.info["kv:" + lead] = name
            c.kv[lead] = name
            fields.append(
                FieldInfo(
                    name,
                    "text",
                    f"{c.path} [{lead}]",
                    scope_field,
                    None,
                    True,
                    c.src.kv[lead][0],
                    list(c.src.kv[lead][2]),
                )
            )

    def name_attributes(self, c: CNode, scope_field: str | None, fields: list[FieldInfo]) -> None:
        named: list[tuple[str, str]] = []
        for attr, name in c.attr_fields:
            if not name:
                name = unique_name(snake(_attr_name(c, attr)), self.scope_names(c))
                c.src.info["field:" + attr] = name
            named.append((attr, name))
            fields.append(
                FieldInfo(
                    name,
                    "attribute",
                    c.path,
                    scope_field,
                    attr,
                    c.optional,
                    c.count,
                    list(c.src.avals.get(attr, [])),
                )
            )
        c.attr_fields = named


def _scope_path(scope: CNode | None) -> str | None:
    """``outer/inner``: the list fields a sub-field sits in, outermost first."""
    names: list[str] = []
    while scope is not None:
        names.append(scope.field or "?")
        scope = scope.scope
    return "/".join(reversed(names)) if names else None


def _blank(root: CNode) -> dict[str, Any]:
    """The empty page record (every top-level field, None or [])."""
    out: dict[str, Any] = {}
    stack = [root]
    while stack:
        c = stack.pop()
        if c.scope is not None:
            continue
        if c.field:
            out[c.field] = [] if c.kind == REPEAT else None
        if c.trim_field:
            out[c.trim_field] = None
        for _, name in c.attr_fields:
            out[name] = None
        for name in (c.kv or {}).values():
            out[name] = None
        if c.kind != REPEAT:
            stack.extend(reversed(c.children))
    return out


def group_blank(rep: CNode) -> dict[str, Any]:
    """The empty record of one group of a region."""
    out: dict[str, Any] = {GROUP_TEXT_FIELD: ""}
    stack = list(reversed(rep.children))
    while stack:
        c = stack.pop()
        if c.field:
            out[c.field] = [] if c.kind == REPEAT else None
        for _, name in c.attr_fields:
            out[name] = None
        for name in (c.kv or {}).values():
            out[name] = None
        if c.kind != REPEAT:
            stack.extend(reversed(c.children))
    return out


# --- the main region -------------------------------------------------------------------------


_FORM_TAGS = frozenset({"option", "optgroup", "select", "input", "button", "label"})


def _in_jsonld(c: CNode) -> bool:
    node: CNode | None = c.parent
    while node is not None:
        if node.tag == JSONLD_TAG:
            return True
        node = node.parent
    return False


def _main_region(order: list[CNode], tree: TemplateTree) -> tuple[CNode | None, str]:
    best: CNode | None = None
    best_score = 0.0
    for c in order:
        if c.kind != REPEAT or not c.field:
            continue
        src = c.src
        pages = max(1, src.count)
        if src.gcount / pages < MIN_GROUPS or src.tchars == 0:
            continue
        if src.lchars / src.tchars > MAX_LINK_SHARE:
            continue
        if any(p.split(".", 1)[0].split("[", 1)[0] in _FORM_TAGS for p in src.pattern):
            continue  # the options of a drop-down are not records
        if _in_jsonld(c):
            continue  # embedded JSON-LD repeats the page's data: not the page's list
        # non-link text per page, weighted by how many of the learned pages have the region
        score = (src.tchars - src.lchars) / pages * (src.count / max(1, tree.pages))
        if score > best_score:
            best, best_score = c, score
    if best is None:
        return None, "detail"
    page_chars = tree.text_chars / max(1, tree.pages)
    kind = "list" if page_chars and best_score >= LIST_PAGE_SHARE * page_chars else "detail"
    return best, kind
