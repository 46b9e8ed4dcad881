"""A recipe's name and dates read from its own body (issue 31): the title its recipe card
repeats or the page's one main heading, and a dated label row."""

from __future__ import annotations

import lxml.html

from pagesim_scrapy.core.record.bodyrecipe import FILLED, body_recipe
from pagesim_scrapy.core.record.options import BodyRecipeOptions

WANTED = frozenset({"name", "date_published", "date_modified"})


def read(html: str, wanted: frozenset[str] = WANTED) -> dict:
    return body_recipe(lxml.html.fromstring(html), BodyRecipeOptions(), wanted)


def test_the_fields_are_filled_by_the_reader():
    assert WANTED <= FILLED


def test_the_card_title_wins_over_a_dressed_up_h1():
    html = """<html><body><h1>The Easiest Dan Dan Noodles</h1>
    <div class="wprm-recipe-container"><h2 class="wprm-recipe-name">Dan Dan Noodles</h2></div>
    </body></html>"""
    assert read(html)["name"] == "Dan Dan Noodles"


def test_a_card_title_that_is_a_link_is_another_recipe():
    html = """<html><body><h1>Crispy Tofu Bowl</h1>
    <a class="recipe-title" href="/other">Sushi Burritos</a></body></html>"""
    assert read(html)["name"] == "Crispy Tofu Bowl"


def test_the_one_h1_outside_the_chrome_is_the_name():
    html = """<html><body><header><h1>SITE</h1></header><main><h1>Ropa Vieja</h1></main>
    </body></html>"""
    assert read(html)["name"] == "Ropa Vieja"


def test_several_different_h1_say_no_name():
    html = "<html><body><h1>Soup</h1><h1>Looking for something specific?</h1></body></html>"
    assert "name" not in read(html)


def test_dates_from_label_rows():
    html = """<html><body><p>Published: Aug 6, 2012</p>
    <p>Updated on March 5, 2015</p></body></html>"""
    found = read(html)
    assert found["date_published"] == "2012-08-06"
    assert found["date_modified"] == "2015-03-05"


def test_only_wanted_fields_are_read():
    html = "<html><body><h1>Soup</h1><p>Published: Aug 6, 2012</p></body></html>"
    assert read(html, frozenset({"recipe_yield"})) == {}


def test_the_card_summary_is_the_description_without_its_heading():
    html = """<html><body><div class="tasty-recipes-description">
    <h3>Description</h3><p>A quick soup for cold days.</p></div></body></html>"""
    found = read(html, frozenset({"description"}))
    assert found == {"description": "A quick soup for cold days."}


def test_no_card_summary_no_description():
    html = "<html><body><p class='intro'>Hello and welcome.</p></body></html>"
    assert read(html, frozenset({"description"})) == {}
