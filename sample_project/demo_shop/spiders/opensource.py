"""A crawl of real pages: a bundled snapshot of https://opensource.creativecommons.org/.

``sample_project/opensource_site`` holds 82 pages of the site (CC BY 4.0; see its SOURCE.txt)
under their own paths, so the pages' links (``/blog/entries/.../``) resolve within the copy.
Like the shop spider, it crawls over ``file://`` by default (no network) and over HTTP when
given ``-a start_url=http://127.0.0.1:8000/`` with ``python -m http.server --directory
sample_project/opensource_site``. It follows the site's links to pages of the snapshot and
yields one item per page with the page type pagesim gave it (``page_type``); pagesim tells the
seven page types apart with two example pages of each (one for the home page), and at the end
the label accuracy report scores every verdict against the snapshot's ``labels.json``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit

import scrapy
from scrapy.http import Response, TextResponse

logger = logging.getLogger(__name__)

#: The bundled snapshot and its ground truth ({path: page type}).
SITE_DIR = Path(__file__).resolve().parents[2] / "opensource_site"
LABELS_FILE = SITE_DIR / "labels.json"
#: The address the pages were published under; their links are resolved against it.
ORIGIN = "https://opensource.creativecommons.org/"

#: Two example pages per page type (one for the one-off home page), from the snapshot.
TEMPLATES: dict[str, list[str]] = {
    "home": ["index.html"],
    "blog_entry": [
        "blog/entries/2020-03-05-participe-gsoc/index.html",
        "blog/entries/cc-search-accessibility-week9-10/index.html",
    ],
    "entry_list": ["blog/entries/index.html", "blog/entries/page/4/index.html"],
    "author_page": [
        "blog/authors/Dun-MingHuang/index.html",
        "blog/authors/dhruvi16/index.html",
    ],
    "category_page": [
        "blog/categories/airflow/index.html",
        "blog/categories/google-docs/index.html",
    ],
    "series_page": [
        "blog/series/gsoc-2019-browser-extension/index.html",
        "blog/series/gsod-2020-cccatalog-api-usage-guide/index.html",
    ],
    "static_page": [
        "community/community-team/index.html",
        "contributing-code/javascript-guidelines/index.html",
    ],
}


def snapshot_path(url: str) -> str | None:
    """The snapshot path of an address of the original site (``blog/x/index.html``)."""
    parts = urlsplit(url)
    if parts.netloc != urlsplit(ORIGIN).netloc:
        return None
    path = parts.path.lstrip("/")
    if not path or path.endswith("/"):
        return path + "index.html"
    last = path.rsplit("/", 1)[-1]
    return path if "." in last else path + "/index.html"


class OpenSourceSpider(scrapy.Spider):
    """Follow the links of the snapshot; one item (url, title, page_type) per page."""

    name = "opensource"
    custom_settings = {  # noqa: RUF012  (Scrapy reads it from the class)
        "PAGESIM_TEMPLATES": {
            label: [str(SITE_DIR / path) for path in paths] for label, paths in TEMPLATES.items()
        },
        "PAGESIM_TARGETS": [],  # every page type is a target: all pages are tagged and kept
        "PAGESIM_METHOD": "site",
        "PAGESIM_THRESHOLD": "auto",
        "PAGESIM_ACTION": "tag",
        "PAGESIM_ITEM_LABEL_FIELD": "page_type",
        # the shop's product-page settings do not apply here
        "PAGESIM_FILTER_ITEMS": False,
        "PAGESIM_PAGE_ITEMS": False,
        "PAGESIM_INDUCTION_ENABLED": False,
        "DEMO_LABELS_FILE": str(LABELS_FILE),
        "DEMO_TARGETS": list(TEMPLATES),
    }

    def __init__(self, start_url: str | None = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if start_url:
            root = start_url if start_url.endswith("/") else start_url.rsplit("/", 1)[0] + "/"
        else:
            root = SITE_DIR.as_uri() + "/"
        #: Pages are requested under this root, by their snapshot path.
        self.site_root = root
        self.pages: set[str] = set(json.loads(LABELS_FILE.read_text(encoding="utf-8")))
        self.start_urls = [root + "index.html"]
        self.seen: set[str] = {"index.html"}

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for url in self.start_urls:
            yield scrapy.Request(url, callback=self.parse)

    def parse(self, response: Response, **kwargs: Any) -> Iterator[dict[str, Any] | scrapy.Request]:
        if not isinstance(response, TextResponse):
            return
        yield {
            "url": response.url,
            "title": (response.css("title::text").get() or "").strip(),
        }
        here = (
            response.url[len(self.site_root) :] if response.url.startswith(self.site_root) else ""
        )
        original = urljoin(ORIGIN, here)
        for href in response.css("a::attr(href)").getall():
            path = snapshot_path(urljoin(original, href.strip()))
            if path is not None and path in self.pages and path not in self.seen:
                self.seen.add(path)
                yield scrapy.Request(self.site_root + path, callback=self.parse)
