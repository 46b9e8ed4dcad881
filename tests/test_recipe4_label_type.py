"""A plain page whose label's records are mostly recipes is read as a recipe: the body
reader looks for its values even where the site's learned naming finds none of its
trusted fields on the page (the site says what the page is, not a rule of ours)."""

from __future__ import annotations

import lxml.html

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.bodyvalues import same
from pagesim_scrapy.core.record.build import (
    fill_from_body,
    label_type,
    read_page,
    read_record,
    typed_by_label,
)
from pagesim_scrapy.core.record.naming import BodyNaming

from .conftest import shared_data

_META_ATTRS = ("itemprop", "itemscope", "itemtype", "property", "typeof", "content", "rel")


def _pages(site: str) -> list[tuple[str, bytes]]:
    folder = shared_data("recipe_scrapers_testdata", "tests", "test_data", site)
    return [(f"https://{site}/{f.stem}", f.read_bytes()) for f in sorted(folder.glob("*.testhtml"))]


def _stripped(html: bytes) -> bytes:
    """The page without its metadata (script data, meta tags, microdata and RDFa)."""
    root = lxml.html.fromstring(html, parser=lxml.html.HTMLParser(encoding="utf-8"))
    for el in root.xpath("//script | //meta | //link"):
        el.drop_tree()
    for el in root.iter():
        for name in _META_ATTRS:
            el.attrib.pop(name, None)
    return lxml.html.tostring(root, encoding="utf-8")


def _naming(pages: list[tuple[str, bytes]]) -> BodyNaming:
    naming = BodyNaming()
    for url, html in pages:
        core, root = read_page(html, url)
        naming.observe(core, body_fields(root, url))
    naming.stop_learning()
    return naming


def test_a_plain_page_is_read_as_a_recipe_only_where_its_label_says_so():
    url, html = _pages("acouplecooks.com")[0]
    truth = read_record(html, url)
    bare = _stripped(html)
    assert read_record(bare, url).page_type == "page"
    assert read_record(bare, url, label="article").page_type == "page"
    record = read_record(bare, url, label="recipe")
    assert record.page_type == "recipe"
    for name in ("name", "recipe_yield", "total_time"):
        assert record.fields[name].source == "body", name
        assert same("text", record.get(name), truth.get(name)), name
    ingredients = record.get("recipe_ingredient")
    assert same("list", ingredients, truth.get("recipe_ingredient"))


def test_a_page_with_metadata_keeps_its_own_type_whatever_the_label():
    url, html = _pages("acouplecooks.com")[0]
    assert read_record(html, url, label="product") == read_record(html, url)


def test_the_reader_runs_where_the_naming_finds_none_of_its_fields():
    # a naming whose trusted fields this page lacks (learned on another site's recipes):
    # typed by the label, the page still gets what its own body says
    naming = _naming(_pages("hogarmania.com"))
    assert label_type(naming.type_counts()) == "recipe"
    url, html = _pages("acouplecooks.com")[1]
    truth = read_record(html, url)
    core, root = read_page(_stripped(html), url)
    body = body_fields(root, url)
    untyped = fill_from_body(naming, core, body, root)
    assert "recipe_ingredient" not in untyped.fields
    typed = typed_by_label(core, root, label_type(naming.type_counts()))
    filled = fill_from_body(naming, typed, body, root)
    assert filled.page_type == "recipe"
    assert filled.fields["recipe_ingredient"].source == "body"
    assert same("list", filled.get("recipe_ingredient"), truth.get("recipe_ingredient"))


def test_the_pipeline_reads_a_bare_page_as_its_label_s_recipe():
    from pagesim_scrapy.pipelines.induction.records import compose_record

    naming = _naming(_pages("hogarmania.com"))
    url, html = _pages("acouplecooks.com")[1]
    truth = read_record(html, url)
    record = compose_record(_stripped(html), {}, url, {}, naming)
    assert record.page_type == "recipe"
    assert same("list", record.record["recipe_ingredient"], truth.get("recipe_ingredient"))


def test_absent_plain_trusts_a_short_slot_the_other_pages_lack():
    # deliciouslyella: the category shows in a slot on two of three pages, the third page's
    # layout lacks it; a short word ("Mains") is not a specific agreement
    from pagesim_scrapy.core.record.naming import NamingOptions

    pages = _pages("deliciouslyella.com")[1:]
    learned = {}
    for plain in (False, True):
        naming = BodyNaming(NamingOptions(absent_plain=plain))
        for url, html in pages:
            core, root = read_page(html, url)
            naming.observe(core, body_fields(root, url))
        learned[plain] = naming.names("recipe").get("recipe_category")
    assert learned[False] is None
    assert learned[True] is not None
