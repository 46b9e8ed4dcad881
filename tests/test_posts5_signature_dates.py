"""A date inside a post's text (a log line, a version string, a quoted date) is no post's
signature: posts repeat their signature line, so a page's posts are found whole even where
their text shows dates."""

from __future__ import annotations

from pathlib import Path

import lxml.html
import pytest

from pagesim_scrapy.core.record.posts import body_posts

_NODE = Path(__file__).resolve().parents[2] / "shared" / "data" / "site_page_types_2"
_NODE = _NODE / "oem_forum" / "pages" / "node"

_POST = """<div class="reply"><div class="meta">by <a href="/users/{who}">{who}</a>
 on <span class="stamp">March {day}, 2021</span></div><div class="text">{text}</div></div>"""


def _thread(texts: list[str]) -> str:
    posts = "".join(
        _POST.format(who=f"user{i}", day=i + 1, text=text) for i, text in enumerate(texts)
    )
    return f"<html><body><h1>A thread</h1><div class='replies'>{posts}</div></body></html>"


def _posts(html: str | bytes) -> list[dict]:
    return body_posts(lxml.html.fromstring(html))


def test_a_post_quoting_a_log_line_is_found_whole():
    texts = [
        "<p>My heater stops every night, any idea why?</p>",
        "<p>Here is the log:</p><p>2021-03-02 11:49:42 ERROR lost the link</p>",
        "<p>Check the cable first, then the power supply.</p>",
    ]
    posts = _posts(_thread(texts))
    assert [p["author"] for p in posts] == ["user0", "user1", "user2"]
    assert [p["date"] for p in posts] == ["March 1, 2021", "March 2, 2021", "March 3, 2021"]
    assert posts[1]["body"] == "Here is the log: 2021-03-02 11:49:42 ERROR lost the link"


def test_one_post_alone_is_read_as_before():
    """One post gives no repeat to learn a signature from: its dates all count as before."""
    posts = _posts(_thread(["<p>Just one question here, nobody answered.</p>"]))
    assert [(p["author"], p["body"]) for p in posts] == [
        ("user0", "Just one question here, nobody answered.")
    ]


@pytest.mark.skipif(not _NODE.is_dir(), reason="shared page data not present")
@pytest.mark.parametrize(
    ("page", "count", "starts"),
    [
        ("11250.html", 26, "2015-09-13 11:49:42,226 INFO MQTT"),  # a log pasted as paragraphs
        ("3688-2.html", 34, "Ok, I had some more time"),  # "uname -a" output with its date
        ("6400.html", 28, "Hi I have installed emonhub"),  # the topic's first post, a log quoted
    ],
)
def test_forum_posts_with_dates_in_their_text_are_all_found(page, count, starts):
    posts = _posts((_NODE / page).read_bytes())
    assert len(posts) == count
    assert any(p["body"].startswith(starts) for p in posts)
    assert all(p["author"] and p["date"] for p in posts)
