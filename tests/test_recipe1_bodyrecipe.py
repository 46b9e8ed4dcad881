"""A recipe's values read from its own body by the labels and headings a cook reads, used
only where the metadata and the site's learned naming give none (issue 31)."""

from __future__ import annotations

import sys
from pathlib import Path

import lxml.html
import pytest

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.bodyrecipe import body_recipe, recipe_from_body
from pagesim_scrapy.core.record.bodyvalues import same
from pagesim_scrapy.core.record.build import fill_from_body, read_page, read_record
from pagesim_scrapy.core.record.model import CoreRecord, Value
from pagesim_scrapy.core.record.naming import BodyNaming, NamingOptions
from pagesim_scrapy.core.record.options import BodyRecipeOptions, RecordOptions
from pagesim_scrapy.core.record.posts import BODY

ROOT = Path(__file__).resolve().parent.parent
RECIPES = ROOT.parent / "shared" / "data" / "recipe_scrapers_testdata" / "tests" / "test_data"

CARD = """<html><body>
<nav><ul><li>Category</li><li><a href="/c">Contact</a></li></ul></nav>
<h1>Lemon Cake</h1>
<p class="byline">By Jane Doe</p>
<div class="times">
  <span class="label">Prep Time</span><span class="value">15 mins</span>
  <span class="label">Cook Time:</span> <span>1 hr 5 mins</span>
  <div><span>Servings</span><span>8 (one cake)</span></div>
  <div>Course: Dessert</div>
</div>
<h2>Ingredients</h2>
<ul><li><a href="/share">Pinterest</a></li></ul>
<h4>For the cake</h4>
<ul><li>200 g flour</li><li>2 eggs</li></ul>
<h4>For the glaze</h4>
<ul><li>1 lemon</li></ul>
<h2>Instructions</h2>
<ol><li>Step 1 Mix the flour and eggs.</li><li>BAKE IT: Bake for an hour.</li>
<li>Calories: 320</li></ol>
<footer><h2>Ingredients</h2><ul><li>a</li><li>b</li><li>c</li><li>d</li></ul></footer>
</body></html>"""


def _root(html: str):
    return lxml.html.fromstring(html)


def test_labels_and_headings_name_the_recipe_values():
    found = body_recipe(_root(CARD))
    assert found["prep_time"] == "PT15M"
    assert found["cook_time"] == "PT1H5M"
    assert found["recipe_yield"] == "8"
    assert found["recipe_category"] == "Dessert"
    assert same("authors", found["author"], "Jane Doe")
    # the share bar's link is no ingredient; the groups under the heading are one list;
    # the footer's copy is chrome
    assert found["recipe_ingredient"] == ["200 g flour", "2 eggs", "1 lemon"]
    # a step's number and capital title go, the nutrition rows end the steps
    assert found["recipe_instructions"] == ["Mix the flour and eggs.", "Bake for an hour."]
    assert "recipe_cuisine" not in found  # the menu's "Category" names nothing


def test_only_the_wanted_fields_and_no_body_reads_nothing():
    assert body_recipe(_root(CARD), wanted=frozenset({"prep_time"})) == {"prep_time": "PT15M"}
    assert body_recipe(None) == {}
    assert body_recipe(_root(CARD), BodyRecipeOptions(prep_labels=())).get("prep_time") is None


def test_an_ingredient_list_mostly_begins_with_quantities():
    """Kitchen tools or a list written "Flour 200 g" under the heading are not read as the
    ingredients; the share is an option."""
    tools = CARD.replace("200 g flour", "Flour 200 g").replace("2 eggs", "Eggs")
    assert "recipe_ingredient" not in body_recipe(_root(tools))
    loose = BodyRecipeOptions(min_measured_share=0.0)
    assert body_recipe(_root(tools), loose)["recipe_ingredient"] == [
        "Flour 200 g",
        "Eggs",
        "1 lemon",
    ]


