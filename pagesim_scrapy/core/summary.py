"""A compact structural summary of a page, built in one breadth-first pass over its DOM.

Every similarity measure works on summaries, never on the DOM itself, so a page is parsed and
walked once however many templates it is compared with. The pass starts at ``<body>`` as the
papers do (the whole document when there is none) and records, per element, three label codes,
one per node relation of seed 002 (Deng & He):

* RSN  -- same tag name;
* RPSA -- same tag and the same values of a chosen attribute list (paper: class and id of div
  and span);
* CSR  -- same tag and all attributes equal (values of volatile attributes normalised first).

Codes are single characters (``chr`` of a stable CRC of the label), so a node sequence is a
``str``: rapidfuzz compares strings fastest, and a summary of 1,000 nodes weighs a few KB.

The walk itself runs in the optional C extension ``_walk`` when it is built (it reads lxml's
libxml2 nodes without a Python object per element); the Python walk below is the fallback and
the reference the tests hold it to.
Derived views (document order, parents, per-level lists) are computed lazily from the BFS arrays.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import re
import threading
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from operator import add
from pathlib import Path
from typing import Any

from lxml import etree

from pagesim_scrapy.core.pageio import read_page_bytes

logger = logging.getLogger(__name__)


def running_versions() -> tuple[str, str]:
    """The lxml and libxml2 versions in use, dotted as the compiled walk records them."""
    return (
        ".".join(map(str, etree.LXML_VERSION)),
        ".".join(map(str, etree.LIBXML_VERSION)),
    )


def c_walk_usable(built: tuple[str | None, str | None], running: tuple[str, str]) -> str | None:
    """Why the compiled walk must not run here, or None when it may.

    The walk reads lxml's and libxml2's structs, so it is only safe with the (lxml, libxml2)
    versions it was compiled against.
    """
    names = ("lxml", "libxml2")
    for name, was, now in zip(names, built, running):
        if was is None:
            return f"it does not record the {name} version it was built against"
        if was != now:
            return f"it was built against {name} {was}, {name} {now} is running"
    return None


def _load_compiled_walk() -> Any:
    """The compiled walk module when it is built and safe with the running lxml, else None."""
    try:
        module = importlib.import_module("pagesim_scrapy.core._walk")
    except ImportError:
        return None
    built = (getattr(module, "BUILT_LXML", None), getattr(module, "BUILT_LIBXML", None))
    reason = c_walk_usable(built, running_versions())
    if reason is not None:
        logger.info("pagesim: the compiled summary walk is off (%s); using the Python walk", reason)
        return None
    return module


# the optional compiled walk (setup.py); without it the Python walk below does the work
_walk_c: Any = _load_compiled_walk()
# the compiled title (None where the built module predates it)
_c_title_text: Any = getattr(_walk_c, "title_text", None)

#: Whether the compiled summary walk is in use (same summaries, a fraction of the time).
HAVE_COMPILED_WALK = _walk_c is not None

RELATIONS: tuple[str, ...] = ("rsn", "rpsa", "csr")

#: Elements whose subtree says nothing about a page's visible structure.
DEFAULT_SKIP_TAGS: frozenset[str] = frozenset({"script", "style", "noscript", "template"})

#: Seed 002's RPSA attribute set: class and id of div and span.
DEFAULT_RPSA_ATTRIBUTES: tuple[str, ...] = ("div.class", "div.id", "span.class", "span.id")

#: Attributes whose values describe structure and are kept (normalised) in CSR labels. Values of
#: every other attribute (href, src, alt, title, style, data-*, ...) vary from page to page of one
#: type, so with normalisation on only their names count.
STRUCTURAL_ATTRIBUTES: frozenset[str] = frozenset(
    {
        "class",
        "id",
        "type",
        "role",
        "name",
        "rel",
        "method",
        "itemprop",
        "itemtype",
        "itemscope",
        "colspan",
        "rowspan",
        "align",
        "valign",
        "target",
        "for",
    }
)

_DIGITS = re.compile(r"\d+")
_HAS_DIGIT = re.compile(r"\d").search
# A word (a whole run of [A-Za-z0-9_]) of at least 6 characters that mixes letters and digits
# looks like a generated hash ("css-1x9f3a", "a7f9c2e1"): replaced by one placeholder. One
# pattern with lookaheads, so no Python callback runs per word.
_HASH_WORD = re.compile(
    r"(?<![A-Za-z0-9_])(?=[A-Za-z0-9_]{6})(?=[A-Za-z_]*[0-9])(?=[0-9_]*[A-Za-z])[A-Za-z0-9_]+"
)


class PageParseError(ValueError):
    """The input holds no HTML element to summarise (empty, whitespace only, unparseable)."""


def code_char(label: str) -> str:
    """A stable one-character code for a label (the same in every process)."""
    # 20 bits of CRC-32, shifted past the ASCII range; lone surrogates are fine inside a str.
    return chr(0x100 + (zlib.crc32(label.encode("utf-8", "surrogatepass")) & 0xFFFFF))


def normalise_value(value: str) -> str:
    """Fold the volatile parts of an attribute value: hash-like tokens and digit runs."""
    if not _HAS_DIGIT(value):  # most values: nothing volatile, no regex work
        return value
    return _DIGITS.sub("0", _HASH_WORD.sub("~", value))


_compiled_pairs: Any = getattr(_walk_c, "node_pairs", None)


def node_pairs(codes: str, parents: list[int]) -> set[str]:
    """The parent -> child pairs of a page's codes (one relation of ``PageSummary.bfs``, with
    its ``parent_bfs``): ``codes[parents[i]] + codes[i]`` for every node but the start.
    Compiled where the walk is built: it makes one string per distinct pair, not per node."""
    if _compiled_pairs is not None and type(codes) is str and type(parents) is list:
        pairs: set[str] = _compiled_pairs(codes, parents)
        return pairs
    return set(map(add, map(codes.__getitem__, parents[1:]), codes[1:]))


def frozen_node_pairs(codes: str, parents: list[int]) -> frozenset[str]:
    """:func:`node_pairs` as a frozenset (made as ``frozenset`` of the Python loop makes it)."""
    if _compiled_pairs is not None and type(codes) is str and type(parents) is list:
        pairs: frozenset[str] = _compiled_pairs(codes, parents, True)
        return pairs
    return frozenset(map(add, map(codes.__getitem__, parents[1:]), codes[1:]))


@dataclass(frozen=True)
class SummaryOptions:
    """How a page is summarised. Pages compared with each other must share the options."""

    skip_tags: frozenset[str] = DEFAULT_SKIP_TAGS
    rpsa_attributes: tuple[str, ...] = DEFAULT_RPSA_ATTRIBUTES
    normalise_volatile: bool = True
    max_depth: int | None = None  # levels below <body> to keep; None keeps all
    #: Stop the breadth-first walk after this many elements: the top of the tree, where page
    #: types differ, is kept and crawl-time cost is bounded. None keeps all.
    max_nodes: int | None = None

    def __post_init__(self) -> None:
        for spec in self.rpsa_attributes:
            if "." not in spec:
                raise ValueError(f"RPSA attribute {spec!r} must look like 'tag.attribute'")
        if self.max_depth is not None and self.max_depth < 0:
            raise ValueError("max_depth must be >= 0 or None")
        if self.max_nodes is not None and self.max_nodes < 1:
            raise ValueError("max_nodes must be >= 1 or None")

    @cached_property
    def _rpsa_by_tag(self) -> dict[str, tuple[str, ...]]:
        by_tag: dict[str, list[str]] = {}
        for spec in self.rpsa_attributes:
            tag, attr = spec.split(".", 1)
            by_tag.setdefault(tag.lower(), []).append(attr.lower())
        return {tag: tuple(attrs) for tag, attrs in by_tag.items()}


DEFAULT_OPTIONS = SummaryOptions()

# The rsn, rpsa and csr code characters of a node as one 3-character string: one join and
# three slices then give the three sequences of a page.
_Labels = str


class _LabelCache:
    """Raw (tag, attributes) -> codes; bounded because hrefs and ids make many keys unique."""

    def __init__(self, options: SummaryOptions, limit: int = 200_000) -> None:
        self.options = options
        self.limit = limit
        self.entries: dict[Any, _Labels] = {}
        # raw class/id value -> normalised value: keys built from normalised values make pages
        # with counters in their ids ("answer-8312") hit the label cache
        self.values: dict[str, str] = {}
        self.tag_codes: dict[str, str] = {}
        # The compiled walker's scratch buffers and descriptor table are shared, and its
        # Python callback can let another thread run: one walk at a time.
        self.walk_lock = threading.Lock()

    @cached_property
    def value_names(self) -> frozenset[str]:
        """Attributes besides class and id whose values shape a label (with normalisation on)."""
        rpsa = {attr for attrs in self.options._rpsa_by_tag.values() for attr in attrs}
        return frozenset((STRUCTURAL_ATTRIBUTES | rpsa) - {"class", "id"})

    def normalised(self, value: str) -> str:
        result = self.values.get(value)
        if result is None:
            result = normalise_value(" ".join(value.split()))
            if len(self.values) >= self.limit:
                self.values.clear()
            self.values[value] = result
        return result

    @cached_property
    def walker(self) -> Any:
        """The compiled walk for these options; it remembers descriptors across pages."""
        options = self.options
        names = sorted(self.value_names | {"class", "id"}) if options.normalise_volatile else None
        return _walk_c.Walker(
            tuple(options.skip_tags), names, self.resolve, self.limit, **self.native_labels()
        )

    def native_labels(self) -> dict[str, Any]:
        """What the compiled walk needs to compute a new descriptor's codes itself (without the
        Python ``resolve``); empty when an RPSA name is not plain ASCII (``resolve`` then)."""
        pairs = [(tag, attr) for tag, attrs in self.options._rpsa_by_tag.items() for attr in attrs]
        if not all(part and part.isascii() for pair in pairs for part in pair):
            return {}
        return {
            "rpsa_tags": [tag for tag, _ in pairs],
            "rpsa_names": [attr for _, attr in pairs],
            "structural": sorted(STRUCTURAL_ATTRIBUTES),
        }

    def resolve(self, tag: str, items: tuple[tuple[str, str | None], ...]) -> _Labels:
        """Codes of a node the compiled walk describes; a value is None when it is not read.

        Values come normalised by the walk when they are ASCII and raw otherwise; normalising
        is idempotent, so both give the labels of the Python walk. The walk computes the codes
        of plain ASCII descriptors itself and calls this for the others, once per descriptor
        it has not met (it keeps them across pages), so there is no memo here.
        """
        return self._compute(tag, [(name, value or "") for name, value in items])

    def store(self, key: Any, tag: str, items: list[tuple[str, str]]) -> _Labels:
        entry = self._compute(tag, items)
        if len(self.entries) >= self.limit:
            self.entries.clear()
        self.entries[key] = entry
        return entry

    def _compute(self, tag: str, items: list[tuple[str, str]]) -> _Labels:
        options = self.options
        normalised = self.normalised  # memoised: a value is folded once, not per relation
        attrs = {name.lower(): value for name, value in items}
        rsn = self.tag_codes.get(tag)
        if rsn is None:
            if len(self.tag_codes) >= self.limit:  # custom elements can make many tag names
                self.tag_codes.clear()
            rsn = self.tag_codes[tag] = code_char(tag)
        wanted = options._rpsa_by_tag.get(tag)
        if wanted:
            parts = [tag]
            for name in wanted:
                value = attrs.get(name)
                if value is not None:
                    if options.normalise_volatile:
                        value = normalised(value)
                    parts.append(f"{name}={value}")
            rpsa = code_char("\x1f".join(parts))
        else:
            rpsa = rsn
        csr = code_char(csr_label(tag, attrs, options, normalised)) if attrs else rsn
        return rsn + rpsa + csr


def csr_label(
    tag: str,
    attrs: dict[str, str],
    options: SummaryOptions,
    normalised: Callable[[str], str] | None = None,
) -> str:
    """The text a node's csr code is the hash of: its tag and its attributes (lower-cased
    names), with structural values normalised and the others blanked when
    ``normalise_volatile`` is on. ``normalised`` is a memoised :func:`normalise_value`."""
    fold = normalised or (lambda value: normalise_value(" ".join(value.split())))
    parts = [tag]
    for name in sorted(attrs):
        value = attrs[name]
        if options.normalise_volatile:
            value = fold(value) if name in STRUCTURAL_ATTRIBUTES else ""
        parts.append(f"{name}={value}")
    return "\x1f".join(parts)


_caches: dict[SummaryOptions, _LabelCache] = {}
# the cache found last: a crawl summarises every page with one options object, whose
# dataclass hash and equality cost more in Python than this identity check
_last_cache: _LabelCache | None = None


def _label_cache(options: SummaryOptions) -> _LabelCache:
    global _last_cache
    last = _last_cache
    if last is not None and last.options is options:
        return last
    cache = _caches.get(options)
    if cache is None:
        cache = _caches[options] = _LabelCache(options)
    _last_cache = cache
    return cache


class PageSummary:
    """Structure of one page; nodes are numbered in breadth-first order from the start element.

    ``bfs[relation]`` is the node sequence (one character per node), ``parent_bfs[i]`` the BFS
    index of node i's parent (-1 for the start element), ``level_starts[d]`` the BFS index where
    depth d begins. Everything else is derived lazily.
    """

    def __init__(
        self,
        bfs: dict[str, str],
        parent_bfs: list[int],
        level_starts: list[int],
        tags: list[str],
        classes: frozenset[str] | None = None,
        options: SummaryOptions = DEFAULT_OPTIONS,
        title: str | None = None,
        source: str | None = None,
        extra: dict[str, Any] | None = None,
        *,
        class_values: Sequence[str] = (),
    ) -> None:
        """``classes`` is the page's set of class names; without it, ``class_values`` (the
        raw ``class`` attribute values, repeats included) give it when it is first read."""
        self.bfs = bfs
        self.parent_bfs = parent_bfs
        self.level_starts = level_starts
        self.tags = tags
        self.options = options
        self.title = title
        self.source = source
        self.extra: dict[str, Any] = {} if extra is None else extra
        self._class_values = class_values
        if classes is not None:
            self.classes = classes

    @cached_property
    def classes(self) -> frozenset[str]:
        """The class names on the page. Split from the raw values only when read: a crawl
        decides most pages without it (the style similarity and the cluster file read it)."""
        values, self._class_values = self._class_values, ()
        return frozenset(" ".join(set(values)).split())

    @property
    def n_nodes(self) -> int:
        return len(self.parent_bfs)

    def __len__(self) -> int:
        return len(self.parent_bfs)

    def __repr__(self) -> str:
        where = f" {self.source}" if self.source else ""
        return f"<PageSummary{where} nodes={self.n_nodes} depth={self.depth}>"

    @property
    def depth(self) -> int:
        """Number of levels (1 for a lone start element)."""
        return len(self.level_starts)

    def sequence(self, relation: str = "rsn", order: str = "bfs") -> str:
        """The node sequence under ``relation`` in ``order`` ("bfs" or "dfs")."""
        if relation not in self.bfs:
            raise ValueError(f"unknown node relation {relation!r}; choose from {RELATIONS}")
        if order == "bfs":
            return self.bfs[relation]
        if order == "dfs":
            return self._dfs_sequences[relation]
        raise ValueError(f"unknown traversal order {order!r}; choose 'bfs' or 'dfs'")

    def level(self, depth: int, relation: str = "rsn") -> str:
        """The node codes at ``depth`` below the start element, left to right."""
        if depth < 0 or depth >= len(self.level_starts):
            return ""
        start = self.level_starts[depth]
        end = self.level_starts[depth + 1] if depth + 1 < len(self.level_starts) else self.n_nodes
        return self.bfs[relation][start:end]

    def level_tags(self, depth: int) -> list[str]:
        """The tag names at ``depth`` below the start element, left to right."""
        if depth < 0 or depth >= len(self.level_starts):
            return []
        start = self.level_starts[depth]
        end = self.level_starts[depth + 1] if depth + 1 < len(self.level_starts) else self.n_nodes
        return self.tags[start:end]

    @cached_property
    def _document_order(self) -> list[int]:
        """BFS indexes listed in document (preorder) order, computed without recursion."""
        n = self.n_nodes
        if n == 0:
            return []
        children: list[list[int]] = [[] for _ in range(n)]
        parents = self.parent_bfs
        for i in range(1, n):
            children[parents[i]].append(i)
        order: list[int] = []
        stack = [0]
        while stack:
            node = stack.pop()
            order.append(node)
            kids = children[node]
            if kids:
                stack.extend(reversed(kids))
        return order

    @cached_property
    def _dfs_sequences(self) -> dict[str, str]:
        order = self._document_order
        return {rel: "".join([seq[i] for i in order]) for rel, seq in self.bfs.items()}

    @cached_property
    def parents(self) -> list[int]:
        """Parent of each node in document order (-1 for the root), as document-order indexes."""
        order = self._document_order
        position = [0] * len(order)
        for pos, node in enumerate(order):
            position[node] = pos
        parent_bfs = self.parent_bfs
        return [position[parent_bfs[node]] if node else -1 for node in order]

    def codes(self, relation: str = "rsn") -> list[int]:
        """Integer label codes in document order (for tree edit distance)."""
        return [ord(ch) for ch in self.sequence(relation, "dfs")]

    @cached_property
    def tag_paths(self) -> list[str]:
        """Root-to-node tag paths in BFS order ("body/div/ul/li"), e.g. for shingling."""
        paths: list[str] = []
        tags = self.tags
        for i, parent in enumerate(self.parent_bfs):
            paths.append(tags[i] if parent < 0 else f"{paths[parent]}/{tags[i]}")
        return paths


_PARSER_KWARGS: dict[str, Any] = {"huge_tree": True, "remove_comments": False}


def parse_html(data: bytes | bytearray | memoryview | str, encoding: str | None = None) -> Any:
    """Parse HTML with lxml into an ``lxml.etree`` root element (fast proxies, no html classes).

    ``encoding`` decodes bytes in Python (any codec name, bad bytes replaced); without it, bytes
    that are valid UTF-8 are read as UTF-8 and others are left to libxml2's ``<meta charset>``
    detection. Raises :class:`PageParseError` for input with no element at all (empty,
    whitespace only, binary data).
    """
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if isinstance(data, bytes) and encoding is not None:
        with contextlib.suppress(LookupError):  # unknown codec: detected below instead
            data = data.decode(encoding, errors="replace")
    if isinstance(data, str):
        # lxml refuses str input carrying an XML encoding declaration; bytes avoid that.
        raw = data.encode("utf-8", "surrogatepass")
        parse_encoding: str | None = "utf-8"
    else:
        raw = data
        try:
            raw.decode("utf-8")
            parse_encoding = "utf-8"
        except UnicodeDecodeError:
            parse_encoding = None
    if not raw.strip():
        raise PageParseError("empty document")
    if b"\x00" in raw[:1024] and b"<" not in raw[:1024]:
        raise PageParseError("binary data, not HTML")
    parser = etree.HTMLParser(encoding=parse_encoding, **_PARSER_KWARGS)
    try:
        root = etree.fromstring(raw, parser)
    except (etree.ParserError, ValueError) as exc:
        raise PageParseError(f"not parseable as HTML: {exc}") from exc
    if root is None:
        raise PageParseError("no HTML element found")
    return root


def _start_element(root: Any) -> Any:
    """``<body>`` when there is one, else the element itself (a fragment or a body-less page)."""
    if not isinstance(root.tag, str):
        raise PageParseError("not an element")
    tag = root.tag.lower()
    if tag == "body":
        return root
    # next(iterchildren/iterdescendants("body")) is what lxml's find("body") and
    # find(".//body") run, without parsing the path on every page
    if tag == "html":
        body = next(root.iterchildren("body"), None)
    else:
        body = next(root.iterdescendants("body"), None)
    return root if body is None else body


def _find_title(root: Any) -> str | None:
    raw = _title_text(root)
    if raw is None:
        return None
    text = " ".join(raw.split())
    return text or None


def _title_text(root: Any) -> str | None:
    """The text of the document's ``head/title`` as lxml reads it; compiled where it can be
    (lxml's search makes a proxy per element on its way, on every page)."""
    if _c_title_text is not None:
        with contextlib.suppress(_walk_c.Unsupported, TypeError):
            return _c_title_text(root)
    tree_root = root.getroottree().getroot()
    title = tree_root.find("head/title") if tree_root is not None else None
    return None if title is None else title.text


def summarize_tree(
    root: Any, options: SummaryOptions = DEFAULT_OPTIONS, source: str | None = None
) -> PageSummary:
    """Summarise an lxml element tree (``lxml.etree`` or ``lxml.html``, e.g. a parsel root).

    The compiled walk does this without one Python object per element when it is built; the
    Python walk gives the same summary and is used otherwise.
    """
    start = _start_element(root)
    if _walk_c is not None:
        with contextlib.suppress(_walk_c.Unsupported):
            return _summarize_compiled(start, options, source)
    return _summarize_python(start, options, source)


def _summarize_compiled(start: Any, options: SummaryOptions, source: str | None) -> PageSummary:
    cache = _label_cache(options)
    with cache.walk_lock:
        rsn, rpsa, csr, tags, parent_bfs, level_starts, class_values = cache.walker.walk(
            start,
            -1 if options.max_depth is None else options.max_depth,
            -1 if options.max_nodes is None else options.max_nodes,
        )
    return PageSummary(
        bfs={"rsn": rsn, "rpsa": rpsa, "csr": csr},
        parent_bfs=parent_bfs,
        level_starts=level_starts,
        tags=tags,
        class_values=class_values,
        options=options,
        title=_find_title(start),
        source=source,
    )


def _summarize_python(start: Any, options: SummaryOptions, source: str | None) -> PageSummary:
    """The reference walk in Python: one lxml proxy per element."""
    walk = _PythonWalk(options)
    walk.run(start)
    codes = "".join(walk.node_labels)
    rsn, rpsa, csr = codes[0::3], codes[1::3], codes[2::3]

    return PageSummary(
        bfs={"rsn": rsn, "rpsa": rpsa, "csr": csr},
        parent_bfs=walk.parent_bfs,
        level_starts=walk.level_starts,
        tags=walk.tags,
        class_values=walk.raw_classes,
        options=options,
        title=_find_title(start),
        source=source,
    )


class _PythonWalk:
    """The state of one breadth-first walk: the labels, tags and parents kept so far."""

    def __init__(self, options: SummaryOptions) -> None:
        self.options = options
        self.cache = _label_cache(options)
        self.key_value_names = self.cache.value_names | {"class", "id"}
        self.raw_classes: list[str] = []
        self.node_labels: list[_Labels] = []
        self.tags: list[str] = []
        self.parent_bfs: list[int] = []
        self.level_starts: list[int] = []
        self.budget = options.max_nodes if options.max_nodes is not None else -1
        self.full = False

    def run(self, start: Any) -> None:
        # Each level is collected with C-level ``extend`` (children of every kept element,
        # comments and skipped tags included) and filtered while it is walked: no Python
        # loop per child.
        max_depth = self.options.max_depth
        level: list[Any] = [start]
        level_parents: list[int] = [-1]
        depth = 0
        while level and not self.full:
            self.level_starts.append(len(self.tags))
            descend = max_depth is None or depth < max_depth
            level, level_parents = self.walk_level(level, level_parents, descend)
            if self.level_starts[-1] == len(self.tags):
                self.level_starts.pop()  # nothing kept at this depth
            depth += 1

    def walk_level(
        self, level: list[Any], level_parents: list[int], descend: bool
    ) -> tuple[list[Any], list[int]]:
        """Keep the elements of one level; returns the next level and its parents."""
        skip = self.options.skip_tags
        cache = self.cache
        entries_get = cache.entries.get
        compute = cache.store
        short_key = self.options.normalise_volatile
        value_names = cache.value_names
        values_get = cache.values.get
        normalised = cache.normalised
        raw_classes = self.raw_classes
        node_labels = self.node_labels
        tags = self.tags
        parent_bfs = self.parent_bfs
        budget = self.budget
        next_level: list[Any] = []
        next_parents: list[int] = []
        for element, parent in zip(level, level_parents):
            tag = element.tag
            if tag.__class__ is not str or tag in skip:
                continue  # comment, processing instruction, script/style/...
            if len(tags) == budget:
                self.full = True
                break
            keys = element.keys()
            if not keys:
                key: Any = tag
            elif short_key and value_names.isdisjoint(keys) and "".join(keys).islower():
                # Only class and id values matter here, normalised as the labels use them: a
                # key without the other values (hrefs, srcs, titles; blanked anyway) is cheap
                # to hash and recurs from page to page.
                get = element.get
                css = get("class")
                ident = get("id")
                if css is not None:
                    raw_classes.append(css)
                    normal = values_get(css)
                    css = normal if normal is not None else normalised(css)
                if ident is not None:
                    normal = values_get(ident)
                    ident = normal if normal is not None else normalised(ident)
                # the attribute names as one item: a flat tuple could read the same as the
                # key of the next branch for other attributes (issue 14, item 8)
                key = (tag, css, ident, tuple(keys))
            else:
                key = self._attribute_key(element, tag, keys)
            entry = entries_get(key)
            if entry is None:
                entry = compute(key, tag, element.items())
            if descend:
                count = len(element)
                if count:
                    next_level.extend(element)
                    next_parents.extend([len(tags)] * count)
                    # with a node budget, children past it would only be cut: stop collecting
                    if budget >= 0 and len(next_level) >= budget - len(tags):
                        descend = False
            node_labels.append(entry)
            tags.append(tag)
            parent_bfs.append(parent)
        return next_level, next_parents

    def _attribute_key(self, element: Any, tag: str, keys: list[str]) -> Any:
        """The label cache key of an element with attributes other than class and id (or
        names not all lower-case, or normalisation off)."""
        short_key = self.options.normalise_volatile
        if short_key and not "".join(keys).islower():
            # names not all lower-case (an XML tree): the labels lower-case them, so "CLASS"
            # counts as "class"; the short keys would leave its value out. The full
            # attributes instead (another shape: no key of the other branches).
            key: Any = (tag, tuple(element.items()))
        elif short_key:
            # Other structural attributes too (type, role, rel, itemprop, ...): their
            # normalised values join the key, the rest (hrefs, srcs) stay out of it.
            # names and values apart: (tag, *names, *values) was ambiguous, two elements
            # could share a key, and so the first one's codes (issue 14, item 8)
            get = element.get
            normalised = self.cache.normalised
            key_value_names = self.key_value_names
            key = (
                tag,
                tuple(keys),
                tuple([normalised(get(name)) for name in keys if name in key_value_names]),
            )
        else:
            key = (tag, *element.items())
        css = element.get("class")
        if css is not None:
            self.raw_classes.append(css)
        return key


def summarize(
    page: Any,
    options: SummaryOptions = DEFAULT_OPTIONS,
    *,
    encoding: str | None = None,
    source: str | None = None,
) -> PageSummary:
    """Summarise a page given as an lxml element, HTML bytes/str, or a file path.

    Raises :class:`PageParseError` when there is nothing to summarise, and
    :class:`~pagesim_scrapy.core.pageio.PageReadError` when a file cannot be read.
    """
    if isinstance(page, PageSummary):
        return page
    if isinstance(page, Path):
        return summarize(read_page_bytes(page), options, encoding=encoding, source=str(page))
    if isinstance(page, (bytes, bytearray, memoryview)):
        return summarize_tree(parse_html(bytes(page), encoding), options, source)
    if isinstance(page, str):
        return summarize_tree(parse_html(page), options, source)
    if hasattr(page, "tag") and hasattr(page, "iterchildren"):
        return summarize_tree(page, options, source)
    raise TypeError(f"cannot summarise a {type(page).__name__}: give an lxml element, HTML or Path")
