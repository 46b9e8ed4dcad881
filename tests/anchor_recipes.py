"""Three small recipe pages of one site and the body naming learned from them: the shared
setup of the anchored-key tests (a page that lacks a trusted key read near its anchor)."""

from __future__ import annotations

import lxml.html

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.model import CoreRecord, Value
from pagesim_scrapy.core.record.naming import BodyNaming, NamingOptions

URL = "https://cook.example/"

PAGES = [
    ("Buttermilk Crepes", "Thin crepes for a lazy Sunday morning", ["Whisk the batter", "Fry"]),
    ("Oat Waffles", "Crisp waffles made with rolled oats", ["Soak the oats", "Bake them"]),
    ("Rye Bread", "A dense loaf that keeps for a week", ["Mix the dough", "Prove it"]),
]


def metadata_core(**values: object) -> CoreRecord:
    """A recipe's core record as its JSON-LD gives it."""
    return CoreRecord("recipe", {k: Value(v, "json-ld") for k, v in values.items()}, {})


def recipe_page(
    name: str, summary: str, steps: list[str], wrap: bool = False, summary_span: bool = False
) -> str:
    """A recipe page; ``wrap`` puts each value one inline element deeper (a second layout)."""
    inner = "<span>{}</span>" if wrap else "{}"
    items = "".join(f"<li id='instruction-step'>{inner.format(s)}</li>" for s in steps)
    lead = f"<em>{summary}</em>" if wrap else summary
    if summary_span:
        lead = f"<span>{lead}</span>"
    return (
        f"<html><body><nav><a>Home</a><a>Recipes</a></nav><h1>{name}</h1>"
        f"<div class='recipe-summary'>{lead}</div>"
        f"<div class='steps'><ol>{items}</ol></div>"
        "<footer>(c) Cook, all rights reserved</footer></body></html>"
    )


def learned_naming(
    options: NamingOptions, summary_span: bool = False, stop: bool = False
) -> BodyNaming:
    """The naming learned from :data:`PAGES`, their description and steps in the metadata."""
    naming = BodyNaming(options)
    for name, summary, steps in PAGES:
        core = metadata_core(description=summary, recipe_instructions=steps)
        page = recipe_page(name, summary, steps, summary_span=summary_span)
        naming.observe(core, body_fields(lxml.html.fromstring(page), URL))
    if stop:
        naming.stop_learning()
    return naming
