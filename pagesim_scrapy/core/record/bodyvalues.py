"""Reading a body text as a core value of one kind, and saying when two values are the same.

The body shows a value the way a visitor reads it ("$19.99", "By Jane Doe", "SKU: A-12",
"March 5, 2015"); the metadata holds it normalised ("19.99", "Jane Doe", "A-12",
"2015-03-05T10:00"). Both are brought to the core record's form before they are compared,
so a body field can be matched to the metadata's name and then stand in for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from .groups import authors
from .normalise import (
    as_availability,
    as_currency,
    as_gtin,
    as_identifier,
    as_name,
    as_price,
    as_text,
)
from .posts import _DATE_TEXT

__all__ = ["DATE_FIELDS", "prepared", "read_as", "same", "same_prepared", "value_kind"]

#: Standard fields that hold a date (their spec kind is ``text``).
DATE_FIELDS = frozenset({"date_published", "date_modified", "start_date", "end_date"})
#: Kinds a body text can be read as (groups, durations and URLs of the page are not).
BODY_KINDS = frozenset(
    {"text", "name", "authors", "id", "gtin", "price", "currency", "availability", "urls", "date"}
)
#: A price, currency, identifier or availability is shown in a short text.
MAX_SHORT = 60
#: Texts at least this long are the same when one begins with the other (a truncated
#: description in the head, the full one in the body).
MIN_PREFIX = 40

_LABEL = re.compile(r"^(?:by|written by|posted by|[^:\n]{1,24}:)\s+", re.I)
_TRUNCATED = re.compile(r"(?:\.\.\.|…|\s)+$")
_SPACE = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})
_NOT_SIGN = re.compile(r"[\d\s.,'\u00a0\u202f-]+")


def value_kind(name: str, kind: str) -> str | None:
    """The kind a body text of field ``name`` is read as, or None for fields no body
    text stands for (groups, the page's URL, durations)."""
    if name in DATE_FIELDS:
        return "date"
    if name.endswith("_time") or name == "url":
        return None
    return kind if kind in BODY_KINDS else None


def _unlabelled(text: str) -> str:
    return _LABEL.sub("", text, count=1).strip()


def _short(function: Callable[[str], Any]) -> Callable[[str], Any]:
    return lambda text: function(text) if len(text) <= MAX_SHORT else None


def _currency(text: str) -> str | None:
    return as_currency(text) or as_currency(_NOT_SIGN.sub("", text))


def _date(text: str) -> str | None:
    """An ISO date (``YYYY-MM-DD``) from an ISO value or a date as people write it."""
    if re.match(r"^\d{4}-\d{2}-\d{2}", text):
        return text[:10]
    if len(text) > MAX_SHORT or not _DATE_TEXT.search(text):
        return None
    from dateutil import parser

    try:
        return parser.parse(_unlabelled(text), fuzzy=True).date().isoformat()
    except (ValueError, OverflowError):
        return None


_READERS: dict[str, Callable[[str], Any]] = {
    "text": lambda text: as_text(text),
    "name": _short(lambda text: as_name(_unlabelled(text))),
    "authors": _short(lambda text: authors(_unlabelled(text))),
    "id": _short(lambda text: as_identifier(_unlabelled(text))),
    "gtin": _short(lambda text: as_gtin(_unlabelled(text))),
    "price": _short(as_price),
    "currency": _short(_currency),
    "availability": _short(as_availability),
    "urls": lambda text: [text] if text.startswith(("http://", "https://")) else None,
    "date": _date,
}


def read_as(kind: str, text: str) -> Any:
    """The body text read as a core value of ``kind`` (None when it cannot be one)."""
    if not text:
        return None
    return _READERS[kind](text)


def _norm(value: Any) -> str:
    """Folded for comparing: case, runs of space, and typographic quotes (a head's plain
    quotes are a body's curly ones)."""
    return _SPACE.sub(" ", str(value)).strip().casefold().translate(_QUOTES)


def _same_folded(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Two folded texts (each with its trailing ellipsis stripped) say the same: equal, or
    one at least :data:`MIN_PREFIX` long that the other begins with."""
    if a[0] == b[0]:
        return True
    short, long = sorted((a[1], b[1]), key=len)
    return len(short) >= MIN_PREFIX and long.startswith(short)


def _url_key(url: str) -> str:
    return url.split("?", 1)[0].split("#", 1)[0].split("://", 1)[-1].rstrip("/")


def prepared(kind: str, value: Any) -> Any:
    """``value`` brought once to the form :func:`same_prepared` compares for ``kind`` (None
    for a value that matches nothing), so a value met against many is read once."""
    if value in (None, "", []):
        return None
    if kind == "price":
        try:
            number = Decimal(str(value))
        except InvalidOperation:
            return None
        return None if number.is_snan() else number
    if kind == "urls":
        urls = value if isinstance(value, list) else [value]
        return frozenset(_url_key(url) for url in urls if isinstance(url, str)) or None
    if kind == "date":
        return _date(str(value))
    folded = _norm(value)
    return (folded, _TRUNCATED.sub("", folded)) if folded else None


def same_prepared(kind: str, a: Any, b: Any) -> bool:
    """:func:`same` on two values :func:`prepared` for ``kind``."""
    if a is None or b is None:
        return False
    if kind == "urls":
        return bool(a & b)
    if kind in ("price", "date"):
        return bool(a == b)
    return _same_folded(a, b)


def same(kind: str, a: Any, b: Any) -> bool:
    """Whether two core values of ``kind`` say the same (a price as a decimal, images by
    any shared URL, a date by its day, texts folded or one a truncation of the other)."""
    return same_prepared(kind, prepared(kind, a), prepared(kind, b))
