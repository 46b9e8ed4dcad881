"""Body values written differently from the metadata still agree with it: durations (ISO 8601
against "1 hr 15 mins"), counts ("4" against "Serves 4"), rounded numbers, a list's first
member, markup kept escaped, and a list against a repeated element of the body."""

from __future__ import annotations

import lxml.html
import pytest

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.bodyvalues import (
    as_minutes,
    read_as,
    same,
    sequence,
    sequences,
    value_kind,
)
from pagesim_scrapy.core.record.model import CoreRecord, Value
from pagesim_scrapy.core.record.naming import BodyNaming, NamingOptions


@pytest.mark.parametrize(
    ("text", "minutes"),
    [
        ("PT1H15M", 75),
        ("P0DT0H20M", 20),
        ("PT90M", 90),
        ("1 hr 15 mins", 75),
        ("1 hour and 15 minutes", 75),
        ("Prep Time: 20 mins", 20),
        ("45 Minuten", 45),
        ("2 Std. 10 Min.", 130),
        ("25 min.", 25),
    ],
)
def test_a_duration_reads_the_same_either_way(text, minutes):
    assert as_minutes(text) == minutes


@pytest.mark.parametrize("text", ["Prep 10 min Cook 20 min", "10 - 12", "Serves 4", "1h30", ""])
def test_a_text_that_is_not_one_duration_is_none(text):
    assert as_minutes(text) is None


def test_a_duration_is_filled_in_the_metadata_form():
    assert value_kind("prep_time", "text") == "duration"
    assert read_as("duration", "Cook Time: 1 hr 5 mins") == "PT1H5M"
    assert same("duration", "PT65M", "PT1H5M")
    assert not same("duration", "PT15M", "PT50M")


@pytest.mark.parametrize(
    ("head", "body", "agree"),
    [
        ("4", "Serves 4", True),
        ("4", "4 servings", True),
        ("4 servings", "Servings: 4", True),
        ("8 - 10 serving(s)", "8 – 10", True),
        ("4", "24", False),
        ("4 servings", "4 cups", False),
        ("Appetizer", "Appetizer, Side Dish, Snack", True),
        ("Side Dish", "Appetizer, Side Dish, Snack", False),
        ("<p>Dinner</p>", "Dinner", True),
        ("Rust Once, Run Everywhere | Rust Blog", "Rust Once, Run Everywhere", True),
        ("Jane", "Jane Doe", False),
    ],
)
def test_texts_written_differently_agree(head, body, agree):
    assert same("text", head, body) is agree


@pytest.mark.parametrize(
    ("head", "body", "agree"),
    [
        ("3.6666666666666665", "3.67 / 5", True),
        ("4.2727275", "4.3", True),
        ("4.5", "4.50", True),
        ("4.98", "5", False),
        ("4.32", "4.5", False),
    ],
)
def test_a_rating_agrees_with_its_rounded_form(head, body, agree):
    assert same("price", head, read_as("price", body)) is agree


@pytest.mark.parametrize(
    ("text", "price"),
    [("$280.91", "280.91"), ("Save 30%", None), ("-15 % off", None), ("1.234,50 €", "1234.50")],
)
def test_a_share_shown_where_a_price_stands_is_no_price(text, price):
    # a sale badge sits where the layout's other pages show the price
    assert read_as("price", text) == price


def test_a_list_agrees_with_the_items_the_body_repeats():
    head = ["1/2 cup flour", "2 eggs", "1 tsp salt (fine)", "1 cup milk", "1 tbsp butter"]
    body = ["▢ ½ cup flour", "2 eggs", "1 tsp salt, fine", "1 cup milk", "1 tbsp butter"]
    assert value_kind("recipe_ingredient", "texts") == "list"
    assert value_kind("recipe_instructions", "instructions") == "list"
    assert same("list", head, body)
    assert same("list", head, [*body, "For the topping:"])  # a heading among the items
    assert not same("list", head, body[:3])
    assert not same("list", head, ["1", "2", "1", "1", "1"])


def _page(title: str, ingredients: list[str], prep: str) -> str:
    items = "".join(f"<li class='ingredient'>{text}</li>" for text in ingredients)
    return (
        f"<html><body><nav><ul><li>Home</li><li>Recipes</li></ul></nav>"
        f"<div class='head'><h1 class='title'>{title}</h1></div>"
        f"<div class='meta'><span class='prep'>{prep}</span><span class='by'>By Jo</span></div>"
        f"<ul class='ingredients'>{items}</ul>"
        f"<footer>Contact</footer></body></html>"
    )


def _body(html: str) -> dict[str, str]:
    return body_fields(lxml.html.fromstring(html), "https://cook.example/")


