"""Two spiders over the same pages: one reads the verdict, one lets the label pick the page object.

``-a urls=URL,URL`` are the pages; ``-a unclassified=URL`` pages are requested with
``dont_pagesim`` so that pagesim leaves them without a verdict.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import scrapy

from pagesim_scrapy.poet import PageSimLayoutPage, PageSimVerdict


class _Pages(scrapy.Spider):
    urls = ""
    unclassified = ""

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for url in filter(None, self.urls.split(",")):
            yield scrapy.Request(url, callback=self.parse, dont_filter=True)
        for url in filter(None, self.unclassified.split(",")):
            yield scrapy.Request(
                url, callback=self.parse, dont_filter=True, meta={"dont_pagesim": True}
            )


class VerdictsSpider(_Pages):
    """The callback declares the verdict: scrapy-poet injects it."""

    name = "verdicts"

    async def parse(self, response: scrapy.http.Response, verdict: PageSimVerdict) -> Any:
        yield {
            "url": response.url,
            "label": verdict.label,
            "score": verdict.score,
            "scores": verdict.scores,
            "method": verdict.method,
            "target": verdict.target,
            "classified": verdict.classified,
            "reason": verdict.reason,
            "meta_label": (response.meta.get("pagesim") or {}).get("label"),
        }


class LayoutsSpider(_Pages):
    """The callback declares the layout page: the page's label picks its page object."""

    name = "layouts"

    async def parse(self, response: scrapy.http.Response, page: PageSimLayoutPage) -> Any:
        item = await page.to_item()
        yield {"url": response.url, "page_object": type(page.get_layout()).__name__, **item}
