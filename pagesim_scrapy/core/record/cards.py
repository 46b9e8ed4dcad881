"""Related products: the body's repeated product cards as one list of ``{name, url, price,
image}``.

A wrapper reads a region of product cards as a list of groups named after the card's
layout (``card_title_a``, ``card_media_alt``, ``amount``) and often reads it twice (the
whole card's text, and its parts; a "quick view" copy). A user wants one list with the same
four keys on every page, whatever the shop's markup, and without the cards' button text
("Quick View", "Add to Cart"). A list is a card region when most of its groups link
somewhere and show a name and a price: that is what a product card is, on any shop.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any
from urllib.parse import urldefrag

from pagesim_scrapy.core.induce.dom import LinkResolver

from .normalise import as_price
from .tidy import value_keys

__all__ = ["CARD_FIELDS", "RELATED_PRODUCTS", "body_cards", "gather_cards", "product_card"]

#: the name of the record's list of related products
RELATED_PRODUCTS = "related_products"
#: the keys of every related product, in this order (None here where the card lacks one;
#: a page item's record leaves such a key out)
CARD_FIELDS = ("name", "url", "price", "image")
#: a list is a card region when at least this share of its groups are cards
MIN_CARD_SHARE = 0.8

#: an absolute URL of any scheme (``file:`` in a crawl of saved pages too), a
#: scheme-relative or a root-relative one
_URL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//|^/[^/]", re.I)
_IMAGE = re.compile(r"\.(?:jpe?g|png|gif|webp|avif|svg)(?:[?#]|$)", re.I)
_IMAGE_KEY = re.compile(r"(?:^|_)(?:image|img|src|photo|thumb|picture)(?:_|$)", re.I)
_BUTTON = re.compile(
    r"^(?:(?:quick ?(?:view|shop|look)|add to (?:cart|bag|basket|wishlist|compare)|"
    r"buy now|select options|choose options|view details|read more|sold out|compare|"
    r"in den warenkorb|ajouter au panier|aggiungi al carrello|añadir al carrito)\s*)+$",
    re.I,
)
_SPACE = re.compile(r"\s+")
_PRICE_TEXT = re.compile(
    r"^(?:[^\w\s%]{1,3}|[A-Za-z]{3})?\s?\d[\d.,\s\u00a0]*(?:[^\w\s%]{1,3}|[A-Za-z]{3})?$"
)

#: what makes a number a price: a currency sign or code, or cents
_PRICE_MARK = re.compile(r"[^\w\s.,%-]|\b[A-Z]{3}\b|\d[.,]\d\d$")


def _strings(group: Mapping[str, Any]) -> list[tuple[str, str]]:
    out = []
    for key, value in group.items():
        values = value if isinstance(value, list) else [value]
        out += [(key, v.strip()) for v in values if isinstance(v, str) and v.strip()]
    return out


def _is_url(text: str) -> bool:
    return bool(_URL.match(text))


def _price(text: str) -> str | None:
    """A price as a decimal: a number with a currency mark or cents (a bare integer is a
    count or a position, not a price)."""
    if not _PRICE_TEXT.match(text) or not _PRICE_MARK.search(text):
        return None
    return as_price(text)


def _name(texts: list[str], plain: set[str]) -> str | None:
    """The card's name: its most repeated text (an image's alt and the title link agree),
    never a price, a button or the whole card's text glued together (``plain``: the texts
    that are neither a URL nor a price)."""
    words = [t for t in texts if t in plain and not _BUTTON.match(t)]
    words = [t for t in words if any(ch.isalpha() for ch in t) and "%" not in t]
    parts = [t for t in words if not any(o != t and o in t for o in words)]
    if not parts:
        return None
    counts = Counter(parts)
    return max(parts, key=lambda t: (counts[t], len(t), -parts.index(t)))


def _pictures_and_links(
    urls: list[tuple[str, str]], page_url: str | None
) -> tuple[list[str], list[str]]:
    """A card's picture URLs, and its links that lead away from the page."""
    images, links = _pictures_and_others(urls)
    return images, [u for u in links if not _same_page(u, page_url)]


