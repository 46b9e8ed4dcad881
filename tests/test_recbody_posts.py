"""Posts read from a thread page's body on real forum pages: bodies are post text, and an
editor's signature or a moderators' notice is no post of its own."""

from __future__ import annotations

from pathlib import Path

import lxml.html
import pytest

from pagesim_scrapy.core.record.posts import body_posts

_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
_SE = _DATA / "site_page_types" / "android_stackexchange" / "pages" / "Questions"

pytestmark = pytest.mark.skipif(not _SE.is_dir(), reason="shared page data not present")


def _posts(path: Path) -> list[dict]:
    return body_posts(lxml.html.fromstring(path.read_bytes()))


def test_edited_question_keeps_its_asker_and_text_not_a_reputation_score():
    posts = _posts(_SE / "http___android.stackexchange.com_q_49734.html")
    assert [p["author"] for p in posts] == ["Wael Kharbotli", "Izzy", "Akhil"]
    assert posts[0]["body"].startswith("I have an HTC One")
    assert all(any(c.isalpha() for c in p["body"]) for p in posts)


def test_closed_notice_is_no_post_and_a_comment_saying_edited_is_one():
    posts = _posts(_SE / "http___android.stackexchange.com_a_26465.html")
    assert [p["author"] for p in posts] == ["9exceptionThrower9", "t0mm13b", "9exceptionThrower9"]
    assert posts[2]["body"].startswith("I've edited my post")
    assert not any(p["body"].startswith("This question has been asked") for p in posts)


def test_a_date_inside_a_posted_url_does_not_hide_the_post():
    node = _DATA / "site_page_types_2" / "oem_forum" / "pages" / "node" / "3688-2.html"
    bodies = [p["body"] for p in _posts(node)]
    assert any(b.startswith("Great, thanks a lot for the fix Paul") for b in bodies)
