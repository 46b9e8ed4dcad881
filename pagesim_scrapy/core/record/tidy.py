"""What in an induced record is the site's chrome, a repeated value, or a layout name.

A wrapper names a field after what it finds near the slot (a label, a class, a tag), and
takes every slot whose text varies for data. That lets through what a user does not store:
screen-reader copies, share and login links, gallery counters, script text, and names made
of a CSS class, a URL scheme or the value itself. These checks are general (they look at the
value's shape and at the name's words), not rules for particular sites.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import urldefrag

from .normalise import as_price

__all__ = [
    "SCREEN_READER_NAMES",
    "is_chrome",
    "is_layout_name",
    "member_keys",
    "merge_numbered_regions",
    "readable_name",
    "shape_chrome_patterns",
    "text_names",
    "text_of",
    "value_keys",
    "value_names",
]

_NAME_CHARS = re.compile(r"[\W_]+")
#: texts longer than this never name a field
MAX_NAME_TEXT = 40
_MARKUP = re.compile(r"<\s*/?\s*[a-zA-Z][a-zA-Z0-9-]*(?:\s[^<>]{0,300})?/?>")
_CODE = re.compile(
    r"\bfunction\s*\(|=>\s*\{|\bvar\s+\w+\s*=|\b(?:let|const)\s+\w+\s*=|"
    r"\b(?:window|document)\.\w+|\{\s*[a-z-]+\s*:\s*[^;{}]{1,80};"
)
_COUNTER = re.compile(r"^\d+\s*(?:of|/|von|de|sur|из|z)\s*\d+$", re.I)
#: a section heading with its entry count ("Customer reviews (7)", "Comments (0)"): the
#: words are the site's template, the count is the length of the list it heads
_COUNTED_HEADING = re.compile(r"^[^\W\d_][^\d()\n]{1,38}\(\s*\d+\s*\)$")
#: a count of entries ("7 reviews", "12 comments"): a number and one word
_COUNT_TEXT = re.compile(r"^\d[\d,.]*\s+[^\W\d_]{2,20}$")
#: tags whose name ends a name made of a CSS class and the slot's tag (``rating_summary_a``)
_TAG_WORDS = {"a", "span", "div", "p", "li", "em", "strong", "b", "i", "small", "button"}
#: a price-like value: a number with at most a currency sign or code on either side
_PRICE_LIKE = re.compile(
    r"^(?:[^\w\s]{1,3}|[A-Za-z]{3})?\s?\d[\d.,\s\u00a0]*(?:[^\w\s]{1,3}|[A-Za-z]{3})?$"
)
_CHROME_TEXT = re.compile(
    r"^(?:share(?: (?:on|via|this) .{1,20})?|tweet|pin it|e-?mail|print|copy link|"
    r"log ?in|log ?out|sign ?in|sign ?up|sign ?out|register|create an account|"
    r"skip to .{1,30}|quick ?view|add to (?:cart|bag|basket|wishlist)|read more|"
    r"previous|next|close|menu|toggle navigation)$",
    re.I,
)
_CHROME_URL = re.compile(
    r"(?:facebook\.com/sharer|twitter\.com/(?:intent|share)|x\.com/intent|"
    r"linkedin\.com/(?:share|cws/share)|pinterest\.[a-z.]+/pin/create|reddit\.com/submit|"
    r"tumblr\.com/share|wa\.me/|whatsapp://|telegram\.me/share|t\.me/share|"
    r"^mailto:\?|[/?&](?:share|login|signin|sign_in|log_in|logout)(?:[/?&=.]|$))",
    re.I,
)
#: name words that mark a screen-reader copy (its text repeats what the page shows)
SCREEN_READER_NAMES = ("visually_hidden", "sr_only", "screen_reader", "assistive", "a11y")
#: name words that say a field is a share, login or skip control
_CONTROL_WORDS = {"share", "sharing", "social", "login", "signin", "logout", "skip"}
#: name words that describe layout, not content
_LAYOUT_WORDS = {
    "li", "ul", "ol", "div", "span", "td", "tr", "style", "styles", "hidden", "visually",
    "sr", "spacing", "clearfix", "wrapper", "container", "inner", "outer", "flex", "grid",
    "col", "row", "gap",
}  # fmt: skip
#: names that, left alone, say no more than a layout word (``list_li`` → ``list``)
_BARE_NAMES = ("list", "item", "items", "field", "text", "link", "block", "box")
_SCHEMES = {"http", "https", "ftp", "mailto", "www", "tel", "javascript"}
_FUNCTION_WORDS = {"of", "and", "or", "the", "a", "an", "to", "in", "on", "for", "at"}


#: how many distinct texts (and names) the folding caches hold: a page's record has a few
#: hundred, and the site's chrome repeats them from page to page
CACHE_SIZE = 8192
#: longer texts (a description's paragraphs) are folded each time rather than kept alive
CACHED_TEXT = 2000


def _norm(text: str) -> str:
    """``text`` with its whitespace runs as one space, stripped and case-folded; each
    distinct short text is folded once (a record asks for the same texts many times)."""
    if len(text) <= CACHED_TEXT:
        return _fold_cached(text)
    return " ".join(text.split()).casefold()


@lru_cache(maxsize=CACHE_SIZE)
def _fold_cached(text: str) -> str:
    # str.split() and the regular expression ``\s+`` agree on what whitespace is
    return " ".join(text.split()).casefold()


def _texts(value: Any) -> list[str]:
    """The strings of a value, in order (a group list's leaves, a dict's values)."""
    if isinstance(value, str):
        return [value]
    out: list[str] = []
    _collect_texts(value, out)
    return out


def _collect_texts(value: Any, out: list[str]) -> None:
    """Appends ``value``'s strings to ``out`` in order: one list for the whole value
    rather than one per level, and no call for a string member."""
    if isinstance(value, dict):
        members: Any = value.values()
    elif isinstance(value, (list, tuple)):
        members = value
    else:
        if isinstance(value, str):
            out.append(value)
        elif value is not None and not isinstance(value, bool):
            out.append(str(value))
        return
    for member in members:
        if type(member) is str:
            out.append(member)
        else:
            _collect_texts(member, out)


def value_keys(value: Any, folded: str | None = None) -> set[str]:
    """The keys under which two values count as the same: the whitespace- and case-folded
    text (a group list's texts joined), and a price-like value's decimal. ``folded``: the
    value's :func:`text_of` where the caller has read it already."""
    if isinstance(value, str):
        return set(_text_keys(value)) if value else set()
    if value is None or value in ([], {}):
        return set()
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        strings = tuple(value)
        if sum(map(len, strings)) <= CACHED_TEXT:
            return set(_strings_keys_cached(strings))
        return set(_strings_keys(strings))
    if isinstance(value, (dict, list, tuple)):
        text = folded if folded is not None else _norm(" ".join(_texts(value)))
        return {text} if text else {json.dumps(value, sort_keys=True, default=str)}
    return set(_text_keys(str(value)))


def _text_keys(value: str) -> frozenset[str]:
    """A text's keys (:func:`value_keys`), once per distinct short text."""
    if len(value) <= CACHED_TEXT:
        return _text_keys_cached(value)
    return _keys_of_text(value)


def _keys_of_text(value: str) -> frozenset[str]:
    text = _norm(value)
    keys = {text} if text else set()
    if _PRICE_LIKE.match(text):
        price = as_price(text)
        if price is not None:
            keys.add("price:" + price)
    return frozenset(keys)


_text_keys_cached = lru_cache(maxsize=CACHE_SIZE)(_keys_of_text)


def _strings_keys(values: tuple[str, ...]) -> frozenset[str]:
    """A list of texts' keys (:func:`value_keys`): the texts joined, and each text when
    there are several."""
    joined = {_norm(" ".join(values))}
    return frozenset(joined | {_norm(v) for v in values} if len(values) > 1 else joined)


_strings_keys_cached = lru_cache(maxsize=CACHE_SIZE)(_strings_keys)


def text_of(value: Any) -> str:
    """A value's texts joined, whitespace- and case-folded."""
    if isinstance(value, str):
        return _norm(value)
    return _norm(" ".join(_texts(value)))


def value_names(record: Mapping[str, Any]) -> set[str]:
    """The names that a record's short texts would give (``Sven`` → ``sven``): a field
    named so was named after a value, not a label."""
    return text_names(_texts(list(record.values())))


def text_names(texts: Iterable[str]) -> set[str]:
    """:func:`value_names` of the short texts ``texts`` (a record's, read already)."""
    names = {_value_name(text) for text in texts if len(text) <= MAX_NAME_TEXT}
    names.discard("")
    return names


@lru_cache(maxsize=CACHE_SIZE)
def _value_name(text: str) -> str:
    """The name a short text would give, "" for one that gives none."""
    if len(text) <= MAX_NAME_TEXT and any(ch.isalpha() for ch in text):
        return _NAME_CHARS.sub("_", text.casefold()).strip("_")
    return ""


def member_keys(value: Any) -> set[str]:
    """A core list's members one by one (an image URL, a breadcrumb name), so that an
    induced field holding one of them counts as a repeat."""
    if not isinstance(value, (list, tuple)):
        return set()
    keys: set[str] = set()
    for member in value:
        keys |= value_keys(member)
        if isinstance(member, dict):
            for inner in member.values():
                keys |= value_keys(inner)
    return keys


def _name_words(name: str) -> list[str]:
    return [w for w in name.lower().split("_") if w]


@lru_cache(maxsize=CACHE_SIZE)
def _is_control_name(name: str) -> bool:
    lowered = name.lower()
    if any(mark in lowered for mark in SCREEN_READER_NAMES):
        return True
    return any(w in _CONTROL_WORDS for w in _name_words(name))


def shape_chrome_patterns() -> tuple[str, str]:
    """The chrome tests that need nothing but the value, as two regular expressions: one
    matched at the start of the folded text (counters, counted headings, share/login
    words), one searched in the text as it is (share URLs, markup, code). An exported page
    object compiles them to leave out what the record leaves out."""
    folded = "|".join(map(_scoped, (_COUNTER, _COUNTED_HEADING, _CHROME_TEXT)))
    raw = "|".join(map(_scoped, (_CHROME_URL, _MARKUP, _CODE)))
    return folded, raw


def _scoped(pattern: re.Pattern[str]) -> str:
    """A pattern as a group that keeps its own case rule inside an alternation."""
    return f"(?{'i' if pattern.flags & re.I else ''}:{pattern.pattern})"


def _is_chrome_text(text: str, page_url: str | None) -> bool:
    if _is_shape_chrome(text):
        return True
    return bool(page_url) and _same_page(text.strip(), page_url or "")


def _is_shape_chrome(text: str) -> bool:
    """The chrome tests that need nothing but the text: each distinct short text checked
    once (the site's chrome repeats from page to page)."""
    if len(text) <= CACHED_TEXT:
        return _shape_chrome_cached(text)
    return _shape_chrome(text)


def _shape_chrome(text: str) -> bool:
    stripped = _norm(text)
    if not stripped or stripped == "#":
        return True
    if any(p.match(stripped) for p in (_COUNTER, _COUNTED_HEADING, _CHROME_TEXT)):
        return True
    if _CHROME_URL.search(text.strip()):
        return True
    return bool(_MARKUP.search(text) or _CODE.search(text))


_shape_chrome_cached = lru_cache(maxsize=CACHE_SIZE)(_shape_chrome)


def _same_page(value: str, page_url: str) -> bool:
    if not value.startswith(("http://", "https://", "/", "#")):
        return False
    if value.startswith("#"):
        return True
    return urldefrag(value)[0].rstrip("/") == _page_address(page_url)


@lru_cache(maxsize=64)
def _page_address(page_url: str) -> str:
    """The page's address without its fragment or a trailing slash, once per page."""
    return urldefrag(page_url)[0].rstrip("/")


def is_chrome(name: str, value: Any, page_url: str | None = None) -> bool:
    """Whether a field is the site's chrome, not the page's data: empty, a screen-reader
    copy, a share/login/skip control, a link to the page itself, an "N of M" counter, a
    section heading with its entry count ("Customer reviews (7)"), an entry count under
    a name made of a class ("7 reviews" as ``rating_summary_a``: the length of a list the
    record holds, or the page's rating count), a lone
    number named by a function word (the "13" of "1 of 13"), script or style text, raw
    markup. A group list is chrome when every group is."""
    if _is_control_name(name):
        return True
    if value is None or isinstance(value, bool):
        return value is None
    if isinstance(value, dict):
        return not value or all(is_chrome(k, v, page_url) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return all(is_chrome(name, v, page_url) for v in value)
    text = value if type(value) is str else str(value)
    if name.lower() in _FUNCTION_WORDS and _norm(text).isdigit():
        return True
    if _is_class_name(name) and _COUNT_TEXT.match(_norm(text)):
        return True
    return _is_chrome_text(text, page_url)


@lru_cache(maxsize=CACHE_SIZE)
def _is_class_name(name: str) -> bool:
    """A name made of a CSS class and the slot's tag (``rating_summary_a``): the page gave
    the value no label of its own."""
    words = _name_words(name)
    return len(words) > 1 and words[-1] in _TAG_WORDS


@lru_cache(maxsize=CACHE_SIZE)
def is_layout_name(name: str) -> bool:
    """A name that says nothing about the value: a URL scheme (``https``), a value's text
    (``f_0_0mg``: names that began with a digit), a CSS layout class (``list_li``,
    ``spacing_style_4``, ``visually_hidden``) or a function word (``of``)."""
    words = _name_words(name)
    if not words:
        return True
    if words[0] in _SCHEMES or name.lower() in _FUNCTION_WORDS:
        return True
    if words[0] == "f" and len(words) > 1 and words[1][:1].isdigit():
        return True
    return any(w in _LAYOUT_WORDS for w in words)


@lru_cache(maxsize=CACHE_SIZE)
def readable_name(name: str) -> str | None:
    """``name`` without its layout words and trailing slot numbers (``list_li`` → ``list``),
    or None when nothing readable is left (``spacing_style_4``, ``https``, ``f_0_0mg``)."""
    words = _name_words(name)
    if not words or words[0] in _SCHEMES or name.lower() in _FUNCTION_WORDS:
        return None
    if words[0] == "f" and len(words) > 1 and words[1][:1].isdigit():
        return None
    kept = [w for w in words if w not in _LAYOUT_WORDS]
    while kept and kept[-1].isdigit():
        kept.pop()
    kept = [w for w in kept if w not in _FUNCTION_WORDS or len(kept) > 1]
    if not kept or not kept[0][:1].isalpha() or (kept[0] in _BARE_NAMES and len(kept) == 1):
        return None
    return "_".join(kept)


_SLOT = re.compile(r"_\d+$")


def _is_group_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, dict) for v in value)


