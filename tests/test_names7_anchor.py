"""A page without a name's trusted body keys is read from the element that ends like one
of them: the same last named element, rank and suffix (one more inline wrapper, or the
plugin's element nested elsewhere by a second layout)."""

from __future__ import annotations

import lxml.html

from pagesim_scrapy.core.record.bodyfields import body_fields, key_anchor
from pagesim_scrapy.core.record.model import CoreRecord
from pagesim_scrapy.core.record.naming import BodyNaming, NamingOptions
from tests.anchor_recipes import learned_naming, recipe_page


def _body(html: str) -> dict[str, str]:
    return body_fields(lxml.html.fromstring(html), "https://cook.example/")


def _page(name: str, summary: str, steps: list[str], wrap: bool = False) -> str:
    return recipe_page(name, summary, steps, wrap=wrap, summary_span=True)


def _learned(options: NamingOptions) -> BodyNaming:
    return learned_naming(options, summary_span=True)


def test_key_anchor_is_the_last_named_element_and_the_end():
    assert key_anchor("^li#instruction-step/span[*]") == ("li#instruction-step", "[*]")
    assert key_anchor("~body/div/ol/li#instruction-step[3]") == ("li#instruction-step", "[3]")
    assert key_anchor("body/div.recipe-summary/span/em[0]") == ("div.recipe-summary", "[0]")
    assert key_anchor("body/div/img[0]@src") is None
    assert key_anchor("no-rank") is None


def test_a_wrapped_slot_is_read_from_its_anchor():
    steps = ["Boil the water", "Add the pasta"]
    page = _body(_page("Pasta", "Plain pasta for a weeknight dinner", steps, wrap=True))
    bare = CoreRecord("page", {}, {})
    filled = _learned(NamingOptions(anchored=True, anchor_depth=2)).fill(bare, page)
    assert filled.fields["description"].value == "Plain pasta for a weeknight dinner"
    assert filled.fields["description"].source == "body"
    assert filled.fields["recipe_instructions"].value == steps
    # one element below the anchor at most (the default): the steps, not the summary two below
    near = _learned(NamingOptions(anchored=True)).fill(bare, page)
    assert near.fields["recipe_instructions"].value == steps
    assert "description" not in near.fields
    # without anchors the learned keys are not on the page: nothing is filled
    assert (
        "description"
        not in _learned(NamingOptions(anchored=True, anchor_depth=0)).fill(bare, page).fields
    )
    assert "description" not in _learned(NamingOptions(anchored=False)).fill(bare, page).fields


def test_a_page_with_the_trusted_key_reads_it_as_before():
    page = _body(_page("Pasta", "Plain pasta for a weeknight dinner", ["Boil", "Drain"]))
    bare = CoreRecord("page", {}, {})
    on = _learned(NamingOptions(anchored=True)).fill(bare, page)
    off = _learned(NamingOptions(anchored=False)).fill(bare, page)
    assert on == off
