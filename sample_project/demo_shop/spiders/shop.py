"""The demo shop spider: crawls every page of the site and yields one item per page.

It deliberately knows nothing about page types: it reads a title and, where present, a
name and a price from every page. Telling product pages from the rest is pagesim's job
(its filter pipeline drops the items of non-product pages).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urlsplit

import scrapy
from scrapy.http import Response, TextResponse

from sample_project.demo_shop import DEMO_SITE_DIR

logger = logging.getLogger(__name__)


def default_start_url() -> str:
    """``file://`` URL of the bundled site's home page (no network needed)."""
    return (DEMO_SITE_DIR / "index.html").as_uri()


def normalise_start_url(value: str) -> str:
    """Accept an http(s) or file:// URL, or a path to an existing local file."""
    scheme = urlsplit(value).scheme.lower()
    if scheme in ("http", "https", "file"):
        return value
    path = Path(value)
    if path.is_file():
        return path.resolve().as_uri()
    raise ValueError(
        f"start_url must be an http(s):// or file:// URL or an existing file, got {value!r}"
    )


class ShopSpider(scrapy.Spider):
    """Follow every internal link of the demo shop; one plain dict item per page."""

    name = "shop"

    def __init__(self, start_url: str | None = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        url = normalise_start_url(start_url) if start_url else default_start_url()
        if not start_url and not (DEMO_SITE_DIR / "index.html").is_file():
            logger.error(
                "The demo site is missing at %s: run `python sample_project/"
                "generate_demo_site.py` to create it",
                DEMO_SITE_DIR,
            )
        self.start_urls = [url]
        #: Only URLs under the start page's directory belong to the site.
        self.site_root = url.rsplit("/", 1)[0] + "/"
        #: URLs already requested: most pages link to the same menu and footer targets,
        #: so deduplicating here saves building thousands of requests the scheduler's
        #: duplicate filter would discard anyway.
        self.seen: set[str] = set(self.start_urls)

    async def start(self) -> AsyncIterator[scrapy.Request]:
        # Unlike the default start requests, these go through the duplicate filter, so the
        # home page is not fetched a second time when other pages link back to it.
        for url in self.start_urls:
            yield scrapy.Request(url, callback=self.parse)

    def parse(self, response: Response, **kwargs: Any) -> Iterator[dict[str, Any] | scrapy.Request]:
        if not isinstance(response, TextResponse):
            logger.debug("Skipping non-text response %s", response.url)
            return
        item: dict[str, Any] = {
            "url": response.url,
            "title": (response.css("title::text").get() or "").strip(),
        }
        name = response.css("h1::text").get()
        if name and name.strip():
            item["name"] = name.strip()
        price = response.css('[itemprop="price"]::attr(content)').get()
        if price:
            try:
                item["price"] = float(price)
            except ValueError:
                logger.debug("Unparsable price %r on %s", price, response.url)
        yield item
        for href in response.css("a::attr(href), area::attr(href)").getall():
            url = urldefrag(response.urljoin(href.strip())).url
            if url.startswith(self.site_root) and url not in self.seen:
                self.seen.add(url)
                yield scrapy.Request(url, callback=self.parse)
