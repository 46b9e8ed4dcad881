"""A recipe site with two pages: the body naming learns from the one other page when the
agreement is specific (a long text that one element shows), and fills no number from it."""

from __future__ import annotations

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.bodyvalues import same
from pagesim_scrapy.core.record.build import read_page
from pagesim_scrapy.core.record.naming import BodyNaming

from .conftest import shared_data
from .test_recbody_naming import _stripped


def _site(name: str) -> list[tuple[str, bytes]]:
    folder = shared_data("recipe_scrapers_testdata", "tests", "test_data", name)
    files = sorted(folder.glob("*.testhtml"))
    return [(f"https://{name}/{f.stem}", f.read_bytes()) for f in files]


def test_one_other_page_names_the_body_description():
    (url, html), (other_url, other_html) = _site("aflavorjournal.com")[:2]
    naming = BodyNaming()
    core, root = read_page(other_html, other_url)
    naming.observe(core, body_fields(root, other_url))
    names = naming.names()
    assert "description" in names
    assert not {"rating_value", "recipe_yield", "date_published"} & set(names)
    truth, _ = read_page(html, url)
    bare, bare_root = read_page(_stripped(html), url)
    filled = naming.fill(bare, body_fields(bare_root, url))
    assert filled.fields["description"].source == "body"
    assert same("text", filled.get("description"), truth.get("description"))
