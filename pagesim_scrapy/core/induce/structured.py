"""Embedded JSON-LD (schema.org ``Recipe``, ``Product``…) as part of the page's data.

Many pages carry their main record twice: once in the visible HTML, once as JSON-LD for
search engines. The JSON-LD is real data on the page, fetched with it and visible to a
crawler; and it is there even when the visible part is rendered by scripts. Rather than a
second extraction path, each JSON-LD block is turned into a small synthetic subtree appended
to the ``<html>`` element, so that induction treats it exactly like the rest of the page:
values that vary between pages become fields, constant ones are template, arrays become
repeating regions, and the wrapper serialises, merges and describes it with no extra code.

The subtree has a canonical shape so that two pages of one site align node for node::

    <jsonld>
      <div itemprop="jsonld.Recipe">                       one per entity (sorted by type)
        <div itemprop="jsonld.Recipe.name">Toona Melt</div>
        <div itemprop="jsonld.Recipe.recipeIngredient">
          <li itemprop="jsonld.Recipe.recipeIngredient">2 celery stalks</li> …

Keys are sorted, ``@context``/``@id`` are dropped, ``@graph`` members and top-level arrays
become entities, and sizes are bounded (a page cannot blow up the template).

A block nested too deeply for the JSON parser is skipped with a warning; callers that keep
stats count such skips with :func:`recording_skips` (the core stays framework-free).
"""

from __future__ import annotations

import html
import json
import logging
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from lxml import etree

__all__ = [
    "JSONLD_PREFIX",
    "JSONLD_TAG",
    "SKIP_TOO_DEEP",
    "add_jsonld",
    "jsonld_blocks",
    "recording_skips",
]

logger = logging.getLogger(__name__)

Element = etree._Element

#: The tag of the synthetic subtree's root (a child of ``<html>``).
JSONLD_TAG = "jsonld"
#: The prefix of every synthetic element's ``itemprop`` (and so of the field names).
JSONLD_PREFIX = "jsonld"

#: Limits that keep a hostile or huge block from blowing up the template.
MAX_BLOCK_CHARS = 1_000_000
MAX_DEPTH = 6
MAX_LIST = 200
MAX_TEXT = 5_000
MAX_NODES = 3_000
MAX_KEY_CHARS = 60

_KEY_OK = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_TAGS = re.compile(r"<[^>]{0,500}>")
_OPENERS = ("<!--", "<![CDATA[", "//<![CDATA[")
_CLOSERS = ("-->", "]]>", "//]]>")


def jsonld_blocks(root: Element) -> list[str]:
    """The texts of the page's ``<script type="application/ld+json">`` elements."""
    out: list[str] = []
    for el in root.iter("script"):
        kind = el.get("type")
        if kind and "ld+json" in kind.lower():
            text = el.text
            if text and not text.isspace():
                out.append(text)
    return out


#: The reason counted when a block is nested too deeply to parse (a stat name's last part).
SKIP_TOO_DEEP = "jsonld_too_deep"

_SKIPS: ContextVar[Counter[str] | None] = ContextVar("pagesim_jsonld_skips", default=None)


@contextmanager
def recording_skips() -> Iterator[Counter[str]]:
    """Count the JSON-LD blocks skipped inside the ``with``, by reason, for the caller's stats.

    A context variable rather than a return value: the parse sits several calls below the
    learning and extraction entry points, and each thread or task gets its own count.
    """
    counter: Counter[str] = Counter()
    token = _SKIPS.set(counter)
    try:
        yield counter
    finally:
        _SKIPS.reset(token)


def _skipped(reason: str, source: str | None) -> None:
    logger.warning("JSON-LD block skipped on %s: %s", source or "a page", reason)
    counter = _SKIPS.get()
    if counter is not None:
        counter[reason] += 1


def _load(text: str, source: str | None = None) -> Any:
    if len(text) > MAX_BLOCK_CHARS:
        logger.debug("JSON-LD block of %d characters skipped", len(text))
        return None
    text = text.strip()
    for opener in _OPENERS:  # blocks wrapped in a comment or CDATA for old browsers
        if text.startswith(opener):
            text = text[len(opener) :]
            break
    for closer in _CLOSERS:
        if text.endswith(closer):
            text = text[: -len(closer)]
            break
    try:
        return json.loads(text, strict=False)
    except ValueError as exc:
        logger.debug("JSON-LD block that is not valid JSON skipped: %s", exc)
        return None
    except RecursionError:
        _skipped(SKIP_TOO_DEEP, source)
        return None


