"""W3C microdata items, read as extruct's microdata reader reads them, without its package.

``import extruct.w3cmicrodata`` runs ``extruct/__init__.py``, which imports every syntax's
reader: mf2py with BeautifulSoup, and pyRdfa with rdflib. The record needs none of them for
microdata, and a crawl paid for that import with its first page item. This is extruct's
``LxmlMicrodataExtractor`` (nested items, non-strict; extruct 0.18, BSD-3-Clause, Zyte) and
its ``flatten_dict`` to the JSON-LD-like shape, with the record's own reading of a
property's text (without the heading that opens its element). Same output as extruct's
reader, which tests check on real pages.
"""

from __future__ import annotations

from collections import defaultdict
from copy import deepcopy
from typing import Any
from urllib.parse import urljoin, urlparse

import html_text
from lxml import etree
from lxml.html.clean import Cleaner
from w3lib.html import strip_html5_whitespace

__all__ = ["microdata_items", "schema_items"]

#: what extruct's reader strips before reading a property's text
_CLEANER = Cleaner(
    scripts=True,
    javascript=False,
    comments=True,
    style=True,
    links=True,
    meta=True,
    page_structure=False,
    processing_instructions=True,
    embedded=False,
    frames=False,
    forms=False,
    annoying_tags=False,
    remove_unknown_tags=False,
    safe_attrs_only=False,
)

_ITEMS = etree.XPath("descendant-or-self::*[@itemscope]")
_PROPERTIES = etree.XPath(
    "set:difference(.//*[@itemprop], .//*[@itemscope]//*[@itemprop])",
    namespaces={"set": "http://exslt.org/sets"},
)

_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
#: properties whose text is a whole body: its headings are part of it
_BODY_PROPERTIES = frozenset(("articleBody", "text"))
#: elements whose value is a URL attribute
_URL_ATTRIBUTE = {
    **dict.fromkeys(("audio", "embed", "iframe", "img", "source", "track", "video"), "src"),
    **dict.fromkeys(("a", "area", "link"), "href"),
    "object": "data",
}


def schema_items(root: etree._Element, base_url: str | None) -> list[dict]:
    """The page's microdata items in extruct's uniform shape (``{"@type": "Product",
    "@context": "http://schema.org", "name": …}``), in document order."""
    return [
        _flatten_dict(item, "http://schema.org", True) for item in microdata_items(root, base_url)
    ]


def microdata_items(root: etree._Element, base_url: str | None) -> list[dict]:
    """The page's top-level items as extruct's reader gives them (``type``, ``properties``)."""
    return _Reader(root, base_url).items(root)


class _Reader:
    """One page's reading: item numbers in document order, the items already read."""

    def __init__(self, document: etree._Element, base_url: str | None) -> None:
        top = document.getroottree().getroot()
        self.ids = {node: k + 1 for k, node in enumerate(_ITEMS(top))}
        self.seen: set[int] = set()
        self.base_url = base_url

    def items(self, document: etree._Element) -> list[dict]:
        read = (self._item(node) for node in _ITEMS(document))
        return [item for item in read if item]

    def _item(self, node: Any) -> dict | None:
        itemid = self.ids[node]
        if itemid in self.seen:
            return None
        self.seen.add(itemid)
        item: dict[str, Any] = {}
        types = node.get("itemtype", "").split()
        if types:
            item["type"] = types[0] if len(types) == 1 else types
            nodeid = node.get("itemid")
            if nodeid:
                item["id"] = nodeid.strip()
        properties: defaultdict[str, list] = defaultdict(list)
        for prop in _PROPERTIES(node):
            for name, value in self._property(prop):
                properties[name].append(value)
        for refid in node.get("itemref", "").split():
            for name, value in self._property_refs(node, refid):
                properties[name].append(value)
        if properties:
            item["properties"] = {k: v[0] if len(v) == 1 else v for k, v in properties.items()}
        else:  # an item without properties: the node itself is its value
            item["value"] = self._value(node, force=True)
        return item

    def _property_refs(self, node: Any, refid: str) -> list[tuple[str, Any]]:
        found = node.xpath("id($refid)[1]", refid=refid)
        if not found:
            return []
        ref = found[0]
        if "itemprop" in ref.attrib and "itemscope" in ref.attrib:
            return self._property(ref)
        scope = ref.xpath("ancestor-or-self::*[@itemscope][1]")
        out: list[tuple[str, Any]] = []
        for prop in ref.xpath("descendant-or-self::*[@itemprop]"):
            if prop.xpath("ancestor::*[@itemscope][1]") == scope:
                out.extend(self._property(prop))
        return out

    def _property(self, node: Any) -> list[tuple[str, Any]]:
        value = self._value(node)
        return [(name, value) for name in node.get("itemprop").split()]

    def _value(self, node: Any, force: bool = False) -> Any:
        """http://www.w3.org/TR/microdata/#values, and schema.org's ``content`` and actions."""
        tag = node.tag
        if not force and node.get("itemscope") is not None:
            return self._item(node)
        if tag == "meta":
            return node.get("content", "")
        attribute = _URL_ATTRIBUTE.get(tag) if isinstance(tag, str) else None
        if attribute is not None:
            return urljoin(self.base_url or "", strip_html5_whitespace(node.get(attribute, "")))
        if tag in ("data", "meter"):
            return node.get("value", "")
        if tag == "time":
            return node.get("datetime", "")
        if node.get("content"):
            return node.get("content")
        itemprop = node.get("itemprop")
        if itemprop and (itemprop.endswith("-input") or itemprop.endswith("-output")):
            return _action_value(node)
        return value_text(node)


