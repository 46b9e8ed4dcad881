"""A real crawl: once the label's body names settle, a later page without metadata whose
summary and steps sit one element deeper than on the pages the names were learned from
still gets ``description`` and ``recipe_instructions`` from its body (the settled read looks
for the anchors of the keys it lacks). Runs where ``NamingOptions.anchored`` is on by
default (it passed with it switched on; the crawl has no setting for it)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from pagesim_scrapy.core.record.naming import NamingOptions  # noqa: E402
from tests.test_induce_pipeline import crawl, page_items  # noqa: E402

DISHES = [
    ("Tomato Soup", "A smooth soup of roasted tomatoes and basil", ["Roast", "Blend", "Season"]),
    ("Lemon Cake", "A moist cake with a sharp lemon glaze on top", ["Mix", "Bake", "Glaze"]),
    ("Rice Salad", "A cold salad of rice, peas and fresh herbs", ["Cook", "Cool", "Toss"]),
    ("Garlic Bread", "Crisp bread with garlic butter and parsley", ["Slice", "Spread", "Bake"]),
    ("Onion Tart", "A buttery tart of slowly cooked sweet onions", ["Roll", "Fill", "Bake"]),
    ("Basil Pesto", "A green sauce of basil, pine nuts and cheese", ["Toast", "Pound", "Stir"]),
]
LATE = (
    "Cream Pie",
    "A rich pie of vanilla cream in a crisp crust",
    ["Blind bake", "Fill", "Chill"],
)


def _page(name: str, summary: str, steps: list[str], metadata: bool, wrap: bool) -> bytes:
    data = {
        "@context": "https://schema.org",
        "@type": "Recipe",
        "name": name,
        "description": summary,
        "recipeInstructions": [{"@type": "HowToStep", "text": s} for s in steps],
    }
    head = f"<script type='application/ld+json'>{json.dumps(data)}</script>" if metadata else ""
    inner = "<span>{}</span>" if wrap else "{}"
    items = "".join(f"<li id='instruction-step'>{inner.format(s)}</li>" for s in steps)
    lead = f"<p>{summary}</p>" if wrap else summary
    return (
        f"<html><head><title>{name}</title>{head}</head><body>"
        "<nav><a href='/'>Home</a> <a href='/recipes/'>Recipes</a></nav>"
        f"<h1>{name}</h1><div class='recipe-summary'>{lead}</div>"
        f"<div class='steps'><ol>{items}</ol></div>"
        "<footer>(c) Cook, all rights reserved</footer></body></html>"
    ).encode()


def _routes() -> dict[str, bytes]:
    routes = {
        f"/recipes/{k}.html": _page(*dish, metadata=True, wrap=False)
        for k, dish in enumerate(DISHES)
    }
    routes["/recipes/late.html"] = _page(*LATE, metadata=False, wrap=True)
    return routes


@pytest.fixture
def site() -> Iterator[tuple[str, dict[str, bytes]]]:
    from tests.route_server import serve_routes

    routes = _routes()
    with serve_routes(routes) as base:
        yield base, routes


@pytest.mark.skipif(
    not NamingOptions().anchored, reason="anchored keys are off by default (docs/figures_names8.md)"
)
def test_a_settled_label_reads_a_wrapped_slot_from_its_anchor(site, tmp_path: Path):
    base, routes = site
    urls = [base + path for path in routes]  # the page without metadata comes last
    result = crawl(
        tmp_path,
        urls,
        {"PAGESIM_INDUCTION_MIN_PAGES": 3, "CONCURRENT_REQUESTS": 1},
    )
    assert result["crawl_error"] is None and result["finish_reason"] == "finished"
    items = {item["url"][len(base) :]: item for item in page_items(result)}
    assert len(items) == len(routes)
    record = items["/recipes/late.html"]["record"]
    assert record.get("description") == LATE[1]
    assert record.get("recipe_instructions") == LATE[2]
    for k, (_, summary, steps) in enumerate(DISHES):
        learned = items[f"/recipes/{k}.html"]["record"]
        assert learned["description"] == summary and learned["recipe_instructions"] == steps