def _type_name(obj: dict[str, Any]) -> str:
    kind = obj.get("@type")
    if isinstance(kind, list):
        names = sorted(str(k) for k in kind if isinstance(k, (str, int)))
        kind = "_".join(names)
    if not isinstance(kind, str) or not kind:
        return "Thing"
    # "https://schema.org/Recipe" → "Recipe"
    kind = kind.rstrip("/").rsplit("/", 1)[-1]
    kind = re.sub(r"[^A-Za-z0-9_]", "", kind)
    return kind[:MAX_KEY_CHARS] or "Thing"


def _entities(data: Any, out: list[dict[str, Any]], depth: int = 0) -> None:
    """Top-level objects, ``@graph`` members and array items, in order."""
    if depth > 3:
        return
    if isinstance(data, list):
        for item in data[:MAX_LIST]:
            _entities(item, out, depth + 1)
    elif isinstance(data, dict):
        graph = data.get("@graph")
        if isinstance(graph, list):
            _entities(graph, out, depth + 1)
            rest = {k: v for k, v in data.items() if k not in ("@graph", "@context")}
            if any(not k.startswith("@") for k in rest):
                out.append(rest)
        else:
            out.append(data)


def _scalar_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        text = value
        if "&" in text:
            text = html.unescape(text)
        if "<" in text:
            text = _TAGS.sub(" ", text)
        text = " ".join(text.split())
        return text[:MAX_TEXT] or None
    return None


class _Builder:
    """Builds the synthetic subtree with a node budget."""

    def __init__(self) -> None:
        self.budget = MAX_NODES

    def node(self, parent: Element, tag: str, prop: str) -> Element | None:
        if self.budget <= 0:
            return None
        self.budget -= 1
        return etree.SubElement(parent, tag, itemprop=prop)

    def value(self, parent: Element, prop: str, value: Any, depth: int, tag: str = "div") -> None:
        """One key's value under ``parent``: text, an object, or an array."""
        if isinstance(value, dict):
            if not self._has_content(value):
                return
            el = self.node(parent, tag, prop)
            if el is not None:
                self.members(el, prop, value, depth + 1)
        elif isinstance(value, list):
            items = [v for v in value[:MAX_LIST] if v is not None and v != "" and v != {}]
            if not items:
                return
            if len(items) == 1 and not isinstance(items[0], (dict, list)):
                # a one-element array is the same field as a plain value on the next page
                self.value(parent, prop, items[0], depth, tag)
                return
            box = self.node(parent, tag, prop)
            if box is None:
                return
            for item in items:
                if isinstance(item, list):
                    continue  # arrays of arrays carry no field names
                self.value(box, prop, item, depth + 1, tag="li")
        else:
            text = _scalar_text(value)
            if text is not None:
                el = self.node(parent, tag, prop)
                if el is not None:
                    el.text = text

    @staticmethod
    def _has_content(obj: dict[str, Any]) -> bool:
        return any(not str(k).startswith("@") for k in obj)

    def members(self, el: Element, prop: str, obj: dict[str, Any], depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        for key in sorted(k for k in obj if isinstance(k, str)):
            if key.startswith("@") or len(key) > MAX_KEY_CHARS or not _KEY_OK.match(key):
                continue
            self.value(el, f"{prop}.{key}", obj[key], depth)


def add_jsonld(root: Element, blocks: list[str], source: str | None = None) -> Element | None:
    """Append the synthetic subtree of the JSON-LD ``blocks`` to ``root``; returns it (None
    when no block holds an object with data). Invalid blocks are skipped with a debug
    log line, blocks too deep to parse with a warning naming ``source`` (the page URL)."""
    entities: list[dict[str, Any]] = []
    for text in blocks:
        data = _load(text, source)
        if data is not None:
            _entities(data, entities)
    typed = [
        (_type_name(obj), k, obj)
        for k, obj in enumerate(entities)
        if any(isinstance(key, str) and not key.startswith("@") for key in obj)
    ]
    if not typed:
        return None
    typed.sort(key=lambda t: (t[0], t[1]))  # canonical order: by type, then page order
    box = etree.SubElement(root, JSONLD_TAG)
    builder = _Builder()
    for kind, _, obj in typed:
        prop = f"{JSONLD_PREFIX}.{kind}"
        el = builder.node(box, "div", prop)
        if el is None:
            break
        builder.members(el, prop, obj, 1)
    return box
