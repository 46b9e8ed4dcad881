"""The wrapper: a learned page-type template that extracts records, saves, loads and merges.

>>> wrapper = induce([page1_bytes, page2_bytes, page3_bytes], label="recipe")
>>> wrapper.extract(page4_bytes).record
{'entry_title': 'Toona Melt', 'wprm_recipe_ingredients': [{'text': '2 celery stalks'}, …], …}
>>> Wrapper.from_json(wrapper.to_json()).merge(other_wrapper)

The JSON form keeps the whole learning state (counters, samples, names), so a loaded wrapper
can keep learning and two wrappers of one page type (from two crawl workers) can be pooled.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from lxml import etree

from pagesim_scrapy.core.induce.compiled import Compiled, FieldInfo, compile_tree
from pagesim_scrapy.core.induce.dom import Element, PageParseError, parse_html
from pagesim_scrapy.core.induce.extract import Extraction, extract_compiled
from pagesim_scrapy.core.induce.labels import LabelStats
from pagesim_scrapy.core.induce.sections import SectionStats
from pagesim_scrapy.core.induce.template import REPEAT, TemplateTree, TNode
from pagesim_scrapy.core.statefile import (
    StateFormatError,
    check_bool,
    check_dict,
    check_int,
    check_int_list,
    check_list,
    check_nesting,
    check_number,
    check_str,
    check_str_list,
    describe_error,
    parse_json,
    write_atomic,
)

__all__ = [
    "DEFAULT_LAMBDA",
    "DEFAULT_MIN_FIT",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "Wrapper",
    "WrapperError",
    "induce",
]

logger = logging.getLogger(__name__)

FORMAT_NAME = "pagesim-wrapper"
FORMAT_VERSION = 1

#: Seed 003's λ: a node must be found on at least ceil((n + 1) · λ) of n pages to stay.
DEFAULT_LAMBDA = 0.25
#: Pages learned before constant text is template text (1: seed 003's rule, from the second
#: page on); chosen leave-one-site-out, see docs/records.md.
DEFAULT_CONST_PAGES = 1
#: A page fits a wrapper when at least this share of its data skeleton is found on the page.
DEFAULT_MIN_FIT = 0.5

PageInput = bytes | str | Element


def page_order_key(root: Element) -> tuple[int, bytes]:
    """The order in which :meth:`Wrapper.add_pages` learns parsed pages: most elements
    first, then by a digest of the whole parsed page (a total order: two pages that tie are
    the same tree, and learning either gives the same wrapper). ``file://`` links are
    digested without the folder they all share, so a site crawled from two checkouts
    learns its pages in one order."""
    size = sum(1 for _ in root.iter())
    serialised = etree.tostring(root, encoding="utf-8", method="xml")
    if b"file:" in serialised:
        serialised = _without_file_folder(serialised)
    return (-size, hashlib.sha256(serialised).digest())


_FILE_URL = re.compile(rb"file:/[^\s\"'<>]*")


def _without_file_folder(serialised: bytes) -> bytes:
    """The page with the folder prefix that its ``file://`` URLs share cut off them (up to
    a path separator): what is left of each URL is the same from whichever folder it came."""
    urls = _FILE_URL.findall(serialised)
    if not urls:
        return serialised
    low, high = min(urls), max(urls)  # the prefix all share is the prefix these two share
    end = next((k for k, (a, b) in enumerate(zip(low, high)) if a != b), len(low))
    shared = low[: low.rfind(b"/", 0, end) + 1]
    return serialised.replace(shared, b"file:///")


class WrapperError(ValueError):
    """A wrapper file that cannot be read, or wrappers that cannot be merged."""


def _as_tree(page: PageInput, url: str | None = None, structured: bool = True) -> Element:
    if isinstance(page, (bytes, str)):
        return parse_html(page, structured=structured, base_url=url)
    return page


class Wrapper:
    """A page type's template, learned incrementally from example pages."""

    def __init__(
        self,
        label: str | None = None,
        lam: float = DEFAULT_LAMBDA,
        min_fit: float = DEFAULT_MIN_FIT,
        structured: bool = True,
        const_pages: int = DEFAULT_CONST_PAGES,
    ) -> None:
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lambda must be within [0, 1], got {lam}")
        self.label = label
        self.lam = lam
        self.min_fit = min_fit
        #: pages given as bytes or text are parsed with their JSON-LD as fields
        #: (see :func:`~pagesim_scrapy.core.induce.dom.parse_html`)
        self.structured = structured
        #: pages learned before text that is the same on all of them is template text
        #: (:func:`~pagesim_scrapy.core.induce.compiled.compile_tree`)
        self.const_pages = const_pages
        self.tree = TemplateTree()
        self._compiled: Compiled | None = None
        #: how many times the tree was compiled (compiling names fields in the tree for good)
        self.compilations = 0
        self._lock = threading.Lock()

    # --- learning -----------------------------------------------------------------------

    @property
    def pages(self) -> int:
        return self.tree.pages

    def add_page(self, page: PageInput, url: str | None = None) -> bool:
        """Learn from one more page (bytes, text, or a tree from :func:`parse_html`).

        ``url``, the page's address, makes its links absolute (for bytes and text; a tree
        is taken as it was parsed). Returns False when the page was skipped as one learned
        already (the same document fetched twice would make its data look constant)."""
        root = _as_tree(page, url, self.structured)
        with self._lock:
            learned = self.tree.add_page(root)
            if learned:
                self._compiled = None
        return learned

    def add_pages(self, pages: Iterable[PageInput], largest_first: bool = True) -> int:
        """Learn from several pages, the largest (most elements) first as seed 003 does,
        pages of one size in the order of their content (:func:`page_order_key`), so that the
        same pages give the same wrapper whatever order they are given in. Pages that cannot
        be parsed are logged and skipped, so are pages learned already; returns how many were
        learned."""
        roots: list[Element] = []
        for page in pages:
            try:
                roots.append(_as_tree(page, None, self.structured))
            except PageParseError as exc:
                logger.warning("skipping a page that cannot be parsed: %s", exc)
        if largest_first:
            roots.sort(key=page_order_key)
        return sum(self.add_page(root) for root in roots)

    def merge(self, other: Wrapper) -> Wrapper:
        """Pool what another wrapper of the same page type learned into this one."""
        if self.label and other.label and self.label != other.label:
            raise WrapperError(
                f"cannot merge a wrapper for {other.label!r} into one for {self.label!r}"
            )
        copy = Wrapper.from_dict(other.to_dict())  # never share nodes between wrappers
        with self._lock:
            self.tree.merge(copy.tree)
            self.label = self.label or other.label
            self._compiled = None
        return self

    # --- using ------------------------------------------------------------------------------

    def compiled(self) -> Compiled:
        """The extraction form (cached until the wrapper learns more)."""
        with self._lock:
            if self._compiled is None:
                if self.tree.root is None:
                    raise WrapperError("the wrapper has not learned any page yet")
                self._compiled = compile_tree(self.tree, self.lam, self.const_pages)
                self.compilations += 1
            return self._compiled

    @property
    def fields(self) -> list[FieldInfo]:
        return self.compiled().fields

    @property
    def kind(self) -> str:
        """``"list"`` when the main region holds most of a page's text, else ``"detail"``."""
        return self.compiled().kind

    @property
    def main_region(self) -> str | None:
        main = self.compiled().main
        return main.field if main is not None else None

    def extract(self, page: PageInput, url: str | None = None) -> Extraction:
        """Apply the wrapper to a page. A page that cannot be parsed or does not fit gives an
        empty record and a reason. ``url`` makes the page's links absolute, as for
        :meth:`add_page` (give it to both or to neither)."""
        try:
            root = _as_tree(page, url, self.structured)
        except PageParseError as exc:
            return Extraction({}, [], 0.0, str(exc))
        if self.tree.root is None:
            return Extraction({}, [], 0.0, "the wrapper has not learned any page yet")
        return extract_compiled(self.compiled(), root, self.min_fit)

    # --- serialisation ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        # compile first: compiling names the template's fields, and the nodes below carry
        # those names (so a wrapper not compiled yet gives the same form as a compiled one)
        comp = self.compiled() if self.tree.root is not None else None
        nodes: list[dict[str, Any]] = []
        if self.tree.root is not None:
            stack: list[TNode] = [self.tree.root]
            while stack:
                node = stack.pop()
                nodes.append(_node_to_dict(node))
                stack.extend(reversed(node.children))
        out: dict[str, Any] = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "label": self.label,
            "pages": self.tree.pages,
            "text_chars": self.tree.text_chars,
            "duplicates": self.tree.duplicates,
            "docs": sorted(self.tree.docs),
            "lambda": self.lam,
            "min_fit": self.min_fit,
            "structured": self.structured,
        }
        if self.const_pages != DEFAULT_CONST_PAGES:
            out["const_pages"] = self.const_pages
        if comp is not None:
            out["kind"] = comp.kind
            out["main_region"] = comp.main.field if comp.main is not None else None
            out["fields"] = [
                {"name": f.name, "kind": f.kind, "scope": f.scope, "path": f.path}
                for f in comp.fields
            ]
        out["nodes"] = nodes
        if self.tree.labels.entries:
            out["labels"] = self.tree.labels.to_json()
        if self.tree.sections.entries:
            out["sections"] = self.tree.sections.to_json()
        return out

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)

    def save(self, path: str | Path) -> None:
        """Write the wrapper as JSON (through a temporary file, so readers never see half)."""
        write_atomic(path, self.to_json())

    @classmethod
    def from_dict(cls, data: Any) -> Wrapper:
        """Rebuild a wrapper from :meth:`to_dict`'s form. Every field is checked (types,
        ranges, the tree's shape): anything else raises :class:`WrapperError`."""
        if not isinstance(data, dict) or data.get("format") != FORMAT_NAME:
            raise WrapperError("not a pagesim wrapper (missing format marker)")
        version = data.get("version")
        if type(version) is not int or version != FORMAT_VERSION:
            raise WrapperError(
                f"unsupported wrapper format version {version!r} (this code reads {FORMAT_VERSION})"
            )
        try:
            check_nesting(data)
            wrapper = cls(
                label=check_str(data.get("label"), "label", optional=True),
                lam=check_number(data.get("lambda", DEFAULT_LAMBDA), "lambda", 0.0, 1.0),
                min_fit=check_number(data.get("min_fit", DEFAULT_MIN_FIT), "min_fit", 0.0, 1.0),
                structured=check_bool(data.get("structured", True), "structured"),
                const_pages=check_int(
                    data.get("const_pages", DEFAULT_CONST_PAGES), "const_pages", 1, 10_000
                ),
            )
            wrapper.tree.pages = check_int(data.get("pages", 0), "pages")
            wrapper.tree.text_chars = check_int(data.get("text_chars", 0), "text_chars")
            wrapper.tree.duplicates = check_int(data.get("duplicates", 0), "duplicates")
            docs = data.get("docs")
            wrapper.tree.docs = set(check_int_list(docs or [], "docs", -(2**63), 2**64))
            wrapper.tree.root = _nodes_from_list(check_list(data.get("nodes") or [], "nodes"))
            wrapper.tree.labels = LabelStats.from_json(data.get("labels"))
            wrapper.tree.sections = SectionStats.from_json(data.get("sections"))
        except (TypeError, ValueError, KeyError, OverflowError, AttributeError, IndexError) as exc:
            raise WrapperError(f"corrupt wrapper: {exc}") from exc
        if wrapper.tree.root is None and wrapper.tree.pages:
            raise WrapperError("corrupt wrapper: pages learned but no template nodes")
        return wrapper

    @classmethod
    def from_json(cls, text: str) -> Wrapper:
        """Parse :meth:`to_json`'s output; raises :class:`WrapperError` for anything else
        (not JSON, nested too deep, numbers out of range, wrong fields)."""
        try:
            data = parse_json(text)
        except (ValueError, RecursionError) as exc:
            raise WrapperError(f"wrapper is not valid JSON: {describe_error(exc)}") from exc
        return cls.from_dict(data)

    @classmethod
    def load(cls, path: str | Path) -> Wrapper:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise WrapperError(f"cannot read wrapper {path}: {exc}") from exc
        return cls.from_json(text)

    def __repr__(self) -> str:
        return f"Wrapper(label={self.label!r}, pages={self.pages})"


