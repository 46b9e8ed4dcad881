"""Images a page shows through a lazy loader or in another size are the images its
metadata names: the body naming reads them and agrees with them."""

from __future__ import annotations

import lxml.html
import pytest

from pagesim_scrapy.core.record.bodyfields import body_fields
from pagesim_scrapy.core.record.bodyvalues import same


def _images(html: str) -> list[str]:
    root = lxml.html.fromstring(html)
    return [v for k, v in body_fields(root, "https://x.example/r/").items() if k.endswith("@src")]


def test_a_lazy_image_is_read_from_where_the_loader_keeps_it():
    placeholder = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP"
    html = (
        "<html><body>"
        f'<img src="{placeholder}" data-lazy-src="/img/soup.jpg">'
        '<img data-src="https://cdn.example/bread.jpg">'
        '<img src="/img/cake.jpg" data-src="/img/other.jpg">'
        f'<img src="{placeholder}">'
        "</body></html>"
    )
    found = set(_images(html))
    assert found == {
        "https://x.example/img/soup.jpg",
        "https://cdn.example/bread.jpg",
        "https://x.example/img/cake.jpg",
    }


@pytest.mark.parametrize(
    ("head", "body", "agree"),
    [
        ("https://x.example/up/soup.jpg", "https://x.example/up/soup-819x1024.jpg", True),
        ("https://x.example/up/soup-scaled.jpg", "https://x.example/up/soup-300x300.jpg", True),
        ("https://x.example/up/soup.jpg", "https://x.example/up/soup-2.jpg", False),
        ("https://x.example/up/1200x800.jpg", "https://x.example/up/640x480.jpg", False),
    ],
)
def test_an_image_agrees_with_its_resized_copy(head, body, agree):
    assert same("urls", [head], [body]) is agree
