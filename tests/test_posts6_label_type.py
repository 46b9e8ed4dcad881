"""A topic nobody answered yet shows one signed post: alone, that does not make a page a
thread (an article or a product page shows one signed block too), but where the page's
label's other records are threads, the site says it is one."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from pagesim_scrapy.core.record.build import label_type, read_page, read_record
from pagesim_scrapy.core.record.naming import BodyNaming
from pagesim_scrapy.pipelines.induction.records import compose_record, label_type_of

_FORUM = Path(__file__).resolve().parents[2] / "shared" / "data" / "site_page_types_2"
_FORUM = _FORUM / "oem_forum"
_LONE = "node/12157.html"  # a topic with its first post only (under pages/)

_POST = """<div class="post"><div class="meta">by <a href="/users/{who}">{who}</a>
 on <span class="stamp">March {day}, 2021</span></div><div class="text">{text}</div></div>"""


def _page(count: int) -> str:
    posts = "".join(
        _POST.format(who=f"user{i}", day=i + 1, text=f"Post number {i} says something here.")
        for i in range(count)
    )
    return f"<html><body><h1>A topic</h1><div class='posts'>{posts}</div></body></html>"


def test_the_label_type_is_the_type_most_of_its_records_have():
    assert label_type({"thread": 5, "page": 1}) == "thread"
    assert label_type({"page": 3, "thread": 2}) == "page"
    assert label_type({"page": 2, "thread": 2}) is None  # a tie says nothing
    assert label_type({}) is None


def test_one_signed_post_is_a_thread_only_where_the_label_says_so():
    html = _page(1)
    assert read_record(html, "https://forum.example/t/1").page_type == "page"
    assert read_record(html, "https://forum.example/t/1", label="article").page_type == "page"
    record = read_record(html, "https://forum.example/t/1", label="thread")
    assert record.page_type == "thread"
    assert [post["author"] for post in record.fields["posts"].value] == ["user0"]
    assert record.fields["posts"].source == "body"


def test_a_page_without_posts_stays_a_page_in_a_thread_label():
    html = "<html><body><h1>Rules</h1><p>Be kind to each other.</p></body></html>"
    assert read_record(html, "https://forum.example/rules", label="thread").page_type == "page"


def test_pages_with_posts_read_the_same_with_the_label():
    html = _page(3)
    alone = read_record(html, "https://forum.example/t/3")
    assert alone.page_type == "thread"
    assert read_record(html, "https://forum.example/t/3", label="thread") == alone


def _forum_pages(count: int) -> list[tuple[str, bytes]]:
    with (_FORUM / "labels.csv").open(encoding="utf-8") as handle:
        rows = [row for row in csv.DictReader(handle) if row["page_type"] == "forum_topic"]
    rows.sort(key=lambda row: row["path"])
    rows = [row for row in rows if row["path"] != "pages/" + _LONE][:count]
    return [(row["url"], (_FORUM / row["path"]).read_bytes()) for row in rows]


def _lone() -> tuple[str, bytes]:
    url = "https://openenergymonitor.org/forum-archive/" + _LONE
    return url, (_FORUM / "pages" / _LONE).read_bytes()


def _naming(pages: list[tuple[str, bytes]]) -> BodyNaming:
    """A naming learned from ``pages`` as the pipeline learns one, then fixed."""
    from pagesim_scrapy.core.record.bodyfields import body_fields

    naming = BodyNaming(site="openenergymonitor.org")
    for url, html in pages:
        core, root = read_page(html, url)
        naming.observe(core, body_fields(root, url, None))
    naming.stop_learning()
    return naming


@pytest.mark.skipif(not _FORUM.is_dir(), reason="shared page data not present")
def test_a_forum_topic_nobody_answered_is_a_thread_of_its_label():
    pages = _forum_pages(8)
    types = [read_record(html, url).page_type for url, html in pages]
    assert types.count("thread") > len(types) / 2
    url, html = _lone()
    assert read_record(html, url).page_type == "page"  # one post: not a thread by itself
    label = label_type({kind: types.count(kind) for kind in set(types)})
    record = read_record(html, url, label=label)
    assert record.page_type == "thread"
    posts = record.fields["posts"].value
    assert len(posts) == 1
    assert posts[0]["author"] == "sheppy"
    assert posts[0]["body"].startswith("I've got an idea for an app")


@pytest.mark.skipif(not _FORUM.is_dir(), reason="shared page data not present")
def test_the_pipeline_types_the_topic_once_the_label_naming_is_fixed():
    naming = _naming(_forum_pages(8))
    assert label_type_of(naming) == "thread"
    url, html = _lone()
    record = compose_record(html, {}, url, {}, naming)
    assert record.page_type == "thread"
    assert [post["author"] for post in record.record["posts"]] == ["sheppy"]


@pytest.mark.skipif(not _FORUM.is_dir(), reason="shared page data not present")
def test_a_naming_still_learning_keeps_guessing_as_before():
    naming = BodyNaming(site="openenergymonitor.org")
    assert label_type_of(naming) is None
    url, html = _lone()
    record = compose_record(html, {}, url, {}, naming)
    assert record.page_type != "thread"
    assert "posts" not in record.record
