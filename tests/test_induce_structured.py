"""Embedded JSON-LD as fields, absolute links, duplicate pages, page names and constant
affixes: the induction features that make wrappers hold on real sites."""

from __future__ import annotations

import json
import logging
import random

import pytest

from pagesim_scrapy.core.induce import Wrapper, induce, parse_html
from pagesim_scrapy.core.induce.compiled import constant_affixes, trim_affixes
from pagesim_scrapy.core.induce.evaluation import match_lines, normalise
from pagesim_scrapy.core.induce.structured import (
    JSONLD_TAG,
    MAX_LIST,
    MAX_NODES,
    add_jsonld,
    jsonld_blocks,
)
from tests.conftest import shared_data
from tests.test_induce_core import WORDS, recipe_page

# --- JSON-LD → synthetic subtree ---------------------------------------------------------


def _page(blocks: list[str], body: str = "<p>client-side app</p>") -> str:
    scripts = "".join(f'<script type="application/ld+json">{b}</script>' for b in blocks)
    return f"<html><head><title>T</title>{scripts}</head><body>{body}</body></html>"


def _props(root) -> list[tuple[str, str]]:
    box = root.find(JSONLD_TAG)
    assert box is not None
    return [(el.get("itemprop"), el.text or "") for el in box.iter() if el is not box]


def test_jsonld_becomes_a_canonical_subtree_after_body():
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "name": "Cook Site", "@id": "#site"},
            {
                "@type": ["Recipe"],
                "name": "Pasta &amp; Peas",
                "recipeIngredient": ["1 cup peas", "200 g pasta", ""],
                "recipeYield": ["4"],
                "author": {"@type": "Person", "name": "Ann"},
                "publisher": {"@id": "#org"},  # a bare reference holds no data
                "recipeInstructions": [
                    {"@type": "HowToStep", "text": "Boil <b>water</b>."},
                    {"@type": "HowToStep", "text": "Cook."},
                ],
            },
        ],
    }
    root = parse_html(_page([json.dumps(graph)]))
    assert [el.tag for el in root] == ["head", "body", JSONLD_TAG]
    props = _props(root)
    # entities sorted by type, keys sorted, "@" keys and empty values dropped
    assert props == [
        ("jsonld.Recipe", ""),
        ("jsonld.Recipe.author", ""),
        ("jsonld.Recipe.author.name", "Ann"),
        ("jsonld.Recipe.name", "Pasta & Peas"),
        ("jsonld.Recipe.recipeIngredient", ""),
        ("jsonld.Recipe.recipeIngredient", "1 cup peas"),
        ("jsonld.Recipe.recipeIngredient", "200 g pasta"),
        ("jsonld.Recipe.recipeInstructions", ""),
        ("jsonld.Recipe.recipeInstructions", ""),
        ("jsonld.Recipe.recipeInstructions.text", "Boil water ."),
        ("jsonld.Recipe.recipeInstructions", ""),
        ("jsonld.Recipe.recipeInstructions.text", "Cook."),
        ("jsonld.Recipe.recipeYield", "4"),  # a one-element array is a plain value
        ("jsonld.WebSite", ""),
        ("jsonld.WebSite.name", "Cook Site"),
    ]
    # the visible page alone, when asked
    assert parse_html(_page([json.dumps(graph)]), structured=False).find(JSONLD_TAG) is None


