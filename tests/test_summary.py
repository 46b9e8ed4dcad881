from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from lxml import etree, html

from pagesim_scrapy.core.pageio import PageReadError, read_page_bytes
from pagesim_scrapy.core.summary import (
    PageParseError,
    SummaryOptions,
    code_char,
    normalise_value,
    parse_html,
    summarize,
)

PAGE = b"""<html><head><title> A  page </title><style>p{}</style></head>
<body><div id="main-123" class="box css-1x9f3a"><p>one</p><!-- c --><span>two</span>
<script>var x;</script></div><ul><li>a</li><li>b</li></ul></body></html>"""


def test_bfs_order_levels_and_parents():
    s = summarize(PAGE)
    assert s.tags == ["body", "div", "ul", "p", "span", "li", "li"]
    assert s.parent_bfs == [-1, 0, 0, 1, 1, 2, 2]
    assert s.level_tags(1) == ["div", "ul"]
    assert s.level_tags(2) == ["p", "span", "li", "li"]
    assert s.depth == 3
    assert s.title == "A page"
    assert s.classes == frozenset({"box", "css-1x9f3a"})


def test_document_order_views():
    s = summarize(PAGE)
    dfs = s.sequence("rsn", "dfs")
    assert dfs == "".join(code_char(t) for t in ["body", "div", "p", "span", "ul", "li", "li"])
    assert s.parents == [-1, 0, 1, 1, 0, 4, 4]
    assert s.codes("rsn")[0] == ord(code_char("body"))
    assert s.tag_paths[3] == "body/div/p"


def test_relations_differ_and_volatile_values_are_normalised():
    a = summarize(b'<body><div id="item-1" class="x" style="color:red">t</div></body>')
    b = summarize(b'<body><div id="item-2" class="x" style="color:blue">t</div></body>')
    c = summarize(b'<body><div id="item-2" class="y">t</div></body>')
    assert a.sequence("csr") == b.sequence("csr")
    assert a.sequence("rpsa") == b.sequence("rpsa")
    assert a.sequence("rpsa") != c.sequence("rpsa")
    assert a.sequence("rsn") == c.sequence("rsn")
    raw = SummaryOptions(normalise_volatile=False)
    assert summarize(a_html := b'<body><div id="item-1">t</div></body>', raw).sequence(
        "csr"
    ) != summarize(b'<body><div id="item-2">t</div></body>', raw).sequence("csr")
    assert a_html


def test_normalise_value():
    assert normalise_value("post-8342") == "post-0"
    assert normalise_value("css-1x9f3a") == "css-~"
    assert normalise_value("header") == "header"


def test_lxml_html_and_etree_trees_give_the_same_summary():
    a = summarize(etree.fromstring(PAGE, etree.HTMLParser()))
    b = summarize(html.fromstring(PAGE))
    assert a.bfs == b.bfs


def test_page_without_body_and_fragment():
    s = summarize("<div><p>x</p></div>")
    assert s.n_nodes >= 2
    frag = html.fragment_fromstring("<div><p>x</p><p>y</p></div>")
    assert summarize(frag).tags == ["div", "p", "p"]


def test_plain_text_is_summarised():
    s = summarize(b"just some words, no markup")
    assert s.n_nodes >= 1


@pytest.mark.parametrize("data", [b"", b"   \n", ""])
def test_empty_documents_raise_a_clear_error(data):
    with pytest.raises(PageParseError, match="empty"):
        summarize(data)


def test_broken_encoding_is_summarised():
    data = b"<html><head><meta charset='utf-8'></head><body><p>caf\xe9 \xff\xfe</p></body></html>"
    assert summarize(data).tags == ["body", "p"]
    assert summarize(data, encoding="latin-1").tags == ["body", "p"]


def test_deep_nesting_has_no_recursion_error():
    depth = 10_000
    data = "<html><body>" + "<div>" * depth + "x" + "</div>" * depth + "</body></html>"
    assert summarize(data).n_nodes > 2000  # libxml2 caps the nesting it builds; no crash
    root = etree.Element("html")
    node = etree.SubElement(root, "body")
    for _ in range(depth):
        node = etree.SubElement(node, "div")
    s = summarize(root)
    assert s.n_nodes == depth + 1
    assert s.depth == depth + 1
    assert len(s.parents) == depth + 1
    assert s.sequence("csr", "dfs")


def test_large_page():
    data = "<html><body>" + "<p><a href='/x'>y</a></p>" * 50_000 + "</body></html>"
    s = summarize(data)
    assert s.n_nodes == 100_001


def test_max_depth_option():
    s = summarize(PAGE, SummaryOptions(max_depth=1))
    assert s.tags == ["body", "div", "ul"]


def test_bad_options():
    with pytest.raises(ValueError):
        SummaryOptions(rpsa_attributes=("class",))
    with pytest.raises(ValueError):
        SummaryOptions(max_depth=-1)


def test_files_plain_and_gzip(tmp_path: Path):
    (tmp_path / "a.html").write_bytes(PAGE)
    (tmp_path / "b.html.gz").write_bytes(gzip.compress(PAGE))
    a = summarize(tmp_path / "a.html")
    b = summarize(tmp_path / "b.html.gz")
    assert a.bfs == b.bfs
    assert a.source and a.source.endswith("a.html")
    (tmp_path / "bad.html.gz").write_bytes(b"not gzip")
    with pytest.raises(PageReadError):
        read_page_bytes(tmp_path / "bad.html.gz")
    with pytest.raises(PageReadError):
        summarize(tmp_path / "missing.html")


def test_unsupported_input_type():
    with pytest.raises(TypeError):
        summarize(42)


def test_parse_html_returns_element():
    assert parse_html(PAGE).tag == "html"


def test_real_pages(stackoverflow: Path):
    for path in sorted(stackoverflow.glob("*/01.html")):
        s = summarize(path)
        assert s.n_nodes > 100
        assert len(s.sequence("rsn")) == len(s.sequence("csr", "dfs")) == s.n_nodes


def test_max_nodes_keeps_the_top_of_the_tree():
    s = summarize(PAGE, SummaryOptions(max_nodes=4))
    assert s.tags == ["body", "div", "ul", "p"]
    assert s.parent_bfs == [-1, 0, 0, 1]
    assert s.parents == [-1, 0, 1, 0]
    with pytest.raises(ValueError):
        SummaryOptions(max_nodes=0)
