"""A label stops learning its body names once they have stayed the same over
``settled_pages`` pages: later pages are only filled, from the same keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.build import read_page
from pagesim_scrapy.core.record.naming import BodyNaming, NamingOptions

DEMO = Path(__file__).resolve().parents[1] / "sample_project" / "demo_site"


def _reads(count: int) -> list[tuple[object, dict[str, str]]]:
    labels = json.loads((DEMO / "labels.json").read_text(encoding="utf-8"))
    paths = sorted(p for p, label in labels.items() if label == "product")[:count]
    out = []
    for path in paths:
        url = "https://shop.example/" + path
        core, root = read_page((DEMO / path).read_bytes(), url)
        out.append((core, body_fields(root, url)))
    return out


def test_a_label_settles_once_its_names_stay_the_same():
    reads = _reads(20)
    settled = BodyNaming(NamingOptions(settled_pages=5))
    always = BodyNaming(NamingOptions(settled_pages=0))
    for core, body in reads:
        settled.observe(core, body)
        always.observe(core, body)
    assert always.pages == 20 and always.learning
    assert settled.pages < 20 and not settled.learning
    assert settled.names() == always.names()
    assert settled.wanted() is not None  # later pages are read for the learned keys only


def test_a_label_with_nothing_learned_keeps_learning():
    naming = BodyNaming(NamingOptions(settled_pages=2))
    core, _ = _reads(1)[0]
    for _ in range(6):
        naming.observe(core, {})
    assert naming.pages == 6 and naming.learning


def test_settled_pages_must_not_be_negative():
    with pytest.raises(ValueError):
        NamingOptions(settled_pages=-1)
