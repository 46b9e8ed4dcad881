"""Signatures remembered across sites: the element that held a standard value on other sites
built with the same plugin names it on a site whose own few pages cannot say, never against
the site's own pages, and never with the site's own vote."""

from __future__ import annotations

import lxml.html
import pytest

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.bodyvalues import same
from pagesim_scrapy.core.record.build import read_page
from pagesim_scrapy.core.record.model import CoreRecord, Value
from pagesim_scrapy.core.record.naming import BodyNaming
from pagesim_scrapy.core.record.signatures import SignatureMemory, is_signature

from .conftest import shared_data

PREP = "^div.recipe-times/span.recipe-prep-time[0]"


def _body(html: str) -> dict[str, str]:
    return body_fields(lxml.html.fromstring(html), "https://cook.example/")


def _core(**values: str) -> CoreRecord:
    return CoreRecord("recipe", {k: Value(v, "json-ld") for k, v in values.items()}, {})


def _page(prep: str, cook: str, title: str = "Buttermilk Pancakes") -> str:
    return (
        f"<html><body><h1>{title}</h1><div class='recipe-times'>"
        f"<span class='recipe-prep-time'>{prep}</span>"
        f"<span class='recipe-cook-time'>{cook}</span></div></body></html>"
    )


def _memory(*sites: str, min_sites: int = 2) -> SignatureMemory:
    memory = SignatureMemory(min_sites)
    for site in sites:
        naming = BodyNaming(site=site)
        naming.observe(_core(prep_time="PT10M"), _body(_page("10 minutes", "25 minutes")))
        naming.teach(memory)
    return memory


def test_a_signature_needs_other_sites_and_not_the_sites_own_vote():
    assert is_signature(PREP) and not is_signature("~body/div/span[0]")
    memory = _memory("a.example", "b.example")
    assert memory.signatures("recipe", "prep_time") == [PREP]
    # a site's own vote never counts for it: one other site is not enough
    assert memory.signatures("recipe", "prep_time", "a.example") == []
    assert memory.signatures("article", "prep_time") == []
    assert _memory("a.example").signatures("recipe", "prep_time") == []


def test_a_signature_two_names_claim_goes_to_the_one_more_sites_vouch_for():
    memory = _memory("a.example", "b.example", "c.example")
    memory.learn("d.example", "recipe", {"cook_time": [PREP]})
    assert memory.signatures("recipe", "prep_time") == [PREP]
    assert memory.signatures("recipe", "cook_time") == []


def test_the_memory_fills_a_site_with_no_page_of_its_own_and_round_trips():
    memory = SignatureMemory.from_dict(_memory("a.example", "b.example").to_dict())
    assert memory.to_dict() == _memory("a.example", "b.example").to_dict()
    naming = BodyNaming(memory=memory, site="new.example")
    naming.observe(_core(name="Waffles"), _body(_page("5 minutes", "8 minutes", "Waffles")))
    filled = naming.fill(CoreRecord("recipe", {}, {}), _body(_page("15 minutes", "30 minutes")))
    assert filled.fields["prep_time"].source == "body"
    assert same("duration", filled.get("prep_time"), "PT15M")
    unaided = BodyNaming().fill(CoreRecord("recipe", {}, {}), _body(_page("15 minutes", "30")))
    assert "prep_time" not in unaided.fields
    # the read keys include the memory's, once the naming stops learning
    naming.stop_learning()
    assert PREP in (naming.wanted() or ())
    with pytest.raises(ValueError):
        SignatureMemory.from_dict({"format": 99})


def test_the_sites_own_pages_win_over_the_memory():
    memory = _memory("a.example", "b.example")
    naming = BodyNaming(memory=memory, site="new.example")
    # on the site's own pages the slot showed another value than the metadata's
    for prep in ("PT40M", "PT50M"):
        naming.observe(_core(prep_time=prep), _body(_page("10 minutes", "25 minutes")))
    filled = naming.fill(CoreRecord("recipe", {}, {}), _body(_page("15 minutes", "30 minutes")))
    assert "prep_time" not in filled.fields


def _site(name: str) -> list[tuple[CoreRecord, dict[str, str]]]:
    folder = shared_data("recipe_scrapers_testdata", "tests", "test_data", name)
    out = []
    for path in sorted(folder.glob("*.testhtml")):
        url = f"https://{name}/{path.stem}"
        core, root = read_page(path.read_bytes(), url)
        out.append((core, body_fields(root, url)))
    return out


def test_real_plugin_sites_teach_a_site_of_two_pages_its_prep_time():
    """Three sites built with the same recipe plugin teach the memory; the fourth's own
    one page with a prep time agreed with its slot, too little to trust alone."""
    memory = SignatureMemory()
    for name in ("fithealthymacros.com", "handletheheat.com", "aflavorjournal.com"):
        naming = BodyNaming(site=name)
        for core, body in _site(name):
            naming.observe(core, body)
        naming.teach(memory)
    (truth, held), *others = _site("ambitiouskitchen.com")
    alone = BodyNaming(site="ambitiouskitchen.com")
    helped = BodyNaming(memory=memory, site="ambitiouskitchen.com")
    for naming in (alone, helped):
        for core, body in others:
            naming.observe(core, body)
    bare = CoreRecord("page", {}, {})
    assert "prep_time" not in alone.fill(bare, held).fields
    filled = helped.fill(bare, held).fields["prep_time"]
    assert filled.source == "body"
    assert same("duration", truth.get("prep_time"), filled.value)
