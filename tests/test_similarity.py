from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pagesim_scrapy.core.similarity import METHODS, get_measure, similarity
from pagesim_scrapy.core.similarity.lcs import lcs_ratio
from pagesim_scrapy.core.similarity.style import jaccard
from pagesim_scrapy.core.summary import SummaryOptions, summarize

FAST_METHODS = ["lcs", "layers", "style", "combined"]


def test_seed002_worked_example():
    # Seed 002: sequences of 5 and 4 nodes whose LCS is 4 -> 4 / 4.5 = 88.89 %.
    a = summarize("<body><div><p></p><span></span></div><ul></ul></body>")
    b = summarize("<body><div><p></p></div><ul></ul></body>")
    assert (a.n_nodes, b.n_nodes) == (5, 4)
    for relation in ("rsn", "rpsa", "csr"):
        assert similarity(a, b, "lcs", relation=relation) == pytest.approx(4 / 4.5)
    assert lcs_ratio("abcde", "abce") == pytest.approx(0.888888, abs=1e-6)


def test_layers_hand_worked_example():
    # Level 1: div|div same (weight 2), table|ul differ (weight 2): changed 2 of 4.
    # Level 2: p|p same (1), p|span differ (2): changed 2 of 3.
    # D = 8: W1 = 1, W2 = 7/8; P = (2/4)/8*1 + (2/3)/8*(7/8) = 0.0625 + 0.072917
    a = summarize("<body><div><p></p><p></p></div><table></table></body>")
    b = summarize("<body><div><p></p><span></span></div><ul></ul></body>")
    expected = 1 - (0.5 / 8 * 1 + (2 / 3) / 8 * (7 / 8))
    assert similarity(a, b, "layers") == pytest.approx(expected)
    assert expected == pytest.approx(0.8645833, abs=1e-6)


def test_layers_variants():
    a = summarize("<body><div></div><p></p><p></p><p></p></body>")
    b = summarize("<body><p></p><p></p><p></p></body>")  # one element removed at the front
    positional = similarity(a, b, "layers")
    aligned = similarity(a, b, "layers", align="lcs")
    assert aligned > positional
    empty_vs_full = similarity(summarize("<body></body>"), a, "layers", normalise=True)
    assert empty_vs_full < 1.0
    with pytest.raises(ValueError):
        similarity(a, b, "layers", align="nope")
    with pytest.raises(ValueError):
        similarity(a, b, "layers", depth=0)


def test_style_and_combined():
    a = summarize('<body><div class="a b"></div><p class="c"></p></body>')
    b = summarize('<body><div class="a"></div><p class="d"></p></body>')
    assert similarity(a, b, "style") == pytest.approx(1 / 4)
    lcs = similarity(a, b, "lcs")
    assert similarity(a, b, "combined", kappa=0.5) == pytest.approx(0.5 * lcs + 0.5 * 0.25)
    assert similarity(a, b, "combined", kappa=1.0) == pytest.approx(lcs)
    assert jaccard(frozenset(), frozenset()) == 1.0
    with pytest.raises(ValueError):
        similarity(a, b, "combined", kappa=2)


def test_unknown_method_and_params_are_errors():
    a = summarize("<body><p></p></body>")
    with pytest.raises(ValueError, match="unknown similarity method"):
        similarity(a, a, "nope")
    with pytest.raises(ValueError, match="unknown parameter"):
        similarity(a, a, "lcs", relaton="rsn")
    with pytest.raises(ValueError, match="not one of"):
        similarity(a, a, "lcs", relation="xyz")
    assert "lcs" in METHODS and get_measure("lcs").defaults["relation"] == "csr"


def test_accepts_html_and_paths(tmp_path: Path):
    page = tmp_path / "p.html"
    page.write_text("<html><body><div><p>x</p></div></body></html>")
    assert similarity(page, "<html><body><div><p>y</p></div></body></html>") == 1.0


# -- properties on generated pages -----------------------------------------------------------

TAGS = ["div", "span", "p", "ul", "li", "a", "table", "tr", "td", "section"]


@st.composite
def pages(draw, max_nodes=40):
    """Random HTML built from a random tree (tags and classes)."""
    n = draw(st.integers(min_value=1, max_value=max_nodes))
    parents = [draw(st.integers(min_value=0, max_value=i)) for i in range(n)]
    children: dict[int, list[int]] = {}
    for child, parent in enumerate(parents, start=1):
        children.setdefault(parent, []).append(child)
    tags = [draw(st.sampled_from(TAGS)) for _ in range(n + 1)]
    classes = [draw(st.sampled_from(["", "x", "y z", "item-3"])) for _ in range(n + 1)]

    def render(node: int) -> str:
        inner = "".join(render(c) for c in children.get(node, []))
        tag = tags[node]
        attr = f' class="{classes[node]}"' if classes[node] else ""
        return f"<{tag}{attr}>{inner}</{tag}>"

    body = "".join(render(c) for c in children.get(0, []))
    return f"<html><body>{body}</body></html>"


@settings(max_examples=60, deadline=None)
@given(pages(), pages())
def test_properties_on_generated_pages(html_a, html_b):
    a, b = summarize(html_a), summarize(html_b)
    for method in FAST_METHODS:
        ab = similarity(a, b, method)
        assert 0.0 <= ab <= 1.0
        assert ab == pytest.approx(similarity(b, a, method))
        assert similarity(a, a, method) == pytest.approx(1.0)


def test_properties_on_real_pages(stackoverflow: Path):
    summaries = [summarize(p) for p in sorted(stackoverflow.glob("*/0[12].html"))]
    for method in FAST_METHODS:
        for a, b in combinations(summaries, 2):
            ab = similarity(a, b, method)
            assert 0.0 <= ab <= 1.0
            assert ab == pytest.approx(similarity(b, a, method))
        for a in summaries:
            assert similarity(a, a, method) == pytest.approx(1.0)


def test_nearest_label_on_real_pages(stackoverflow: Path):
    """Page 01 of each type as the only template: every other page is nearest its own type."""
    types = sorted(p.name for p in stackoverflow.iterdir() if p.is_dir())
    templates = {t: summarize(stackoverflow / t / "01.html") for t in types}
    for t in types:
        for page in sorted((stackoverflow / t).glob("*.html"))[1:4]:
            s = summarize(page)
            for method in [*FAST_METHODS, "ted"]:
                scores = {label: similarity(s, tpl, method) for label, tpl in templates.items()}
                assert max(scores, key=scores.__getitem__) == t, (method, page)


@pytest.mark.parametrize("method", sorted(METHODS))
def test_one_against_many_equals_pairwise(stackoverflow: Path, method: str):
    pages = [summarize(p) for p in sorted(stackoverflow.glob("*/0[12].html"))]
    if method == "ted":
        pages = [summarize(p, SummaryOptions(max_nodes=150)) for p in pages[:4]]
    measure = get_measure(method)
    for relation in ("rsn", "csr") if "relation" in measure.defaults else (None,):
        params = measure.check_params({"relation": relation} if relation else {})
        for page in pages[:3]:
            expected = [measure.func(page, other, **params) for other in pages]
            assert measure.similarities(page, pages, **params) == expected
    empty = summarize(b"<body></body>")
    assert measure.similarities(empty, [], **measure.check_params({})) == []
