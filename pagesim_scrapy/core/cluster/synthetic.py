"""Perturbed copies of real pages, for testing clustering at crawl scale without a crawl.

Pages of one type differ by what a template engine varies: optional blocks missing, repeated
blocks repeated more or fewer times, blocks in another order, generated ids. Each variant applies
a few such edits to an lxml tree -- drop a subtree, duplicate a subtree, reorder the children of
an element, change ids -- is summarised, and the edits are undone, so a base tree can yield any
number of variants without being copied. Everything is driven by a seeded ``random.Random``:
the same seed gives the same pages.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pagesim_scrapy.core.summary import (
    DEFAULT_OPTIONS,
    PageSummary,
    SummaryOptions,
    summarize_tree,
)

_SKIP = frozenset({"script", "style", "noscript", "template", "head", "html", "body"})


@dataclass
class _Base:
    root: Any
    label: str
    small: list[Any]  # elements whose subtree is small enough to drop or duplicate
    parents: list[Any]  # elements with at least two element children


def _prepare(root: Any, label: str, max_share: float) -> _Base:
    body = root.find("body") if root.tag == "html" else None
    start = body if body is not None else root
    elements = [el for el in start.iter() if isinstance(el.tag, str) and el.tag not in _SKIP]
    total = max(1, len(elements))
    limit = max(3, int(total * max_share))
    small = []
    parents = []
    for el in elements:
        size = sum(1 for node in el.iter() if isinstance(node.tag, str))
        if size <= limit and el.getparent() is not None:
            small.append(el)
        if sum(1 for child in el if isinstance(child.tag, str)) >= 2:
            parents.append(el)
    return _Base(root, label, small, parents)


class Perturber:
    """Makes variants of base pages; ``variants(count, seed)`` yields (label, summary) pairs.

    ``edits`` is the largest number of edits of each kind per variant (at least one edit of some
    kind is always made); ``max_share`` caps a dropped or duplicated subtree at that share of
    the page's elements, so that a variant keeps its page type.
    """

    def __init__(
        self,
        roots: Sequence[Any],
        labels: Sequence[str],
        *,
        edits: int = 3,
        max_share: float = 0.05,
        options: SummaryOptions = DEFAULT_OPTIONS,
    ) -> None:
        if len(roots) != len(labels):
            raise ValueError("roots and labels differ in length")
        if not roots:
            raise ValueError("no base pages")
        self.bases = [_prepare(root, label, max_share) for root, label in zip(roots, labels)]
        self.edits = edits
        self.options = options

    def variant(
        self, base_index: int, rng: random.Random, source: str | None = None
    ) -> PageSummary:
        """One perturbed summary of base ``base_index`` (the base tree is left as it was)."""
        base = self.bases[base_index]
        undo: list[Any] = []
        try:
            self._perturb(base, rng, undo)
            return summarize_tree(base.root, self.options, source=source)
        finally:
            for action in reversed(undo):
                action()

    def variants(self, count: int, seed: int = 0) -> Iterator[tuple[str, PageSummary]]:
        """``count`` variants cycling over the bases; variant i depends only on (seed, i)."""
        for i in range(count):
            base_index = i % len(self.bases)
            rng = random.Random(seed * 1_000_003 + i)
            summary = self.variant(base_index, rng, source=f"synthetic/{base_index}/{i}")
            yield self.bases[base_index].label, summary

    def _perturb(self, base: _Base, rng: random.Random, undo: list[Any]) -> None:
        counts = [rng.randint(0, self.edits) for _ in range(4)]
        if not any(counts):
            counts[rng.randrange(4)] = 1
        n_ids, n_reorder, n_duplicate, n_drop = counts
        for el in _sample(rng, base.small, n_ids):
            old = el.get("id")
            token = "".join(rng.choice("abcdef0123456789") for _ in range(8))
            el.set("id", f"{el.tag}-{token}" if old is None else f"{old}-{rng.randrange(10**6)}")
            undo.append(_restore_attr(el, "id", old))
        for el in _sample(rng, base.parents, n_reorder):
            children = list(el)
            shuffled = list(children)
            rng.shuffle(shuffled)
            el[:] = shuffled
            undo.append(_restore_children(el, children))
        for el in _sample(rng, base.small, n_duplicate):
            parent = el.getparent()
            if parent is None:
                continue
            twin = copy.deepcopy(el)
            twin.tail = None
            parent.insert(parent.index(el) + 1, twin)
            undo.append(_remover(parent, twin))
        for el in _sample(rng, base.small, n_drop):
            parent = el.getparent()
            if parent is None:
                continue
            position = parent.index(el)
            parent.remove(el)
            undo.append(_inserter(parent, position, el))


def _sample(rng: random.Random, items: Sequence[Any], count: int) -> list[Any]:
    if not items or count <= 0:
        return []
    return rng.sample(items, min(count, len(items)))


def _restore_attr(el: Any, name: str, old: str | None) -> Any:
    def action() -> None:
        if old is None:
            el.attrib.pop(name, None)
        else:
            el.set(name, old)

    return action


def _restore_children(el: Any, children: list[Any]) -> Any:
    def action() -> None:
        el[:] = children

    return action


def _remover(parent: Any, child: Any) -> Any:
    def action() -> None:
        parent.remove(child)

    return action


def _inserter(parent: Any, position: int, child: Any) -> Any:
    def action() -> None:
        parent.insert(position, child)

    return action
