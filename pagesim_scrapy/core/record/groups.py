"""Core values that are lists of groups (posts, breadcrumbs, variants) or joined names.

Each function reads one structured-data source's entities around the page's main entity
and returns the standard shape, or ``None`` when that source does not have it.
"""

from __future__ import annotations

from typing import Any

from .entities import find_entity, resolve, types_of, walk
from .normalise import (
    as_availability,
    as_currency,
    as_gtin,
    as_identifier,
    as_name,
    as_price,
    as_text,
    as_urls,
    first,
)

__all__ = ["authors", "breadcrumbs", "instructions", "location", "posts", "texts", "variants"]

_POST_TYPES = frozenset({"DiscussionForumPosting", "Question", "SocialMediaPosting"})
_REPLY_TYPES = frozenset({"Answer", "Comment"})
_REPLY_KEYS = ("acceptedAnswer", "suggestedAnswer", "comment")


def authors(raw: Any) -> str | None:
    """Author names in page order, joined with ``", "`` (one name stays as it is)."""
    items = raw if isinstance(raw, list) else [raw]
    names: list[str] = []
    for item in items:
        name = as_name(item)
        if name and name not in names:
            names.append(name)
    return ", ".join(names) or None


def texts(raw: Any, limit: int) -> list[str] | None:
    """A list of texts (ingredients, keywords), each once, in page order."""
    items = raw if isinstance(raw, list) else [raw]
    out = [t for t in (as_text(item) for item in items[:limit]) if t]
    return list(dict.fromkeys(out)) or None


def instructions(raw: Any, limit: int) -> list[str] | None:
    """Recipe steps as texts, sections (``HowToSection``) flattened in order."""
    steps: list[str] = []
    stack = list(reversed(raw)) if isinstance(raw, list) else [raw]
    while stack and len(steps) < limit:
        item = stack.pop()
        if isinstance(item, dict) and "itemListElement" in item:
            members = item["itemListElement"]
            stack.extend(reversed(members if isinstance(members, list) else [members]))
            continue
        text = (
            as_text(item.get("text") or item.get("name"))
            if isinstance(item, dict)
            else (as_text(item))
        )
        if text:
            steps.append(text)
    return steps or None


def location(raw: Any) -> str | None:
    """An event's place: its name, else its address as one line."""
    raw = first(raw)
    if not isinstance(raw, dict):
        return as_text(raw)
    name = as_text(raw.get("name"))
    if name:
        return name
    address = raw.get("address")
    if isinstance(address, dict):
        keys = ("streetAddress", "addressLocality", "addressRegion", "addressCountry")
        parts = [as_name(address.get(k)) for k in keys]
        return ", ".join(p for p in parts if p) or None
    return as_text(address)


def breadcrumbs(entities: list[dict], max_depth: int) -> list[dict] | None:
    """The first ``BreadcrumbList`` as ``[{name, url}]`` in position order."""
    trail = find_entity(entities, frozenset({"BreadcrumbList"}), max_depth)
    if trail is None:
        return None
    items = trail.get("itemListElement")
    items = items if isinstance(items, list) else [items]
    crumbs = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        target = item.get("item")
        name = as_text(item.get("name")) or (as_name(target) if isinstance(target, dict) else None)
        url = as_urls(target if not isinstance(target, dict) else target.get("@id") or target)
        if name:
            crumbs.append((_position(item.get("position"), index), name, url[0] if url else None))
    crumbs.sort(key=lambda c: c[0])
    return [{"name": name, "url": url} for _, name, url in crumbs] or None


def _position(raw: Any, index: int) -> float:
    try:
        return float(raw)
    except (TypeError, ValueError):
        return float(index)


def variants(product: dict, limit: int) -> list[dict] | None:
    """A product's variants: ``hasVariant`` products, else several offers that differ."""
    members = [m for m in resolve(product, "hasVariant") if isinstance(m, dict)]
    if members:
        out = [_variant(m, m) for m in members[:limit]]
    else:
        offers = [o for o in resolve(product, "offers") if isinstance(o, dict)]
        offers = [o for o in offers if "AggregateOffer" not in types_of(o)]
        if len(offers) < 2:
            return None
        out = [_variant(o, o) for o in offers[:limit]]
        if len({tuple(sorted(v.items())) for v in out}) < 2:
            return None
    out = [v for v in out if v]
    return out or None


def _variant(item: dict, offer_holder: dict) -> dict:
    offer = first(offer_holder.get("offers")) if "offers" in offer_holder else offer_holder
    offer = offer if isinstance(offer, dict) else {}
    values = {
        "name": as_text(item.get("name")),
        "sku": as_identifier(item.get("sku")),
        "gtin": as_gtin(item.get("gtin13") or item.get("gtin") or item.get("gtin14")),
        "price": as_price(offer.get("price") or offer.get("lowPrice")),
        "currency": as_currency(offer.get("priceCurrency")),
        "availability": as_availability(offer.get("availability")),
        "url": first(as_urls(item.get("url") or offer.get("url")) or [None]),
    }
    return {k: v for k, v in values.items() if v is not None}


def posts(entities: list[dict], max_depth: int, limit: int) -> list[dict] | None:
    """A thread's posts as ``[{author, date, body}]``: the opening post, then its replies."""
    main = find_entity(entities, _POST_TYPES, max_depth)
    if main is None:
        return None
    found = [main]
    seen = {id(main)}
    for key in _REPLY_KEYS:
        for reply in resolve(main, key):
            if isinstance(reply, dict) and id(reply) not in seen:
                seen.add(id(reply))
                found.append(reply)
    for node in walk(entities, max_depth):  # replies written as separate top-level items
        if id(node) not in seen and any(t in _REPLY_TYPES for t in types_of(node)):
            seen.add(id(node))
            found.append(node)
    out = [_post(p) for p in found[:limit]]
    return [p for p in out if any(p.values())] or None


def _post(item: dict) -> dict:
    date = item.get("datePublished") or item.get("dateCreated") or item.get("uploadDate")
    return {
        "author": authors(item.get("author")),
        "date": as_text(date),
        "body": as_text(item.get("text") or item.get("articleBody")),
    }


def reviews(raw: Any, limit: int) -> list[dict] | None:
    """Reviews as ``[{author, date, body, rating}]``, every key in every review (None where
    the review does not say), in page order."""
    items = raw if isinstance(raw, list) else [raw]
    out = [_review(item) for item in items[:limit] if isinstance(item, dict)]
    return [r for r in out if r["body"] or r["rating"]] or None


def _review(item: dict) -> dict:
    rating = item.get("reviewRating")
    value = rating.get("ratingValue") if isinstance(rating, dict) else None
    return {
        **_post(item),
        "body": as_text(item.get("reviewBody") or item.get("description") or item.get("text")),
        "rating": as_price(value) if value is not None else None,
    }