def test_metadata_wins_and_other_types_are_left_alone():
    core = CoreRecord("recipe", {"prep_time": Value("PT20M", "json-ld")}, {})
    filled = recipe_from_body(core, _root(CARD), BodyRecipeOptions())
    assert filled.fields["prep_time"] == Value("PT20M", "json-ld")
    assert filled.fields["cook_time"] == Value("PT1H5M", BODY)
    names = list(filled.fields)
    assert names.index("recipe_ingredient") < names.index("prep_time")  # standard order
    article = CoreRecord("article", {}, {})
    assert recipe_from_body(article, _root(CARD), BodyRecipeOptions()) is article
    assert recipe_from_body(core, _root(CARD), None) is core


def test_read_record_fills_a_recipe_page_and_none_turns_it_off():
    html = CARD.replace(
        "<html>",
        '<html><head><script type="application/ld+json">'
        '{"@type": "Recipe", "name": "Lemon Cake"}</script></head>',
    )
    record = read_record(html, "https://cook.example/cake")
    assert record.fields["total_time" if "total_time" in record.fields else "prep_time"]
    assert record.fields["prep_time"] == Value("PT15M", BODY)
    plain = read_record(html, "https://cook.example/cake", options=RecordOptions(body_recipe=None))
    assert "prep_time" not in plain.fields


def _page(name: str, serves: str, label: str) -> str:
    return (
        f"<html><body><nav><a>Home</a></nav><h1>{name}</h1>"
        f"<div class='card'><p class='lead'>A dish</p>"
        f"<p>Serves <span class='yield'>{serves}</span></p>"
        f"<div class='facts'><span>Servings</span><span>{label}</span></div></div>"
        "<footer>(c) Cook, 2015-2025, all rights reserved</footer></body></html>"
    )


@pytest.mark.parametrize("over", [True, False])
def test_the_learned_field_and_the_reader_in_either_order(over: bool):
    """The site's learned field fills first; the reader fills what it leaves. Where the
    generic reader set a value first, ``over_body_reader`` says which one stays."""
    naming = BodyNaming(NamingOptions(min_pages=1, over_body_reader=over))
    for name, serves in (("Crepes", "4"), ("Waffles", "6")):
        core = CoreRecord("recipe", {"recipe_yield": Value(serves, "json-ld")}, {})
        page = _page(name, serves, label="10")  # the label row shows another count
        naming.observe(core, body_fields(_root(page), "https://s.example/"))
    root = _root(_page("Soup", "3", label="2"))
    bare = CoreRecord("page", {}, {})
    filled = fill_from_body(naming, bare, body_fields(root, "https://s.example/"), root)
    assert filled.page_type == "recipe"
    assert filled.fields["recipe_yield"].source == BODY
    assert same("text", filled.fields["recipe_yield"].value, "3")  # the learned slot
    read_first = CoreRecord("recipe", {"recipe_yield": Value("2", BODY)}, {})
    kept = naming.fill(read_first, body_fields(root, "https://s.example/"))
    expected = "3" if over else "2"
    assert same("text", kept.fields["recipe_yield"].value, expected)


def _real(site: str) -> list[tuple[str, bytes]]:
    folder = RECIPES / site
    if not folder.is_dir():
        pytest.skip("recipe test data not available")
    return [(f"https://{site}/{f.stem}", f.read_bytes()) for f in sorted(folder.glob("*.testhtml"))]


@pytest.mark.parametrize(
    ("site", "fields"),
    [
        ("mexicanplease.com", ("prep_time", "cook_time", "recipe_ingredient")),
        ("feastingathome.com", ("total_time", "recipe_instructions")),
        ("andy-cooks.com", ("recipe_yield", "recipe_ingredient", "recipe_instructions")),
    ],
)
def test_real_pages_without_their_metadata(site: str, fields: tuple[str, ...]):
    """Real recipe pages (a WP Recipe Maker card, a Tasty Recipes card, a shop theme's own
    layout) stripped of their metadata give their metadata's values back from the body."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from eval_body_names import stripped

    for url, html in _real(site):
        truth = read_page(html, url)[0]
        found = body_recipe(read_page(stripped(html), url)[1])
        for name in fields:
            kind = "list" if name.startswith("recipe_i") else "duration"
            kind = "text" if name == "recipe_yield" else kind
            assert same(kind, truth.fields[name].value, found.get(name)), (url, name)
