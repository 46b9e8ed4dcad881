"""The body elements that carry a wanted body key (:func:`.bodyfields.body_fields` with
``wanted``), found without writing out every element's keys.

A settled label asks a page for a few keys only. The elements are walked in page order (a
key's rank counts the elements of its path before it), but a path that begins no wanted path
is dropped with its subtree (no descendant's path can become a wanted one), a key is built
only for an element whose own part ends a wanted key, and the walk ends once every wanted
path has passed its last wanted rank (nothing later can be wanted): the same elements and
keys as writing out all of them, for a fraction of the work.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from lxml import etree

from pagesim_scrapy.core.induce.dom import normalise_classes

__all__ = ["wanted_keyed"]

Element = etree._Element

#: (tag, id, class) -> the element's step (tag and id) and its classes (``.a.b`` or "")
_STEPS: dict[tuple[object, str | None, str | None], tuple[str, str]] = {}
_STEPS_LIMIT = 50_000


def step_and_classes(el: Element) -> tuple[str, str]:
    """An element's path step (tag and stable id) and its stable classes, cached by the
    raw attribute values (a site's pages repeat them)."""
    raw = (el.tag, el.get("id"), el.get("class"))
    found = _STEPS.get(raw)
    if found is None:
        ident = normalise_classes(raw[1])
        classes = normalise_classes(raw[2])
        found = (str(raw[0]) + (f"#{ident}" if ident else ""), f".{classes}" if classes else "")
        if len(_STEPS) >= _STEPS_LIMIT:
            _STEPS.clear()
        _STEPS[raw] = found
    return found


class _Plan(NamedTuple):
    """The wanted paths by kind, with what a path on the way to one of them looks like."""

    ranks: dict[str, set[int]]
    #: each wanted path's last wanted rank
    last: dict[str, int]
    full_prefixes: frozenset[str]
    bare_prefixes: frozenset[str]
    local_owns: frozenset[str]


_PLANS: dict[frozenset[str], _Plan] = {}
_PLANS_LIMIT = 64


def _plan(wanted: frozenset[str], coarse: str, local: str) -> _Plan:
    found = _PLANS.get(wanted)
    if found is None:
        found = _make_plan(wanted, coarse, local)
        if len(_PLANS) >= _PLANS_LIMIT:
            _PLANS.clear()
        _PLANS[wanted] = found
    return found


def _make_plan(wanted: frozenset[str], coarse: str, local: str) -> _Plan:
    ranks: dict[str, set[int]] = {}
    full: set[str] = set()
    bare: set[str] = set()
    owns: set[str] = set()
    for key in wanted:
        path, _, rank = key[: key.rfind("]")].rpartition("[")
        if not (rank.isascii() and rank.isdigit()):  # any other key is none the walk makes
            continue
        ranks.setdefault(path, set()).add(int(rank))
        if path.startswith(local):
            # the element's own part follows one of the path's slashes
            owns.update(path[i + 1 :] for i, char in enumerate(path) if char == "/")
        elif path.startswith(coarse):
            bare.update(path[len(coarse) : i] for i in range(len(coarse), len(path) + 1))
        else:
            full.update(path[:i] for i in range(len(path) + 1))
    last = {path: max(wanted_ranks) for path, wanted_ranks in ranks.items()}
    return _Plan(ranks, last, frozenset(full), frozenset(bare), frozenset(owns))


def wanted_keyed(
    body: Element,
    wanted: frozenset[str],
    marks: tuple[str, str],
    skipped: tuple[frozenset[str], frozenset[Element]],
    max_elements: int,
) -> Iterator[tuple[Element, list[str]]]:
    """The elements under ``body`` that have a wanted key, each with its wanted keys
    (``path[rank]``, without the value's suffix) in the order full, coarse, local. Walked as
    :func:`.bodyfields._elements` walks: not into the ``skipped`` tags but for the fallbacks
    given, at most ``max_elements``; ``marks`` are the coarse and local keys' marks."""
    coarse, local = marks
    plan = _plan(wanted, coarse, local)
    full_prefixes, bare_prefixes, local_owns = plan[2:]
    seen: dict[str, int] = {}
    #: wanted paths that have not passed their last wanted rank yet
    left = [len(plan.last)]
    step, classes = step_and_classes(body)
    stack: list[tuple[Element, str, str, str | None, str | None, str]] = [
        (body, step, classes, "body", "body", "body")
    ]
    walked = 0
    while stack and walked < max_elements and left[0]:
        el, step, classes, full, bare, parent = stack.pop()
        walked += 1
        own = step + classes
        if full is not None:
            full += classes
            if full not in full_prefixes:
                full = None
        if bare is not None and bare not in bare_prefixes:
            bare = None
        if full is not None or bare is not None or own in local_owns:
            paths = (
                full,
                None if bare is None else coarse + bare + classes,
                f"{local}{parent}/{own}" if own in local_owns else None,
            )
            keys = _ranked(paths, plan, seen, left)
            if keys:
                yield el, keys
        stack.extend(_children(el, skipped, full, bare, own))


def _children(
    el: Element,
    skipped: tuple[frozenset[str], frozenset[Element]],
    full: str | None,
    bare: str | None,
    own: str,
) -> list[tuple[Element, str, str, str | None, str | None, str]]:
    """The walk's entries for ``el``'s walkable children, last child first (popped in page
    order); a child's paths are left out (None) where its parent's were."""
    skip, fallbacks = skipped
    out = []
    for child in reversed(el):
        tag = child.tag
        if tag.__class__ is str and (tag not in skip or child in fallbacks):
            step, classes = step_and_classes(child)
            out.append(
                (
                    child,
                    step,
                    classes,
                    None if full is None else f"{full}/{step}",
                    None if bare is None else f"{bare}/{step}",
                    own,
                )
            )
    return out


def _ranked(
    paths: tuple[str | None, ...], plan: _Plan, seen: dict[str, int], left: list[int]
) -> list[str]:
    """The wanted ``path[rank]`` keys among ``paths``, counting each wanted path's elements
    (``left``: the wanted paths not past their last wanted rank, counted down)."""
    keys = []
    for path in paths:
        if path is None:
            continue
        wanted_ranks = plan.ranks.get(path)
        if wanted_ranks is None:
            continue
        rank = seen.get(path, 0)
        seen[path] = rank + 1
        if rank in wanted_ranks:
            keys.append(f"{path}[{rank}]")
        if rank == plan.last[path]:
            left[0] -= 1
    return keys
