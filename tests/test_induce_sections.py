"""Section lists (issue 11): list items under a heading, matched by the heading on each page.

Real pages of ../shared/data/recipe_scrapers_testdata; each page's expected ingredients (the
data's own JSON) are the reference.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pagesim_scrapy.core.induce import Wrapper, WrapperError, induce, parse_html
from pagesim_scrapy.core.induce.compiled import FieldInfo
from pagesim_scrapy.core.induce.describe import describe
from pagesim_scrapy.core.induce.evaluation import match_lines
from pagesim_scrapy.core.induce.sections import find_sections, heading_key
from tests.conftest import shared_data


def site_pages(site: str) -> list[Path]:
    folder = shared_data("recipe_scrapers_testdata", "tests", "test_data", site)
    return sorted(folder.glob("*.testhtml"))


def ingredients(page: Path) -> list[str]:
    return json.loads(page.with_suffix(".json").read_text(encoding="utf-8"))["ingredients"]


def section_fields(wrapper: Wrapper) -> dict[str, FieldInfo]:
    return {f.name: f for f in wrapper.fields if f.path.startswith("section ")}


def items_of(record: dict, name: str) -> list[str]:
    return [group["text"] for group in record[name]]


def assert_same_lines(got: list[str], want: list[str]) -> None:
    score = match_lines(got, want)
    assert score.matched == len(want) == len(got), (got, want)


def test_a_section_is_found_by_its_heading_whatever_the_heading_markup():
    # <h2>Ingrediënten</h2> on two pages, <p><strong>Ingrediënten</strong></p> on the third,
    # each followed by the list at another depth
    pages = site_pages("keukenliefde.nl")
    wrapper = induce([p.read_bytes() for p in pages[:2]], label="recipe")
    fields = section_fields(wrapper)
    name = next(n for n, f in fields.items() if heading_key(f.path) == "section ingrediënten")
    record = wrapper.extract(pages[2].read_bytes()).record
    assert_same_lines(items_of(record, name), ingredients(pages[2]))


def test_the_heading_keyed_region_stays_and_its_list_gets_its_own_field():
    # the list under the heading is learned by position too (a region named after its
    # heading); the section field beside it holds the same items, one record per item
    pages = site_pages("keukenliefde.nl")
    wrapper = induce([p.read_bytes() for p in pages[:2]], label="recipe")
    record = wrapper.extract(pages[0].read_bytes()).record
    want = ingredients(pages[0])
    section = next(n for n in section_fields(wrapper))
    positional = [
        f.name
        for f in wrapper.fields
        if f.kind == "list" and f.name != section and f.name in record
    ]
    assert any(match_lines(items_of(record, n), want).matched == len(want) for n in positional)
    assert_same_lines(items_of(record, section), want)


def test_a_section_with_several_lists_under_sub_headings_is_one_field():
    # "Ingredients" over "For the cake" and "For the frosting", each with its own list
    pages = site_pages("thepioneerwoman.com")
    page = next(p for p in pages if len(ingredients(p)) > 15)
    found = {heading_key(s.heading): s.items for s in find_sections(parse_html(page.read_bytes()))}
    assert_same_lines(found["ingredients"], ingredients(page))
    assert len(found["for the cake"]) + len(found["for the frosting"]) == len(ingredients(page))


def test_a_note_list_inside_an_item_stays_part_of_the_item():
    # <li>150 g onion<ul><li class="note">roughly 1 large onion</li></ul></li>, and a product
    # pop-up with its own <h2> inside an item does not end the section
    page = site_pages("fitmencook.com")[2]
    found = {heading_key(s.heading): s.items for s in find_sections(parse_html(page.read_bytes()))}
    assert_same_lines(found["ingredients"], ingredients(page))


def test_a_heading_is_read_without_its_buttons():
    # <h3>Ingredients <button>1x</button><button>2x</button><button>3x</button></h3>
    page = site_pages("bitsofcarey.com")[0]
    found = {s.heading: s.items for s in find_sections(parse_html(page.read_bytes()))}
    assert "Ingredients" in found
    assert_same_lines(found["Ingredients"], ingredients(page))


def test_a_heading_met_twice_gives_the_list_not_the_prose_bullets():
    # an "Ingredients" bullet list of notes in the article, and the recipe card's list
    pages = site_pages("itdoesnttastelikechicken.com")
    wrapper = induce([pages[0].read_bytes(), pages[2].read_bytes()], label="recipe")
    name = next(n for n, f in section_fields(wrapper).items() if f.path == 'section "Ingredients"')
    record = wrapper.extract(pages[1].read_bytes()).record
    assert_same_lines(items_of(record, name), ingredients(pages[1]))


def test_one_page_gives_no_section_field():
    page = site_pages("keukenliefde.nl")[0]
    wrapper = induce([page.read_bytes()], label="recipe")
    assert not section_fields(wrapper)


def test_section_fields_survive_json_and_old_wrappers_still_load():
    pages = site_pages("keukenliefde.nl")
    wrapper = induce([p.read_bytes() for p in pages[:2]], label="recipe")
    data = wrapper.to_dict()
    assert "ingrediënten" in data["sections"]
    again = Wrapper.from_json(json.dumps(data))
    assert [f.name for f in again.fields] == [f.name for f in wrapper.fields]
    record = again.extract(pages[2].read_bytes()).record
    name = next(iter(section_fields(again)))
    assert_same_lines(items_of(record, name), ingredients(pages[2]))
    del data["sections"]  # a wrapper written before section fields existed
    assert not section_fields(Wrapper.from_dict(data))


@pytest.mark.parametrize("bad", [{"ingredients": 3}, ["x"]])
def test_corrupt_sections_are_a_wrapper_error(bad):
    pages = site_pages("keukenliefde.nl")
    data = induce([p.read_bytes() for p in pages[:2]]).to_dict()
    data["sections"] = bad
    with pytest.raises(WrapperError):
        Wrapper.from_dict(data)


def test_merge_pools_section_statistics():
    pages = site_pages("keukenliefde.nl")
    a = induce([pages[0].read_bytes()], label="recipe")
    assert not section_fields(a)
    a.merge(induce([pages[1].read_bytes()], label="recipe"))
    assert any(f.path == 'section "Ingrediënten"' for f in section_fields(a).values())


def test_wrapper_show_lists_section_fields_with_examples():
    pages = site_pages("keukenliefde.nl")
    wrapper = induce([p.read_bytes() for p in pages[:2]], label="recipe")
    text = describe(wrapper)
    assert 'section "Ingrediënten"' in text
    assert ingredients(pages[0])[0] in text or ingredients(pages[1])[0] in text


def test_a_heading_keyed_region_is_transparent():
    # mollybaz.com: "Produce", "Pantry", "Dairy" blocks, each a heading over its own list,
    # repeat inside one region keyed by those headings. The heading-keyed fields stay
    # (one text per heading), and the region is also a list field whose records hold their
    # own lists: all the ingredients of a page the wrapper did not learn from
    from pagesim_scrapy.core.induce.evaluation import candidate_lists

    pages = site_pages("mollybaz.com")
    wrapper = induce([p.read_bytes() for p in pages[:2]], label="recipe")
    keyed = {f.name for f in wrapper.fields if f.path.endswith(("[Produce]", "[Pantry]"))}
    assert {"produce", "pantry"} <= keyed
    record = wrapper.extract(pages[2].read_bytes()).record
    assert record["pantry"] and record["produce"]
    want = ingredients(pages[2])
    nested = {
        name: lines for name, lines in candidate_lists(record).items() if name.count("/") >= 1
    }
    assert any(match_lines(lines, want).matched == len(want) for lines in nested.values())
