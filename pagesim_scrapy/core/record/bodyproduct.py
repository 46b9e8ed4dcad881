"""A product's price, currency and availability read from its own page body.

Many shops state these only in the body, not in their metadata, and a crawl may see one page
of a shop: no other page to learn the site's layout from. The page's own markup still names
its parts: an element whose class, id or itemprop says ``price`` holds a price, and an
add-to-cart control says the product can be bought. These values are read only where the
metadata gives none, and carry the source ``body``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from .fields import FIELDS
from .model import CoreRecord, Value
from .normalise import as_currency, as_price
from .options import BodyProductOptions
from .posts import BODY

__all__ = ["BodyProductOptions", "body_product", "with_body_product"]

_WORD = re.compile(r"[a-z]+")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
#: one amount: digits, with the separators and spaces a price may hold between them
_AMOUNT = re.compile(r"\d(?:[\d.,'\s\u00a0\u202f]*\d)?")
#: what is left of a price's text once its number is taken out: a sign or a code
_NUMBER = re.compile(r"[\d\s.,'\u00a0\u202f-]+")
_LETTERS = re.compile(r"[^\W\d_]+")
_CONTROLS = frozenset({"button", "input", "a", "form"})
_SKIPPED = frozenset({"script", "style", "noscript", "template", "head", "select", "option"})


def _words(element: Any) -> list[str]:
    """The element's markup words: class, id and itemprop, split at case changes and
    punctuation, lower case."""
    text = " ".join(element.get(name) or "" for name in ("class", "id", "itemprop"))
    return _WORD.findall(_CAMEL.sub(" ", text).lower())


def _joined(element: Any) -> str:
    """The element's markup as one run of letters (``add-to-cart`` -> ``addtocart``)."""
    text = " ".join(element.get(name) or "" for name in ("class", "id", "name", "itemprop"))
    return "".join(_WORD.findall(text.lower()))


def _names_price(words: list[str], options: BodyProductOptions) -> bool:
    marked = any(part in word for word in words for part in options.price_parts)
    return marked and not any(part in word for word in words for part in options.other_parts)


def _price_of(element: Any, options: BodyProductOptions) -> tuple[str, str | None] | None:
    text = " ".join(element.text_content().split())
    label, colon, after = text.partition(":")
    if colon and not _AMOUNT.search(label):
        text = after.strip()  # "Price: $3.34": the label names the number after it
    if len(text) > options.max_price_chars or len(_AMOUNT.findall(text)) != 1:
        return None  # a container of several prices (was and now) names none of them
    rest = _NUMBER.sub(" ", text).strip()
    if not rest or len(rest) > options.max_sign_chars or len(_LETTERS.findall(rest)) > 1:
        return None  # a bare number, or words beside it: a count, a unit price
    if "%" in rest:
        return None  # a saving
    price = as_price(text)
    if price is None or not price.strip("0."):
        return None  # "0.00" stands in for a price the page has not filled
    return price, as_currency(rest)


def _visible(root: Any) -> Iterator[Any]:
    """The body's elements in page order, without scripts, styles and form choices (whose
    subtrees are skipped whole)."""
    body = root.find("body")
    stack = [body] if body is not None else []
    while stack:
        element = stack.pop()
        if not isinstance(element.tag, str) or element.tag in _SKIPPED:
            continue
        yield element
        stack.extend(reversed(element))


def _availability_of(element: Any, options: BodyProductOptions) -> str | None:
    """What an add-to-cart control says of the product's stock: it can be bought unless the
    control is disabled. Markup that says "sold out" is left unread: shops keep it in the
    page, hidden, beside products they sell."""
    if element.tag in _CONTROLS and any(part in _joined(element) for part in options.buy_parts):
        return "InStock" if element.get("disabled") is None else "OutOfStock"
    return None


def body_product(root: Any, options: BodyProductOptions | None = None) -> dict[str, str]:
    """``{price, currency, availability}`` as far as the body's own markup names them: the
    first price element the markup names so (a currency from its sign or code); and
    ``InStock`` where an enabled add-to-cart control is there (``OutOfStock`` where every
    one is disabled)."""
    options = options or BodyProductOptions()
    found: dict[str, str] = {}
    stock: set[str] = set()
    for element in _visible(root) if root is not None else ():
        if "price" not in found and _names_price(_words(element), options):
            read = _price_of(element, options)
            if read is not None:
                found["price"] = read[0]
                found.update({"currency": read[1]} if read[1] else {})
        said = _availability_of(element, options)
        if said is not None:
            stock.add(said)
    if stock:
        found["availability"] = "InStock" if "InStock" in stock else "OutOfStock"
    return found


def with_body_product(record: CoreRecord, found: dict[str, str]) -> CoreRecord:
    """``record`` with the body's values (source ``body``) for the product fields its
    metadata leaves empty; the fields stay in their standard order."""
    if record.page_type != "product":
        return record
    added = {k: Value(v, BODY) for k, v in found.items() if k not in record.fields}
    if not added:
        return record
    fields = {**record.fields, **added}
    order = [spec.name for spec in FIELDS["product"]]
    ordered = {name: fields[name] for name in order if name in fields}
    ordered.update((k, v) for k, v in fields.items() if k not in ordered)
    return replace(record, fields=ordered)
