"""The page view that induction and extraction share: parsing, child items, signatures, runs.

A page is an lxml ``etree`` tree (not ``lxml.html``, whose element proxies make every walk
slower).
Every element's content is seen as a flat list of *items*: child elements and cleaned text
pieces. Formatting-only inline elements (``<b>``, ``<em>``…) are folded into the text around
them, so "Price: <b>£3</b>" is one text value rather than three unstable nodes. Script, style,
noscript and template elements and comments are removed at parse time; the data of JSON-LD
scripts is kept as a synthetic subtree (:mod:`.structured`).
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urljoin, urlparse, urlsplit

from lxml import etree
from rapidfuzz.distance import Indel

from pagesim_scrapy.core.induce.structured import add_jsonld, jsonld_blocks
from pagesim_scrapy.core.summary import PageParseError

__all__ = [
    "TEXT_SIG",
    "PageParseError",
    "Run",
    "absolutise_links",
    "body_elements",
    "clean_text",
    "decode_html",
    "element_sig",
    "element_text",
    "find_runs",
    "item_sig",
    "item_text",
    "page_children",
    "page_elements",
    "page_items",
    "parse_html",
    "sig_id",
    "subtree_end",
]

Element = etree._Element

#: Elements removed before anything looks at the page.
SKIP_TAGS: tuple[str, ...] = ("script", "style", "noscript", "template")

#: Inline formatting tags folded into the surrounding text when they carry no class or id.
INLINE_TAGS: frozenset[str] = frozenset(
    {
        "b", "i", "em", "strong", "u", "s", "small", "big", "sup", "sub", "mark", "abbr",
        "cite", "code", "strike", "font", "tt", "q", "del", "ins", "kbd", "var", "dfn", "bdi",
        "bdo", "wbr", "nobr",
    }
)  # fmt: skip

#: Elements whose inside is not page structure (icons, embedded documents).
LEAF_TAGS: frozenset[str] = frozenset({"svg", "math", "iframe", "object", "video", "audio"})

#: The signature of a text item.
TEXT_SIG = "#text"

#: Attributes that name a head element's role and so belong in its signature.
_ROLE_ATTRS: dict[str, tuple[str, ...]] = {
    "meta": ("name", "property", "itemprop", "http-equiv", "charset"),
    "link": ("rel", "hreflang", "type"),
    "input": ("type", "name"),
    "button": ("type", "name"),
    "select": ("name",),
    "textarea": ("name",),
}

_ENCODING_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_.:-]+)""", re.I)
_XML_DECL_RE = re.compile(rb"""^\s*<\?xml[^>]+encoding\s*=\s*["']([a-zA-Z0-9_.:-]+)""", re.I)
_SPLIT_PARTS = re.compile(r"[-_:/.]+")
_HAS_DIGIT = re.compile(r"\d")
_DIGITS = re.compile(r"\d+")


_local = threading.local()


def _parser() -> etree.HTMLParser:
    # lxml parsers must not be shared between threads.
    parser: etree.HTMLParser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = etree.HTMLParser(
            remove_comments=True,
            remove_pis=True,
            no_network=True,
            recover=True,
            huge_tree=True,
            encoding="utf-8",
        )
        _local.parser = parser
    return parser


