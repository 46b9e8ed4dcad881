"""A field named by a label that holds the site's name is named without it (issue 31): the
shop's "Reply from Northwind Outfitters" above its answer under a review names the review's
``reply``, not ``reply_from_northwind_outfitters``; the site's name is the part every learned
page's ``<title>`` shares."""

from __future__ import annotations

import json

import pytest

from pagesim_scrapy.core.induce import Wrapper, parse_html
from pagesim_scrapy.core.induce.compiled import without_site_name
from sample_project.demo_shop import DEMO_LABELS_FILE, DEMO_SITE_DIR

SITE = ("northwind", "outfitters")


def test_the_site_name_and_the_words_it_leaves_are_cut_out() -> None:
    assert without_site_name("Reply from Northwind Outfitters", SITE) == "reply"
    assert without_site_name("Northwind Outfitters reviews", SITE) == "reviews"
    # nothing else left, no site name, or another site's: the name stays
    assert without_site_name("Northwind Outfitters", SITE) == "Northwind Outfitters"
    assert without_site_name("Reply from Acme", SITE) == "Reply from Acme"
    assert without_site_name("Reply from Northwind Outfitters", ()) == (
        "Reply from Northwind Outfitters"
    )
    assert without_site_name("northwind_gear", SITE) == "northwind_gear"


@pytest.mark.skipif(not DEMO_LABELS_FILE.is_file(), reason="the demo site is not generated")
def test_the_sellers_reply_in_a_review_is_named_reply() -> None:
    labels = json.loads(DEMO_LABELS_FILE.read_text(encoding="utf-8"))
    paths = sorted(path for path, label in labels.items() if label == "product")[:8]
    wrapper = Wrapper(label="product")
    wrapper.add_pages(
        [
            parse_html((DEMO_SITE_DIR / p).read_bytes(), base_url="https://shop.example/" + p)
            for p in paths
        ]
    )
    names = {(f.scope, f.name) for f in wrapper.compiled().fields}
    assert not any("northwind" in name for _, name in names)
    assert any(scope and name == "reply" for scope, name in names), sorted(names)
