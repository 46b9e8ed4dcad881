"""A link menu that ends a post's text block (a topic's previous/next links) is the page's
navigation, not the post; a list of links inside the text is the author's."""

from __future__ import annotations

from pathlib import Path

import lxml.html
import pytest

from pagesim_scrapy.core.record.posts import body_posts

_NODE = Path(__file__).resolve().parents[2] / "shared" / "data" / "site_page_types_2"
_NODE = _NODE / "oem_forum" / "pages" / "node"

_POST = """<div class="post"><span class="when">by <a href="/user/{who}">{who}</a>
 on 2 May 2020</span><div class="text">{text}</div></div>"""
_NAV = '<div class="nav"><a href="/t/1">‹ Older topic</a> <a href="/t/3">Newer topic ›</a></div>'
_LINKS = '<ul><li><a href="/a">Alpha guide</a></li><li><a href="/b">Beta guide</a></li></ul>'


def _bodies(*texts: str) -> list[str]:
    posts = "".join(_POST.format(who=f"user{i}", text=t) for i, t in enumerate(texts))
    html = f"<html><body><div class='thread'>{posts}</div></body></html>"
    return [p["body"] for p in body_posts(lxml.html.fromstring(html))]


def test_previous_next_links_ending_a_post_are_left_out():
    bodies = _bodies(f"<p>How do I wire the sensor?</p>{_NAV}", "<p>Use the left pin.</p>")
    assert bodies == ["How do I wire the sensor?", "Use the left pin."]


def test_links_listed_inside_the_text_stay():
    bodies = _bodies(f"<p>Read these first:</p>{_LINKS}<p>then ask.</p>", "<p>Thanks.</p>")
    assert bodies[0] == "Read these first: Alpha guide Beta guide then ask."


@pytest.mark.skipif(not _NODE.is_dir(), reason="shared page data not present")
def test_forum_topic_first_post_ends_with_its_text_not_the_topic_navigation():
    posts = body_posts(lxml.html.fromstring((_NODE / "12157.html").read_bytes()))
    assert [p["author"] for p in posts] == ["sheppy"]
    assert posts[0]["body"].endswith("will become more important.")
