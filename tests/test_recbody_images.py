"""Images a page shows through a lazy loader or in another size are the images its
metadata names: the body naming reads them and agrees with them."""

from __future__ import annotations

import lxml.html
import pytest

from pagesim_scrapy.core.record.bodyfields import body_fields, is_image_key
from pagesim_scrapy.core.record.bodyvalues import same


def _images(html: str) -> list[str]:
    root = lxml.html.fromstring(html)
    return [v for k, v in body_fields(root, "https://x.example/r/").items() if is_image_key(k)]


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


def test_the_largest_srcset_candidate_and_a_css_background_are_read():
    html = (
        "<html><body>"
        '<img src="/img/soup-150x150.jpg" srcset="/img/a.jpg 300w, /img/soup-big.jpg 1200w,'
        ' /img/b.jpg 600w">'
        '<picture><source srcset="https://cdn.example/c_fill,w_300/bread.jpg"></picture>'
        '<img data-lazy-srcset="/img/x.jpg 1x, /img/x2.jpg 2x">'
        "<div style=\"background-image:url('//cdn.example/cake.jpg')\">Cake</div>"
        "</body></html>"
    )
    found = set(_images(html))
    assert {
        "https://x.example/img/soup-150x150.jpg",
        "https://x.example/img/soup-big.jpg",
        "https://cdn.example/c_fill,w_300/bread.jpg",
        "https://x.example/img/x2.jpg",
        "https://cdn.example/cake.jpg",
    } <= found
    assert "https://x.example/img/a.jpg" not in found


@pytest.mark.parametrize(
    ("head", "body", "agree"),
    [
        # a CDN serving the site's file under its own host and path prefix
        (
            "https://site.example/wp-content/uploads/2022/06/ranch-dressing.jpg",
            "https://i0.cdn.example/site.example/wp-content/uploads/2022/06/ranch-dressing.jpg?w=400",
            True,
        ),
        # a transform folder in the path, a long file name
        (
            "https://res.example/image/upload/q_auto/SFS_Lasagna_Bolognese.jpg",
            "https://res.example/image/upload/h_196,w_274,q_auto/SFS_Lasagna_Bolognese.jpg",
            True,
        ),
        ("https://x.example/up/soup-6.jpg", "https://x.example/up/soup-6-150x150.jpg.webp", True),
        # a number alone, or another short file in another folder, is no agreement
        ("https://x.example/a/master/3670.jpg", "https://x.example/b/master/3670.jpg", False),
        ("https://x.example/2020/07/soup.jpg", "https://x.example/2021/03/soup.jpg", False),
    ],
)
def test_an_image_agrees_with_its_cdn_copy_by_file_name(head, body, agree):
    assert same("urls", [head], [body]) is agree
