"""Tree edit distance (TED) between page structures, and the ``ted`` similarity measure.

Exact ordered labelled tree edit distance (Zhang & Shasha, 1989): the minimum total cost of
node deletions, insertions and renames turning one tree into the other.  The dynamic programme
runs in the optional C extension :mod:`pagesim_scrapy.core.similarity._ted` when it was built
(``pip install .`` builds it where a C compiler is available) and in the pure-Python fallback
below otherwise; both give the same numbers, the C one far faster.

For small integer costs (unit costs included) on x86-64 CPUs with AVX2, the C extension runs a
vectorised kernel (:func:`c_kernel` says which one runs): 16 DP cells per instruction, and an
exact band: it first computes only the cells whose two prefixes differ in length by at most k
nodes, and keeps that answer only when it proves that no optimal edit script leaves the band
(at most k deletions and k insertions), else widens the band once.  Pages of one type, whose
distance is much smaller than the trees, then cost a fraction of the full DP.  The comments in
``_ted.c`` give the argument.

Trees are flat arrays in document order (preorder): ``labels[i]`` is an int code of node
``i`` and ``parents[i]`` the index of its parent, ``-1`` for the root at index 0.  Everything
here is iterative, so trees nested 10,000 or more deep are fine.

Two normalisations of the distance into a similarity in [0, 1] (1.0 for identical trees):

* ``variant="seed004"`` (seed 004, structural similarity of DOM trees):
  ``similarity = 1 - TED / (gamma_max * (|T1| + |T2|))``, where ``gamma_max`` is the largest
  of the three costs unless given;
* ``variant="seed003"`` (seed 003, equation (2)): ``es = 1 - ed / (len(T1) + len(T2))`` with
  ``ed = S*p + D*q + I*r``, the cost-weighted distance (S renames, D deletions, I insertions;
  p, q, r = ``rename_cost``, ``delete_cost``, ``insert_cost``).  With costs above 1 this can
  fall below 0: it is clamped to [0, 1].

At crawl time, :func:`prune_tree` shrinks the trees first (depth limit; runs of identical
sibling subtrees, like the rows of a listing, collapsed into one), which keeps the distance
about the template rather than about how many items a page happens to list.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Sequence
from typing import Any, Protocol

try:  # the optional C accelerator (imported by full name: the package may hold other `_ted`s)
    _ted_c: Any = importlib.import_module("pagesim_scrapy.core.similarity._ted")
except ImportError:  # pragma: no cover - depends on the build
    _ted_c = None

__all__ = [
    "DEFAULT_MAX_CELLS",
    "HAVE_C_EXTENSION",
    "VARIANTS",
    "TreeTooLargeError",
    "c_kernel",
    "prune_tree",
    "ted_similarity",
    "tree_edit_distance",
    "tree_edit_distance_py",
]

#: True when the C implementation was built and imported.
HAVE_C_EXTENSION: bool = _ted_c is not None

#: Refuse a pair of trees whose node counts multiply to more than this (the DP needs two
#: matrices of that many cells: 2 bytes each for unit costs on trees below ~16,000 nodes
#: together, else 4 or 8).  400 million cells is 20,000 x 20,000 nodes.
DEFAULT_MAX_CELLS = 400_000_000

#: Normalisations accepted by :func:`ted_similarity`.
VARIANTS = ("seed004", "seed003")


class TreeTooLargeError(ValueError):
    """A tree is larger than the exact tree edit distance is allowed to handle."""


def c_kernel() -> str:
    """Which implementation runs small-integer-cost distances, for logs and benchmarks.

    "avx2" (the vectorised, banded C kernel), "c" (the scalar C code: no AVX2 on this CPU, or
    an extension built without it) or "python" (no C extension).
    """
    if _ted_c is None:
        return "python"
    kernel = getattr(_ted_c, "simd_kernel", None)  # absent in builds of an older _ted.c
    name = kernel() if kernel is not None else "none"
    return "c" if name == "none" else str(name)


class _Summary(Protocol):  # what ted_similarity needs from a page summary
    parents: Sequence[int]

    def codes(self, relation: str) -> Sequence[int]: ...


# --------------------------------------------------------------------------------------------
# Low level: distance between two trees given as arrays
# --------------------------------------------------------------------------------------------


def tree_edit_distance(
    labels1: Sequence[int],
    parents1: Sequence[int],
    labels2: Sequence[int],
    parents2: Sequence[int],
    *,
    insert_cost: float = 1.0,
    delete_cost: float = 1.0,
    rename_cost: float = 1.0,
    max_cells: int = DEFAULT_MAX_CELLS,
) -> float:
    """Exact ordered tree edit distance from tree 1 to tree 2 (Zhang-Shasha).

    ``delete_cost`` is paid for each node of tree 1 removed, ``insert_cost`` for each node of
    tree 2 added, ``rename_cost`` for each matched pair with different labels.  Raises
    :class:`ValueError` for malformed trees (not in document order, several roots, lengths
    differing), negative or non-finite costs, and :class:`TreeTooLargeError` (a ValueError)
    when ``len(labels1) * len(labels2) > max_cells``.  Uses the C extension when available.
    """
    if _ted_c is not None:
        try:
            return float(
                _ted_c.tree_edit_distance(
                    labels1,
                    parents1,
                    labels2,
                    parents2,
                    insert_cost,
                    delete_cost,
                    rename_cost,
                    max_cells,
                )
            )
        except ValueError as exc:
            if str(exc).startswith("trees too large"):
                raise TreeTooLargeError(str(exc)) from None
            raise
    return tree_edit_distance_py(
        labels1,
        parents1,
        labels2,
        parents2,
        insert_cost=insert_cost,
        delete_cost=delete_cost,
        rename_cost=rename_cost,
        max_cells=max_cells,
    )


def _check_cost(value: float, name: str) -> float:
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0")
    return value


def _validate(labels: Sequence[int], parents: Sequence[int], which: str) -> tuple[list[int], ...]:
    """Check the document-order structure; return labels, parents, subtree sizes, depths."""
    labels = [int(v) for v in labels]
    parents = [int(v) for v in parents]
    n = len(labels)
    if len(parents) != n:
        raise ValueError(f"{which}: labels and parents differ in length ({n} != {len(parents)})")
    if n == 0:
        return labels, parents, [], []
    if parents[0] != -1:
        raise ValueError(f"{which}: parents[0] must be -1 (node 0 is the root)")
    depth = [0] * n
    stack = [0]
    for i in range(1, n):
        p = parents[i]
        if p < 0 or p >= i:
            raise ValueError(
                f"{which}: parents[{i}] = {p} is not the index of an earlier node "
                "(nodes must be in document order, one root)"
            )
        while stack and stack[-1] != p:
            stack.pop()
        if not stack:
            raise ValueError(
                f"{which}: node {i}'s parent {p} is not on the path to node {i - 1}: "
                "nodes are not in document order (preorder)"
            )
        stack.append(i)
        depth[i] = depth[p] + 1
    size = [1] * n
    for i in range(n - 1, 0, -1):
        size[parents[i]] += size[i]
    return labels, parents, size, depth


def _keyroot_cost(parents: list[int], size: list[int], mirror: bool) -> int:
    """Sum of the keyroot subtree sizes of the left (or mirrored, right) decomposition."""
    n = len(parents)
    total = size[0]
    for i in range(1, n):
        if mirror:
            nxt = i + size[i]
            is_key = nxt < n and parents[nxt] == parents[i]  # has a next sibling
        else:
            is_key = parents[i] != i - 1  # not a first child
        if is_key:
            total += size[i]
    return total


def _prepare(
    labels: list[int], size: list[int], depth: list[int], mirror: bool
) -> tuple[list[int], list[int], list[int]]:
    """Labels and leftmost leaves in decomposition order (postorder or mirrored), keyroots."""
    n = len(labels)
    lab = [0] * n
    lml = [0] * n
    for i in range(n):
        p = n - 1 - i if mirror else i - depth[i] + size[i] - 1
        lab[p] = labels[i]
        lml[p] = p - size[i] + 1
    keyfor = {}
    for p in range(n):
        keyfor[lml[p]] = p
    keyroots = sorted(keyfor.values())
    return lab, lml, keyroots


def tree_edit_distance_py(
    labels1: Sequence[int],
    parents1: Sequence[int],
    labels2: Sequence[int],
    parents2: Sequence[int],
    *,
    insert_cost: float = 1.0,
    delete_cost: float = 1.0,
    rename_cost: float = 1.0,
    max_cells: int = DEFAULT_MAX_CELLS,
) -> float:
    """Pure-Python :func:`tree_edit_distance` (same arguments, same results, far slower)."""
    ins = _check_cost(insert_cost, "insert_cost")
    dele = _check_cost(delete_cost, "delete_cost")
    ren = _check_cost(rename_cost, "rename_cost")
    l1, p1, s1, d1 = _validate(labels1, parents1, "tree 1")
    l2, p2, s2, d2 = _validate(labels2, parents2, "tree 2")
    n1, n2 = len(l1), len(l2)
    if n1 == 0 or n2 == 0:
        return float(n1 * dele + n2 * ins)
    if max_cells < 0 or n1 * n2 > max_cells:
        raise TreeTooLargeError(
            f"trees too large for exact tree edit distance: {n1} x {n2} nodes = {n1 * n2} "
            f"cells > max_cells = {max_cells} (prune them: max_depth, collapse_runs)"
        )
    # Same strategy choice as the C code, so that both add the same numbers in the same order.
    mirror = _keyroot_cost(p1, s1, True) * _keyroot_cost(p2, s2, True) < _keyroot_cost(
        p1, s1, False
    ) * _keyroot_cost(p2, s2, False)
    lab1, lml1, kr1 = _prepare(l1, s1, d1, mirror)
    lab2, lml2, kr2 = _prepare(l2, s2, d2, mirror)
    return _zhang_shasha(lab1, lml1, kr1, lab2, lml2, kr2, ins, dele, ren)


def _zhang_shasha(
    lab1: list[int],
    lml1: list[int],
    kr1: list[int],
    lab2: list[int],
    lml2: list[int],
    kr2: list[int],
    ins: float,
    dele: float,
    ren: float,
) -> float:
    n1, n2 = len(lab1), len(lab2)
    td = [[0.0] * n2 for _ in range(n1)]
    ramp = [0.0] * (n2 + 1)  # forest row 0: insertions only
    for y in range(1, n2 + 1):
        ramp[y] = ramp[y - 1] + ins
    for k1 in kr1:
        lk1 = lml1[k1]
        m = k1 - lk1 + 2
        for k2 in kr2:
            lk2 = lml2[k2]
            w = k2 - lk2 + 2
            # column y (1..w-1) is node lk2 + y - 1 of tree 2; rel[y] the forest column left
            # of its leftmost leaf (0: the node is on the leftmost path of k2)
            rel = [0] + [lml2[j] - lk2 for j in range(lk2, k2 + 1)]
            labs = [0, *lab2[lk2 : k2 + 1]]
            fd = [ramp] + [[0.0] * w for _ in range(m - 1)]
            for x in range(1, m):
                i = lk1 + x - 1
                li = lml1[i]
                up = fd[x - 1]
                row = fd[x]
                cur = row[0] = up[0] + dele
                tdi = td[i]
                off = lk2 - 1
                if li == lk1:  # row node on the leftmost path of k1
                    la = lab1[i]
                    for y in range(1, w):
                        v = up[y] + dele
                        t = cur + ins
                        if t < v:
                            v = t
                        r = rel[y]
                        if r == 0:
                            t = up[y - 1] + (0.0 if labs[y] == la else ren)
                            if t < v:
                                v = t
                            tdi[off + y] = v
                        else:
                            t = ramp[r] + tdi[off + y]
                            if t < v:
                                v = t
                        row[y] = cur = v
                else:
                    frow = fd[li - lk1]
                    for y in range(1, w):
                        v = up[y] + dele
                        t = frow[rel[y]] + tdi[off + y]
                        if t < v:
                            v = t
                        t = cur + ins
                        if t < v:
                            v = t
                        row[y] = cur = v
    return td[n1 - 1][n2 - 1]


# --------------------------------------------------------------------------------------------
# Pruning for crawl time
# --------------------------------------------------------------------------------------------


def prune_tree(
    labels: Sequence[int],
    parents: Sequence[int],
    *,
    max_depth: int | None = None,
    collapse_runs: bool = True,
) -> tuple[list[int], list[int]]:
    """Shrink a tree for a fast, template-level edit distance; linear time, no recursion.

    * ``max_depth``: keep the nodes at most ``max_depth`` edges below the root (0 keeps only
      the root; None keeps all).
    * ``collapse_runs``: replace every run of consecutive sibling subtrees that are identical
      (same shape and labels, after their own runs were collapsed, bottom-up) by one copy.  So
      a listing of 10 identical rows and one of 25 become the same tree.

    Returns new ``(labels, parents)`` lists in document order.
    """
    labels, parents, _size, depth = _validate(labels, parents, "tree")
    n = len(labels)
    if n == 0:
        return [], []
    if max_depth is not None and max_depth < 0:
        raise ValueError("max_depth must be >= 0 or None")
    keep = [max_depth is None or d <= max_depth for d in depth]
    children: list[list[int]] = [[] for _ in range(n)]
    for i in range(1, n):
        if keep[i]:
            children[parents[i]].append(i)
    if collapse_runs:
        # Canonical ids of subtrees, bottom-up (reverse document order visits children before
        # parents): equal ids <=> identical subtrees after collapsing.  Exact: ids are interned
        # tuples, not hashes that could collide.
        canon: dict[tuple[int, ...], int] = {}
        sid = [0] * n
        for i in range(n - 1, -1, -1):
            if not keep[i]:
                continue
            kids = children[i]
            if len(kids) > 1:
                kept = [kids[0]]
                for c in kids[1:]:
                    if sid[c] != sid[kept[-1]]:
                        kept.append(c)
                children[i] = kids = kept
            key = (labels[i], *(sid[c] for c in kids))
            sid[i] = canon.setdefault(key, len(canon))
    out_labels: list[int] = []
    out_parents: list[int] = []
    stack = [(0, -1)]
    while stack:
        node, parent = stack.pop()
        idx = len(out_labels)
        out_labels.append(labels[node])
        out_parents.append(parent)
        stack.extend((c, idx) for c in reversed(children[node]))
    return out_labels, out_parents


# --------------------------------------------------------------------------------------------
# The measure
# --------------------------------------------------------------------------------------------


def ted_similarity(
    a: _Summary | Any,
    b: _Summary | Any,
    *,
    relation: str = "rsn",
    variant: str = "seed004",
    gamma_max: float | None = None,
    insert_cost: float = 1.0,
    delete_cost: float = 1.0,
    rename_cost: float = 1.0,
    max_depth: int | None = None,
    collapse_runs: bool = False,
    max_nodes: int = 20000,
) -> float:
    """Structural similarity of two pages from the edit distance of their DOM trees, in [0, 1].

    ``a`` and ``b`` are page summaries: only ``.parents`` (document order, -1 for the root)
    and ``.codes(relation)`` (label codes under the node relation "rsn", "rpsa" or "csr") are
    used.  ``variant`` picks the normalisation (module docstring): "seed004"
    ``1 - TED / (gamma_max * (|T1| + |T2|))``, ``gamma_max`` defaulting to the largest cost as
    in the paper; "seed003" ``1 - ed / (|T1| + |T2|)``.  Tree sizes are those after pruning.
    ``max_depth`` / ``collapse_runs`` prune both trees first (:func:`prune_tree`).  Trees with
    more than ``max_nodes`` nodes (after pruning) raise :class:`TreeTooLargeError` rather than
    running for minutes.  Two empty trees are identical (1.0).

    Symmetric: with ``insert_cost != delete_cost`` the distance depends on the direction, so
    the pair is put in a canonical order (smaller tree first) before measuring.
    """
    if variant not in VARIANTS:
        raise ValueError(f"unknown ted variant {variant!r}; expected one of {VARIANTS}")
    ins = _check_cost(insert_cost, "insert_cost")
    dele = _check_cost(delete_cost, "delete_cost")
    ren = _check_cost(rename_cost, "rename_cost")
    l1, p1 = list(a.codes(relation)), list(a.parents)
    l2, p2 = list(b.codes(relation)), list(b.parents)
    if max_depth is not None or collapse_runs:
        l1, p1 = prune_tree(l1, p1, max_depth=max_depth, collapse_runs=collapse_runs)
        l2, p2 = prune_tree(l2, p2, max_depth=max_depth, collapse_runs=collapse_runs)
    n1, n2 = len(l1), len(l2)
    if n1 + n2 == 0:
        return 1.0
    largest = max(n1, n2)
    if largest > max_nodes:
        raise TreeTooLargeError(
            f"tree of {largest} nodes exceeds max_nodes={max_nodes} for the ted measure "
            "(prune with max_depth / collapse_runs, or raise max_nodes)"
        )
    if ins != dele and (n1, l1, p1) > (n2, l2, p2):
        l1, p1, l2, p2 = l2, p2, l1, p1
    dist = tree_edit_distance(
        l1,
        p1,
        l2,
        p2,
        insert_cost=ins,
        delete_cost=dele,
        rename_cost=ren,
        max_cells=max(DEFAULT_MAX_CELLS, n1 * n2),
    )
    if variant == "seed004":
        gmax = max(ins, dele, ren) if gamma_max is None else float(gamma_max)
        if not gmax > 0:
            return 1.0 if dist == 0 else 0.0
        sim = 1.0 - dist / (gmax * (n1 + n2))
    else:  # seed003
        sim = 1.0 - dist / (n1 + n2)
    return min(1.0, max(0.0, sim))
