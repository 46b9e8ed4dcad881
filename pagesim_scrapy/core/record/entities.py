"""Walking schema.org entities: their types, nested members, and values along a path."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

__all__ = ["find_entity", "resolve", "types_of", "walk"]

_SCHEMA_PREFIXES = ("http://schema.org/", "https://schema.org/", "schema:")


def types_of(entity: dict) -> list[str]:
    """The entity's schema.org type names, short (``Product``, not a URL)."""
    raw = entity.get("@type")
    items = raw if isinstance(raw, list) else [raw]
    out = []
    for item in items:
        if not isinstance(item, str):
            continue
        for prefix in _SCHEMA_PREFIXES:
            if item.startswith(prefix):
                item = item[len(prefix) :]
                break
        out.append(item.strip())
    return out


def walk(entities: list[dict], max_depth: int) -> Iterator[dict]:
    """Every object in the entities and their members, pre-order (document order)."""
    stack: list[tuple[Any, int]] = [(e, 0) for e in reversed(entities)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            continue
        if isinstance(node, dict):
            yield node
            children = [v for k, v in node.items() if k != "@context"]
        elif isinstance(node, list):
            children = node
        else:
            continue
        stack.extend((child, depth + 1) for child in reversed(children))


def find_entity(entities: list[dict], wanted: frozenset[str], max_depth: int) -> dict | None:
    """The first object (document order, members included) of one of the wanted types."""
    for node in walk(entities, max_depth):
        if any(t in wanted for t in types_of(node)):
            return node
    return None


def resolve(entity: Any, path: str) -> list[Any]:
    """The values at a dotted path (``offers.price``); a list on the way fans out, in order."""
    current = [entity]
    for part in path.split("."):
        found: list[Any] = []
        for node in current:
            for member in node if isinstance(node, list) else [node]:
                if isinstance(member, dict) and part in member:
                    value = member[part]
                    found.extend(value if isinstance(value, list) else [value])
        current = found
        if not current:
            break
    return current
