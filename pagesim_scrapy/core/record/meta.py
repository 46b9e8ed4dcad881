"""The page head's flat metadata: OpenGraph (through extruct), twitter cards, meta tags."""

from __future__ import annotations

from extruct.opengraph import OpenGraphExtractor
from lxml import etree

__all__ = ["Flat", "read_meta", "read_opengraph", "read_twitter"]

#: Flat metadata: property name (lower case) → its values in document order.
Flat = dict[str, list[str]]

#: The ``<meta name=…>`` names the record reads (others say nothing about the page's data).
META_NAMES = frozenset(
    {
        "author",
        "description",
        "date",
        "dc.date",
        "dc.creator",
        "dcterms.created",
        "dcterms.modified",
        "article:published_time",
        "article:modified_time",
        "article:author",
        "article:section",
        "pubdate",
        "publish-date",
        "sailthru.author",
        "parsely-author",
        "parsely-pub-date",
        "parsely-section",
    }
)


def read_opengraph(root: etree._Element) -> Flat:
    """OpenGraph properties (``og:``, ``article:``, ``product:``…) of the page head."""
    flat: Flat = {}
    try:
        for item in OpenGraphExtractor().extract_items(root):
            for prop, value in item["properties"]:
                _add(flat, prop, value)
    except (AttributeError, IndexError, KeyError, TypeError):
        return flat  # a page without a head element
    return flat


def read_twitter(root: etree._Element) -> Flat:
    """Twitter card properties, whether written as ``name=`` or ``property=``."""
    flat: Flat = {}
    for el in root.iter("meta"):
        key = (el.get("name") or el.get("property") or "").strip().lower()
        if key.startswith("twitter:"):
            _add(flat, key, el.get("content") or el.get("value"))
    return flat


def read_meta(root: etree._Element) -> Flat:
    """Plain ``<meta name=…>`` tags the record reads, and the canonical link."""
    flat: Flat = {}
    for el in root.iter("meta"):
        key = (el.get("name") or "").strip().lower()
        if key in META_NAMES:
            _add(flat, key, el.get("content"))
    for el in root.iter("link"):
        rel = (el.get("rel") or "").lower().split()
        if "canonical" in rel:
            _add(flat, "canonical", el.get("href"))
    return flat


def _add(flat: Flat, key: str, value: str | None) -> None:
    if value is None:
        return
    value = value.strip()
    if value:
        flat.setdefault(key.strip().lower(), []).append(value)
