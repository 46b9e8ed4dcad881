"""Microdata and RDFa, made to look like JSON-LD entities.

The readers follow the specs (itemref, nested itemscopes, RDFa prefixes) better than a
hand-written walk: microdata is extruct's reader (:mod:`.microdata`, without extruct's
package import), RDFa is extruct's, imported with the first page that has RDFa markers
(it loads pyRdfa and rdflib). The record only needs them in one shape, the compact JSON-LD
one (``{"@type": "Product", "name": …}``), so every later step has one kind of input.
"""

from __future__ import annotations

import logging
from typing import Any

import lxml.html
from lxml import etree

from .microdata import _leading_heading, schema_items  # noqa: F401  (kept importable)
from .options import RecordOptions

__all__ = ["has_rdfa", "read_microdata", "read_rdfa"]

logger = logging.getLogger(__name__)

_SCHEMA_PREFIXES = ("http://schema.org/", "https://schema.org/")


def read_microdata(root: etree._Element, url: str = "") -> list[dict]:
    """The page's microdata items as compact JSON-LD-like objects, in document order."""
    try:
        return [e for e in schema_items(root, url or None) if e]
    except (RecursionError, ValueError, TypeError, AttributeError, KeyError) as exc:
        logger.warning("microdata of %s skipped: %s", url or "the page", type(exc).__name__)
        return []


def has_rdfa(root: etree._Element) -> bool:
    """Whether the page has RDFa markers worth the RDFa parser's cost."""
    return bool(root.xpath("//*[@vocab or @typeof][1]"))


def read_rdfa(
    html: str | bytes, options: RecordOptions, url: str = "", parsed: etree._Element | None = None
) -> list[dict]:
    """schema.org entities from the page's RDFa, as compact JSON-LD-like objects.

    ``parsed`` is the page's tree as the record parsed it: in ``auto`` mode a page without
    RDFa markers there is not parsed again for the RDFa parser's own tree."""
    if options.rdfa == "never":
        return []
    if options.rdfa == "auto" and parsed is not None and not has_rdfa(parsed):
        return []
    from extruct.rdfa import RDFaExtractor  # pyRdfa and rdflib: only for a page with RDFa
    from extruct.xmldom import XmlDomHTMLParser

    try:
        tree = lxml.html.fromstring(html, parser=XmlDomHTMLParser(encoding="UTF-8"))
        if options.rdfa == "auto" and not has_rdfa(tree):
            return []
        nodes = RDFaExtractor().extract_items(tree, base_url=url or None)
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