def test_bad_and_hostile_jsonld_never_crashes(caplog: pytest.LogCaptureFixture):
    caplog.set_level(logging.DEBUG, logger="pagesim_scrapy.core.induce.structured")
    deep: dict = {"@type": "Thing", "name": "x"}
    for _ in range(50):
        deep = {"@type": "Thing", "child": deep}
    blocks = [
        "{not json",
        "42",
        '"just a string"',
        "<!-- " + json.dumps({"@type": "Product", "name": "Kettle"}) + " -->",
        json.dumps({"@type": "Product", "sku": list(range(5 * MAX_LIST))}),
        json.dumps(deep),
        json.dumps({"@type": "Huge", "items": [{"a": str(k), "b": str(k)} for k in range(4000)]}),
    ]
    root = parse_html(_page(blocks))
    props = _props(root)
    assert ("jsonld.Product.name", "Kettle") in props  # comment wrappers are tolerated
    assert sum(1 for p, _ in props if p == "jsonld.Product.sku") == MAX_LIST + 1
    assert max(p.count(".") for p, _ in props) <= 8  # nesting is bounded
    assert len(props) <= MAX_NODES
    assert "not valid JSON" in caplog.text
    # no block with data: no subtree at all
    empty = parse_html(_page(["[]", "{}", json.dumps({"@context": "x"})]))
    assert empty.find(JSONLD_TAG) is None
    assert add_jsonld(empty, []) is None
    assert jsonld_blocks(parse_html("<html><body><p>x</p></body></html>")) == []


def _spa_recipe(rng: random.Random, title: str, lines: int) -> str:
    """A client-side rendered page: the visible body holds no recipe, the JSON-LD does."""
    data = {
        "@context": "https://schema.org",
        "@type": "Recipe",
        "name": title,
        "publisher": {"@type": "Organization", "name": "Cook Site"},
        "recipeIngredient": [
            f"{k + 1} {' '.join(rng.choice(WORDS) for _ in range(3))}" for k in range(lines)
        ],
    }
    return _page([json.dumps(data)], "<div id='app'><p>Loading…</p></div>")


def test_jsonld_fields_come_out_of_a_client_side_rendered_site():
    rng = random.Random(5)
    titles = ["Tomato Soup", "Lemon Cake", "Rice Salad", "Onion Tart"]
    pages = [_spa_recipe(rng, t, 3 + k) for k, t in enumerate(titles)]
    wrapper = induce(pages[:3], label="recipe")
    names = {f.name for f in wrapper.fields}
    assert {"jsonld_recipe_name", "jsonld_recipe_recipe_ingredient"} <= names
    assert not any("publisher" in n for n in names)  # constant on every page: template
    record = wrapper.extract(pages[3]).record
    assert record["jsonld_recipe_name"] == "Onion Tart"
    want = json.loads(pages[3].split('json">', 1)[1].split("</script>", 1)[0])
    # one repeated region, one record per line, nothing but the line in it
    assert record["jsonld_recipe_recipe_ingredient"] == [
        {"text": line} for line in want["recipeIngredient"]
    ]
    assert wrapper.main_region is None  # JSON-LD repeats the page's data: not a list page


def test_client_side_rendered_real_site_gets_title_and_ingredients_from_jsonld():
    folder = shared_data("recipe_scrapers_testdata", "tests", "test_data", "deliciouslyella.com")
    files = sorted(folder.glob("*.testhtml"))
    expected = [json.loads(p.with_suffix(".json").read_text()) for p in files]
    data = [p.read_bytes() for p in files]
    visible = induce([parse_html(d, structured=False) for d in data[:3]])
    test = parse_html(data[3], structured=False)
    lines = [v for v in visible.extract(test).record.values() if isinstance(v, list)]
    assert all(not match_lines([g["text"] for g in v], expected[3]["ingredients"]).matched
               for v in lines)  # fmt: skip
    wrapper = induce(data[:3])
    record = wrapper.extract(data[3]).record
    assert normalise(record["jsonld_recipe_name"]) == normalise(expected[3]["title"])
    got = [g["text"] for g in record["jsonld_recipe_recipe_ingredient"]]
    score = match_lines(got, expected[3]["ingredients"])
    assert score.precision >= 0.9 and score.recall >= 0.9, score


# --- absolute links ------------------------------------------------------------------------


