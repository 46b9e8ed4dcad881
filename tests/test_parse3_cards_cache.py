"""A card's page-independent reading is kept per distinct card (a site's related products
recur page after page); the link to the page itself is still left out on each page."""

from __future__ import annotations

from pagesim_scrapy.core.record.cards import product_card

_CARD = {
    "title": "Cobalt Daypack",
    "url": ["https://shop.example/a.html", "https://shop.example/b.html"],
    "image": "https://shop.example/img/a.jpg",
    "price": "$153.69",
}


def test_the_same_card_on_two_pages_keeps_each_pages_own_link() -> None:
    on_a = product_card(_CARD, "https://shop.example/a.html")
    on_b = product_card(_CARD, "https://shop.example/b.html")
    elsewhere = product_card(_CARD, "https://shop.example/c.html")
    assert on_a is not None and on_b is not None and elsewhere is not None
    assert on_a["url"] == "https://shop.example/b.html"
    assert on_b["url"] == elsewhere["url"] == "https://shop.example/a.html"
    assert on_a["name"] == "Cobalt Daypack" and on_a["price"] == "153.69"


def test_a_card_linking_only_to_its_page_is_no_card() -> None:
    card = {**_CARD, "url": "https://shop.example/a.html"}
    assert product_card(card, "https://shop.example/a.html") is None
    assert product_card(card, "https://shop.example/z.html") is not None


def test_each_call_returns_a_new_card() -> None:
    first = product_card(_CARD, "https://shop.example/c.html")
    second = product_card(_CARD, "https://shop.example/c.html")
    assert first == second and first is not second
