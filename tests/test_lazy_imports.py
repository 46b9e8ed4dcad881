"""Start-up imports only what the enabled features need.

The add-on with default settings, and the downloader middleware built from it, must not import
the heavy optional modules: each is imported on first use by the feature that needs it. Run in
a fresh interpreter, since other tests of the session import them all.
"""

from __future__ import annotations

import pytest

from tests.conftest import imported, last_json_line

#: Modules the add-on and the middleware must not import with default settings.
NOT_AT_START = (
    "scrapy_poet",
    "web_poet",
    "pyspark",
    "pagesim_scrapy.reports",
    "pagesim_scrapy.spark",
    # the clustering's MinHash (numpy, scipy) and the fleet's client: discovery and fleets only
    "datasketch",
    "scipy",
    "redis",
    # the structured-data reader: loaded with the first page item of the induction pipeline
    "extruct",
    "rdflib",
)

SCRIPT = """
import json, sys
import scrapy
from scrapy.utils.test import get_crawler
from pagesim_scrapy.addon import Addon
from pagesim_scrapy.middlewares import PageSimDownloaderMiddleware

crawler = get_crawler(scrapy.Spider, {"ADDONS": {Addon: 0}})
PageSimDownloaderMiddleware.from_crawler(crawler)
print(json.dumps(sorted(sys.modules)))
"""


@pytest.fixture(scope="module")
def modules_at_start() -> set[str]:
    return set(last_json_line(SCRIPT))


def test_the_middleware_is_built(modules_at_start: set[str]) -> None:
    assert "pagesim_scrapy.middlewares.downloader" in modules_at_start


@pytest.mark.parametrize("name", NOT_AT_START)
def test_start_does_not_import(modules_at_start: set[str], name: str) -> None:
    assert not imported(modules_at_start, name), f"{name} is imported at start"


def test_the_poet_wiring_is_left_alone_when_scrapy_poet_is_not_used(
    modules_at_start: set[str],
) -> None:
    assert not imported(modules_at_start, "pagesim_scrapy.poet.provider")
