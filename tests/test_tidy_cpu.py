"""The record tidying's caches and shortcuts give what the plain checks give."""

from __future__ import annotations

import html
import re
import sys

import pytest

from pagesim_scrapy.core.record import normalise, tidy
from pagesim_scrapy.core.record.normalise import as_text
from pagesim_scrapy.core.record.tidy import (
    _norm,
    _texts,
    is_chrome,
    text_of,
    value_keys,
    value_names,
)

_SPACE = re.compile(r"\s+")

TEXTS = [
    "",
    " ",
    "#",
    "  Hello\u00a0 World \n",
    "\u2003Trail\u3000Runner\u2028",
    "Straße",
    "€ 1.234,50",
    "$19.99",
    "1 of 13",
    "Customer reviews (7)",
    "Share on Facebook",
    "<span class=money>",
    "var x = 1;",
    "x" * (tidy.CACHED_TEXT + 5) + "  Y ",
]


def _plain_norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()


def test_folding_agrees_with_the_regular_expression_on_every_whitespace() -> None:
    spaces = "".join(chr(c) for c in range(sys.maxunicode + 1) if _SPACE.fullmatch(chr(c)))
    text = f"a{spaces}b{spaces}"
    assert _norm(text) == _plain_norm(text) == "a b"
    for sample in TEXTS:
        assert _norm(sample) == _plain_norm(sample)


def _plain_texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _plain_texts(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _plain_texts(v)]
    return [] if value is None or isinstance(value, bool) else [str(value)]


VALUES: list[object] = [
    None,
    True,
    0,
    12.5,
    "",
    "x",
    (),
    [],
    {},
    ["a", "B  b"],
    ("one",),
    [{"name": "A", "url": "/a", "n": 3, "x": None}, {"name": ["b", {"c": "C"}]}],
    {"k": ("t", False, 2)},
]


@pytest.mark.parametrize("value", VALUES)
def test_texts_in_order_as_the_recursive_reading(value: object) -> None:
    assert _texts(value) == _plain_texts(value)
    assert text_of(value) == _plain_norm(" ".join(_plain_texts(value)))


def test_value_keys_of_empty_and_odd_shapes() -> None:
    assert value_keys(None) == value_keys("") == value_keys([]) == value_keys({}) == set()
    assert value_keys(()) == {"[]"}  # an empty tuple keys as its JSON, as before
    assert value_keys(["A", "b "]) == {"a b", "a", "b"}
    assert value_keys(["Only"]) == {"only"}
    assert value_keys("$19.99") == {"$19.99", "price:19.99"}
    assert value_keys(19.99) == {"19.99", "price:19.99"}
    long = ["X" * tidy.CACHED_TEXT, "Y  y"]  # past the cached length: the same keys
    assert value_keys(long) == {"x" * tidy.CACHED_TEXT + " y y", "x" * tidy.CACHED_TEXT, "y y"}
    assert value_keys(long[0] + " ") == {"x" * tidy.CACHED_TEXT}


def test_value_keys_are_a_fresh_set_each_time() -> None:
    keys = value_keys("Shared text")
    keys.add("mutated")
    assert value_keys("Shared text") == {"shared text"}


def test_value_names_as_the_plain_reading() -> None:
    record = {"a": "Sven", "b": ["Tags: x", "1234"], "c": {"d": "A" * 60}, "e": "ÉTÉ été"}
    assert value_names(record) == {"sven", "tags_x", "été_été"}


def test_a_link_to_the_page_itself_depends_on_the_page() -> None:
    assert is_chrome("link", "https://shop.test/a#top", "https://shop.test/a/")
    assert not is_chrome("link", "https://shop.test/a#top", "https://shop.test/b")
    assert is_chrome("link", "https://shop.test/a", "https://shop.test/a")
    assert not is_chrome("link", "https://shop.test/a", None)


@pytest.mark.parametrize("text", TEXTS)
def test_shape_checks_cached_and_uncached_agree(text: str) -> None:
    assert tidy._shape_chrome_cached(text) == tidy._shape_chrome(text)


@pytest.mark.parametrize(
    "raw",
    ["", "  a &amp; b\u00a0 ", "<b>Bold</b>&nbsp;text", 12, "z" * (normalise.CACHED_TEXT + 3)],
)
def test_as_text_as_the_plain_cleaning(raw: object) -> None:
    text = str(raw)
    if "<" in text:
        text = re.sub(r"<[^>]{0,2000}>", " ", text)
    expected = _SPACE.sub(" ", html.unescape(text)).strip()
    assert as_text(raw) == (expected or None)
    assert as_text(raw, 3) == (expected[:3] or None)


def test_the_caches_are_bounded() -> None:
    cached_checks = (tidy._fold_cached, tidy._text_keys_cached, tidy._strings_keys_cached)
    for cached in (*cached_checks, tidy._shape_chrome_cached, tidy._value_name):
        assert cached.cache_info().maxsize == tidy.CACHE_SIZE
    assert normalise._plain_cached.cache_info().maxsize == normalise.CACHE_SIZE