def test_links_are_made_absolute_against_the_page_url_and_base():
    html = (
        "<html><head><link rel='canonical' href='/r/1'></head><body>"
        "<a href='../x.html'>x</a><a href='#top'>t</a><a href='mailto:a@b.c'>m</a>"
        "<a href='//cdn.example.com/y'>y</a><a href='https://other.org/z'>z</a>"
        "<img src='data:image/png;base64,AAAA' data-src='img/1.png'><img src='i.png'>"
        "</body></html>"
    )
    root = parse_html(html, base_url="https://example.com/shop/a/page.html")
    hrefs = [a.get("href") for a in root.iter("a")]
    assert hrefs == [
        "https://example.com/shop/x.html",
        "#top",
        "mailto:a@b.c",
        "https://cdn.example.com/y",
        "https://other.org/z",
    ]
    imgs = list(root.iter("img"))
    assert imgs[0].get("src").startswith("data:")
    assert imgs[0].get("data-src") == "https://example.com/shop/a/img/1.png"
    assert imgs[1].get("src") == "https://example.com/shop/a/i.png"
    assert root.find("head/link").get("href") == "https://example.com/r/1"
    based = parse_html(
        "<html><head><base href='https://cdn.example.net/b/'></head>"
        "<body><a href='q'>q</a></body></html>",
        base_url="https://example.com/p",
    )
    assert based.find("body/a").get("href") == "https://cdn.example.net/b/q"


def _shop_page(depth: int, name: str, sku: int) -> str:
    up = "../" * depth
    return (
        f"<html><head><title>{name}</title></head><body>"
        f"<header><a class='logo' href='{up}index.html'>Shop</a></header>"
        f"<h1 class='name'>{name}</h1><a class='brand' href='{up}brands/{sku}.html'>B</a>"
        "</body></html>"
    )


def test_with_page_urls_a_site_wide_link_is_template_and_data_links_are_absolute():
    pages = [(_shop_page(d, f"Item {d}", 100 + d), f"https://s.example/{'a/' * d}p.html")
             for d in range(1, 4)]  # fmt: skip
    relative = Wrapper()
    absolute = Wrapper()
    for html, url in pages:
        relative.add_page(html)
        absolute.add_page(html, url=url)
    # "../index.html", "../../index.html": looks like data without the page URL
    assert any(f.name.startswith("logo") for f in relative.fields)
    assert not any(f.name.startswith("logo") for f in absolute.fields)
    html, url = _shop_page(2, "Item X", 555), "https://s.example/a/b/p.html"
    record = absolute.extract(html, url=url).record
    assert record["brand_url"] == "https://s.example/brands/555.html"
    assert "Item X" in record.values()


# --- duplicates, page names, constant affixes -----------------------------------------------


def test_a_page_learned_twice_is_skipped_and_remembered_across_save_and_merge():
    rng = random.Random(3)
    one = recipe_page(rng, "Tomato Soup", 4)
    two = recipe_page(rng, "Lemon Cake", 5)
    wrapper = Wrapper(label="recipe")
    assert wrapper.add_page(one) is True
    assert wrapper.add_page(one.encode()) is False  # the same document again
    assert wrapper.pages == 1 and wrapper.tree.duplicates == 1
    loaded = Wrapper.from_json(wrapper.to_json())
    assert loaded.add_page(one) is False and loaded.add_page(two) is True
    other = Wrapper(label="recipe")
    other.add_page(two)
    assert induce([one, one, two]).pages == 2
    merged = Wrapper.from_json(wrapper.to_json()).merge(other)
    assert merged.pages == 2 and merged.add_page(two) is False
    # the same canonical URL with another title is another page (a site that points every
    # canonical link to its home page must still be learned)
    same_canonical = [
        f"<html><head><title>{t}</title><link rel='canonical' href='https://s.example/'>"
        f"</head><body><h1>{t}</h1></body></html>"
        for t in ("A", "B")
    ]
    assert induce(same_canonical).pages == 2


