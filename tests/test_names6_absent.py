"""A small site's thin evidence: a key that agrees wherever its element is present, and a
signature other sites vouch for where the site's own pages do not settle the name."""

from __future__ import annotations

import lxml.html
import pytest

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.model import CoreRecord, Value
from pagesim_scrapy.core.record.naming import BodyNaming, NamingOptions
from pagesim_scrapy.core.record.signatures import SignatureMemory


def _body(html: str) -> dict[str, str]:
    return body_fields(lxml.html.fromstring(html), "https://cook.example/")


def _core(**values: str) -> CoreRecord:
    return CoreRecord("recipe", {k: Value(v, "json-ld") for k, v in values.items()}, {})


def _page(name: str, serves: str = "") -> str:
    slot = f"<p>Serves <span class='yield'>{serves}</span></p>" if serves else ""
    return (
        f"<html><body><nav><a>Home</a></nav><h1>{name}</h1>"
        f"<div class='card'><p class='lead'>A dish</p>{slot}</div>"
        "<footer>(c) Cook, 2015-2025, all rights reserved</footer></body></html>"
    )


def _learn(options: NamingOptions, memory: SignatureMemory | None = None) -> BodyNaming:
    """One page shows the yield in its slot; the other has the value in its metadata only
    (no yield slot, the value nowhere in its body)."""
    naming = BodyNaming(options, memory, "cook.example")
    naming.observe(_core(recipe_yield="4"), _body(_page("Buttermilk Crepes", "4")))
    naming.observe(_core(recipe_yield="6"), _body(_page("Waffles")))
    return naming


def test_a_page_without_the_element_says_nothing_against_it():
    assert "recipe_yield" not in _learn(NamingOptions(few_pages=4, absent_silent=0)).names()
    naming = _learn(NamingOptions(few_pages=4, absent_silent=1))
    assert "recipe_yield" in naming.names()
    filled = naming.fill(CoreRecord("page", {}, {}), _body(_page("Pancakes", "8")))
    assert filled.fields["recipe_yield"].source == "body"
    # needing two agreeing pages, one is not enough
    assert "recipe_yield" not in _learn(NamingOptions(few_pages=4, absent_silent=2)).names()


def test_a_page_with_the_element_showing_another_value_contradicts_it():
    naming = BodyNaming(NamingOptions(few_pages=4, absent_silent=1))
    naming.observe(_core(recipe_yield="4"), _body(_page("Buttermilk Crepes", "4")))
    naming.observe(_core(recipe_yield="6"), _body(_page("Waffles", "12")))
    assert "recipe_yield" not in naming.names()


def test_thin_evidence_needs_the_memory_when_asked():
    options = NamingOptions(few_pages=4, absent_silent=1, absent_needs_memory=True)
    assert "recipe_yield" not in _learn(options).names()
    key = next(k for k in _body(_page("X", "4")) if k.startswith("^") and "yield" in k)
    memory = SignatureMemory(min_sites=2)
    for site in ("a.example", "b.example"):
        memory.learn(site, "recipe", {"recipe_yield": [key]})
    naming = _learn(options, memory)
    filled = naming.fill(CoreRecord("page", {}, {}), _body(_page("Pancakes", "8")))
    assert filled.fields["recipe_yield"] == Value("8", "body")


@pytest.mark.parametrize("bad", [{"absent_silent": -1}, {"memory_share": 1.0}])
def test_bad_options_are_refused(bad):
    with pytest.raises(ValueError):
        NamingOptions(**bad)