PAGES = [
    ("Pancakes", ["2 cups flour", "2 eggs", "1 cup milk"], "PT15M", "15 mins"),
    ("Waffles", ["3 cups flour", "1 egg", "2 cups milk", "1 tbsp sugar"], "PT1H5M", "1 hr 5 mins"),
    ("Crepes", ["1 cup flour", "3 eggs", "2 cups milk", "1 pinch salt"], "PT20M", "20 minutes"),
]


def _core(title: str, ingredients: list[str], prep: str) -> CoreRecord:
    fields = {
        "name": Value(title, "json-ld"),
        "recipe_ingredient": Value(ingredients, "json-ld"),
        "prep_time": Value(prep, "json-ld"),
    }
    return CoreRecord("recipe", fields, {})


def test_a_page_without_metadata_gets_its_list_and_duration_from_the_body():
    naming = BodyNaming()
    for title, ingredients, iso, shown in PAGES[:2]:
        naming.observe(_core(title, ingredients, iso), _body(_page(title, ingredients, shown)))
    names = naming.names()
    assert names["recipe_ingredient"].endswith("[*]")
    title, ingredients, iso, shown = PAGES[2]
    bare = CoreRecord("page", {"name": Value(title, "og")}, {})
    filled = naming.fill(bare, _body(_page(title, ingredients, shown)))
    assert filled.page_type == "recipe"
    assert filled.fields["recipe_ingredient"] == Value(ingredients, "body")
    assert filled.fields["prep_time"] == Value("PT20M", "body")


def test_only_the_learned_keys_are_read_once_learning_is_over():
    naming = BodyNaming(NamingOptions(max_pages=2))
    for title, ingredients, iso, shown in PAGES[:2]:
        naming.observe(_core(title, ingredients, iso), _body(_page(title, ingredients, shown)))
    wanted = naming.wanted()
    assert wanted is not None
    title, ingredients, _, shown = PAGES[2]
    html = _page(title, ingredients, shown)
    body = body_fields(lxml.html.fromstring(html), "https://cook.example/", wanted)
    filled = naming.fill(CoreRecord("page", {}, {}), body)
    assert filled.fields["recipe_ingredient"].value == ingredients


def test_a_second_trusted_key_stands_in_where_the_page_lacks_the_best():
    naming = BodyNaming(NamingOptions(max_keys=3))
    for title, ingredients, iso, shown in PAGES[:2]:
        naming.observe(_core(title, ingredients, iso), _body(_page(title, ingredients, shown)))
    title, ingredients, _, shown = PAGES[2]
    # the title's parent is restyled: the best key (parent and element) is gone, the next
    # (ancestors by tag) still holds
    html = _page(title, ingredients, shown).replace("class='head'", "class='top'")
    assert naming.names()["name"] not in _body(html)
    filled = naming.fill(CoreRecord("page", {}, {}), _body(html))
    assert filled.fields["name"] == Value("Crepes", "body")
    one_key = BodyNaming(NamingOptions(max_keys=1))
    for title, ingredients, iso, shown in PAGES[:2]:
        one_key.observe(_core(title, ingredients, iso), _body(_page(title, ingredients, shown)))
    assert "name" not in one_key.fill(CoreRecord("page", {}, {}), _body(html)).fields


def test_sequences_are_the_texts_of_a_repeated_element_in_page_order():
    body = {"ul/li[0]": "a", "h1[0]": "x", "ul/li[1]": "b", "img[0]@src": "u", "ul/li[2]": "c"}
    assert sequences(body) == {"ul/li[*]": ["a", "b", "c"]}
    assert sequence(body, "ul/li[*]") == ["a", "b", "c"]
    assert sequence(body, "h1[*]") is None


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("05 abr 2026", "2026-04-05"),
        ("24 de febrero de 2023", "2023-02-24"),
        ("3. März 2021", "2021-03-03"),
        ("8 mei 2019", "2019-05-08"),
        ("1 juillet 2019", "2019-07-01"),
        ("10 mayo, 2017", "2017-05-10"),
        ("Lukács Zsolt 2024. 07. 20.", "2024-07-20"),
        ("2020/10/23", "2020-10-23"),
        ("Updated on March 6, 2024 | By Sara", "2024-03-06"),
        ("Wed Mar 08 2023 11:01:00 GMT", "2023-03-08"),
        ("09/01/21", "2021-09-01"),
    ],
)
def test_a_date_in_other_languages_and_orders_reads_as_its_day(text, day):
    assert read_as("date", text) == day
    assert same("date", f"{day}T10:00:00+00:00", text)


def test_a_text_without_a_whole_date_is_no_date():
    assert read_as("date", "Dinner for 2 in 2020") is None
    assert read_as("date", "juin 2020") is None