def test_a_one_page_template_keeps_the_page_name_as_data():
    rng = random.Random(4)
    site_meta = '<meta property="og:site_name" content="Cook Site">'

    def page(title: str, ingredients: int) -> str:
        return recipe_page(rng, title, ingredients).replace("</title>", "</title>" + site_meta)

    wrapper = induce([page("Basil Pesto", 4)])
    record = wrapper.extract(page("Onion Tart", 3)).record
    # the <h1> equals the title's first part: the page's name, data even on one page
    assert record["recipe_title"] == "Onion Tart"
    assert record["page_title"] == "Onion Tart | Cook Site"
    # the logo text is the title's other part, but it is the site's stated name
    assert "Cook Site" not in record.values()
    # without a page name, one page's constant text stays template
    unnamed = recipe_page(rng, "Basil Pesto", 4).replace("<title>", "<title>x")
    plain = induce([unnamed.replace("og:title", "og:description")])
    assert "recipe_title" not in plain.extract(page("Onion Tart", 3)).record


def test_constant_affixes_of_a_varying_text_are_template():
    assert constant_affixes(["Soup | Cook Site", "Cake | Cook Site"]) == ("", " | Cook Site")
    assert constant_affixes(["Recipe: Soup", "Recipe: Cake"]) == ("Recipe: ", "")
    assert constant_affixes(["Lemon-Garlic Chicken - S", "Honey-Garlic Chicken - S"]) == (
        "",
        " - S",
    )
    assert constant_affixes(["Pasta Salad", "Feta Salad"]) is None  # no separator
    assert constant_affixes(["| S", "| S"]) is None  # no variation
    assert constant_affixes(["a - b", "a - c - b"]) is None  # nothing would be left of "a - b"
    assert constant_affixes(["A | S"]) is None
    assert trim_affixes("Tart | Cook Site", ("", " | Cook Site")) == "Tart"
    assert trim_affixes("Tart", ("", " | Cook Site")) == "Tart"
    rng = random.Random(6)
    titles = ["Tomato Soup", "Lemon Cake", "Rice Salad", "Onion Tart"]
    pages = [recipe_page(rng, t, 3) for t in titles]
    wrapper = induce(pages[:3])
    core = next(f for f in wrapper.fields if f.name == "page_title_core")
    assert sorted(core.samples) == sorted(titles[:3])
    record = wrapper.extract(pages[3]).record
    assert record["page_title"] == "Onion Tart | Cook Site"
    assert record["page_title_core"] == "Onion Tart"
    # the name stays when the wrapper is saved and learns more
    again = Wrapper.from_json(wrapper.to_json())
    again.add_page(recipe_page(rng, "Garlic Bread", 2))
    assert again.extract(pages[3]).record["page_title_core"] == "Onion Tart"


def test_jsonld_nested_too_deep_is_skipped_with_a_warning_and_a_count(caplog):
    from pagesim_scrapy.core.induce.structured import SKIP_TOO_DEEP, recording_skips

    rng = random.Random(8)
    deep = '{"@type": "Recipe", "x": ' * 5000 + "1" + "}" * 5000
    pages = [recipe_page(rng, title, 3 + k) for k, title in enumerate(["Pie", "Stew", "Tart"])]
    hostile = pages[2].replace(
        "</head>", f'<script type="application/ld+json">{deep}</script></head>'
    )
    url = "https://cook.example/hostile"
    caplog.set_level(logging.WARNING, logger="pagesim_scrapy.core.induce.structured")
    with recording_skips() as skipped:
        wrapper = induce([pages[0], pages[1], hostile], label="recipe")
        extraction = wrapper.extract(hostile, url=url)
    assert skipped[SKIP_TOO_DEEP] >= 2  # learnt once, extracted once
    assert "Tart" in json.dumps(extraction.record)
    assert url in caplog.text and SKIP_TOO_DEEP in caplog.text
    # outside recording_skips nothing is counted, and nothing raises either
    parse_html(hostile)
    assert parse_html(hostile).find(JSONLD_TAG) is None
