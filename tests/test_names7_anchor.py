"""A page without a name's trusted body keys is read from the element that ends like one
of them: the same last named element, rank and suffix (one more inline wrapper, or the
plugin's element nested elsewhere by a second layout)."""

from __future__ import annotations

import lxml.html

from pagesim_scrapy.core.record.bodyfields import body_fields, key_anchor
from pagesim_scrapy.core.record.model import CoreRecord, Value
from pagesim_scrapy.core.record.naming import BodyNaming, NamingOptions


def _body(html: str) -> dict[str, str]:
    return body_fields(lxml.html.fromstring(html), "https://cook.example/")


def _core(**values: object) -> CoreRecord:
    return CoreRecord("recipe", {k: Value(v, "json-ld") for k, v in values.items()}, {})


def _page(name: str, summary: str, steps: list[str], wrap: bool = False) -> str:
    inner = "<span>{}</span>" if wrap else "{}"
    items = "".join(f"<li id='instruction-step'>{inner.format(s)}</li>" for s in steps)
    lead = f"<em>{summary}</em>" if wrap else summary
    return (
        f"<html><body><nav><a>Home</a><a>Recipes</a></nav><h1>{name}</h1>"
        f"<div class='recipe-summary'><span>{lead}</span></div>"
        f"<div class='steps'><ol>{items}</ol></div>"
        "<footer>(c) Cook, all rights reserved</footer></body></html>"
    )


PAGES = [
    ("Buttermilk Crepes", "Thin crepes for a lazy Sunday morning", ["Whisk the batter", "Fry"]),
    ("Oat Waffles", "Crisp waffles made with rolled oats", ["Soak the oats", "Bake them"]),
    ("Rye Bread", "A dense loaf that keeps for a week", ["Mix the dough", "Prove it"]),
]


def _learned(options: NamingOptions) -> BodyNaming:
    naming = BodyNaming(options)
    for name, summary, steps in PAGES:
        core = _core(description=summary, recipe_instructions=steps)
        naming.observe(core, _body(_page(name, summary, steps)))
    return naming


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
