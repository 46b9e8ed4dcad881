"""The record reads microdata with extruct's microdata reader alone (issue 31: the crawl's
first page item paid for importing every syntax's reader), and extruct stays whole for other
code."""

from __future__ import annotations

import subprocess
import sys
import textwrap

PAGE = (
    '<html><body><div itemscope itemtype="http://schema.org/Product">'
    '<span itemprop="name">Blue mug</span></div></body></html>'
)


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_microdata_is_read_without_the_other_readers():
    out = _run(
        f"""
        import sys
        from pagesim_scrapy.core.record.markup import read_microdata
        from pagesim_scrapy.core.record.read import parse_html
        page = {PAGE!r}.encode()
        print(read_microdata(parse_html(page), "http://shop.test/", page))
        print(sorted(m for m in ("mf2py", "bs4", "rdflib", "pyRdfa") if m in sys.modules))
        """
    )
    items, loaded = out.splitlines()
    assert "Blue mug" in items
    assert loaded == "[]"


def test_extruct_stays_whole_for_other_code():
    out = _run(
        f"""
        from pagesim_scrapy.core.record.markup import read_microdata
        from pagesim_scrapy.core.record.read import parse_html
        page = {PAGE!r}.encode()
        read_microdata(parse_html(page), "", page)
        import extruct
        from extruct import MicrodataExtractor
        from extruct.w3cmicrodata import MicrodataExtractor as same
        print(MicrodataExtractor is same)
        print(extruct.extract({PAGE!r}, syntaxes=["microdata"], uniform=True)["microdata"])
        """
    )
    same, items = out.splitlines()
    assert same == "True"
    assert "Blue mug" in items


def test_a_plain_import_first_is_used_as_it_is():
    out = _run(
        """
        import extruct
        from pagesim_scrapy.core.record.extruct_parts import extruct_module
        print(extruct_module("w3cmicrodata") is extruct.w3cmicrodata)
        """
    )
    assert out == "True"
