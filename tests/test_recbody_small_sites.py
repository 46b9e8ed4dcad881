"""Sites of a few pages: a name is trusted from fewer pages where the evidence is strong —
a number one element shows, a long name several elements show, a key the other pages lack
(a second layout) — and never where a slot says otherwise."""

from __future__ import annotations

import lxml.html

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.bodyvalues import same
from pagesim_scrapy.core.record.model import CoreRecord, Value
from pagesim_scrapy.core.record.naming import BodyNaming, NamingOptions


def _body(html: str) -> dict[str, str]:
    return body_fields(lxml.html.fromstring(html), "https://cook.example/")


def _core(**values: str) -> CoreRecord:
    return CoreRecord("recipe", {k: Value(v, "json-ld") for k, v in values.items()}, {})


def _page(name: str, serves: str, extra: str = "", layout: str = "card") -> str:
    return (
        f"<html><body><nav><a>Home</a><a>{name}</a></nav><h1>{name}</h1>{extra}"
        f"<div class='{layout}'><h2>{name}</h2><p class='print'>{name}</p>"
        f"<p>Serves <span class='yield'>{serves}</span></p></div>"
        "<footer>(c) Cook, 2015-2025, all rights reserved</footer></body></html>"
    )


def test_a_number_one_element_shows_is_trusted_from_one_page():
    options = NamingOptions(max_plain_elements=3)
    naming = BodyNaming(options)
    naming.observe(
        _core(name="Buttermilk Crepes", recipe_yield="4"), _body(_page("Buttermilk Crepes", "4"))
    )
    assert "recipe_yield" in naming.names()
    filled = naming.fill(CoreRecord("page", {}, {}), _body(_page("Buttermilk Waffles", "6")))
    assert filled.fields["recipe_yield"].source == "body"
    assert same("text", filled.get("recipe_yield"), "6")
    # a number many elements show names none of them
    crowded = BodyNaming(options)
    many = "".join(f"<i>{n}</i>" for n in ("4", "4", "4", "4"))
    crowded.observe(_core(recipe_yield="4"), _body(_page("Buttermilk Crepes", "4", many)))
    assert "recipe_yield" not in crowded.names()
    assert "recipe_yield" not in BodyNaming().names()


def test_a_long_name_several_elements_show_is_trusted_from_one_page():
    name = "Buttermilk Pancakes with Blueberries"
    naming = BodyNaming(NamingOptions(min_long_chars=16, max_long_elements=8))
    naming.observe(_core(name=name), _body(_page(name, "4")))
    filled = naming.fill(CoreRecord("page", {}, {}), _body(_page("Spiced Apple Crumble Bars", "6")))
    assert filled.fields["name"] == Value("Spiced Apple Crumble Bars", "body")
    strict = BodyNaming(NamingOptions())  # four elements show it: more than three
    strict.observe(_core(name=name), _body(_page(name, "4")))
    assert "name" not in strict.names()


def test_a_key_the_other_pages_lack_is_trusted_on_a_small_site():
    options = NamingOptions(few_pages=4, max_plain_elements=3)
    naming = BodyNaming(options)
    naming.observe(_core(recipe_yield="4"), _body(_page("Buttermilk Crepes", "4")))
    # a second layout: the yield slot is elsewhere and shows something else
    other = _page("Waffles", "", "<em class='serves'>Serves 6</em>", layout="box")
    naming.observe(_core(recipe_yield="6"), _body(other))
    assert "recipe_yield" in naming.names()
    # the same layout showing another value: the slot says otherwise
    naming = BodyNaming(options)
    naming.observe(_core(recipe_yield="4"), _body(_page("Buttermilk Crepes", "4")))
    naming.observe(_core(recipe_yield="6"), _body(_page("Waffles", "12")))
    assert "recipe_yield" not in naming.names()
