"""The page head's flat metadata: OpenGraph, twitter cards, meta tags.

OpenGraph is read as extruct's reader reads it (the properties of the page head's
``<meta property content>`` whose prefix is OpenGraph's or declared by the page), without
importing extruct's package, which loads every syntax's reader.
"""

from __future__ import annotations

import re

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


#: the prefixes OpenGraph defines, and ``product`` (not standard, common on shops)
_OG_PREFIXES = frozenset({"og", "music", "video", "article", "book", "profile", "product"})
_XHTML_HEAD = "{http://www.w3.org/1999/xhtml}head"
_PREFIX = re.compile(r"\s*(\w+):\s*([^\s]+)")


def read_opengraph(root: etree._Element) -> Flat:
    """OpenGraph properties (``og:``, ``article:``, ``product:``…) of the page head."""
    flat: Flat = {}
    heads = root.xpath("//head")
    if not heads:
        return flat  # a page without a head element
    # the document's first head, as lxml.html's ``head`` finds it, declares for every head
    first = next(root.getroottree().iter("head", _XHTML_HEAD))
    html = first.xpath("parent::html")
    declared = set(_declared(html[0])) if html else set()
    for head in heads:
        prefixes = declared | set(_declared(head)) | _OG_PREFIXES
        for el in head.xpath("meta[@property and @content]"):
            prop = el.attrib["property"]
            if prop.partition(":")[0] in prefixes:
                _add(flat, prop, el.attrib["content"])
    return flat


def _declared(element: etree._Element) -> list[str]:
    """The prefixes an element's ``prefix`` attribute declares."""
    return [name for name, _ in _PREFIX.findall(element.attrib.get("prefix", ""))]


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
