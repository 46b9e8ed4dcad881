"""The page body's values, each under a key that names its place in the page layout.

A key is the element's path from ``<body>`` (tag, id and class words without their
volatile parts, so that ``product-123`` and ``product-456``, or two builds' CSS hashes, are
one place) and its rank among the elements of
that path, so the same slot of a site's template has the same key on every page. Only what
a visitor sees counts: element texts, image sources and ``<time datetime>``; the page's
metadata (JSON-LD, microdata or RDFa attributes, head tags) never makes a key nor a value,
so a page with its metadata stripped gives the same keys as the page with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from lxml import etree

from pagesim_scrapy.core.induce.dom import LinkResolver, normalise_classes

from .bodywanted import wanted_keyed

__all__ = ["IMAGE_SUFFIXES", "anchor_fields", "body_fields", "is_image_key", "key_anchor"]

Element = etree._Element

#: An element whose text is longer than this is a region of the page, not a value.
MAX_VALUE_CHARS = 20_000
#: Elements walked per page at most (a hostile page cannot cost more).
MAX_ELEMENTS = 20_000

_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "head", "iframe"})
_SPACE = re.compile(r"\s+")
#: The mark of a key whose ancestors are named by tag and id only.
COARSE = "~"
#: The mark of a key that names the element's parent and the element only.
LOCAL = "^"
#: The ends of the keys whose values are image URLs: an ``<img>``'s source, the largest
#: candidate of a ``srcset``, a CSS background image.
IMAGE_SUFFIXES = ("@src", "@srcset", "@bg")


def is_image_key(key: str) -> bool:
    """Whether a body key's value is an image URL."""
    return key.endswith(IMAGE_SUFFIXES)


def key_anchor(key: str) -> tuple[str, str] | None:
    """The last element of a key's path named by a class or an id, and the key's end (its
    rank and any value suffix): what stays of a slot when a page wraps its text in one more
    inline element or drops one (``li#step/span`` and ``li#step``), or a site's second
    layout nests the same plugin element elsewhere. None when no element has a name."""
    path = key[1:] if key[:1] in (LOCAL, COARSE) else key
    cut = path.rfind("[")
    if cut < 0:
        return None
    for step in reversed(path[:cut].split("/")):
        if "." in step or "#" in step:
            return step, path[cut:]
    return None


def _step(el: Element) -> str:
    ident = normalise_classes(el.get("id"))
    return str(el.tag) + (f"#{ident}" if ident else "")


def _classes(el: Element) -> str:
    classes = normalise_classes(el.get("class"))
    return f".{classes}" if classes else ""


def _text(el: Element) -> str:
    # empty pieces add only spaces, which the folding removes: no filter needed
    return _SPACE.sub(" ", " ".join(el.itertext())).strip()


def all_texts(body: Element) -> dict[Element, str]:
    """Every element's :func:`_text` under ``body`` (itself included), built bottom-up from
    its children's: reading each element's whole subtree again made the full read quadratic
    in the page's depth. The same strings: the words of the pieces joined with spaces, whether
    the children's were folded first or not (``str.split`` and ``\\s`` agree on spaces)."""
    texts: dict[Element, str] = {}
    for el in reversed(list(body.iter())):
        if not isinstance(el.tag, str):
            continue  # a comment's or instruction's own text is no text (its tail is)
        text = el.text
        parts = text.split() if text else []
        for child in el:
            if isinstance(child.tag, str):
                kid = texts[child]
                if kid:
                    parts.append(kid)
            elif child.tag is etree.Entity and child.text:  # an unresolved entity reads as itself
                parts.append(child.text)
            tail = child.tail
            if tail:
                parts.extend(tail.split())
        texts[el] = " ".join(parts)
    return texts


#: A ``<noscript>`` fallback is read as body when at least this many of its elements have
#: text of their own (a tracking pixel or a lazy image's copy has none) ...
MIN_FALLBACK_TEXTS = 10
#: ... and at most this share of those texts is shown outside it (a page that renders its
#: content by script keeps the whole of it there; one that shows it anyway repeats it).
MAX_FALLBACK_SHOWN = 0.5


def _own_texts(root: Element, skip: frozenset[str]) -> Iterator[str]:
    """The own texts of the elements under ``root`` (itself included), not under ``skip``."""
    stack = [root]
    while stack:
        el = stack.pop()
        text = (el.text or "").strip()
        if text:
            yield text
        stack.extend(kid for kid in el if isinstance(kid.tag, str) and kid.tag not in skip)


