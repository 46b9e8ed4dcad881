"""A product card is read as before now that a group without a link away from the page is
ruled out before its prices and name are read."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from pagesim_scrapy.core.record import cards
from pagesim_scrapy.core.record.cards import gather_cards, product_card

PAGE = "https://shop.example/p/lamp"


def _old_product_card(group: dict[str, Any], page_url: str | None = None) -> dict | None:
    """The card as it was read before: every text's price and the name first."""
    strings = cards._strings(group)
    is_url = {t: cards._is_url(t) for _, t in strings}
    price_of = {t: cards._price(t) for t in is_url}
    urls = [(k, t) for k, t in strings if is_url[t]]
    images, links = cards._pictures_and_links(urls, page_url)
    prices = [p for p in (price_of[t] for _, t in strings) if p is not None]
    plain = {t for t, url in is_url.items() if not url and price_of[t] is None}
    name = cards._name([t for _, t in strings], plain)
    if not links or name is None or not (prices or images):
        return None
    return {
        "name": name,
        "url": links[0],
        "price": prices[-1] if prices else None,
        "image": images[0] if images else None,
    }


GROUPS = [
    {"title": "Desk lamp", "price": "$24.00", "link": "https://shop.example/p/desk"},
    {"title": "Desk lamp", "price": "$24.00"},  # no link: no card
    {"title": "Desk lamp", "price": "$24.00", "link": PAGE},  # a link to the page itself
    {"title": "Desk lamp", "price": "$24.00", "link": PAGE + "#reviews"},
    {"title": "Desk lamp", "img": "https://shop.example/i/desk.jpg"},  # a picture only
    {"alt": "Chair", "img": "/i/chair.png", "link": "/p/chair", "title": "Chair"},
    {"link": "/p/stool", "text": ["Stool", "Quick view", "€ 12,50", "€ 9,90"]},
    {"link": "/p/x", "text": "Add to cart"},  # a button is no name
    {"link": "/p/x", "count": "3"},  # a bare number is no price
    {"tags": ["a", "b"], "n": 4, "flag": True},
    {},
]


@pytest.mark.parametrize("group", GROUPS)
def test_a_card_is_read_as_before(group: dict[str, Any]) -> None:
    assert product_card(group, PAGE) == _old_product_card(group, PAGE)
    assert product_card(group) == _old_product_card(group)


def test_a_group_without_a_link_away_reads_no_price(monkeypatch: pytest.MonkeyPatch) -> None:
    read: Counter[str] = Counter()
    price = cards._price

    def counted(text: str) -> str | None:
        read[text] += 1
        return price(text)

    monkeypatch.setattr(cards, "_price", counted)
    assert product_card({"title": "Lamp", "price": "$5.00", "link": PAGE}, PAGE) is None
    assert not read
    assert product_card({"title": "Lamp", "price": "$5.00", "link": "/p/other"}, PAGE)
    assert read["$5.00"] == 1


def test_card_regions_are_gathered_as_before() -> None:
    region = [
        {"title": f"Lamp {i}", "price": f"${i}.00", "link": f"https://shop.example/p/{i}"}
        for i in range(1, 5)
    ]
    plain = [{"title": "Spec", "value": "Oak"}, {"title": "Size", "value": "Large"}]
    out, held = gather_cards({"name": "Lamp", "region": region, "specs": plain}, PAGE)
    assert list(out) == ["name", "related_products", "specs"]
    assert [c["url"] for c in out["related_products"]] == [g["link"] for g in region]
    assert "lamp 1" in held
