"""Microdata and RDFa through extruct, made to look like JSON-LD entities.

extruct's readers are well kept and follow the specs (itemref, nested itemscopes, RDFa
prefixes) better than a hand-written walk; the record only needs them in one shape, the
compact JSON-LD one (``{"@type": "Product", "name": …}``), so every later step has one
kind of input. Each reader is imported alone (:mod:`.extruct_parts`: extruct's package
imports every syntax's reader), with the first page that has its markers, not with the
record.
"""

from __future__ import annotations

import logging
from copy import deepcopy
from functools import cache
from typing import Any

import lxml.html
from lxml import etree

from .extruct_parts import extruct_module
from .options import RecordOptions

__all__ = ["has_microdata", "has_rdfa", "read_microdata", "read_rdfa"]

logger = logging.getLogger(__name__)

_SCHEMA_PREFIXES = ("http://schema.org/", "https://schema.org/")


_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
#: properties whose text is a whole body: its headings are part of it
_BODY_PROPERTIES = frozenset(("articleBody", "text"))


@cache
def _value_text_extractor() -> Any:
    """extruct's microdata reader, reading a property's text without the section heading
    that opens its element: ``<section itemprop=description><h2>Description</h2><p>…``
    labels the value, it is not part of it."""
    microdata_extractor = extruct_module("w3cmicrodata").MicrodataExtractor

    class ValueTextExtractor(microdata_extractor):  # type: ignore[misc,valid-type]
        def extract_items(self, document: Any, base_url: Any) -> list[Any]:
            # extruct's own searches the whole document for its items twice (their ids,
            # then the items); the record reads from the root, where both are one list
            root = document.getroottree().getroot()
            found = self._xp_item(root)
            itemids = {node: index + 1 for index, node in enumerate(found)}
            nodes = found if document is root else self._xp_item(document)
            seen: set[Any] = set()
            read = (
                self._extract_item(node, items_seen=seen, base_url=base_url, itemids=itemids)
                for node in nodes
            )
            return [item for item in read if item]

        def _extract_textContent(self, node: Any) -> Any:
            heading = _leading_heading(node)
            if heading is None:
                return super()._extract_textContent(node)
            copy = deepcopy(node)
            copy.remove(copy[0])  # the heading is the first child (see _leading_heading)
            text = super()._extract_textContent(copy)
            return text if text.strip() else super()._extract_textContent(node)

    return ValueTextExtractor


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


def _mentions(source: str | bytes | None, words: tuple[str, ...]) -> bool:
    """Whether the page's source holds one of the attribute names ``words`` in any case
    (``None``: not known, perhaps). An attribute's name is written out in the source, so a
    page that never spells it has no such attribute, and its tree need not be searched."""
    if source is None:
        return True
    if isinstance(source, bytes):
        lowered = source.lower()  # ASCII only, as the HTML parser folds names
        return any(word.encode("ascii") in lowered for word in words)
    folded = source.lower()
    return any(word in folded for word in words)


def _has_attribute(root: etree._Element, name: str) -> bool:
    """Whether an element of ``root``'s document has the attribute ``name`` (as the XPath
    ``//*[@name]`` finds them); the search stops at the first one."""
    top = root.getroottree().getroot()
    return top.get(name) is not None or top.find(f".//*[@{name}]") is not None


def has_microdata(root: etree._Element, source: str | bytes | None = None) -> bool:
    """Whether the page has a microdata item (extruct reads nothing else); ``source`` (the
    page's HTML, optional) spares the tree's search on a page that never names one."""
    return _mentions(source, ("itemscope",)) and _has_attribute(root, "itemscope")


def read_microdata(
    root: etree._Element, url: str = "", source: str | bytes | None = None
) -> list[dict]:
    """The page's microdata items as compact JSON-LD-like objects, in document order
    (``source``: the page's HTML, as :func:`has_microdata` takes it)."""
    if not has_microdata(root, source):
        return []
    uniform = extruct_module("uniform")
    try:
        items = _value_text_extractor()().extract_items(root, base_url=url or None)
        return [e for e in uniform._umicrodata_microformat(items, "http://schema.org") if e]
    except (RecursionError, ValueError, TypeError, AttributeError, KeyError) as exc:
        logger.warning("microdata of %s skipped: %s", url or "the page", type(exc).__name__)
        return []


def has_rdfa(root: etree._Element, source: str | bytes | None = None) -> bool:
    """Whether the page has RDFa markers worth the RDFa parser's cost (``source`` as
    :func:`has_microdata` takes it)."""
    if not _mentions(source, ("vocab", "typeof")):
        return False
    return _has_attribute(root, "vocab") or _has_attribute(root, "typeof")


def read_rdfa(
    html: str | bytes, options: RecordOptions, url: str = "", parsed: etree._Element | None = None
) -> list[dict]:
    """schema.org entities from the page's RDFa, as compact JSON-LD-like objects.

    ``parsed`` is the page's tree as the record parsed it: in ``auto`` mode a page without
    RDFa markers there is not parsed again for the RDFa parser's own tree."""
    if options.rdfa == "never":
        return []
    if options.rdfa == "auto" and parsed is not None and not has_rdfa(parsed, html):
        return []
    rdfa = extruct_module("rdfa")  # pyRdfa and rdflib: only for a page with RDFa
    xmldom = extruct_module("xmldom")
    try:
        tree = lxml.html.fromstring(html, parser=xmldom.XmlDomHTMLParser(encoding="UTF-8"))
        if options.rdfa == "auto" and not has_rdfa(tree):
            return []
        nodes = rdfa.RDFaExtractor().extract_items(tree, base_url=url or None)
    except Exception as exc:  # the RDFa stack (pyRdfa, rdflib) raises many kinds
        logger.warning("RDFa of %s skipped: %s", url or "the page", type(exc).__name__)
        return []
    return _compact(nodes, options.max_depth)


def _compact(nodes: list[dict], max_depth: int) -> list[dict]:
    """Expanded RDFa nodes → compact objects; references resolved, unreferenced ones kept."""
    by_id = {n.get("@id"): n for n in nodes if isinstance(n, dict)}
    referenced = {
        ref.get("@id")
        for n in by_id.values()
        for key, values in n.items()
        if not key.startswith("@") and isinstance(values, list)
        for ref in values
        if isinstance(ref, dict) and "@id" in ref
    }
    out = []
    for node_id, node in by_id.items():
        if node_id in referenced or not _schema_types(node):
            continue
        out.append(_node(node, by_id, max_depth))
    return out


def _schema_types(node: dict) -> list[str]:
    return [
        t[len(p) :]
        for t in node.get("@type", [])
        for p in _SCHEMA_PREFIXES
        if isinstance(t, str) and t.startswith(p)
    ]


def _node(node: dict, by_id: dict, depth: int) -> dict:
    out: dict[str, Any] = {"@type": _schema_types(node) or node.get("@type", [])}
    for key, values in node.items():
        name = next((key[len(p) :] for p in _SCHEMA_PREFIXES if key.startswith(p)), None)
        if name is None or not isinstance(values, list):
            continue
        items = [_value(v, by_id, depth - 1) for v in values]
        kept = [v for v in items if v is not None]
        if kept:
            out[name] = kept[0] if len(kept) == 1 else kept
    return out


def _value(value: Any, by_id: dict, depth: int) -> Any:
    if not isinstance(value, dict):
        return value
    if "@value" in value:
        return value["@value"]
    ref = value.get("@id")
    if ref in by_id and depth > 0:
        return _node(by_id[ref], by_id, depth)
    return ref
