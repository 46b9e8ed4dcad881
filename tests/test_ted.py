"""Tree edit distance: worked examples, properties, C vs Python, C kernels, big trees, pruning."""

from __future__ import annotations

import contextlib
import functools
import random
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pagesim_scrapy.core.similarity import ted
from pagesim_scrapy.core.similarity.ted import (
    TreeTooLargeError,
    prune_tree,
    ted_similarity,
    tree_edit_distance,
    tree_edit_distance_py,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SO_PAGES = DATA / "stackoverflow_page_types"

needs_c = pytest.mark.skipif(not ted.HAVE_C_EXTENSION, reason="C extension not built")
needs_kernel_switches = pytest.mark.skipif(
    not (ted.HAVE_C_EXTENSION and hasattr(ted._ted_c, "set_band")),
    reason="C extension not built, or built from an older _ted.c",
)

BOTH = [pytest.param(tree_edit_distance_py, id="python")]
if ted.HAVE_C_EXTENSION:
    BOTH.append(pytest.param(tree_edit_distance, id="c"))


# --- helpers ----------------------------------------------------------------------------------


def build(spec: tuple) -> tuple[list[int], list[int]]:
    """(label, child, child, ...) nested tuples -> (labels, parents) in document order."""
    labels: list[int] = []
    parents: list[int] = []
    stack = [(spec, -1)]
    while stack:
        node, parent = stack.pop()
        idx = len(labels)
        label = node[0]
        labels.append(label if isinstance(label, int) else ord(label))
        parents.append(parent)
        stack.extend((child, idx) for child in reversed(node[1:]))
    return labels, parents


def chain(n: int, label: int = 1) -> tuple[list[int], list[int]]:
    return [label] * n, [i - 1 for i in range(n)]


def to_forest(labels: list[int], parents: list[int]) -> tuple:
    """Arrays -> nested (label, children-tuple) forest, for the brute-force oracle."""
    n = len(labels)
    children: list[list[int]] = [[] for _ in range(n)]
    for i in range(1, n):
        children[parents[i]].append(i)
    built: list[tuple] = [()] * n
    for i in range(n - 1, -1, -1):
        built[i] = (labels[i], tuple(built[c] for c in children[i]))
    return (built[0],) if n else ()


def oracle(t1: tuple, t2: tuple, ins: float, dele: float, ren: float) -> float:
    """Textbook recursive forest edit distance (rightmost roots), memoised: independent check."""

    def size(forest: tuple) -> int:
        total, stack = 0, list(forest)
        while stack:
            node = stack.pop()
            total += 1
            stack.extend(node[1])
        return total

    @functools.cache
    def d(f: tuple, g: tuple) -> float:
        if not f:
            return size(g) * ins
        if not g:
            return size(f) * dele
        v, w = f[-1], g[-1]
        return min(
            d(f[:-1] + v[1], g) + dele,
            d(f, g[:-1] + w[1]) + ins,
            d(v[1], w[1]) + (0 if v[0] == w[0] else ren) + d(f[:-1], g[:-1]),
        )

    return d(t1, t2)


@st.composite
def trees(draw, max_nodes: int = 12, labels: int = 3):
    n = draw(st.integers(0, max_nodes))
    labs = draw(st.lists(st.integers(0, labels - 1), min_size=n, max_size=n))
    parents: list[int] = []
    path: list[int] = []
    for i in range(n):
        if i == 0:
            parents.append(-1)
        else:
            keep = draw(st.integers(1, len(path)))
            path = path[:keep]
            parents.append(path[-1])
        path.append(i)
    return labs, parents


def lxml_arrays(path: Path) -> tuple[list[int], list[int]]:
    """Elements under <body> (no script/style/noscript/comments), tags interned to ints."""
    lxml_html = pytest.importorskip("lxml.etree")
    root = lxml_html.fromstring(path.read_bytes(), lxml_html.HTMLParser())
    body = root.find(".//body")
    start = body if body is not None else root
    codes: dict[str, int] = {}
    labels: list[int] = []
    parents: list[int] = []
    stack = [(start, -1)]
    while stack:
        el, parent = stack.pop()
        if not isinstance(el.tag, str) or el.tag in ("script", "style", "noscript"):
            continue
        idx = len(labels)
        labels.append(codes.setdefault(el.tag, len(codes)))
        parents.append(parent)
        stack.extend((child, idx) for child in reversed(el))
    return labels, parents


def summary(labels: list[int], parents: list[int]) -> SimpleNamespace:
    return SimpleNamespace(parents=parents, codes=lambda relation="rsn": labels)


# --- hand-worked examples ---------------------------------------------------------------------

# Zhang & Shasha (1989), Fig. 1: f(d(a, c(b)), e) -> f(c(d(a, b)), e): delete c, insert c.
ZS_T1 = ("f", ("d", ("a",), ("c", ("b",))), ("e",))
ZS_T2 = ("f", ("c", ("d", ("a",), ("b",))), ("e",))


@pytest.mark.parametrize("dist", BOTH)
def test_zhang_shasha_paper_example(dist):
    assert dist(*build(ZS_T1), *build(ZS_T2)) == 2.0
    assert dist(*build(ZS_T2), *build(ZS_T1)) == 2.0


@pytest.mark.parametrize("dist", BOTH)
def test_single_operations(dist):
    a = build(("a", ("b",), ("c",)))
    assert dist(*a, *a) == 0.0
    assert dist(*a, *build(("a", ("b",), ("x",)))) == 1.0  # rename
    assert dist(*a, *build(("a", ("b",)))) == 1.0  # delete a leaf
    assert dist(*a, *build(("a", ("b",), ("c",), ("d",)))) == 1.0  # insert a leaf
    assert dist(*a, *build(("a", ("z", ("b",), ("c",))))) == 1.0  # insert an inner node
    assert dist(*build(("a", ("z", ("b",), ("c",)))), *a) == 1.0  # delete an inner node
    assert dist(*a, *build(("a", ("c",), ("b",)))) == 2.0  # swap = two renames


@pytest.mark.parametrize("dist", BOTH)
def test_costs_weight_the_operations(dist):
    a = build(("a", ("b",), ("c",)))
    kw = {"insert_cost": 2.0, "delete_cost": 3.0, "rename_cost": 5.0}
    assert dist(*a, *build(("a", ("b",), ("c",), ("d",))), **kw) == 2.0
    assert dist(*a, *build(("a", ("b",))), **kw) == 3.0
    # renaming costs 5 > delete 3 + insert 2: a rename becomes delete + insert
    assert dist(*a, *build(("a", ("b",), ("x",))), **kw) == 5.0
    assert dist(*a, *build(("a", ("b",), ("x",))), **{**kw, "rename_cost": 4.0}) == 4.0
    # seed 003's ed = S*p + D*q + I*r: one rename (a -> x), one insertion (d)
    t1 = build(("r", ("a",), ("b",), ("c",)))
    t2 = build(("r", ("x",), ("b",), ("c",), ("d",)))
    assert dist(*t1, *t2, rename_cost=0.5, delete_cost=0.25, insert_cost=2.0) == 2.5
    # ... and with deletions cheap, delete + insert beats the rename: D*q + 2*I*r
    assert dist(*t1, *t2, rename_cost=9.0, delete_cost=0.25, insert_cost=2.0) == 4.25


@pytest.mark.parametrize("dist", BOTH)
def test_empty_and_single_node_trees(dist):
    assert dist([], [], [], []) == 0.0
    assert dist([], [], [1, 2], [-1, 0], insert_cost=3.0) == 6.0
    assert dist([1, 2], [-1, 0], [], [], delete_cost=2.0) == 4.0
    assert dist([1], [-1], [1], [-1]) == 0.0
    assert dist([1], [-1], [2], [-1]) == 1.0
    assert dist([1], [-1], [2], [-1], rename_cost=0.0) == 0.0


@pytest.mark.parametrize("dist", BOTH)
@pytest.mark.parametrize(
    ("labels", "parents", "message"),
    [
        ([1, 2], [-1], "differ in length"),
        ([1, 2], [0, 0], "parents\\[0\\] must be -1"),
        ([1, 2], [-1, -1], "not the index of an earlier node"),
        ([1, 2], [-1, 1], "not the index of an earlier node"),
        ([1, 2, 3, 4], [-1, 0, 1, 2], None),  # a valid chain
        ([1, 2, 3, 4], [-1, 0, 0, 1], "not in document order"),
    ],
)
def test_malformed_trees_are_refused(dist, labels, parents, message):
    if message is None:
        assert dist(labels, parents, [1], [-1]) == 3.0
        return
    with pytest.raises(ValueError, match=message):
        dist(labels, parents, [1], [-1])
    with pytest.raises(ValueError, match=message):
        dist([1], [-1], labels, parents)


@pytest.mark.parametrize("dist", BOTH)
@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_bad_costs_are_refused(dist, bad):
    with pytest.raises(ValueError, match="insert_cost"):
        dist([1], [-1], [1], [-1], insert_cost=bad)


# --- against the brute-force definition ---------------------------------------------------------


@pytest.mark.parametrize("dist", BOTH)
@settings(max_examples=150, deadline=None)
@given(
    t1=trees(),
    t2=trees(),
    costs=st.sampled_from([(1, 1, 1), (1, 2, 1), (2, 1, 3), (0.5, 0.75, 0.25), (1, 1, 0)]),
)
def test_matches_recursive_definition(dist, t1, t2, costs):
    ins, dele, ren = costs
    expected = oracle(to_forest(*t1), to_forest(*t2), ins, dele, ren)
    got = dist(*t1, *t2, insert_cost=ins, delete_cost=dele, rename_cost=ren)
    assert got == pytest.approx(expected, abs=1e-9)


# --- properties -----------------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(t1=trees(20), t2=trees(20), t3=trees(20))
def test_metric_properties_unit_costs(t1, t2, t3):
    d12 = tree_edit_distance(*t1, *t2)
    assert d12 == tree_edit_distance(*t2, *t1)
    assert tree_edit_distance(*t1, *t1) == 0.0
    assert d12 >= abs(len(t1[0]) - len(t2[0]))
    assert d12 <= len(t1[0]) + len(t2[0])
    assert d12 <= tree_edit_distance(*t1, *t3) + tree_edit_distance(*t3, *t2)


@settings(max_examples=200, deadline=None)
@given(t1=trees(20), t2=trees(20), variant=st.sampled_from(ted.VARIANTS))
def test_similarity_properties(t1, t2, variant):
    a, b = summary(*t1), summary(*t2)
    s = ted_similarity(a, b, variant=variant)
    assert 0.0 <= s <= 1.0
    assert s == ted_similarity(b, a, variant=variant)
    assert ted_similarity(a, a, variant=variant) == 1.0
    # asymmetric costs: still symmetric (canonical order)
    kw = {"insert_cost": 1.0, "delete_cost": 2.0}
    assert ted_similarity(a, b, **kw) == ted_similarity(b, a, **kw)


@needs_c
@settings(max_examples=300, deadline=None)
@given(
    t1=trees(40, 4),
    t2=trees(40, 4),
    costs=st.sampled_from([(1, 1, 1), (2, 1, 3), (1, 3, 1), (0.3, 0.7, 0.45), (5, 5, 1)]),
)
def test_c_and_python_agree_on_random_trees(t1, t2, costs):
    kw = dict(zip(("insert_cost", "delete_cost", "rename_cost"), costs))
    assert tree_edit_distance(*t1, *t2, **kw) == tree_edit_distance_py(*t1, *t2, **kw)


@needs_c
def test_c_and_python_agree_on_larger_random_trees():
    rng = random.Random(7)
    for _ in range(20):
        pair = []
        for _ in range(2):
            n = rng.randint(50, 150)
            labels = [rng.randrange(5) for _ in range(n)]
            parents, path = [-1], [0]
            for i in range(1, n):
                path = path[: rng.randint(1, len(path))]
                parents.append(path[-1])
                path.append(i)
            pair += [labels, parents]
        assert tree_edit_distance(*pair) == tree_edit_distance_py(*pair)


# --- the C kernels: vector (AVX2) with an exact band, scalar -----------------------------------
# The vector kernel runs only for small integer costs on CPUs with AVX2; elsewhere these tests
# compare the scalar kernel with itself and with Python, and still pass.


@contextlib.contextmanager
def kernel_settings(simd: bool = True, band: int = 0):
    """Run the C code with the vector kernel on or off and a given first band (0: automatic)."""
    old_simd = ted._ted_c.set_simd(simd)
    old_band = ted._ted_c.set_band(band)
    try:
        yield
    finally:
        ted._ted_c.set_simd(old_simd)
        ted._ted_c.set_band(old_band)


@st.composite
def similar_pair(draw, max_nodes: int = 60):
    """A random tree and a copy changed by a few renames, leaf insertions and node deletions."""
    labels, parents = draw(trees(max_nodes, 3))
    n = len(labels)
    children: list[list[list]] = [[] for _ in range(n)]
    nodes = [[labels[i], children[i]] for i in range(n)]
    for i in range(1, n):
        children[parents[i]].append(nodes[i])
    for _ in range(draw(st.integers(0, 8)) if n else 0):
        op = draw(st.sampled_from(["rename", "insert", "delete"]))
        node = nodes[draw(st.integers(0, n - 1))]
        if op == "rename":
            node[0] = draw(st.integers(0, 3))
        elif op == "insert":
            node[1].insert(draw(st.integers(0, len(node[1]))), [draw(st.integers(0, 3)), []])
        elif node[1]:  # delete a child, its children take its place
            k = draw(st.integers(0, len(node[1]) - 1))
            node[1][k : k + 1] = node[1][k][1]
    out_labels: list[int] = []
    out_parents: list[int] = []
    stack = [(nodes[0], -1)] if n else []
    while stack:
        node, parent = stack.pop()
        out_labels.append(node[0])
        out_parents.append(parent)
        stack.extend((child, len(out_labels) - 1) for child in reversed(node[1]))
    return (labels, parents), (out_labels, out_parents)


@needs_kernel_switches
def test_kernel_switches():
    assert ted._ted_c.simd_kernel() in ("avx2", "none")
    assert ted.c_kernel() in ("avx2", "c")
    with kernel_settings(simd=False):
        assert ted._ted_c.simd_kernel() == "none"
        assert ted.c_kernel() == "c"
    with pytest.raises(ValueError):
        ted._ted_c.set_band(-1)


@needs_kernel_switches
@settings(max_examples=250, deadline=None)
@given(
    pair=similar_pair(),
    band=st.sampled_from([1, 2, 3, 5, 8, 13]),
    costs=st.sampled_from([(1, 1, 1), (2, 1, 3), (1, 3, 1), (0, 1, 1), (1, 0, 2), (5, 5, 1)]),
)
def test_band_gives_the_exact_distance(pair, band, costs):
    # a first band far too narrow forces the second run; both ways round (orientation)
    kw = dict(zip(("insert_cost", "delete_cost", "rename_cost"), costs))
    (t1, t2) = pair
    with kernel_settings(band=band):
        assert tree_edit_distance(*t1, *t2, **kw) == tree_edit_distance_py(*t1, *t2, **kw)
        assert tree_edit_distance(*t2, *t1, **kw) == tree_edit_distance_py(*t2, *t1, **kw)


@needs_kernel_switches
def test_vector_rows_longer_than_a_register():
    # fan-outs of 15 to 70: rows of 1 to 5 vectors, partial last vectors, both orientations
    rng = random.Random(11)
    for n1, n2 in [(16, 17), (33, 31), (70, 40), (40, 70), (64, 65)]:
        a = ([rng.randrange(3) for _ in range(n1)], [-1] + [0] * (n1 - 1))
        b = ([rng.randrange(3) for _ in range(n2)], [-1] + [0] * (n2 - 1))
        for band in (0, 2, 9):
            with kernel_settings(band=band):
                assert tree_edit_distance(*a, *b) == tree_edit_distance_py(*a, *b)


@needs_kernel_switches
def test_any_int64_labels():
    rng = random.Random(5)
    pool = [-(2**63), -(2**40), -1, 0, 7, 2**40, 2**63 - 1]
    for _ in range(10):
        pair = []
        for n in (rng.randint(20, 60), rng.randint(20, 60)):
            parents, path = [-1], [0]
            for i in range(1, n):
                path = path[: rng.randint(1, len(path))]
                parents.append(path[-1])
                path.append(i)
            pair += [[rng.choice(pool) for _ in range(n)], parents]
        with kernel_settings(band=3):
            assert tree_edit_distance(*pair) == tree_edit_distance_py(*pair)


@needs_kernel_switches
def test_vector_kernel_near_its_int16_limit():
    # int16 is used while max cost * (n1 + n2 + 2) < 32,000: a chain and a star of 5,000 nodes
    # with costs 3 are just inside it, costs 4 just outside (int32, scalar)
    n = 5_000
    chain_ = chain(n, 1)
    star = ([2] * n, [-1] + [0] * (n - 1))
    unit = tree_edit_distance(*chain_, *star)
    with kernel_settings(simd=False):
        assert tree_edit_distance(*chain_, *star) == unit
    for cost in (3.0, 4.0):
        kw = {"insert_cost": cost, "delete_cost": cost, "rename_cost": cost}
        assert tree_edit_distance(*chain_, *star, **kw) == cost * unit
    assert unit == 2 * n - 2  # root and one leaf renamed, 4,998 deletions and 4,998 insertions


@needs_kernel_switches
def test_vector_and_scalar_kernels_agree_on_real_pages():
    pages = [
        lxml_arrays(so_page(kind, k))
        for kind, k in [
            ("newest_questions", 1),
            ("newest_questions", 2),
            ("users", 1),
            ("users", 2),
        ]
    ]
    for a, b in [(0, 1), (2, 3), (0, 2)]:
        with kernel_settings(simd=False):
            expected = tree_edit_distance(*pages[a], *pages[b])
        for band in (0, 4, 50):
            with kernel_settings(band=band):
                assert tree_edit_distance(*pages[a], *pages[b]) == expected
                assert tree_edit_distance(*pages[b], *pages[a]) == expected


# --- the measure ----------------------------------------------------------------------------------


def test_similarity_formulas():
    a = summary(*build(("a", ("b",), ("c",))))  # 3 nodes
    b = summary(*build(("a", ("b",), ("x",), ("d",))))  # 4 nodes: 1 rename + 1 insert
    assert ted_similarity(a, b) == pytest.approx(1 - 2 / 7)
    assert ted_similarity(a, b, variant="seed003") == pytest.approx(1 - 2 / 7)
    # seed 004 divides by gamma_max * (|T1| + |T2|); gamma_max defaults to the largest cost
    assert ted_similarity(a, b, rename_cost=2.0) == pytest.approx(1 - 3 / (2 * 7))
    assert ted_similarity(a, b, rename_cost=2.0, gamma_max=4.0) == pytest.approx(1 - 3 / 28)
    # seed 003: es = 1 - (S*p + D*q + I*r) / (len1 + len2), clamped to [0, 1]
    assert ted_similarity(a, b, variant="seed003", rename_cost=0.5) == pytest.approx(1 - 1.5 / 7)
    assert ted_similarity(a, b, variant="seed003", rename_cost=9, insert_cost=9) == 0.0


def test_similarity_edge_cases():
    empty = summary([], [])
    one = summary([1], [-1])
    assert ted_similarity(empty, empty) == 1.0
    assert ted_similarity(empty, one) == 0.0
    assert ted_similarity(one, one) == 1.0
    with pytest.raises(ValueError, match="variant"):
        ted_similarity(one, one, variant="seed999")
    big = summary(*chain(50))
    with pytest.raises(TreeTooLargeError, match="max_nodes"):
        ted_similarity(big, one, max_nodes=10)
    # pruning happens before the size check
    assert ted_similarity(big, big, max_nodes=10, max_depth=5) == 1.0


def test_similarity_uses_the_relation():
    calls = []

    class Summary:
        parents = (-1, 0)

        def codes(self, relation="rsn"):
            calls.append(relation)
            return [1, 2] if relation == "rsn" else [1, 3]

    assert ted_similarity(Summary(), Summary(), relation="csr") == 1.0
    assert calls == ["csr", "csr"]


# --- big and deep trees -----------------------------------------------------------------------


@pytest.mark.parametrize("dist", BOTH)
def test_deep_chain_no_recursion(dist):
    if dist is tree_edit_distance_py:
        # the same code path at a size Python can afford: 400 renames + 200 deletions
        assert dist(*chain(600), *chain(400, 2)) == 600.0
        assert dist(*chain(600), *chain(600)) == 0.0
        return
    a = chain(10_000)
    assert dist(*a, *a) == 0.0
    assert dist(*a, *chain(9_000, 2)) == 10_000.0  # 9,000 renames + 1,000 deletions


def test_deep_chain_pruning_and_similarity():
    a = chain(10_000)
    labels, _ = prune_tree(*a, max_depth=99)
    assert len(labels) == 100
    s = summary(*a)
    assert ted_similarity(s, s, max_depth=50) == 1.0


def test_huge_trees_refused_quickly():
    n = 100_000
    big = ([1] * n, [-1] + [0] * (n - 1))  # root with 100,000 children
    with pytest.raises(TreeTooLargeError, match="too large"):
        tree_edit_distance(*big, *big)
    with pytest.raises(TreeTooLargeError, match="too large"):
        tree_edit_distance_py(*big, *big)
    with pytest.raises(TreeTooLargeError, match="max_nodes"):
        ted_similarity(summary(*big), summary(*big))
    # a 100,000-node tree against a small one is within the cell budget
    assert tree_edit_distance(*big, [1], [-1]) == n - 1
    # ... and collapsing the runs of identical children makes it tiny
    assert prune_tree(*big) == ([1, 1], [-1, 0])
    assert ted_similarity(summary(*big), summary([1, 1], [-1, 0]), collapse_runs=True) == 1.0


# --- pruning --------------------------------------------------------------------------------------


def test_prune_depth():
    t = build(("a", ("b", ("c", ("d",))), ("e",)))
    assert prune_tree(*t, max_depth=0, collapse_runs=False) == ([ord("a")], [-1])
    assert prune_tree(*t, max_depth=1, collapse_runs=False) == build(("a", ("b",), ("e",)))
    assert prune_tree(*t, max_depth=2, collapse_runs=False) == build(("a", ("b", ("c",)), ("e",)))
    assert prune_tree(*t, collapse_runs=False) == t
    assert prune_tree([], []) == ([], [])
    with pytest.raises(ValueError):
        prune_tree(*t, max_depth=-1)


def test_prune_collapses_runs_of_identical_siblings():
    # letters for tags: t = table, r = tr, d = td, h = th
    row = ("r", ("d",), ("d",))
    other = ("r", ("h",))
    t = build(("t", row, row, row, other, row, row))
    assert prune_tree(*t) == build(("t", ("r", ("d",)), other, ("r", ("d",))))
    # bottom-up: rows collapse first, so tables of 2 and 5 identical rows become equal
    t2 = build(("b", ("t", row, row), ("t", row, row, row, row, row)))
    assert prune_tree(*t2) == build(("b", ("t", ("r", ("d",)))))
    # runs only: identical but non-consecutive siblings stay
    t3 = build(("u", ("l",), ("p",), ("l",)))
    assert prune_tree(*t3) == t3
    assert prune_tree(*t, collapse_runs=False) == t


@settings(max_examples=200, deadline=None)
@given(t=trees(30, 2), depth=st.none() | st.integers(0, 5), collapse=st.booleans())
def test_prune_properties(t, depth, collapse):
    labels, parents = prune_tree(*t, max_depth=depth, collapse_runs=collapse)
    assert len(labels) <= len(t[0])
    # the result is a valid tree and pruning again changes nothing
    tree_edit_distance_py(labels, parents, [], [])
    assert prune_tree(labels, parents, max_depth=depth, collapse_runs=collapse) == (
        labels,
        parents,
    )
    if t[0]:
        assert labels[0] == t[0][0]


def test_prune_is_linear_enough():
    # 200,000 nodes: wide and deep parts; must finish fast (no quadratic behaviour)
    labels, parents = [0], [-1]
    for i in range(100_000):
        labels.append(1 + i % 2)
        parents.append(0)
    start = len(labels)
    for i in range(100_000):
        labels.append(3)
        parents.append(0 if i == 0 else start + i - 1)
    out = prune_tree(labels, parents)
    assert len(out[0]) == 1 + 100_000 + 100_000  # alternating labels: no runs to collapse
    out = prune_tree(labels, parents, max_depth=3)
    assert len(out[0]) == 1 + 100_000 + 3


# --- real pages ---------------------------------------------------------------------------------


def so_page(kind: str, number: int) -> Path:
    path = SO_PAGES / kind / f"{number:02d}.html"
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path


@needs_c
def test_real_pages_c_and_python_agree_pruned():
    a = lxml_arrays(so_page("question", 1))
    b = lxml_arrays(so_page("users", 1))
    pa = prune_tree(*a, max_depth=6)
    pb = prune_tree(*b, max_depth=6)
    assert 20 < len(pa[0]) < 400
    assert tree_edit_distance(*pa, *pb) == tree_edit_distance_py(*pa, *pb)


@needs_c
def test_real_pages_same_type_more_similar():
    for kind, other_kind in [("tags", "jobs"), ("jobs", "newest_questions")]:
        p1 = summary(*lxml_arrays(so_page(kind, 1)))
        p2 = summary(*lxml_arrays(so_page(kind, 2)))
        o2 = summary(*lxml_arrays(so_page(other_kind, 2)))
        same = ted_similarity(p1, p2)
        other = ted_similarity(p1, o2)
        assert 0.0 < other < same < 1.0
        assert ted_similarity(p2, p1) == same
        pruned_same = ted_similarity(p1, p2, max_depth=8, collapse_runs=True)
        pruned_other = ted_similarity(p1, o2, max_depth=8, collapse_runs=True)
        assert pruned_other < pruned_same


def test_real_page_summary_if_available():
    summary_mod = pytest.importorskip("pagesim_scrapy.core.summary")
    path = so_page("tags", 1)
    s = summary_mod.summarize(path)
    s2 = summary_mod.summarize(so_page("tags", 2))
    value = ted_similarity(s, s2, max_depth=6, collapse_runs=True)
    assert 0.0 < value <= 1.0
    assert ted_similarity(s, s, max_depth=6, collapse_runs=True) == 1.0