def merge_numbered_regions(record: Mapping[str, Any]) -> dict[str, Any]:
    """Repeated regions a wrapper learned as numbered slots of one name (``comments``,
    ``comments_2``…: sibling lists the page splits, an ad between them) as one list of
    groups under the first slot's name, in page order. Only lists of groups merge: two
    texts under numbered names may be different things ("Submitted by", "on <date>")."""
    slots: dict[str, list[str]] = {}
    for name in record:
        slots.setdefault(_SLOT.sub("", name), []).append(name)
    out: dict[str, Any] = {}
    for name, value in record.items():
        members = slots[_SLOT.sub("", name)]
        if len(members) < 2 or not all(_is_group_list(record[m]) for m in members):
            out[name] = value
        elif name == members[0]:
            merged = [group for m in members for group in record[m]]
            out[_SLOT.sub("", name)] = _without_contained_groups(merged)
    return out


def _group_texts(group: Mapping[str, Any]) -> frozenset[str]:
    return frozenset(_norm(text) for value in group.values() for text in _texts(value))


def _without_contained_groups(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The groups less those whose texts another group holds too: one region a wrapper read
    twice (the whole item, and its parts) is one list, each item once, the fuller reading
    kept."""
    texts = [_group_texts(group) for group in groups]
    kept = []
    for i, group in enumerate(groups):
        contained = any(
            j != i and texts[i] <= texts[j] and (texts[i] < texts[j] or j < i)
            for j in range(len(groups))
        )
        if not contained:
            kept.append(group)
    return kept
