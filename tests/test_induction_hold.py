"""Held page items must not stall the crawl (issue 14, item 3).

Every page is its own label, so no wrapper is ever ready and every item is held. Held items keep
their responses in Scrapy's scraper slot; before the fix their bodies filled the slot
(``SCRAPER_SLOT_MAX_ACTIVE_SIZE``), the engine stopped sending requests, and the crawl stood
still until ``PAGESIM_INDUCTION_WAIT`` released them. Now held pages stay within half of the
slot's size: the downloader keeps fetching while items are held, none waits for the time-out,
and every item comes out.

The crawl runs in a fresh Python process (this file run as a script) against a threaded HTTP
server on 127.0.0.1 with an ephemeral port.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, cast

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.test_induce_core import recipe_page  # noqa: E402
from tests.test_induce_pipeline import _serve  # noqa: E402

WAIT = 30.0
PAGES = 40
PAGE_BYTES = 20_000
SLOT_SIZE = 100_000  # SCRAPER_SLOT_MAX_ACTIVE_SIZE: 5 pages fill it


def routes() -> dict[str, bytes]:
    rng = random.Random(14)
    out = {}
    for k in range(PAGES):
        page = recipe_page(rng, f"Dish {k}", 3 + k % 5)
        padding = "<p>" + "x" * (PAGE_BYTES - len(page)) + "</p>"
        out[f"/dish/{k}.html"] = page.replace("</body>", padding + "</body>").encode()
    return out


def _induction_settings(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    """The crawl's settings: the induction pipeline alone, wrappers under ``tmp_path``."""
    return {
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": "INFO",
        "ITEM_PIPELINES": {"pagesim_scrapy.pipelines.induction.TemplateInductionPipeline": 300},
        "PAGESIM_INDUCTION_ENABLED": True,
        "PAGESIM_INDUCTION_DIR": str(tmp_path / "wrappers"),
        "CONCURRENT_REQUESTS": 4,
        **extra,
    }


def _crawl(
    tmp_path: Path, pages: dict[str, bytes], settings: dict[str, Any]
) -> tuple[dict[str, Any], str, float]:
    """Serve ``pages`` and crawl them in a fresh process: (its result, the server's base URL,
    seconds the crawl took)."""
    for base in _serve(pages):
        spec = {"settings": settings, "urls": [base + path for path in pages]}
        spec_path, out_path = tmp_path / "spec.json", tmp_path / "out.json"
        spec_path.write_text(json.dumps(spec), encoding="utf-8")
        started = time.monotonic()
        proc = subprocess.run(
            [sys.executable, str(Path(__file__)), str(spec_path), str(out_path)],
            capture_output=True,
            text=True,
            timeout=4 * WAIT,
            cwd=tmp_path,
        )
        seconds = time.monotonic() - started
        assert proc.returncode == 0, proc.stderr[-4000:]
        return json.loads(out_path.read_text(encoding="utf-8")), base, seconds
    raise AssertionError("the test server did not start")


def test_held_items_do_not_stop_the_downloader(tmp_path: Path) -> None:
    pages = routes()
    assert all(len(body) >= PAGE_BYTES for body in pages.values())
    settings = _induction_settings(
        tmp_path,
        PAGESIM_INDUCTION_MIN_PAGES=2,
        PAGESIM_INDUCTION_WAIT=WAIT,
        SCRAPER_SLOT_MAX_ACTIVE_SIZE=SLOT_SIZE,
    )
    result, base, seconds = _crawl(tmp_path, pages, settings)
    stats = result["stats"]
    assert result["finish_reason"] == "finished"
    assert sorted(result["items"]) == sorted(base + path for path in pages)  # none lost
    # every item was held; none waited out PAGESIM_INDUCTION_WAIT
    assert stats["pagesim/induction/held"] == PAGES
    assert "pagesim/induction/released/timeout" not in stats, stats
    assert stats["pagesim/induction/released/memory"] >= PAGES - SLOT_SIZE // PAGE_BYTES
    assert stats["pagesim/induction/held_bytes_max"] <= SLOT_SIZE // 2
    # the downloader kept fetching while items were held
    held_at_response = result["held_at_response"]
    assert len(held_at_response) == PAGES
    assert sum(1 for held in held_at_response if held > 0) >= PAGES // 2, held_at_response
    assert seconds < WAIT, seconds


