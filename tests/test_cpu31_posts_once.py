"""A page's body posts are read once per page: the thread label's second look
(:func:`~pagesim_scrapy.core.record.build.typed_by_label`) takes the first read, and the
record is the one a fresh read of the posts gives (issue 31: the CPU of a crawl with
induction). Real pages: the forum's topics, one-post topics among them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pagesim_scrapy.core.induce.dom import forget_page
from pagesim_scrapy.core.record import posts
from pagesim_scrapy.core.record.build import read_page, typed_by_label

_FORUM = Path(__file__).resolve().parents[2] / "shared" / "data" / "site_page_types_2"
_FORUM = _FORUM / "oem_forum"


def _topics(count: int) -> list[Path]:
    found = sorted((_FORUM / "pages").rglob("*.html"))[:count]
    if not found:
        pytest.skip("the shared forum pages are not here")
    return found


def test_the_thread_label_takes_the_first_read_of_the_posts() -> None:
    calls: list[object] = []
    read = posts._read_body_posts

    def counted(root: object) -> object:
        calls.append(root)
        return read(root)  # type: ignore[arg-type]

    typed_pages = 0
    for path in _topics(40):
        html = path.read_text(encoding="utf-8")
        core, root = read_page(html, "https://forum.example/" + path.name)
        if core.page_type != "page":
            continue
        typed_pages += 1
        posts._read_body_posts = counted  # type: ignore[assignment]
        try:
            shared = typed_by_label(core, root, "thread")
        finally:
            posts._read_body_posts = read  # type: ignore[assignment]
        forget_page()  # a fresh read of the same tree: the full path
        fresh = posts.with_body_posts(core, posts._read_body_posts(root), False, min_posts=1)
        assert shared == fresh
        forget_page()
    assert typed_pages > 0, "the forum shows plain pages (one-post topics)"
    assert calls == [], "the posts were not read a second time"
