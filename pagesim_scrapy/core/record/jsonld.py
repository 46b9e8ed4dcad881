"""JSON-LD blocks read one by one, so that one broken, huge or deep block loses only itself.

extruct parses every block of a page in one call: a single bad block there either raises or
drops the page's whole JSON-LD. Here each block is parsed on its own, with the same lenient
fallback extruct uses (``jstyleson`` for blocks wrapped in comments), and bounded in size
and depth before anything walks it.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import jstyleson
from lxml import etree

from .options import RecordOptions

__all__ = ["json_depth", "read_jsonld"]

logger = logging.getLogger(__name__)

_COMMENT_LINE = re.compile(r"^\s*(//.*|<!--.*-->)", re.MULTILINE)
_WRAPPERS = (("<!--", "-->"), ("<![CDATA[", "]]>"), ("//<![CDATA[", "//]]>"))


def read_jsonld(root: etree._Element, options: RecordOptions, url: str = "") -> list[dict]:
    """The entities (JSON objects) of the page's JSON-LD blocks, in document order."""
    entities: list[dict] = []
    for index, text in enumerate(_block_texts(root)):
        data = _load(text, index, options, url)
        if data is not None:
            entities.extend(_entities(data))
    return entities


def _block_texts(root: etree._Element) -> list[str]:
    texts = []
    for el in root.iter("script"):
        kind = (el.get("type") or "").lower()
        if "ld+json" in kind and el.text and not el.text.isspace():
            texts.append(el.text)
    return texts


def _load(text: str, index: int, options: RecordOptions, url: str) -> Any:
    if len(text) > options.max_block_chars:
        logger.warning(
            "JSON-LD block %d of %s skipped: %d characters (limit %d)",
            index,
            url or "the page",
            len(text),
            options.max_block_chars,
        )
        return None
    try:
        data = _parse(text)
    except RecursionError:
        logger.warning(
            "JSON-LD block %d of %s skipped: nested too deep to parse", index, url or "the page"
        )
        return None
    except ValueError as exc:
        logger.warning(
            "JSON-LD block %d of %s skipped: not JSON (%s)", index, url or "the page", str(exc)[:80]
        )
        return None
    depth = json_depth(data, options.max_depth + 1)
    if depth > options.max_depth:
        logger.warning(
            "JSON-LD block %d of %s skipped: nested deeper than %d",
            index,
            url or "the page",
            options.max_depth,
        )
        return None
    return data


def _parse(text: str) -> Any:
    text = text.strip()
    try:
        return json.loads(text, strict=False)
    except ValueError:
        pass
    for opener, closer in _WRAPPERS:
        if text.startswith(opener) and text.endswith(closer):
            text = text[len(opener) : -len(closer)]
            break
    return jstyleson.loads(_COMMENT_LINE.sub("", text), strict=False)


def json_depth(data: Any, limit: int) -> int:
    """The nesting depth of a JSON value, counted without recursion and up to ``limit``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, (dict, list)):
            continue
        deepest = max(deepest, depth)
        if deepest >= limit:
            return deepest
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children)
    return deepest


def _entities(data: Any) -> list[dict]:
    """Top-level objects, with ``@graph`` members lifted to the top level."""
    if isinstance(data, list):
        return [e for item in data for e in _entities(item)]
    if not isinstance(data, dict):
        return []
    graph = data.get("@graph")
    if graph is None:
        return [data]
    members = graph if isinstance(graph, list) else [graph]
    own = [data] if "@type" in data else []
    return own + [m for m in members if isinstance(m, dict)]
