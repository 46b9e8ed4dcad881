"""A page's breadcrumb trail as its body shows it, where its structured data states none.

Many shops mark their trail only in the body: a ``<nav>``, ``<ol>`` or ``<ul>`` whose role,
``aria-label``, class or id says "breadcrumb" (the WAI-ARIA breadcrumb pattern, and the class
name every theme uses). Read from there it has the shape of a ``BreadcrumbList``
(``[{name, url}]`` in page order), so a user gets one ``breadcrumbs`` field whatever the
site's markup, and the wrapper's copy of the same links is a repeat of it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any
from urllib.parse import urljoin

from .fields import FIELDS
from .model import CoreRecord, Value

__all__ = ["body_breadcrumbs", "with_body_breadcrumbs"]

_TRAIL = re.compile(r"bread[-_ ]?crumb", re.I)
_SPACE = re.compile(r"\s+")
_CONTAINERS = ("nav", "ol", "ul", "div", "p")
_MAX_CRUMBS = 12
#: a crumb's text longer than this is not a crumb (a paragraph inside the container)
_MAX_NAME = 120


def _text(el: Any) -> str:
    return _SPACE.sub(" ", "".join(el.itertext())).strip()


def _is_trail(el: Any) -> bool:
    marks = " ".join(str(el.get(a) or "") for a in ("role", "aria-label", "class", "id"))
    return bool(_TRAIL.search(marks))


def _trail_root(root: Any) -> Any:
    """The outermost element the page marks as its breadcrumb trail (None without one)."""
    for el in root.iter(*_CONTAINERS):
        if _is_trail(el):
            return el
    return None


def _items(trail: Any) -> list[Any]:
    """The trail's crumbs: its list items, else its links (a trail written as ``a › a``)."""
    items = list(trail.iter("li"))
    return items if items else list(trail.iter("a"))


def _crumb(item: Any, url: str) -> dict[str, Any] | None:
    name = _text(item)
    if not name or len(name) > _MAX_NAME or not any(ch.isalnum() for ch in name):
        return None
    link = item if item.tag == "a" else next(item.iter("a"), None)
    href = str(link.get("href") or "").strip() if link is not None else ""
    crumb: dict[str, Any] = {"name": name}
    if href and not href.startswith(("#", "javascript:")):
        crumb["url"] = urljoin(url, href)
    return crumb


def body_breadcrumbs(root: Any, url: str = "") -> list[dict[str, Any]]:
    """``[{name, url}]`` of the trail the page's body marks as its breadcrumbs, in page
    order (the current page's crumb has no ``url``); empty without one."""
    if root is None:
        return []
    trail = _trail_root(root)
    if trail is None:
        return []
    crumbs = [c for c in (_crumb(item, url) for item in _items(trail)) if c is not None]
    return crumbs[:_MAX_CRUMBS] if len(crumbs) >= 2 else []


def with_body_breadcrumbs(record: CoreRecord, found: list[dict[str, Any]]) -> CoreRecord:
    """``record`` with the body's trail (source ``body``) where its page type has
    breadcrumbs and its structured data states none; the fields stay in standard order."""
    specs = FIELDS.get(record.page_type, ())
    order = [spec.name for spec in specs]
    if "breadcrumbs" not in order or "breadcrumbs" in record.fields or not found:
        return record
    fields = dict(record.fields, breadcrumbs=Value(found, "body"))
    ordered = {name: fields[name] for name in order if name in fields}
    ordered.update((k, v) for k, v in fields.items() if k not in ordered)
    return replace(record, fields=ordered)