def test_labels_beyond_the_limit_get_no_wrapper_and_lose_no_item(tmp_path: Path) -> None:
    """PAGESIM_INDUCTION_MAX_LABELS bounds the wrappers kept in memory: the first labels are
    learned, the items of later ones pass with an empty record and a reason."""
    pages = dict(list(routes().items())[:12])
    limit = 5
    settings = _induction_settings(
        tmp_path, PAGESIM_INDUCTION_MIN_PAGES=1, PAGESIM_INDUCTION_MAX_LABELS=limit
    )
    result, base, _ = _crawl(tmp_path, pages, settings)
    stats = result["stats"]
    assert result["finish_reason"] == "finished"
    assert sorted(result["items"]) == sorted(base + path for path in pages)  # none lost
    verdicts = result["induction"]
    learned = [url for url, v in verdicts.items() if v["wrapper"] == "ready"]
    limited = [url for url, v in verdicts.items() if v["wrapper"] == "skipped"]
    assert len(learned) == limit and len(limited) == len(pages) - limit
    assert all("PAGESIM_INDUCTION_MAX_LABELS" in verdicts[url]["reason"] for url in limited)
    assert stats["pagesim/induction/skipped/label_limit"] == len(pages) - limit
    assert sum(1 for k in stats if k.startswith("pagesim/induction/learned/")) == limit
    assert stats["pagesim/induction/wrappers_saved"] == limit
    assert len(list((tmp_path / "wrappers").glob("*.json"))) == limit


# --------------------------------------------------------------------------------------------
# the crawl process (this file run as a script)


def _worker(spec_path: str, out_path: str) -> None:
    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")

    import scrapy
    from scrapy import signals
    from scrapy.crawler import AsyncCrawlerRunner
    from scrapy.utils.defer import deferred_from_coro
    from twisted.internet import reactor as _reactor

    from pagesim_scrapy.items import PageItem
    from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

    reactor = cast(Any, _reactor)
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    out: dict[str, Any] = {"items": [], "held_at_response": []}

    class PagesSpider(scrapy.Spider):
        name = "pages"

        async def start(self) -> AsyncIterator[Any]:
            for url in spec["urls"]:
                yield scrapy.Request(url, callback=self.parse, dont_filter=True)

        def parse(self, response: Any, **kwargs: Any) -> Iterator[Any]:
            # one label per page (never ready) unless the spec names one
            label = spec.get("label") or response.url.rsplit("/", 1)[1]
            yield PageItem(url=response.url, label=label, score=1.0, html=response.text)

    async def run() -> None:
        runner = AsyncCrawlerRunner(spec["settings"])
        crawler = runner.create_crawler(PagesSpider)

        def item_scraped(item: Any) -> None:
            out["items"].append(item.url)
            out.setdefault("induction", {})[item.url] = item.verdict.get("induction")

        def response_received(response: Any, request: Any, spider: Any) -> None:
            pipelines = crawler.engine.scraper.itemproc.middlewares
            pipeline = next(p for p in pipelines if isinstance(p, TemplateInductionPipeline))
            out["held_at_response"].append(len(pipeline.held))

        crawler.signals.connect(item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(response_received, signal=signals.response_received)
        await crawler.crawl_async()
        stats = crawler.stats.get_stats()
        out["stats"] = {
            k: v if isinstance(v, (int, float, str)) else str(v) for k, v in stats.items()
        }
        out["finish_reason"] = stats.get("finish_reason")

    def done(_: Any) -> None:
        Path(out_path).write_text(json.dumps(out), encoding="utf-8")
        reactor.stop()

    deferred_from_coro(run()).addBoth(done)
    reactor.run()


if __name__ == "__main__":
    _worker(sys.argv[1], sys.argv[2])