def _node_to_dict(node: TNode) -> dict[str, Any]:
    d: dict[str, Any] = {"k": node.kind, "n": node.count, "c": len(node.children)}
    if node.kind == REPEAT:
        d["p"] = list(node.pattern)
    else:
        d["s"] = node.sig
        if node.tag != node.sig:
            d["t"] = node.tag
    if node.gcount != node.count:
        d["g"] = node.gcount
    if node.samples:
        d["x"] = node.samples
    if node.info:
        d["i"] = node.info
    if node.avals:
        d["a"] = node.avals
    if node.deep:
        d["d"] = node.deep
    if node.name:
        d["m"] = node.name
    if node.hashes:
        d["h"] = node.hashes
    if node.kv:
        d["kv"] = node.kv
    if node.tchars:
        d["tc"] = node.tchars
    if node.lchars:
        d["lc"] = node.lchars
    if node.named:
        d["nm"] = node.named
    return d


def _node_from_dict(d: Any) -> TNode:
    """One node of :func:`_node_to_dict`'s form; StateFormatError (a ValueError) if it is not."""
    check_dict(d, "a node")
    kind = d.get("k")
    if kind not in ("e", "t", "r"):
        raise StateFormatError(f"unknown node kind {kind!r}")
    if kind == REPEAT:
        pattern = tuple(check_str_list(d.get("p"), "a region's pattern"))
        node = TNode(kind, "R:" + "|".join(pattern), "")
        node.pattern = pattern
    else:
        sig = check_str(d.get("s"), "a node's signature")
        node = TNode(kind, sig, check_str(d.get("t", sig), "a node's tag"))
    node.count = check_int(d.get("n"), "a node's count")
    node.gcount = check_int(d.get("g", node.count), "a node's group count")
    node.samples = list(check_str_list(d.get("x", []), "a node's samples"))
    info = check_dict(d.get("i", {}), "a node's info")
    node.info = {k: check_str(v, "a node's info") for k, v in info.items()}
    node.avals = {
        k: list(check_str_list(v, "attribute values"))
        for k, v in check_dict(d.get("a", {}), "attribute values").items()
    }
    deep = check_dict(d.get("d", {}), "a node's deep counts")
    node.deep = {k: check_int(v, "a deep count") for k, v in deep.items()}
    node.name = check_str(d.get("m"), "a node's name", optional=True)
    node.hashes = list(check_int_list(d.get("h", []), "a node's hashes", -(2**63), 2**64))
    node.kv = {}
    for key, value in check_dict(d.get("kv", {}), "a node's key values").items():
        entry = check_list(value, "a key value")
        if len(entry) != 3:
            raise StateFormatError("a key value must be [count, count, samples]")
        node.kv[key] = [
            check_int(entry[0], "a key value count"),
            check_int(entry[1], "a key value count"),
            list(check_str_list(entry[2], "key value samples")),
        ]
    node.tchars = check_int(d.get("tc", 0), "a node's text length")
    node.lchars = check_int(d.get("lc", 0), "a node's link text length")
    node.named = check_int(d.get("nm", 0), "a node's name count")
    return node