def decode_html(data: bytes) -> str:
    """Decode page bytes: BOM, then a declared charset, then UTF-8, then cp1252."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    head = data[:4096]
    match = _XML_DECL_RE.search(head) or _ENCODING_RE.search(head)
    if match:
        name = match.group(1).decode("ascii", "replace")
        try:
            return data.decode(name, "replace")
        except (LookupError, UnicodeError):  # unknown, or a codec without "replace" (idna)
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def parse_html(page: bytes | str, structured: bool = True, base_url: str | None = None) -> Element:
    """Parse a page into an lxml tree with script/style/noscript/template removed.

    With ``structured``, the page's JSON-LD blocks are kept as a synthetic ``<jsonld>``
    subtree at the end of ``<html>`` (see :mod:`.structured`): data the page carries for
    machines becomes fields like any other. With ``base_url`` (the page's URL), links and
    image sources are made absolute, so a site-wide link is the same value on every page
    (template, not data) and extracted URLs are usable as they are. Raises
    :class:`PageParseError` when there is nothing to build a tree from.
    """
    text = decode_html(page) if isinstance(page, bytes) else page
    if not text or not text.strip():
        raise PageParseError("empty page")
    if "\x00" in text[:1024]:
        raise PageParseError("binary content, not HTML")
    try:
        root = etree.fromstring(text.encode("utf-8", "replace"), _parser())
    except (etree.XMLSyntaxError, ValueError) as exc:
        raise PageParseError(f"cannot parse HTML: {exc}") from exc
    if root is None:
        raise PageParseError("no element found")
    blocks = jsonld_blocks(root) if structured else []
    etree.strip_elements(root, *SKIP_TAGS, with_tail=False)
    if blocks:
        add_jsonld(root, blocks, base_url)
    if base_url:
        absolutise_links(root, base_url)
    for leaf in root.iter(*LEAF_TAGS):
        # an icon's drawing or an embedded document is not page structure
        if len(leaf):
            for child in list(leaf):
                leaf.remove(child)
    return root


#: The link-like attributes made absolute by :func:`absolutise_links`.
URL_ATTRS: dict[str, tuple[str, ...]] = {
    "a": ("href",),
    "area": ("href",),
    "link": ("href",),
    "img": ("src", "data-src", "data-lazy-src", "data-original"),
    "iframe": ("src",),
    "source": ("src",),
    "video": ("src",),
    "audio": ("src",),
}
_NOT_RELATIVE = ("#", "data:", "javascript:", "mailto:", "tel:")
_HAS_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


#: Absolute paths ("/c/shoes") resolved per site (scheme and host), and relative ones per
#: folder, for every page of the process: a site's menus and footers bring the same paths
#: on each of its pages.
_SITE_LINKS: dict[tuple[Any, ...], str] = {}
_SITE_LINKS_LIMIT = 20_000


def _site_of(base_url: str) -> tuple[str, str] | None:
    """The scheme and host that an absolute path is resolved against (all that
    :func:`urllib.parse.urljoin` reads of the base for such a path), None if unreadable."""
    try:
        parts = urlsplit(base_url)
    except ValueError:
        return None
    return parts.scheme, parts.netloc


def _folder_of(base_url: str) -> tuple[str, str, tuple[str, ...]] | None:
    """All that :func:`urllib.parse.urljoin` reads of the base for a relative path
    ("../c/shoes", "p2.html"): its scheme, host and the segments of its folder, as
    ``urljoin`` splits them (None if unreadable). The pages of one folder share them."""
    try:
        parts = urlparse(base_url)
    except ValueError:
        return None
    segments = parts.path.split("/")
    if segments[-1] != "":
        del segments[-1]
    return parts.scheme, parts.netloc, tuple(segments)


def _link_key(
    site: tuple[str, str] | None, folder: tuple[str, str, tuple[str, ...]] | None, value: str
) -> tuple[Any, ...] | None:
    """The key under which ``value`` resolves the same from every page that shares it:
    the site for an absolute path, the folder for a relative one, None otherwise (a
    query or fragment alone reads the whole base)."""
    if value[0] == "/":
        return None if site is None or value[1:2] == "/" else (*site, value)
    if value[0] in "?;" or value[0] <= " " or folder is None:
        return None
    return (folder, value)


def absolutise_links(root: Element, base_url: str) -> None:
    """Resolve relative ``href``/``src`` values against the page URL (and its ``<base>``)."""
    base = root.find("head/base[@href]")
    if base is not None:
        with contextlib.suppress(ValueError):  # a broken <base href>: the page URL stays
            base_url = urljoin(base_url, (base.get("href") or "").strip())
    site, folder = _site_of(base_url), _folder_of(base_url)
    resolved: dict[str, str] = {}
    for el in root.iter(*URL_ATTRS):
        for attr in URL_ATTRS[str(el.tag)]:
            value = el.get(attr)
            if not value:
                continue
            value = value.strip()
            if not value or value.startswith(_NOT_RELATIVE) or _HAS_SCHEME.match(value):
                continue
            new = resolved.get(value)
            if new is None:
                new = resolved[value] = _resolved(base_url, value, _link_key(site, folder, value))
            try:
                el.set(attr, new)
            except ValueError:  # lxml refuses the value (a control character): left as it was
                continue


def _resolved(base_url: str, value: str, key: tuple[Any, ...] | None) -> str:
    """``urljoin(base_url, value)`` (``value`` itself if malformed), through the process's
    cache under ``key`` (if any)."""
    try:
        return _joined(base_url, value, key)
    except ValueError:  # a malformed URL (bad IPv6 host…) stays as it is
        return value


def _joined(base_url: str, value: str, key: tuple[Any, ...] | None) -> str:
    new = _SITE_LINKS.get(key) if key is not None else None
    if new is None:
        new = urljoin(base_url, value)
        if key is not None:
            if len(_SITE_LINKS) >= _SITE_LINKS_LIMIT:
                _SITE_LINKS.clear()
            _SITE_LINKS[key] = new
    return new


class LinkResolver:
    """``urljoin(base_url, value)`` for the links of one page (raising as it does): each
    value once, and through the process's cache where the result depends on the base's
    site or folder only (a site's menus bring the same links on each page)."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        # no base: urljoin gives each value back as it is, nothing to share
        self.site = _site_of(base_url) if base_url else None
        self.folder = _folder_of(base_url) if base_url else None
        self.seen: dict[str, str] = {}

    def __call__(self, value: str) -> str:
        found = self.seen.get(value)
        if found is None:
            # a fragment alone (or nothing) reads the whole base: no shared key
            key = _link_key(self.site, self.folder, value) if value[:1] not in ("", "#") else None
            found = self.seen[value] = _joined(self.base_url, value, key)
        return found


def clean_text(text: str) -> str:
    """Collapse all whitespace (including no-break spaces) to single spaces, strip the ends."""
    return " ".join(text.split())


def element_text(el: Element) -> str:
    """All text inside an element, cleaned."""
    if el.tag in LEAF_TAGS:
        return ""
    return " ".join(" ".join(el.itertext()).split())


# --- per-page memo ------------------------------------------------------------------------

_T = TypeVar("_T")
#: Per thread: the page last read and what was computed from it.
_MEMO = threading.local()


def page_memo(root: Element, name: str, compute: Callable[[Element], _T], keep: bool = False) -> _T:
    """``compute(root)``, computed once per page and thread: learning a page and then
    extracting from the same parsed tree read its label rows and sections once. Only the
    last page is remembered (a page's tree is not changed after parsing; lxml elements take
    no weak reference, so it is kept until the thread reads another page or calls
    :func:`forget_page`). A ``keep`` value holds no element of the tree: another tree
    parsed from the same page may take it (:func:`kept_page_memo`). Callers must not change
    what they get back."""
    if getattr(_MEMO, "root", None) is not root:
        _MEMO.root = root
        _MEMO.values = {}
        _MEMO.kept = set()
    values: dict[str, Any] = _MEMO.values
    if name in values:
        return values[name]
    value = values[name] = compute(root)
    if keep:
        _MEMO.kept.add(name)
    return value


def kept_page_memo(root: Element) -> dict[str, Any]:
    """The ``keep`` values :func:`page_memo` holds for ``root`` (empty when ``root`` is not
    the thread's page)."""
    if getattr(_MEMO, "root", None) is not root:
        return {}
    return {name: _MEMO.values[name] for name in _MEMO.kept}


def seed_page_memo(root: Element, values: dict[str, Any]) -> None:
    """Make ``root``, just parsed, the thread's page, with ``values`` that
    :func:`kept_page_memo` gave for another tree parsed the same way from the same page:
    a page learned while its item waited is read once (its rows and sections)."""
    _MEMO.root = root
    _MEMO.values = dict(values)
    _MEMO.kept = set(values)


def page_memo_peek(root: Element, name: str) -> Any:
    """What :func:`page_memo` holds for ``name`` on this page, or None when nothing is
    computed yet (the caller may then compute less than the whole value)."""
    if getattr(_MEMO, "root", None) is not root:
        return None
    return _MEMO.values.get(name)


def forget_page() -> None:
    """Drop this thread's :func:`page_memo` (and its page's tree)."""
    _MEMO.root = None
    _MEMO.values = {}


# --- a page's elements, walked once -------------------------------------------------------


def page_elements(root: Element) -> list[Element]:
    """Every element under ``root`` (itself first) in document order, comments and entities
    left out: walked once per page and thread (:func:`page_memo`), so the labelled rows,
    the landmarks and the posts' date search read one list instead of each walking the tree.
    Callers must not change the list."""
    return page_memo(root, "elements", _all_elements)


def _all_elements(root: Element) -> list[Element]:
    return list(root.iter(etree.Element))


def body_elements(root: Element) -> tuple[Element, list[Element]]:
    """The page's ``<body>`` (``root`` itself when it has none) and its elements in
    document order, a part of :func:`page_elements` (read once per page and thread)."""
    return page_memo(root, "body elements", _body_elements)


def _body_elements(root: Element) -> tuple[Element, list[Element]]:
    elements = page_elements(root)
    body = root.find("body")
    if body is None:
        return root, elements
    start = elements.index(body)
    return body, elements[start : subtree_end(elements, start)]


def subtree_end(elements: list[Element], index: int) -> int:
    """The index in ``elements`` (a list in document order, as :func:`page_elements`
    gives) just past the subtree of ``elements[index]``: its descendants follow it there,
    and the first element after them is the next sibling of it or of an ancestor."""
    node: Element | None = elements[index]
    while node is not None:
        after = node.getnext()
        while after is not None and after.tag.__class__ is not str:
            after = after.getnext()
        if after is not None:
            try:
                return elements.index(after, index + 1)
            except ValueError:  # outside the listed part of the tree
                return len(elements)
        node = node.getparent()
    return len(elements)


# --- signatures ---------------------------------------------------------------------------

_SIG_IDS: dict[str, int] = {}
_CLASS_CACHE: dict[str, str] = {}
_SIG_CACHE: dict[tuple[Any, ...], str] = {}
_CACHE_LIMIT = 200_000


def sig_id(sig: str) -> int:
    """A small integer per distinct signature string (interned for the process)."""
    value = _SIG_IDS.get(sig)
    if value is None:
        value = len(_SIG_IDS) + 1
        _SIG_IDS[sig] = value
    return value


_CSS_IN_JS = re.compile(r"^(css|sc|jsx|emotion|styled)-[A-Za-z0-9_-]+$")
_CSS_MODULE = re.compile(r"^([A-Za-z][\w-]*?)__(?=[a-z_-]*[A-Z0-9])[A-Za-z0-9_-]{5}$")


def _stable_token(token: str) -> str:
    """Drop the unstable parts of a class or id token: numbers and hash-like chunks.

    ``post-1622`` → ``post``; ``css-1w0kyr1`` and ``css-bhostb`` (CSS-in-JS hashes) →
    ``css``; ``Layout_main__4gfJz`` (CSS modules) → ``Layout_main``; ``col-md-8`` →
    ``col-md``.
    """
    match = _CSS_IN_JS.match(token)
    if match:
        return match.group(1)
    match = _CSS_MODULE.match(token)
    if match:
        return match.group(1)
    if not _HAS_DIGIT.search(token):
        return token
    parts = [p for p in _SPLIT_PARTS.split(token) if p and not _HAS_DIGIT.search(p)]
    return "-".join(parts)


def normalise_classes(raw: str | None) -> str:
    """The stable, sorted class tokens of a ``class`` attribute joined by dots."""
    if not raw:
        return ""
    cached = _CLASS_CACHE.get(raw)
    if cached is not None:
        return cached
    tokens = sorted({t for t in (_stable_token(x) for x in raw.split()) if t})
    value = ".".join(tokens)
    if len(_CLASS_CACHE) > _CACHE_LIMIT:
        _CLASS_CACHE.clear()
    _CLASS_CACHE[raw] = value
    return value


def normalise_id(raw: str | None) -> str:
    if not raw:
        return ""
    token = _stable_token(raw.strip())
    return _DIGITS.sub("", token)


def element_sig(el: Element) -> str:
    """Signature of an element: tag, stable classes and id, ``itemprop``, and the role
    attributes of head/form elements (``meta[property=og:title]``). Cached by raw values."""
    tag = el.tag
    if tag.__class__ is not str:
        return "#other"
    get = el.get
    names = _ROLE_ATTRS.get(tag)
    key: tuple[Any, ...]
    if names is None:
        key = (tag, get("class"), get("id"), get("itemprop"))
    else:
        key = (tag, get("class"), get("id"), tuple(get(n) for n in names))
    sig = _SIG_CACHE.get(key)
    if sig is None:
        sig = _make_sig(key, names)
    return sig


def _make_sig(key: tuple[Any, ...], names: tuple[str, ...] | None) -> str:
    tag, cls, ident, extra = key
    sig = str(tag)
    classes = normalise_classes(cls)
    if classes:
        sig += "." + classes
    ident_n = normalise_id(ident)
    if ident_n:
        sig += "#" + ident_n
    if names is None:
        role = f"itemprop={extra}" if extra else ""
    else:
        role = ",".join(f"{n}={v}" for n, v in zip(names, extra) if v is not None)
    if role:
        sig += "[" + role.lower() + "]"
    if len(_SIG_CACHE) > _CACHE_LIMIT:
        _SIG_CACHE.clear()
    _SIG_CACHE[key] = sig
    return sig


# --- items ------------------------------------------------------------------------------


def _is_inline(el: Element) -> bool:
    if el.tag not in INLINE_TAGS or el.get("class") or el.get("id"):
        return False
    return all(sub.tag in INLINE_TAGS for sub in el.iterdescendants())


def page_items(el: Element) -> tuple[list[Element | str], list[str]]:
    """The items of an element — child elements and cleaned, non-empty text pieces in
    order — and their signatures."""
    if not len(el):
        # the common leaf: just its own text
        text = el.text
        if text and el.tag not in LEAF_TAGS:
            piece = " ".join(text.split())
            if piece:
                return [piece], [TEXT_SIG]
        return [], []
    if el.tag in LEAF_TAGS:
        return [], []
    items: list[Element | str] = []
    sigs: list[str] = []
    buf: list[str] = []
    text = el.text
    if text:
        buf.append(text)
    for child in el:
        tag = child.tag
        if tag.__class__ is str:
            if tag in INLINE_TAGS and _is_inline(child):
                buf.append("".join(child.itertext()))
            else:
                if buf:
                    piece = " ".join("".join(buf).split())
                    if piece:
                        items.append(piece)
                        sigs.append(TEXT_SIG)
                    buf = []
                items.append(child)
                sigs.append(element_sig(child))
        tail = child.tail
        if tail:
            buf.append(tail)
    if buf:
        piece = " ".join("".join(buf).split())
        if piece:
            items.append(piece)
            sigs.append(TEXT_SIG)
    return items, sigs


def page_children(el: Element) -> list[Element | str]:
    """The items of an element: child elements and cleaned, non-empty text pieces in order."""
    return page_items(el)[0]


def item_sig(item: Element | str) -> str:
    return TEXT_SIG if isinstance(item, str) else element_sig(item)


def item_text(item: Element | str) -> str:
    return item if isinstance(item, str) else element_text(item)


@dataclass(frozen=True)
class Run:
    """Consecutive groups of page items that repeat one pattern of signatures (a list)."""

    pattern: tuple[str, ...]
    groups: tuple[tuple[Element | str, ...], ...]


PageItem = Element | str | Run


# --- repeated sibling groups --------------------------------------------------------------

#: Largest group width (number of sibling items per record) looked for.
MAX_GROUP_WIDTH = 4
#: Two groups count as the same kind of record above this tag-sequence similarity (MDR uses
#: a normalised edit distance in the same spirit).
GROUP_SIMILARITY = 0.5
#: …or, repeated children collapsed, at least this similar…
COLLAPSED_SIMILARITY = 0.8
#: …or their two-level skeletons at least this similar, with full sequences above the floor.
SKELETON_SIMILARITY = 0.7
SKELETON_FLOOR = 0.25
#: A run of records continues across at most this many foreign items (a notice between
#: two reviews); they join the record before them.
MAX_INTERRUPTION = 2
_SHAPE_LIMIT = 300

#: Empty elements of these tags are never separators: they are content or structure.
_NOT_SEPARATORS = frozenset(
    {
        "br", "img", "input", "select", "textarea", "button", "iframe", "svg", "video",
        "audio", "canvas", "object", "embed", "meta", "link", "source", "picture", "td", "th",
        "li", "tr", "option", "area", "title",
    }
)  # fmt: skip


def _is_separator(item: Element | str) -> bool:
    """An empty element (``<hr>``, ``<a name=…></a>``, a spacer div) between records."""
    if isinstance(item, str) or len(item) or item.tag in _NOT_SEPARATORS:
        return False
    text = item.text
    return not text or text.isspace()


#: The most elements / characters an item interrupting a run of records may have.
_SMALL_ELEMENTS = 4
_SMALL_CHARS = 200


def _is_small(item: Element | str) -> bool:
    """A short text or a small element (a heading, a notice between records)."""
    if isinstance(item, str):
        return len(item) <= _SMALL_CHARS
    for count, _ in enumerate(item.iter(), 1):
        if count > _SMALL_ELEMENTS:
            return False
    return len(element_text(item)) <= _SMALL_CHARS


def _flat_shape(items: Sequence[Element | str]) -> list[int]:
    """The groups' tags in document order (MDR's tag string)."""
    out: list[int] = []
    for item in items:
        if isinstance(item, str):
            out.append(0)
            continue
        for sub in item.iter():
            tag = sub.tag
            if isinstance(tag, str):
                out.append(sig_id(tag))
            if len(out) >= _SHAPE_LIMIT:
                return out
    return out


def _shape(items: Sequence[Element | str]) -> list[int]:
    """The groups' tag sequence in document order, where a child whose subtree has the same
    shape as an earlier sibling's is left out: two lists of 3 and 12 items look alike."""
    out: list[int] = []
    for item in items:
        if isinstance(item, str):
            out.append(0)
            continue
        out.extend(_element_shape(item))
        if len(out) >= _SHAPE_LIMIT:
            return out[:_SHAPE_LIMIT]
    return out


def _element_shape(root: Element) -> tuple[int, ...]:
    # post-order without recursion: each element's shape is its tag, its children's shapes
    # (repeats dropped) and an end mark
    shapes: dict[Element, tuple[int, ...]] = {}
    stack: list[tuple[Element, bool]] = [(root, False)]
    budget = _SHAPE_LIMIT
    while stack:
        el, done = stack.pop()
        if not done:
            budget -= 1
            stack.append((el, True))
            if budget > 0 and el.tag not in LEAF_TAGS:
                stack.extend((c, False) for c in reversed(el) if isinstance(c.tag, str))
            continue
        parts: list[int] = [sig_id(str(el.tag))]
        seen: set[tuple[int, ...]] = set()
        for child in el:
            shape = shapes.pop(child, None)
            if shape is None or shape in seen:
                continue
            parts.extend(shape)
            seen.add(shape)
        parts.append(-1)
        shapes[el] = tuple(parts)
    return shapes.get(root, ())


def _shallow(items: Sequence[Element | str]) -> list[int]:
    """Signatures of the items, their children and grandchildren (the record's skeleton)."""
    out: list[int] = []
    for item in items:
        if isinstance(item, str):
            out.append(0)
            continue
        out.append(sig_id(element_sig(item)))
        for child in item:
            if isinstance(child.tag, str):
                out.append(sig_id(element_sig(child)))
                for grandchild in child:
                    if isinstance(grandchild.tag, str):
                        out.append(sig_id(element_sig(grandchild)))
    return out


def _similar(a: Sequence[Element | str], b: Sequence[Element | str]) -> bool:
    """MDR-style: the groups' tag sequences are close; or, with repeated children collapsed,
    they are nearly the same (two lists of different lengths); or their skeletons (two
    levels) are very close while an optional extra (a pop-up, a note) makes the full
    sequences differ."""
    full = Indel.normalized_similarity(_flat_shape(a), _flat_shape(b))
    if full >= GROUP_SIMILARITY:
        return True
    if Indel.normalized_similarity(_shape(a), _shape(b)) >= COLLAPSED_SIMILARITY:
        return True
    if full < SKELETON_FLOOR:
        return False
    return Indel.normalized_similarity(_shallow(a), _shallow(b)) >= SKELETON_SIMILARITY


def find_runs(
    items: Sequence[Element | str],
    sigs: Sequence[str],
    known: frozenset[tuple[str, ...]] = frozenset(),
    discover: bool = True,
) -> list[PageItem]:
    """Collapse repeated sibling groups into :class:`Run` items.

    Empty separator elements (``<hr>``, empty anchors) are ignored when looking for the
    pattern and travel with the group before them. ``known`` patterns (the repeating regions
    a template already has at this place) collapse even a single occurrence; with
    ``discover``, new patterns of 1–4 items that repeat at least twice with similar
    structure become runs too (MDR's generalised nodes). A run may continue across up to
    :data:`MAX_INTERRUPTION` foreign items.
    """
    n = len(items)
    if n == 0 or (not discover and not known):
        return list(items)
    if not known and len(set(sigs)) == n:
        return list(items)  # nothing repeats
    if not discover and {pattern[0] for pattern in known}.isdisjoint(sigs):
        return list(items)  # no known pattern starts here: the only runs looked for
    # positions of the items that count for patterns
    keep = [i for i in range(n) if not _is_separator(items[i])]
    fsigs = [sigs[i] for i in keep]
    m = len(keep)
    out: list[PageItem] = []
    done = 0  # items[:done] are emitted
    f = 0
    while f < m:
        best = _best_run(items, keep, fsigs, f, known, discover)
        if best is None:
            f += 1
            continue
        covered, pattern, starts = best
        first = keep[starts[0]]
        out.extend(items[done:first])
        end_f = f + covered  # first filtered index after the run
        # trailing separators after the last group stay outside the run
        stop = keep[end_f - 1] + 1
        bounds = [keep[s] for s in starts] + [stop]
        groups = tuple(tuple(items[bounds[k] : bounds[k + 1]]) for k in range(len(starts)))
        out.append(Run(pattern, groups))
        done = stop
        f = end_f
    out.extend(items[done:])
    return out


def _best_run(
    items: Sequence[Element | str],
    keep: Sequence[int],
    fsigs: Sequence[str],
    f: int,
    known: frozenset[tuple[str, ...]],
    discover: bool,
) -> tuple[int, tuple[str, ...], list[int]] | None:
    """The run starting at filtered position ``f`` covering the most items, as
    ``(filtered items covered, pattern, filtered start of each group)``."""
    m = len(fsigs)
    best: tuple[int, tuple[str, ...], list[int]] | None = None
    first = fsigs[f]
    for width in range(1, MAX_GROUP_WIDTH + 1):
        if f + width > m:
            break
        if not known and not (
            (f + width < m and fsigs[f + width] == first)
            or (width == 1 and f + 2 < m and fsigs[f + 2] == first)
        ):
            continue  # the pattern does not start again right after: no run
        pattern = tuple(fsigs[f : f + width])
        if not _may_repeat(pattern, known, discover):
            continue
        is_known = pattern in known
        starts, j = _collect_groups(items, keep, fsigs, f, pattern, is_known)
        if len(starts) >= 2 or is_known:
            covered = j - f
            if best is None or covered > best[0]:
                best = (covered, pattern, starts)
    return best


def _may_repeat(
    pattern: tuple[str, ...], known: frozenset[tuple[str, ...]], discover: bool
) -> bool:
    """Whether a run of ``pattern`` is worth looking for here."""
    if len(pattern) > 1 and len(set(pattern)) == 1:
        return False  # a width-1 run covers it
    if all(s == TEXT_SIG for s in pattern):
        return False
    return discover or pattern in known


def _group_at(
    items: Sequence[Element | str], keep: Sequence[int], s: int, width: int
) -> tuple[Element | str, ...]:
    return tuple(items[keep[s] : keep[s + width - 1] + 1])


def _collect_groups(
    items: Sequence[Element | str],
    keep: Sequence[int],
    fsigs: Sequence[str],
    f: int,
    pattern: tuple[str, ...],
    is_known: bool,
) -> tuple[list[int], int]:
    """The filtered starts of the groups of ``pattern`` from ``f`` on, and the filtered
    position after the run."""
    width = len(pattern)
    starts = [f]
    last = _group_at(items, keep, f, width)
    j = f + width
    while True:
        nxt = _next_group(items, keep, fsigs, j, pattern, is_known, len(starts), last)
        if nxt is None:
            break
        starts.append(nxt[0])
        last = nxt[1]
        j = nxt[0] + width
    # a trailing partial group (a prefix of the pattern) still belongs to the run
    if width > 1 and len(starts) >= 2:
        m = len(fsigs)
        k = 0
        while j + k < m and k < width - 1 and fsigs[j + k] == pattern[k]:
            k += 1
        if k:
            starts.append(j)
            j += k
    return starts, j


def _next_group(
    items: Sequence[Element | str],
    keep: Sequence[int],
    fsigs: Sequence[str],
    j: int,
    pattern: tuple[str, ...],
    is_known: bool,
    groups: int,
    last: tuple[Element | str, ...],
) -> tuple[int, tuple[Element | str, ...]] | None:
    """The next group of the run at or shortly after ``j`` (a few small items may come
    between), or None when the run ends."""
    width = len(pattern)
    m = len(fsigs)
    if groups >= 2 or is_known:
        skips = MAX_INTERRUPTION + 1
    elif width == 1:
        skips = 2  # a sub-heading between the first two lists of a run
    else:
        skips = 1
    for skip in range(skips):
        s = j + skip
        if s + width > m:
            break
        if skip and not _is_small(items[keep[s - 1]]):
            break  # only a notice or a heading may interrupt a run
        if s + width <= m and tuple(fsigs[s : s + width]) == pattern:
            group = _group_at(items, keep, s, width)
            if is_known or _similar(last, group):
                return s, group
            return None
    return None
