"""The demo shop crawled twice: once to learn (and keep its pages), once to run the exported
page objects.

``-a urls=URL,URL`` are the pages. ``learn`` keeps each classified page's HTML under
``-a pages=DIR`` (``DIR/<label>/<name>.html``), the example pages ``export-page-object``
checks its selectors on; ``shop`` lets pagesim's label pick the page object and yields its item.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import scrapy

from pagesim_scrapy.poet import PageSimLayoutPage, PageSimVerdict


class _ShopPages(scrapy.Spider):
    urls = ""

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for url in filter(None, self.urls.split(",")):
            yield scrapy.Request(url, callback=self.parse, dont_filter=True)


class LearnSpider(_ShopPages):
    """pagesim's page items teach the induction pipeline; the spider keeps the pages."""

    name = "learn"
    pages = ""

    async def parse(self, response: scrapy.http.Response, verdict: PageSimVerdict) -> Any:
        if self.pages and verdict.label:
            folder = Path(self.pages) / verdict.label
            folder.mkdir(parents=True, exist_ok=True)
            name = response.url.rstrip("/").rsplit("/", 1)[-1] or "index.html"
            (folder / name).write_bytes(response.body)
        return
        yield


class ShopSpider(_ShopPages):
    """The callback declares the layout page: the page's label picks the exported page object."""

    name = "shop"

    async def parse(self, response: scrapy.http.Response, page: PageSimLayoutPage) -> Any:
        item = await page.to_item()
        yield {"url": response.url, "page_object": type(page.get_layout()).__name__, **item}
