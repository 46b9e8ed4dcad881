"""Label–value fields (issue 11) on fragments of real pages (tests/fixtures/labels/NOTICE.md)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from pagesim_scrapy.core.induce import Wrapper, induce, parse_html
from pagesim_scrapy.core.induce.describe import describe
from pagesim_scrapy.core.induce.labels import find_rows, label_key, split_parts

FIXTURES = Path(__file__).parent / "fixtures" / "labels"


def page(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def rows(name: str) -> dict[str, str]:
    return {r.label: r.value for r in find_rows(parse_html(page(name)))}


def label_fields(wrapper: Wrapper) -> dict[str, object]:
    return {f.name: f for f in wrapper.fields if f.label is not None}


def test_list_items_with_a_bold_label_and_a_colon():
    # <li><strong>Proizvajalec:</strong> <a>B&S</a></li>
    assert rows("vsezaoci.html") == {
        "Proizvajalec": "B&S",
        "Šifra": "9470",
        "Razpoložljivost": "Dobavljivo",
        "Rok dobave": "1−10 delovnih dni",
    }


def test_br_separated_rows_in_one_paragraph():
    # <p><strong>Serves:</strong> 6-8<br><strong>Prep time:</strong> 20 minutes<br>…</p>
    assert rows("flavorsbylinbie_1.html") == {
        "Serves": "6-8",
        "Prep time": "20 minutes",
        "Cook time": "8 hours on low or 4 hours on high",
    }


def test_table_rows_th_td():
    found = rows("amazon_uk_table.html")
    assert found["ASIN"] == "B004SNMXRS"
    assert found["Date First Available"] == "4 April 2009"


def test_definition_list_with_several_values_is_a_run_of_links():
    (row,) = find_rows(parse_html(page("smartprix_dl.html")))
    assert row.label == "Brands"
    assert row.links[:3] == ["Samsung", "Redmi (Mi)", "Oppo"] and len(row.links) == 13


def test_label_value_in_one_text():
    assert rows("goodhousekeeping_1.html") == {
        "Calories": "222",
        "Total fat": "20g",
        "Saturates": "15g",
        "Carbs": "8g",
        "Total sugars": "6g",
    }


def test_span_label_and_span_value_with_the_colon_in_the_label():
    found = rows("lafeltrinelli.html")
    assert found["Editore"] == "Salani"
    assert found["EAN"] == "2000000043333"
    assert found["Data uscita"] == "22/10/2020"


def test_labels_are_normalised_for_matching():
    assert label_key(" ISBN-13 : ") == label_key("isbn-13") == "isbn-13"
    assert split_parts("Dinner, Lunch and Snacks") == (", ", ["Dinner", "Lunch", "Snacks"])
    assert split_parts("July 31, 2016") == (", ", ["July 31", "2016"])  # a list only if parts vary


def test_rows_matched_by_label_whatever_their_position_optional_when_on_some_pages():
    # three product pages: UPC on one only, Department on one, rows in different positions
    wrapper = induce([page(f"amazon_{k}.html") for k in (1, 2, 3)], label="product")
    fields = label_fields(wrapper)
    assert {"asin", "manufacturer", "date_first_available"} <= set(fields)
    assert not fields["asin"].optional and fields["date_first_available"].optional
    # a row seen on one page of three cannot be told from template text: no field
    assert "upc" not in fields
    record = wrapper.extract(page("amazon_2.html")).record
    assert record["asin"] == "B01GOH7PKA"
    assert record["manufacturer"] == "Gothamite"
    assert record["date_first_available"] == "July 31, 2016"
    assert wrapper.extract(page("amazon_1.html")).record["date_first_available"] is None


def test_rows_in_another_layout_are_still_found_by_label():
    # <ul><li>Calories: 222</li>… on one page, <p>Calories: 508cals</p>… on the other
    wrapper = induce([page("goodhousekeeping_1.html"), page("goodhousekeeping_2.html")])
    fields = label_fields(wrapper)
    assert {"calories", "carbs"} <= set(fields)
    result = wrapper.extract(page("goodhousekeeping_2.html"))
    assert result.record["calories"] == "508cals" and result.record["carbs"] == "14g"
    assert result.rows["calories"] == "Calories: 508cals"


def test_a_label_followed_by_several_links_is_a_list():
    wrapper = induce([page("homeandplate_1.html"), page("homeandplate_2.html")])
    fields = label_fields(wrapper)
    assert fields["tags"].kind == "values"
    record = wrapper.extract(page("homeandplate_2.html")).record
    assert record["tags"] == ["Christmas", "Christmas cookies", "Cookies", "Holiday Recipes"]
    assert record["filed_under"] == ["Baked Goods", "Sweets"]
    # the author is the same on both pages, but the page labels it: a field (issue 31, item 4)
    assert record["author"] == fields["author"].samples[0]


def test_a_single_page_gives_its_rows_as_fields():
    wrapper = induce([page("lafeltrinelli.html")], label="book")
    record = wrapper.extract(page("lafeltrinelli.html")).record
    assert record["ean"] == "2000000043333"
    assert record["editore"] == "Salani"
    assert record["pagine"] == "400"


def test_label_fields_survive_json_and_old_wrappers_still_load():
    wrapper = induce([page(f"amazon_{k}.html") for k in (1, 2, 3)], label="product")
    data = wrapper.to_dict()
    assert "asin" in data["labels"]
    again = Wrapper.from_json(json.dumps(data))
    assert again.extract(page("amazon_3.html")).record["asin"] == "B081ZQK4BZ"
    names_before = [f.name for f in wrapper.fields]
    assert [f.name for f in again.fields] == names_before
    del data["labels"]  # a wrapper written before label fields existed
    old = Wrapper.from_dict(data)
    assert not any(f.label for f in old.fields)


def test_merge_pools_label_statistics():
    a = induce([page("amazon_1.html"), page("amazon_2.html")], label="product")
    b = induce([page("amazon_3.html")], label="product")
    a.merge(b)
    assert a.pages == 3
    assert not label_fields(a)["asin"].optional


def test_wrapper_show_lists_label_fields_with_examples():
    wrapper = induce([page("homeandplate_1.html"), page("homeandplate_2.html")])
    text = describe(wrapper)
    line = next(x for x in text.splitlines() if x.strip().startswith("tags "))
    assert 'row "Tags"' in line and "Christmas" in text


@pytest.mark.parametrize("bad", [{"asin": 3}, ["x"]])
def test_corrupt_labels_are_a_wrapper_error(bad):
    from pagesim_scrapy.core.induce import WrapperError

    data = induce([page("amazon_1.html")]).to_dict()
    data["labels"] = bad
    with pytest.raises(WrapperError):
        Wrapper.from_dict(data)


# --- values at the right grain (real pages of ../shared/data) ------------------------------


def shared_page(*parts: str) -> bytes:
    from tests.conftest import shared_data

    path = shared_data(*parts)
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def flavorsbylinbie_2() -> bytes:
    return shared_page(
        "recipe_scrapers_testdata",
        "tests",
        "test_data",
        "flavorsbylinbie.com",
        "flavorsbylinbie_2.testhtml",
    )


def test_several_pairs_in_one_text_are_one_row_each():
    # <p><em>Serves: 4 | Total Time: 35 minutes</em></p>
    found = {r.label: r for r in find_rows(parse_html(flavorsbylinbie_2()))}
    assert found["Serves"].value == "4"
    assert found["Total Time"].value == "35 minutes"
    assert found["Total Time"].text == "Total Time: 35 minutes"
    record = induce([flavorsbylinbie_2()]).extract(flavorsbylinbie_2()).record
    assert record["serves"] == "4" and record["total_time"] == "35 minutes"


def test_several_colon_labels_in_one_parent_without_breaks_are_one_row_each():
    # (no page of the data has this form; the markup is the one of the <br> form without
    # the <br> elements)
    root = parse_html(
        b"<html><body><p><strong>Serves:</strong> 6-8 <strong>Prep time:</strong> 20 minutes"
        b" <strong>Cuisine:</strong> <a href='/a'>Thai</a>, <a href='/b'>Vegan</a></p>"
        b"</body></html>"
    )
    found = {r.label: r for r in find_rows(root)}
    assert [found[k].value for k in ("Serves", "Prep time")] == ["6-8", "20 minutes"]
    assert found["Cuisine"].links == ["Thai", "Vegan"]


AMAZON_BUY_BOX = "9dd68672c098"


def test_a_screen_reader_copy_of_a_label_is_read_once():
    # <span class="a-offscreen">Sold by</span><span aria-hidden="true">Sold by</span>, and
    # the label "Ships from" whose drawn copy is cut to "Ships…"
    found = {r.label: r.value for r in find_rows(parse_html(amazon_buy_box()))}
    assert found["Sold by"] == "Gothamite"
    assert found["Ships from"] == "Amazon"
    assert not any(label.endswith("…") or label == "Sold by Sold by" for label in found)


def amazon_buy_box() -> bytes:
    from tests.conftest import shared_data

    folder = shared_data("zyte_product_extraction_benchmark", "dataset", "html")
    (path,) = [p for p in folder.iterdir() if AMAZON_BUY_BOX in p.name]
    return gzip.decompress(path.read_bytes())


def test_a_single_page_leaves_out_rows_of_its_chrome_and_tips():
    # one page shows no variation: the header's "Deliver to Netherlands", the footer's
    # "Get to Know Us" column, and bold lead-ins of tips ("<strong>Don't overcrowd the
    # pan:</strong> give the chicken space to brown.") would become fields; the page's own
    # rows stay
    shop = induce([amazon_buy_box()])
    fields = label_fields(shop)
    assert {"sold_by", "ships_from", "asin", "manufacturer"} <= set(fields)
    assert not {"deliver_to", "your_lists", "get_to_know_us"} & set(fields)
    found = find_rows(parse_html(amazon_buy_box()))
    assert next(r for r in found if r.label == "Deliver to").chrome  # in the page header
    assert not next(r for r in found if r.label == "ASIN").chrome
    recipe = label_fields(induce([flavorsbylinbie_2()]))
    assert {"serves", "total_time"} <= set(recipe)
    assert not any("overcrowd" in name for name in recipe)
