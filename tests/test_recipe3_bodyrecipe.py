"""A recipe's course and cuisine read from its recipe card's term slots, and a label whose
value its children hold (issue 31)."""

from __future__ import annotations

import sys
from pathlib import Path

import lxml.html
import pytest

from pagesim_scrapy.core.record.bodyrecipe import body_recipe
from pagesim_scrapy.core.record.bodyvalues import same
from pagesim_scrapy.core.record.build import read_page
from pagesim_scrapy.core.record.options import BodyRecipeOptions
from tests.conftest import shared_data

ROOT = Path(__file__).resolve().parent.parent
TERMS = frozenset({"recipe_category", "recipe_cuisine"})


def read(html: str, wanted: frozenset[str] = TERMS) -> dict:
    return body_recipe(lxml.html.fromstring(html), BodyRecipeOptions(), wanted)


def test_a_card_term_slot_without_a_label():
    html = """<html><body><main><div class="wprm-recipe">
    <span class="wprm-recipe-course wprm-block-text-normal">Dessert</span>
    <span class="tasty-recipes-cuisine">French</span></div></main></body></html>"""
    assert read(html) == {"recipe_category": "Dessert", "recipe_cuisine": "French"}


def test_term_slots_in_a_menu_a_link_or_named_otherwise_say_nothing():
    html = """<html><body><nav><span class="wprm-recipe-course">Dinner</span></nav>
    <a href="/x"><span class="wprm-recipe-course">Lunch</span></a>
    <div class="wprm-recipe-course-container">Easy</div>
    <li class="menu-item-object-category">Breakfast</li></body></html>"""
    assert read(html) == {}


def test_the_term_slot_wins_over_a_label_row_beside_a_menu():
    html = """<html><body><main><div><span>Category</span>
    <div>Start Here Recipes</div></div>
    <span class="wprm-recipe-course">Side Dish</span></main></body></html>"""
    assert read(html)["recipe_category"] == "Side Dish"


def test_a_label_whose_value_its_children_hold():
    html = """<html><body><main><div class="h5">Total Time<div class="gap"></div>35 Mins</div>
    <div class="h5">Serves<div class="gap"></div>4</div></main></body></html>"""
    found = read(html, frozenset({"total_time", "recipe_yield"}))
    assert found == {"total_time": "PT35M", "recipe_yield": "4"}


def _pages(site: str) -> list[tuple[str, bytes]]:
    folder = shared_data("recipe_scrapers_testdata", "tests", "test_data", site)
    return [(f"https://{site}/{f.stem}", f.read_bytes()) for f in sorted(folder.glob("*.testhtml"))]


@pytest.mark.parametrize(
    ("site", "name", "kind"),
    [
        ("lekkerensimpel.com", "recipe_category", "text"),  # a WP Recipe Maker course, no label
        ("mexicanplease.com", "recipe_category", "text"),  # the slot, not a label beside a menu
        ("reishunger.de", "recipe_yield", "text"),  # "Portionen" over a child holding the count
        ("velocidadcuchara.com", "recipe_yield", "text"),
    ],
)
def test_real_pages_without_their_metadata(site: str, name: str, kind: str):
    """Real recipe pages stripped of their metadata give the metadata's value back from the
    body, on every page whose metadata has one."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from eval_body_names import stripped

    checked = 0
    for url, html in _pages(site):
        truth = read_page(html, url)[0].fields.get(name)
        if truth is None:
            continue
        found = body_recipe(read_page(stripped(html), url)[1], None, frozenset({name}))
        assert same(kind, truth.value, found.get(name)), (url, name, found.get(name))
        checked += 1
    assert checked