def _pictures_and_others(urls: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """A card's picture URLs, and its other links (the ones to the page itself included)."""
    images = [t for k, t in urls if _IMAGE.search(t) or _IMAGE_KEY.search(k)]
    return images, [u for _, u in urls if u not in images]


def product_card(group: Mapping[str, Any], page_url: str | None = None) -> dict | None:
    """``{name, url, price, image}`` of a group that is a product card (a link away from the
    page, a name and a price or an image), else None. The price is the last one the card
    shows (after the struck-through compare-at price), as a decimal."""
    strings = tuple(_strings(group))
    images, candidates = _card_urls(strings)
    links = [u for u in candidates if not _same_page(u, page_url)]
    if not links:  # no card: its texts' prices and name need not be read
        return None
    name, price = _card_texts(strings)
    if name is None or (price is None and not images):
        return None
    return {"name": name, "url": links[0], "price": price, "image": images[0] if images else None}


#: distinct cards whose readings are kept (a site's related products recur page after page)
CARD_CACHE_SIZE = 4096


@lru_cache(maxsize=CARD_CACHE_SIZE)
def _card_urls(strings: tuple[tuple[str, str], ...]) -> tuple[list[str], list[str]]:
    """A card's picture URLs, and its other links before the ones to the page itself are
    left out (:func:`product_card`; callers must not change the lists)."""
    return _pictures_and_others([(k, t) for k, t in strings if _is_url(t)])


@lru_cache(maxsize=CARD_CACHE_SIZE)
def _card_texts(strings: tuple[tuple[str, str], ...]) -> tuple[str | None, str | None]:
    """A card's name and its last price (None where it shows none)."""
    is_url = {t: _is_url(t) for _, t in strings}
    price_of = {t: _price(t) for t in is_url}
    prices = [p for p in (price_of[t] for _, t in strings) if p is not None]
    plain = {t for t, url in is_url.items() if not url and price_of[t] is None}
    return _name([t for _, t in strings], plain), prices[-1] if prices else None


def _same_page(url: str, page_url: str | None) -> bool:
    if not page_url:
        return False
    return _without_fragment(url) == _without_fragment(page_url)


@lru_cache(maxsize=4096)
def _without_fragment(url: str) -> str:
    """A URL without its fragment and trailing slash (a page's links repeat across cards)."""
    return urldefrag(url)[0].rstrip("/")


def _cards(value: Any, page_url: str | None) -> list[dict] | None:
    """The cards of a list of groups when it is a product card region (priced cards)."""
    if not isinstance(value, list) or not value:
        return None
    if not all(isinstance(group, dict) for group in value):
        return None
    # a region needs most of its groups to be cards: stop at the miss that rules it out
    misses_allowed = len(value) - max(2, math.ceil(MIN_CARD_SHARE * len(value)))
    found = []
    for group in value:
        card = product_card(group, page_url)
        if card is not None:
            found.append(card)
        elif len(value) > 1 and misses_allowed <= 0:
            return None
        else:
            misses_allowed -= 1
    if len(value) == 1 and found and None not in found[0].values():
        return found  # one whole card (link, name, price, picture): a region of one
    if len(found) < MIN_CARD_SHARE * len(value) or len(found) < 2:
        return None
    if sum(card["price"] is not None for card in found) * 2 < len(found):
        return None  # linked pictures without prices: articles, categories, not products
    return found


def gather_cards(
    record: Mapping[str, Any], page_url: str | None = None
) -> tuple[dict[str, Any], set[str]]:
    """``record`` with its product card regions as one list under ``related_products`` (at
    the first region's place, each product once by its URL, page order), and the value keys
    of the cards as the wrapper read them, so that another reading of the same cards (their
    texts alone) counts as a repeat."""
    out: dict[str, Any] = {}
    products: list[dict] = []
    held: set[str] = set()
    for name, value in record.items():
        cards = _cards(value, page_url) if name != RELATED_PRODUCTS else None
        if cards is None:
            out[name] = value
            continue
        if not products:
            out[RELATED_PRODUCTS] = products
        urls = {card["url"] for card in products}
        for card in cards:
            if card["url"] not in urls:
                urls.add(card["url"])
                products.append(card)
        for group in value:
            for member in group.values():
                held |= value_keys(member)
    return out, held


def _card_group(el: Any, absolute: Callable[[str], str]) -> dict[str, Any]:
    """A card element of the page as a group: its whole text, links and pictures."""
    parts = [piece for piece in (_SPACE.sub(" ", t).strip() for t in el.itertext()) if piece]
    group: dict[str, Any] = {"text": " ".join(parts), "parts": parts}
    group["links"] = [absolute(str(a.get("href"))) for a in el.iter("a") if a.get("href")]
    group["alts"] = [str(img.get("alt") or "") for img in el.iter("img")]
    group["images"] = [absolute(str(img.get("src"))) for img in el.iter("img")]
    group["titles"] = [_SPACE.sub(" ", "".join(a.itertext())).strip() for a in el.iter("a")]
    return group


def _links_by_url(root: Any, absolute: Callable[[str], str]) -> dict[str, list[Any]]:
    """The page's links by the URL they resolve to, in page order (resolved once per page,
    not once per card looked for)."""
    links: dict[str, list[Any]] = {}
    for a in root.iter("a"):
        links.setdefault(absolute(str(a.get("href") or "")), []).append(a)
    return links


def _card_elements(links: dict[str, list[Any]], url: str) -> list[Any]:
    """The siblings of the card the link to ``url`` is in: the page's list of cards (the
    card is the ancestor of the link whose siblings of its tag hold links too)."""
    for a in links.get(url, ()):
        for el in a.iterancestors():
            parent = el.getparent()
            if parent is None:
                break
            peers = [c for c in parent if c.tag == el.tag]
            if len(peers) >= 2 and all(next(c.iter("a"), None) is not None for c in peers):
                return peers
    return []


def body_cards(root: Any, cards: list[dict], page_url: str) -> tuple[list[dict], set[str]]:
    """``cards`` and the other cards of the page's card list(s) they are in, each once, in
    page order; with the folded whole texts of those cards (what a wrapper's glued reading
    of them holds). A wrapper that read only some of a region's cards (their markup
    differs: a badge, a struck price) still gives the whole region."""
    if root is None or not cards:
        return cards, set()
    out, urls, texts = list(cards), {card["url"] for card in cards}, set()
    absolute = LinkResolver(page_url)  # urljoin, each of the page's links once
    links = _links_by_url(root, absolute)
    done: set[Any] = set()  # seeds of one card list find the same cards: each read once
    for seed in cards:
        for el in _card_elements(links, seed["url"]):
            if el in done:
                continue
            done.add(el)
            group = _card_group(el, absolute)
            texts |= value_keys(group["text"])
            card = product_card(group, page_url)
            if card is not None and card["url"] not in urls:
                urls.add(card["url"])
                out.append(card)
    return out, texts