def _action_value(node: Any) -> dict[str, Any]:
    """https://schema.org/docs/actions.html#part-4"""
    result: dict[str, Any] = {}
    if "required" in node.attrib:
        result["valueRequired"] = True
    name = node.get("name")
    if name:
        result["valueName"] = name
    return result


def _text_content(node: Any) -> str:
    return html_text.etree_to_text(_CLEANER.clean_html(node))


def value_text(node: Any) -> str:
    """A property's text, without the section heading that opens its element:
    ``<section itemprop=description><h2>Description</h2><p>…`` labels the value, it is not
    part of it."""
    heading = _leading_heading(node)
    if heading is None:
        return _text_content(node)
    copy = deepcopy(node)
    copy.remove(copy[0])  # the heading is the first child (see _leading_heading)
    text = _text_content(copy)
    return text if text.strip() else _text_content(node)


def _leading_heading(node: Any) -> Any:
    """The heading element that opens ``node`` (no text before it), or None (also for a
    whole body, such as an ``articleBody``, which keeps its headings)."""
    if len(node) < 2 or (node.text or "").strip():
        return None
    if _BODY_PROPERTIES & set((node.get("itemprop") or "").split()):
        return None
    first = node[0]
    tag = first.tag if isinstance(first.tag, str) else ""
    if tag.lower() in _HEADINGS or first.get("role") == "heading":
        return first
    return None


# --- extruct's uniform shape (extruct.uniform.flatten_dict) ----------------------------------


def _flatten(element: Any, context: str) -> Any:
    if isinstance(element, dict):
        return _flatten_dict(element, context, False)
    if isinstance(element, list):
        return [_flatten_dict(o, context, False) if isinstance(o, dict) else o for o in element]
    return element


def _flatten_dict(d: dict, schema_context: str, add_context: bool) -> dict:
    out = dict(d)
    typ = out.pop("type", None)
    if not typ:
        return d
    if isinstance(typ, list):
        out["@type"] = typ
        context = schema_context
    else:
        context, out["@type"] = _infer_context(typ, schema_context)
    if add_context:
        out["@context"] = context
    for name, value in out.pop("properties", {}).items():
        out[name] = _flatten(value, schema_context)
    children = out.pop("children", [])
    if children:
        out["children"] = [_flatten(child, schema_context) for child in children]
    return out


def _infer_context(typ: str, context: str) -> tuple[str, str]:
    parsed = urlparse(typ)
    if parsed.netloc:
        base = "".join([parsed.scheme, "://", parsed.netloc])
        if parsed.path and parsed.fragment:
            return urljoin(base, parsed.path), parsed.fragment.strip("/")
        if parsed.path:
            return base, parsed.path.strip("/")
    return context, typ