def _nodes_from_list(items: list[Any]) -> TNode | None:
    """Rebuild the tree from its preorder list (each node says how many children it has).
    Iterative, as every walk of the template: a deep tree needs no recursion."""
    if not items:
        return None
    limit = len(items)
    it = iter(items)
    first = next(it)
    root = _node_from_dict(first)
    stack: list[tuple[TNode, int]] = [(root, check_int(first.get("c"), "a child count", 0, limit))]
    for d in it:
        while stack and len(stack[-1][0].children) >= stack[-1][1]:
            stack.pop()
        if not stack:
            raise ValueError("more nodes than the tree structure allows")
        node = _node_from_dict(d)
        stack[-1][0].children.append(node)
        stack.append((node, check_int(d.get("c"), "a child count", 0, limit)))
    while stack and len(stack[-1][0].children) >= stack[-1][1]:
        stack.pop()
    if stack:
        raise ValueError("the node list ends before the tree is complete")
    return root


def induce(
    pages: Iterable[PageInput],
    label: str | None = None,
    lam: float = DEFAULT_LAMBDA,
    min_fit: float = DEFAULT_MIN_FIT,
    structured: bool = True,
) -> Wrapper:
    """Learn a wrapper from the pages of one page type (largest page first); with
    ``structured``, their embedded JSON-LD becomes fields too."""
    wrapper = Wrapper(label=label, lam=lam, min_fit=min_fit, structured=structured)
    wrapper.add_pages(pages)
    return wrapper
