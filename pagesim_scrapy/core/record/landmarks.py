"""The texts only the site's header and footer show: chrome by the page's own markup.

HTML and WAI-ARIA name the site-wide parts of a page: a ``<header>`` or ``<footer>`` that no
``<main>``, ``<article>``, ``<section>``, ``<aside>`` or ``<nav>`` holds is the page's
banner or content info (as is an element with ``role="banner"`` or ``role="contentinfo"``).
What a wrapper reads there (a promotion bar, a cart counter, the footer's popular searches)
varies from page to page but is the site's, not the page's. A text counts only when the
page's content does not show it too, so the product name repeated in a header stays data.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from lxml import etree

from pagesim_scrapy.core.induce.dom import page_elements, subtree_end

__all__ = ["LandmarkTexts", "landmark_texts"]

_LANDMARK_TAGS = ("header", "footer")
_LANDMARK_ROLES = frozenset({"banner", "contentinfo"})
#: the tags that can be a landmark (by tag or by role)
_CANDIDATE_TAGS = frozenset({"header", "footer", "div", "section", "nav", "aside"})
#: a header or footer inside one of these is the part's own, not the site's
_SCOPING = frozenset({"main", "article", "section", "aside", "nav"})
#: an element's whole text longer than this is not one field's value
_MAX_TEXT = 300


class LandmarkTexts(NamedTuple):
    """``only``: the texts only the landmarks show; ``shown``: every text they show."""

    only: frozenset[str] = frozenset()
    shown: frozenset[str] = frozenset()

    def hold(self, texts: list[str]) -> bool:
        """Whether folded ``texts`` are the landmarks' (not empty): all shown there, and
        more than half shown nowhere else (a footer's search term may also be a tag)."""
        if not texts or not self.only or not all(t in self.shown for t in texts):
            return False
        return sum(t in self.only for t in texts) * 2 > len(texts)


def _norm(text: str | None) -> str:
    if not text or text.isspace():  # most text nodes of a page: nothing to fold
        return ""
    # ``str.split`` splits at what ``\s`` matches: the words joined by single spaces
    return " ".join(text.split()).casefold()


def _is_landmark(el: Any) -> bool:
    if str(el.get("role") or "").strip().lower() in _LANDMARK_ROLES:
        return True
    if el.tag not in _LANDMARK_TAGS:
        return False
    return not any(parent.tag in _SCOPING for parent in el.iterancestors())


def _landmarks(elements: list[Any]) -> list[tuple[int, int]]:
    """The spans in ``elements`` (document order) of the page's outermost banner and
    content-info elements: each from the landmark to just past its subtree."""
    found: list[tuple[int, int]] = []
    inside_until = 0  # the landmarks found are apart: only the last may hold an element
    for index, el in enumerate(elements):
        if index < inside_until or el.tag not in _CANDIDATE_TAGS or not _is_landmark(el):
            continue
        inside_until = subtree_end(elements, index)
        found.append((index, inside_until))
    return found


def _texts_inside(elements: list[Any], members: set[Any]) -> set[str]:
    """The text nodes of a landmark (``elements``: it and its subtree) and the whole texts
    of its elements (a field's value is one or the other)."""
    members.update(elements)
    texts: set[str] = set()
    landmark = elements[0]
    for el, whole in _subtree_texts(elements):
        _add_folded(texts, el.text)
        if el is not landmark:
            _add_folded(texts, el.tail)
        whole = " ".join(whole.split())
        # casefolding keeps an ASCII text's length: a long one is left out unfolded
        if len(whole) <= _MAX_TEXT or not whole.isascii():
            whole = whole.casefold()
            if len(whole) <= _MAX_TEXT:
                texts.add(whole)
    texts.discard("")
    return texts


def _add_folded(texts: set[str], text: str | None) -> None:
    """Adds :func:`_norm` of ``text`` to ``texts`` (nothing for a blank one)."""
    if text and not text.isspace():
        texts.add(" ".join(text.split()).casefold())


def _whole_texts(top: Any) -> list[tuple[Any, str]]:
    """Each element under ``top`` (itself included, in page order) with
    ``"".join(el.itertext())`` (:func:`_subtree_texts`)."""
    return _subtree_texts(list(top.iter(etree.Element)))


def _subtree_texts(elements: list[Any]) -> list[tuple[Any, str]]:
    """Each element of a subtree (``elements``, in page order) with
    ``"".join(el.itertext())``, built bottom-up from its children's (not each subtree
    read again)."""
    whole: dict[Any, str] = {}
    for el in reversed(elements):
        parts = [el.text or ""]
        for child in el:
            if isinstance(child.tag, str):
                parts.append(whole[child])
            elif child.tag is etree.Entity:  # an unresolved entity reads as itself
                parts.append(child.text or "")
            parts.append(child.tail or "")  # a comment's text is no text, its tail is
        whole[el] = "".join(parts)
    return [(el, whole[el]) for el in elements]


def landmark_texts(root: Any) -> LandmarkTexts:
    """The folded texts (text nodes, and elements' whole texts) that only the page's
    banner and content-info landmarks show; empty for a page without them."""
    if root is None:
        return LandmarkTexts()
    elements = page_elements(root)
    landmarks = _landmarks(elements)
    if not landmarks:
        return LandmarkTexts()
    members: set[Any] = set()
    inside: set[str] = set()
    for start, end in landmarks:
        inside |= _texts_inside(elements[start:end], members)
    outside: set[str] = set()
    add = outside.add
    for el in elements:
        if el in members:
            continue
        # folded as :func:`_norm` does, inline: most of a page's text nodes pass here
        text, tail = el.text, el.tail
        if text and not text.isspace():
            add(" ".join(text.split()).casefold())
        if tail and not tail.isspace():
            add(" ".join(tail.split()).casefold())
    return LandmarkTexts(frozenset(inside - outside), frozenset(inside))
