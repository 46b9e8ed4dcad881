"""Ordered alignment of a template's child list with a page's child list.

Top-down tree matching in the spirit of simple tree matching, made fast: instead of a
dynamic programme over every pair of nodes, each level aligns two *sequences of tokens* with
rapidfuzz's LCS (C code), in tiers from strict to loose:

1. ``deep`` tokens (signature plus the signatures of the node's own children) anchor the
   nodes whose structure is unambiguous;
2. inside the gaps left between anchors, plain signatures (tag, stable classes, id);
3. inside still-unmatched gaps (up to :data:`FUZZY_CELLS` pairs), a small dynamic programme
   with a loose predicate: same tag and mostly the same classes (an id or a class that
   changed between pages).

Identical signature sequences, the common case for a page's fixed chrome, skip the LCS.
The result is a monotone list of index pairs; unmatched template nodes are missing on the
page (optional), unmatched page nodes are new to the template.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rapidfuzz.distance import LCSseq

__all__ = ["FUZZY_CELLS", "align_tiers", "merge_order"]

#: The loose tier runs a Python dynamic programme, so only on gaps of at most this many
#: (template node, page node) pairs.
FUZZY_CELLS = 900
#: Leftover gaps of at most this many items on both sides pair up by position and tag.
POSITIONAL_GAP = 2

Span = tuple[int, int, int, int]


def _lcs_pairs(a: Sequence[int], b: Sequence[int], a0: int, b0: int) -> list[tuple[int, int]]:
    la, lb = len(a), len(b)
    if la == 1:
        x = a[0]
        for j in range(lb):
            if b[j] == x:
                return [(a0, b0 + j)]
        return []
    if lb == 1:
        y = b[0]
        for i in range(la):
            if a[i] == y:
                return [(a0 + i, b0)]
        return []
    pairs: list[tuple[int, int]] = []
    for op in LCSseq.opcodes(a, b):
        if op.tag == "equal":
            i, j = op.src_start, op.dest_start
            for k in range(op.src_end - i):
                pairs.append((a0 + i + k, b0 + j + k))
    return pairs


def _gaps(span: Span, found: Sequence[tuple[int, int]], out: list[Span]) -> None:
    ts, te, ps, pe = span
    pt, pp = ts, ps
    for i, j in found:
        if i > pt and j > pp:
            out.append((pt, i, pp, j))
        pt, pp = i + 1, j + 1
    if te > pt and pe > pp:
        out.append((pt, te, pp, pe))


def _dp_pairs(span: Span, same: Callable[[int, int], bool]) -> list[tuple[int, int]]:
    """LCS by dynamic programme with a match predicate (for small gaps only)."""
    ts, te, ps, pe = span
    la, lb = te - ts, pe - ps
    table = [[0] * (lb + 1) for _ in range(la + 1)]
    match = [[False] * lb for _ in range(la)]
    for a in range(la - 1, -1, -1):
        row, nxt = table[a], table[a + 1]
        for b in range(lb - 1, -1, -1):
            if same(ts + a, ps + b):
                match[a][b] = True
                row[b] = nxt[b + 1] + 1
            else:
                row[b] = max(nxt[b], row[b + 1])
    pairs: list[tuple[int, int]] = []
    a = b = 0
    while a < la and b < lb:
        if match[a][b] and table[a][b] == table[a + 1][b + 1] + 1:
            pairs.append((ts + a, ps + b))
            a += 1
            b += 1
        elif table[a + 1][b] >= table[a][b + 1]:
            a += 1
        else:
            b += 1
    return pairs


def align_tiers(
    n_t: int,
    n_p: int,
    t_tiers: Sequence[Callable[[], Sequence[int]]],
    p_tiers: Sequence[Callable[[], Sequence[int]]],
    fuzzy: Callable[[int, int], bool] | None = None,
    same_tag: Callable[[int, int], bool] | None = None,
) -> list[tuple[int, int]]:
    """Align two sequences with successively looser token tiers, then a loose predicate.

    ``t_tiers[k]()`` / ``p_tiers[k]()`` return the tier-``k`` tokens of the whole sequence;
    they are called only if tier ``k`` is reached. ``fuzzy(i, j)`` says whether template
    item ``i`` may match page item ``j``; it is tried inside small gaps. Finally, gaps of
    one or two items on both sides pair up position by position where ``same_tag`` holds
    (the lone ``<body>`` of two pages whose body classes differ). Returns sorted
    ``(t_index, p_index)`` pairs.
    """
    if n_t == 0 or n_p == 0:
        return []
    spans: list[Span] = [(0, n_t, 0, n_p)]
    pairs: list[tuple[int, int]] = []
    for t_fn, p_fn in zip(t_tiers, p_tiers):
        if not spans:
            break
        t_tok = t_fn()
        p_tok = p_fn()
        new_spans: list[Span] = []
        for span in spans:
            ts, te, ps, pe = span
            found = _lcs_pairs(t_tok[ts:te], p_tok[ps:pe], ts, ps)
            pairs.extend(found)
            _gaps(span, found, new_spans)
        spans = new_spans
    if fuzzy is not None and spans:
        new_spans = []
        for span in spans:
            ts, te, ps, pe = span
            if (te - ts) * (pe - ps) <= FUZZY_CELLS:
                found = _dp_pairs(span, fuzzy)
                pairs.extend(found)
                _gaps(span, found, new_spans)
        spans = new_spans
    if same_tag is not None:
        for ts, te, ps, pe in spans:
            if te - ts == pe - ps <= POSITIONAL_GAP:
                pairs.extend((ts + k, ps + k) for k in range(te - ts) if same_tag(ts + k, ps + k))
    pairs.sort()
    return pairs


def merge_order(
    n_t: int, n_p: int, pairs: Sequence[tuple[int, int]]
) -> list[tuple[int | None, int | None]]:
    """Interleave both sequences along the alignment: ``(t, p)`` matched, ``(t, None)``
    template-only, ``(None, p)`` page-only, in an order consistent with both."""
    out: list[tuple[int | None, int | None]] = []
    ti = pi = 0
    for i, j in pairs:
        while ti < i:
            out.append((ti, None))
            ti += 1
        while pi < j:
            out.append((None, pi))
            pi += 1
        out.append((i, j))
        ti, pi = i + 1, j + 1
    while ti < n_t:
        out.append((ti, None))
        ti += 1
    while pi < n_p:
        out.append((None, pi))
        pi += 1
    return out
