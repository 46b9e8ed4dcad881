"""The pages a label keeps to learn them again in canonical order: compressed, with their
canonical order key and URL (the wrapper and the body naming are both learned from them)."""

from __future__ import annotations

import zlib

from pagesim_scrapy.core.induce import parse_html
from pagesim_scrapy.core.induce.dom import Element

#: A page kept for relearning: its canonical order key, compressed HTML, whether the HTML was
#: text, its URL.
Source = tuple[tuple[int, bytes], bytes, bool, str | None]


def kept_source(key: tuple[int, bytes], html: str | bytes, url: str | None) -> Source:
    """A page kept to learn it (again) later: compressed, fast."""
    text = isinstance(html, str)
    data = html.encode("utf-8", "surrogatepass") if isinstance(html, str) else html
    return (key, zlib.compress(data, 1), text, url)


def source_page(source: Source) -> str | bytes:
    """The kept page's HTML as its item held it (text or bytes)."""
    _, data, text, _ = source
    raw = zlib.decompress(data)
    return raw.decode("utf-8", "surrogatepass") if text else raw


def parse_source(source: Source, structured: bool) -> Element:
    """The kept page parsed as the wrapper parses it."""
    return parse_html(source_page(source), structured=structured, base_url=source[3])


def in_canonical_order(sources: list[Source]) -> list[Source]:
    """The kept pages in the order the wrapper learns them (by canonical order key)."""
    return sorted(sources, key=lambda source: source[0])
