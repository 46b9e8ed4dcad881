"""Reading a settled label's wanted body fields ends its walk once every wanted path has
passed its last wanted rank (issue 31: the record's CPU); it gives what reading every field
and keeping the wanted ones gives, whatever the keys asked (ranks past the first, paths the
page lacks, keys of every kind)."""

from __future__ import annotations

import random
from pathlib import Path

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.read import as_utf8, parse_html

DEMO = Path(__file__).resolve().parent.parent / "sample_project" / "demo_site"


def _pages() -> list[tuple[str, bytes]]:
    paths = sorted(DEMO.rglob("*.html"))
    random.Random(11).shuffle(paths)
    return [("https://shop.example/" + p.name, p.read_bytes()) for p in paths[:25]]


def test_wanted_fields_are_the_full_fields_kept() -> None:
    draw = random.Random(7)
    for url, html in _pages():
        root = parse_html(as_utf8(html))
        every = body_fields(root, url)
        if not every:
            continue
        keys = sorted(every)
        for size in (1, 3, 12):
            wanted = set(draw.sample(keys, min(size, len(keys))))
            wanted.add("~body/div#absent/p[0]")
            wanted.add("^div.absent/span[2]")
            got = body_fields(root, url, frozenset(wanted))
            assert got == {key: every[key] for key in wanted if key in every}, url
