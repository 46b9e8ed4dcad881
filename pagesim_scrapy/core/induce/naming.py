"""Readable, stable field names for a template's data slots.

A name comes, in order of preference, from a schema.org ``itemprop``, a nearby constant label
("Price:", a ``<th>``/``<dt>`` before the value), the most specific class or id of the node or
one of its close ancestors, and finally the tag. Names are unique within a record (the page
record, or one group of a repeating region) and are stored on the template nodes, so a name
once given does not change when more pages are learned.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from pagesim_scrapy.core.induce.dom import _stable_token

__all__ = ["best_class", "kept_name", "label_text", "snake", "telling_class", "unique_name"]

MAX_NAME = 40
MAX_LABEL_CHARS = 40
MAX_LABEL_WORDS = 5

_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_NON_WORD = re.compile(r"[\W_]+")
_UTILITY = re.compile(
    r"^(?:[a-z0-9]{1,3}:)?(?:m|p|mt|mb|ml|mr|mx|my|pt|pb|pl|pr|px|py|w|h|min|max|text|bg|font|"
    r"flex|grid|col|cols|row|gap|items|justify|self|order|float|clear|hide|hidden|show|"
    r"visible|sr|d|block|inline|relative|absolute|fixed|sticky|top|bottom|left|right|z|"
    r"border|rounded|shadow|opacity|overflow|leading|tracking|container|wrap|wrapper|inner|"
    r"outer|clearfix|pull|push|offset|span|small|large|medium|grey|gray|bold|italic|center|"
    r"uppercase|lowercase|active|current|first|last|odd|even|js|is|has|css|size|color|"
    r"margin|padding|align|display|position|width|height|space|divide|transition|"
    r"cursor|select|pointer|group|peer|lazy|lazyload|lazyloaded|loaded|sc|fa|icon|ui|"
    r"no|with|without|dark|light|print|screen|mobile|desktop|tablet|xs|sm|md|lg|xl|xxl)"
    r"(?:$|[-_:])",
    re.I,
)


class _Named(Protocol):
    @property
    def info(self) -> dict[str, str]: ...


def snake(text: str) -> str:
    """``restaurantReviewTable`` / ``Price:`` / ``og:title`` → ``restaurant_review_table`` /
    ``price`` / ``og_title``; at most :data:`MAX_NAME` characters, starts with a letter."""
    text = _CAMEL.sub(r"\1_\2", text)
    text = _NON_WORD.sub("_", text.lower()).strip("_")
    if len(text) > MAX_NAME:
        cut = text[:MAX_NAME]
        text = cut.rsplit("_", 1)[0] if "_" in cut[MAX_NAME // 2 :] else cut
    if text and not text[0].isalpha():
        text = "f_" + text
    return text


#: :func:`best_class` by (class, id): a template repeats the same few class strings.
_BEST_CLASS: dict[tuple[str, str], str | None] = {}
_BEST_CLASS_LIMIT = 20_000
_UNKNOWN = object()


def best_class(node: _Named) -> str | None:
    """The most telling class token or id of a node (utility classes skipped)."""
    info = node.info
    key = (info.get("class", ""), info.get("id", ""))
    best = _BEST_CLASS.get(key, _UNKNOWN)
    if best is not _UNKNOWN:
        return best  # type: ignore[return-value]
    if len(_BEST_CLASS) >= _BEST_CLASS_LIMIT:
        _BEST_CLASS.clear()
    best = _BEST_CLASS[key] = _best_class(*key)
    return best


def telling_class(classes: str) -> str | None:
    """The longest class token that says what an element is (``review``), not how it is
    laid out (``col-sm-12``, ``flex``) or a generated hash; None when no token does."""
    candidates: list[str] = []
    for token in classes.split():
        token = _stable_token(token)
        if len(token) >= 3 and not _UTILITY.match(token):
            candidates.append(token)
    return max(candidates, key=len) if candidates else None


def _best_class(classes: str, ident: str) -> str | None:
    best = telling_class(classes)
    if best:
        return best
    ident = _stable_token(ident.strip())
    ident = re.sub(r"\d+", "", ident).strip("-_")
    if len(ident) >= 3 and not _UTILITY.match(ident):
        return ident
    return None


def label_text(text: str) -> str | None:
    """A short constant text that can name the value next to it ("Price:", "Serves")."""
    text = text.strip().rstrip(":*#-–—|").strip()
    if not text or len(text) > MAX_LABEL_CHARS or len(text.split()) > MAX_LABEL_WORDS:
        return None
    if not any(ch.isalpha() for ch in text):
        return None
    return text


def unique_name(base: str, taken: set[str]) -> str:
    base = base or "field"
    name = base
    k = 2
    while name in taken:
        name = f"{base}_{k}"
        k += 1
    taken.add(name)
    return name


def kept_name(entry: dict[str, Any], text: str, fallback: str, taken: set[str]) -> str:
    """The name remembered in ``entry`` (a learned row's or section's statistics), or a new
    one from ``text`` when it has none or another field took it; added to ``taken``."""
    name = entry.get("name")
    if not name or name in taken:
        name = entry["name"] = unique_name(snake(text) or fallback, taken)
    taken.add(name)
    return str(name)
