"""A dropped page's response lets go of its parse and decoded text (issue 36, item 5).

The ``IgnoreRequest`` that drops a page refers to its response through its traceback's frames,
so the response waits for Python's cyclic collector; without letting go, its lxml tree and
decoded text wait with it. A real crawl against a local HTTP server on 127.0.0.1 runs in a fresh
process (this file run as a script: ``python test_drop1_memory.py SPEC OUT``) with the cyclic
collector off, so every response a cycle keeps stays alive: the dropped ones must be unparsed.
Scrapy gives a request's errback only the exception, without the response; a
``response_received`` handler that keeps a dropped response can still read it (parsed again).

Pages: real Stack Overflow pages of 5 types (tests/fixtures/stackoverflow, BSD-3-Clause).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "stackoverflow"
TYPES = ("jobs", "newest_questions", "question", "tags", "users")
#: the dropped page whose response a signal handler keeps, to read it after the drop
KEPT_PATH = "/so/users/02.html"


@pytest.fixture
def site() -> Iterator[str]:
    routes = {
        f"/so/{kind}/{n:02d}.html": (FIXTURES / kind / f"{n:02d}.html").read_bytes()
        for kind in TYPES
        for n in (1, 2, 3)
    }
    from tests.route_server import serve_routes  # not in the crawl's own process

    with serve_routes(routes) as url:
        yield url


def _crawl(spec: dict[str, Any], out: Path) -> None:
    """The crawl process: the cyclic collector off, every response watched by a weak reference
    from ``response_received``; writes what it saw as JSON."""
    import gc
    import weakref

    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    gc.disable()
    watched: dict[str, Any] = {}
    kept: dict[str, Any] = {}
    errors: list[dict[str, Any]] = []
    result: dict[str, Any] = {"errors": errors}

    class DropSpider(scrapy.Spider):
        name = "drop1"

        async def start(self):  # type: ignore[no-untyped-def]
            for url in spec["urls"]:
                yield scrapy.Request(url, callback=self.parse, errback=self.failed)

        def parse(self, response):  # type: ignore[no-untyped-def]
            response.css("title::text").get()

        def failed(self, failure):  # type: ignore[no-untyped-def]
            errors.append(
                {
                    "url": failure.request.url,
                    "error": type(failure.value).__name__,
                    "has_response": getattr(failure.value, "response", None) is not None,
                }
            )

        def received(self, response, request):  # type: ignore[no-untyped-def]
            watched[response.url] = weakref.ref(response)
            if response.url.endswith(KEPT_PATH):
                kept["response"] = response
                kept["title"] = response.css("title::text").get()

        def closed(self, reason):  # type: ignore[no-untyped-def]
            alive = {url: ref() for url, ref in watched.items()}
            result["alive"] = [url for url, r in alive.items() if r is not None]
            result["parsed"] = [
                url
                for url, r in alive.items()
                if r is not None and (r._cached_selector is not None or r._cached_ubody is not None)
            ]
            response = kept.get("response")
            if response is not None:
                result["kept_title"] = [kept["title"], response.css("title::text").get()]
                result["kept_text"] = response.text[:200]
                result["kept_body"] = response.body.decode("utf-8")[:200]

    process = CrawlerProcess(spec["settings"])
    crawler = process.create_crawler(DropSpider)
    process.crawl(crawler)

    def connect(spider: Any) -> None:
        crawler.signals.connect(spider.received, signal=signals.response_received)

    crawler.signals.connect(connect, signal=signals.spider_opened)
    process.start()
    result["stats"] = {k: v for k, v in crawler.stats.get_stats().items() if "pagesim" in k}
    out.write_text(json.dumps(result))


def test_dropped_responses_let_go_of_their_parse(site: str, tmp_path: Path) -> None:
    urls = [f"{site}/so/{kind}/{n:02d}.html" for kind in TYPES for n in (2, 3)]
    spec = {
        "urls": urls,
        "settings": {
            "ADDONS": {"pagesim_scrapy.Addon": 0},
            "PAGESIM_TEMPLATES": {kind: [str(FIXTURES / kind / "01.html")] for kind in TYPES},
            "PAGESIM_TARGETS": ["question"],
            "PAGESIM_ACTION": "drop",
            "PAGESIM_SITE_MODELS_SAVE": False,
            "PAGESIM_DRIFT_FILE": str(tmp_path / "drift.json"),
            "PAGESIM_SITE_MODELS_FILE": str(tmp_path / "sites.json"),
            "LOG_LEVEL": "WARNING",
            "TELNETCONSOLE_ENABLED": False,
            "ROBOTSTXT_OBEY": False,
        },
    }
    spec_file, out = tmp_path / "spec.json", tmp_path / "out.json"
    spec_file.write_text(json.dumps(spec))
    run = subprocess.run(
        [sys.executable, __file__, str(spec_file), str(out)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(out.read_text())
    dropped = sorted(e["url"] for e in result["errors"] if e["error"] == "IgnoreRequest")
    assert dropped == sorted(u for u in urls if "/question/" not in u)
    assert result["stats"]["pagesim/dropped"] == len(dropped)
    # Scrapy hands the errback the exception alone: no response to read there
    assert not any(e["has_response"] for e in result["errors"])
    # with the cyclic collector off, the dropped responses are still alive, but none parsed
    assert set(dropped) <= set(result["alive"])
    assert result["parsed"] == []
    # a dropped response a signal handler kept still reads the same (parsed again on demand)
    first, again = result["kept_title"]
    assert first and first == again
    assert result["kept_text"] == result["kept_body"]


if __name__ == "__main__":
    _crawl(json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2]))
