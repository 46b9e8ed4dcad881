"""Raw structured-data values → the record's types (decimal strings, ISO codes, URL lists).

Each function takes whatever a page wrote (a string, a number, an object, a list of them)
and returns the normalised value, or ``None`` when there is nothing usable; the record
then asks the next source.
"""

from __future__ import annotations

import html
import re
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin

__all__ = [
    "as_availability",
    "as_currency",
    "as_gtin",
    "as_identifier",
    "as_name",
    "as_price",
    "as_text",
    "as_urls",
    "first",
]

_TAG = re.compile(r"<[^>]{0,2000}>")
_NUMBER = re.compile(r"\d[\d\s.,'\u00a0\u202f]*")
_ISO = re.compile(r"^[A-Z]{3}$")
#: how many distinct short texts :func:`as_text` keeps: the body's texts repeat from page
#: to page (the site's chrome, a shop's recurring labels)
CACHE_SIZE = 8192
#: longer texts (a description) are cleaned each time rather than kept alive
CACHED_TEXT = 2000

#: Currency signs that name one currency; ``$``, ``kr`` and the like name several and give none.
_SIGNS = {
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "₹": "INR",
    "₽": "RUB",
    "₩": "KRW",
    "₺": "TRY",
    "₴": "UAH",
    "₪": "ILS",
    "₫": "VND",
    "฿": "THB",
    "₱": "PHP",
    "zł": "PLN",
    "kč": "CZK",
    "us$": "USD",
    "usd": "USD",
    "c$": "CAD",
    "ca$": "CAD",
    "a$": "AUD",
    "au$": "AUD",
    "nz$": "NZD",
    "hk$": "HKD",
    "r$": "BRL",
    "s$": "SGD",
    "chf": "CHF",
    "lei": "RON",
}

#: Retired codes still written by shops, mapped to their current ISO 4217 code.
_RETIRED = {"RUR": "RUB", "TRL": "TRY", "BYR": "BYN"}

_AVAILABILITY = {
    name.lower(): name
    for name in (
        "BackOrder",
        "Discontinued",
        "InStock",
        "InStoreOnly",
        "LimitedAvailability",
        "MadeToOrder",
        "OnlineOnly",
        "OutOfStock",
        "PreOrder",
        "PreSale",
        "Reserved",
        "SoldOut",
    )
}
_AVAILABILITY.update(
    {
        "available": "InStock",
        "in stock": "InStock",
        "in_stock": "InStock",
        "available for order": "InStock",
        "out of stock": "OutOfStock",
        "out_of_stock": "OutOfStock",
        "oos": "OutOfStock",
        "sold out": "SoldOut",
        "preorder": "PreOrder",
        "pre-order": "PreOrder",
        "backorder": "BackOrder",
        "available_for_order": "InStock",
        "discontinued": "Discontinued",
    }
)


def first(raw: Any) -> Any:
    """The first non-empty member of a list (a scalar is its own first member)."""
    if isinstance(raw, (list, tuple)):
        return next((v for v in raw if v not in (None, "", [], {})), None)
    return raw


def as_text(raw: Any, limit: int = 100_000) -> str | None:
    """Plain text: markup and entities removed, whitespace collapsed."""
    raw = first(raw)
    if isinstance(raw, dict):
        raw = raw.get("name") or raw.get("text") or raw.get("@value")
    if isinstance(raw, bool) or raw is None or isinstance(raw, (dict, list)):
        return None
    text = str(raw)
    plain = _plain_cached(text) if len(text) <= CACHED_TEXT else _plain(text)
    return plain[:limit] or None


def _plain(text: str) -> str:
    """``text`` without markup and entities, its whitespace runs one space (``str.split``
    and ``\\s+`` agree on what whitespace is)."""
    if "<" in text:
        text = _TAG.sub(" ", text)
    return " ".join(html.unescape(text).split())


_plain_cached = lru_cache(maxsize=CACHE_SIZE)(_plain)


def as_name(raw: Any) -> str | None:
    """A name: an object's ``name`` (a brand, an author, an organiser), or the text itself."""
    raw = first(raw)
    if isinstance(raw, dict):
        return as_text(raw.get("name") or raw.get("legalName"))
    text = as_text(raw)
    if text and text.startswith(("http://", "https://")):
        return None  # a reference to an entity elsewhere, not its name
    return text


def as_identifier(raw: Any) -> str | None:
    """One identifier (sku, mpn): never split, numbers kept without a decimal point."""
    raw = first(raw)
    if isinstance(raw, float) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, (bool, dict, list)):
        return None
    return as_text(raw, 200)


def as_gtin(raw: Any) -> str | None:
    """A GTIN as its digits (8, 12, 13 or 14 of them); anything else is not a GTIN."""
    text = as_identifier(raw)
    digits = re.sub(r"[\s-]", "", text or "")
    return digits if digits.isdigit() and len(digits) in (8, 12, 13, 14) else None


def as_price(raw: Any) -> str | None:
    """A price as a decimal string (``"1234.50"``), without currency sign, markup or spaces."""
    raw = first(raw)
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, (int, float)):
        return _decimal(repr(raw))
    text = as_text(raw, 200)
    match = _NUMBER.search(text or "")
    if not match:
        return None
    return _decimal(_separators(re.sub(r"[\s'\u00a0\u202f]", "", match.group()).strip(".,")))


def _separators(number: str) -> str:
    """Thousands separators dropped, the decimal separator made a point."""
    if "," in number and "." in number:
        decimal_sep = "," if number.rfind(",") > number.rfind(".") else "."
    elif number.count(",") == 1 and len(number.rsplit(",", 1)[1]) != 3:
        decimal_sep = ","
    elif number.count(".") == 1:
        decimal_sep = "."
    else:
        decimal_sep = ""
    thousands = {",", "."} - {decimal_sep}
    for sep in thousands:
        number = number.replace(sep, "")
    return number.replace(",", ".")


def _decimal(text: str) -> str | None:
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    if not value.is_finite() or value < 0:
        return None
    return format(value, "f")


def as_currency(raw: Any) -> str | None:
    """An ISO 4217 code, from a code or from a sign that names one currency only."""
    text = as_text(raw, 40)
    if not text:
        return None
    sign = _SIGNS.get(text.lower())
    if sign:
        return sign
    if _ISO.match(text.upper()) and text.isalpha():
        return _RETIRED.get(text.upper(), text.upper())
    return None


def as_availability(raw: Any) -> str | None:
    """The schema.org short name (``InStock``, ``OutOfStock``…) of an availability value."""
    text = as_text(raw, 200)
    if not text:
        return None
    short = text.rstrip("/").rsplit("/", 1)[-1].strip().lower()
    return _AVAILABILITY.get(short) or _AVAILABILITY.get(short.replace("-", " "))


def as_urls(raw: Any, base: str = "", limit: int = 200) -> list[str] | None:
    """Absolute image (or page) URLs, in page order, each once."""
    items = raw if isinstance(raw, (list, tuple)) else [raw]
    urls: list[str] = []
    for item in items:
        if isinstance(item, dict):
            item = item.get("url") or item.get("contentUrl") or item.get("@id")
            item = first(item)
        if not isinstance(item, str):
            continue
        text = item.strip()
        if not text or text.startswith("data:"):
            continue
        url = _absolute(html.unescape(text), base)
        if url and url not in urls:
            urls.append(url)
    return urls[:limit] or None


def _absolute(url: str, base: str) -> str | None:
    if base:
        url = urljoin(base, url)
    elif url.startswith("//"):
        url = "https:" + url
    return url if url.startswith(("http://", "https://")) else None