def _fallbacks(body: Element) -> frozenset[Element]:
    """The ``<noscript>`` elements whose content the visible body lacks: a page that builds
    its content by script leaves the whole of it (a recipe, an article) in one."""
    texts = {}
    for noscript in body.iter("noscript"):
        own = [
            text
            for kid in noscript
            if isinstance(kid.tag, str) and kid.tag not in _SKIP
            for text in _own_texts(kid, _SKIP)
        ]
        if len(own) >= MIN_FALLBACK_TEXTS:
            texts[noscript] = own
    if not texts:
        return frozenset()
    shown = set(_own_texts(body, _SKIP))
    return frozenset(
        noscript
        for noscript, own in texts.items()
        if sum(text in shown for text in own) <= MAX_FALLBACK_SHOWN * len(own)
    )


def _elements(body: Element) -> Iterator[tuple[Element, str, str, str]]:
    """Every visible element under ``body`` in page order, with its three paths: every
    step's classes; only its own (ancestors by tag and id: a blog post's ``category-…`` and
    ``tag-…`` classes differ from post to post); its parent and itself only (a slot that
    keeps its classes when the page around it is redesigned)."""
    stack: list[tuple[Element, str, str, str, str]] = [(body, _step(body), "body", "body", "body")]
    walked, fallbacks = 0, _fallbacks(body)
    while stack and walked < MAX_ELEMENTS:
        el, step, full, bare, parent = stack.pop()
        walked += 1
        classes = _classes(el)
        own = step + classes
        full += classes
        yield el, full, COARSE + bare + classes, f"{LOCAL}{parent}/{own}"
        for child in reversed(el):
            if isinstance(child.tag, str) and (child.tag not in _SKIP or child in fallbacks):
                kid = _step(child)
                stack.append((child, kid, f"{full}/{kid}", f"{bare}/{kid}", own))


def _only_child_text(el: Element) -> bool:
    """An element that only wraps one element child (no text of its own) repeats its value."""
    kids = [c for c in el if isinstance(c.tag, str)]
    own = (el.text or "").strip() or any((c.tail or "").strip() for c in kids)
    return len(kids) == 1 and not own


def _image_source(el: Element) -> str:
    """The image an ``<img>`` shows: its ``src``, or where a lazy loader keeps it until the
    image scrolls into view (``data-src``, ``data-lazy-src``…) when ``src`` is missing or an
    inline placeholder."""
    src = (el.get("src") or "").strip()
    if src and not src.startswith("data:"):
        return src
    for name, value in el.attrib.items():
        value = value.strip()
        if name != "src" and name.endswith("src") and value and not value.startswith("data:"):
            return value
    return ""


#: One candidate of a ``srcset`` ("url 800w", "url 2x", or a URL alone).
#: Between two candidates: a comma after a width or density, or before a space (a URL
#: may hold commas of its own, ``c_fill,w_300``).
_CANDIDATES = re.compile(r"(?<=\d[wx]),|,\s+", re.I)
_CANDIDATE = re.compile(r"^(\S+)(?:\s+(\d+(?:\.\d+)?)[wx])?\s*$", re.I)


def _largest_candidate(srcset: str) -> str:
    """The widest image a ``srcset`` offers (the last one where no width is given): the
    page's full-size copy, which its metadata names more often than the ``src`` thumbnail."""
    best, width = "", -1.0
    for part in _CANDIDATES.split(srcset):
        match = _CANDIDATE.match(part.strip())
        if match is None or match[1].startswith("data:"):
            continue
        size = float(match[2]) if match[2] else 0.0
        if size >= width:
            best, width = match[1], size
    return best


def _srcset(el: Element) -> str:
    """The largest candidate of an image's ``srcset`` or a lazy loader's copy of it
    (``data-lazy-srcset``, ``data-sf-srcset``…)."""
    for name, value in el.attrib.items():
        if name.endswith("srcset") and value.strip():
            found = _largest_candidate(value)
            if found:
                return found
    return ""


#: A CSS background image (``style="background-image:url(//cdn/photo.jpg)"``).
_BACKGROUND = re.compile(r"background(?:-image)?\s*:[^;]*?url\(\s*['\"]?([^'\")\s]+)", re.I)


def _image_values(el: Element, absolute: Callable[[str], str]) -> Iterator[tuple[str, str]]:
    """The images an element shows: an ``<img>``'s source and its largest ``srcset``
    candidate where that is another file, a ``<picture>`` source's, a CSS background's."""
    src = _image_source(el) if el.tag == "img" else ""
    if src:
        yield "@src", absolute(src)
    srcset = _srcset(el) if el.tag in ("img", "source") else ""
    if srcset and srcset != src:
        yield "@srcset", absolute(srcset)


def _values(
    el: Element, absolute: Callable[[str], str], texts: dict[Element, str] | None = None
) -> Iterator[tuple[str, str]]:
    if el.tag in ("img", "source"):
        yield from _image_values(el, absolute)
        return
    style = el.get("style")
    if style and "url(" in style:
        background = _BACKGROUND.search(style)
        if background and not background[1].startswith("data:"):
            yield "@bg", absolute(background[1])
    if el.get("datetime"):
        yield "@datetime", el.get("datetime", "").strip()
    if _only_child_text(el):
        return
    text = texts[el] if texts is not None else _text(el)
    if text and len(text) <= MAX_VALUE_CHARS:
        yield "", text


def body_fields(
    root: Element | None, base_url: str = "", wanted: frozenset[str] | None = None
) -> dict[str, str]:
    """``{key: value}`` of the page body's texts, image sources and datetimes; with
    ``wanted``, only those keys (cheaper: other texts are not read)."""
    body = root.find("body") if root is not None else None
    if body is None:
        return {}
    out: dict[str, str] = {}
    absolute = LinkResolver(base_url)  # urljoin, each source once
    if wanted is not None:
        skipped = (_SKIP, _fallbacks(body))
        keyed = wanted_keyed(body, wanted, (COARSE, LOCAL), skipped, MAX_ELEMENTS)
        for el, keys in keyed:
            for suffix, value in _values(el, absolute):
                for key in keys:
                    if key + suffix in wanted:
                        out[key + suffix] = value
        return out
    texts = all_texts(body)  # every text is read: once, bottom-up
    for el, keys in _keyed(body):
        for suffix, value in _values(el, absolute, texts):
            for key in keys:
                out[key + suffix] = value
    return out


def _keyed(body: Element) -> Iterator[tuple[Element, list[str]]]:
    """Every visible element with its three keys: each path with its rank among the
    elements of that path so far."""
    seen: dict[str, int] = {}
    for el, full, coarse, local in _elements(body):
        a, b, c = seen.get(full, 0), seen.get(coarse, 0), seen.get(local, 0)
        seen[full], seen[coarse], seen[local] = a + 1, b + 1, c + 1
        yield el, [f"{full}[{a}]", f"{coarse}[{b}]", f"{local}[{c}]"]


def anchor_fields(
    root: Element | None, base_url: str, steps: frozenset[str], depth: int
) -> dict[str, str]:
    """``{key: value}`` of the elements at most ``depth`` below an element whose own step
    (with or without its classes) is one of ``steps``, only the keys whose
    :func:`key_anchor` is such a step that near: what a settled label's page needs to find
    a missing key's anchored element, without reading every text of the page. The keys are
    those :func:`body_fields` gives (every element of such a path is near an anchor too, so
    its rank counts the same elements)."""
    body = root.find("body") if root is not None else None
    if body is None or not steps:
        return {}
    out: dict[str, str] = {}
    absolute = LinkResolver(base_url)
    for el, keys in _near_keyed(body, steps, depth):
        kept = [key for key in keys if _anchored_near(key, steps, depth)]
        for suffix, value in _values(el, absolute) if kept else ():
            for key in kept:
                out[key + suffix] = value
    return out


def _anchored_near(key: str, steps: frozenset[str], depth: int) -> bool:
    """Whether ``key``'s anchor is one of ``steps`` at most ``depth`` elements above it."""
    found = key_anchor(key)
    if found is None or found[0] not in steps:
        return False
    path = key[1:] if key[:1] in (LOCAL, COARSE) else key
    below = path[: path.rfind("[")].split("/")[::-1].index(found[0])
    return below <= depth


def _near_keyed(
    body: Element, steps: frozenset[str], depth: int
) -> Iterator[tuple[Element, list[str]]]:
    """:func:`_keyed` for the elements at most ``depth`` below one whose step or own part
    is in ``steps`` (ranks count those elements only)."""
    seen: dict[str, int] = {}
    far = depth + 1
    distance = {body: 0 if _near_step(body, steps) else far}
    for el, full, coarse, local in _elements(body):
        parent = el.getparent()
        if el is not body:
            above = distance.get(parent, far) if parent is not None else far
            distance[el] = 0 if _near_step(el, steps) else min(above + 1, far)
        if distance[el] > depth:
            continue
        a, b, c = seen.get(full, 0), seen.get(coarse, 0), seen.get(local, 0)
        seen[full], seen[coarse], seen[local] = a + 1, b + 1, c + 1
        yield el, [f"{full}[{a}]", f"{coarse}[{b}]", f"{local}[{c}]"]


def _near_step(el: Element, steps: frozenset[str]) -> bool:
    step = _step(el)
    return step in steps or step + _classes(el) in steps
