"""Reliability (issue 35): large template sets, crawl limits in drop mode, saved state that grows.

* A folder of many templates: loading is linear and capped per label (one WARNING), logs its
  progress, and a single SIGINT stops a ``CrawlerProcess`` that is still loading.
* Drop mode: the pages pagesim drops count toward ``CLOSESPIDER_PAGECOUNT``; pages recorded
  for the second look that a limit leaves unlooked are counted and named in one WARNING.
* Repeat crawls of the same pages keep ``sites.json`` the same size and the verdicts the same.

Crawls run in a fresh Python process against a threaded HTTP server on 127.0.0.1 (the helpers
of ``tests/test_scrapy_crawl.py``).
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.test_scrapy_crawl import (  # noqa: E402
    ADDON,
    FIXTURES,
    TYPES,
    Route,
    Site,
    log_messages,
    run_crawl,
    serve,
    so_page,
)

# --------------------------------------------------------------------------------------------
# 1. many templates


def template_folder(folder: Path, count: int, kind: str = "question") -> Path:
    """``count`` saved pages of one type (copies of the three real fixture pages)."""
    folder.mkdir(parents=True, exist_ok=True)
    sources = sorted((FIXTURES / kind).glob("*.html"))
    for i in range(count):
        shutil.copy(sources[i % len(sources)], folder / f"{i:05d}.html")
    return folder


def test_cap_sources_keeps_an_evenly_spaced_sample_per_label():
    from pagesim_scrapy.templates import TemplateSource, cap_sources

    sources = [TemplateSource("a", f"a{i}", url=f"http://x/a{i}") for i in range(10)]
    sources += [TemplateSource("b", f"b{i}", url=f"http://x/b{i}") for i in range(3)]
    kept, capped = cap_sources(sources, 4)
    assert [s.source for s in kept] == ["a0", "a2", "a5", "a7", "b0", "b1", "b2"]
    assert capped == {"a": (4, 10)}
    assert cap_sources(sources, 0) == (sources, {})
    assert cap_sources(sources, 4)[0] == kept  # the same ones on every run


def test_a_big_folder_is_capped_with_one_warning(tmp_path: Path, caplog):
    from pagesim_scrapy.templates import load_templates

    folder = template_folder(tmp_path / "many", 30)
    with caplog.at_level(logging.DEBUG, logger="pagesim_scrapy"):
        summaries = asyncio.run(
            load_templates({"question": [str(folder)]}, max_per_label=12, progress_every=0.0)
        )
    assert len(summaries["question"]) == 12
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "label 'question' (30 given)" in warnings[0]
    assert "PAGESIM_MAX_TEMPLATES_PER_LABEL" in warnings[0]
    progress = [r.getMessage() for r in caplog.records if "loading templates" in r.getMessage()]
    assert progress and progress[0] == "pagesim: loading templates: 1 of 12 loaded"


def test_the_template_checks_compare_a_bounded_number_of_pairs():
    from pagesim_scrapy.core.guard import UNLIKE_MAX_PAIRS, template_pairs

    assert template_pairs(4) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert len(template_pairs(50)) == 50 * 49 // 2 <= UNLIKE_MAX_PAIRS
    for n in (51, 300, 5000):
        pairs = template_pairs(n)
        assert len(pairs) <= max(UNLIKE_MAX_PAIRS, n)
        assert {i for pair in pairs for i in pair} == set(range(n))  # each template compared
        assert all(i < j for i, j in pairs) and pairs == sorted(set(pairs))


def test_the_template_checks_stay_fast_and_still_find_an_unlike_template():
    from pagesim_scrapy.core.guard import UNLIKE, check_templates
    from pagesim_scrapy.core.summary import summarize

    question = [summarize((FIXTURES / "question" / f"0{n}.html").read_text()) for n in (1, 2, 3)]
    other = summarize("<html><body>" + "<p><b>x</b></p>" * 40 + "</body></html>")
    templates = [question[i % 3] for i in range(400)]
    templates[200] = other
    began = time.perf_counter()
    warnings = check_templates({"question": templates})
    assert time.perf_counter() - began < 20  # all 79,800 pairs took minutes
    unlike = [w for w in warnings if w.kind == UNLIKE]
    assert unlike and all("template 201 " in w.message for w in unlike)


SIGINT_SCRIPT = """
import sys
import scrapy
from scrapy.crawler import CrawlerProcess

class Spider(scrapy.Spider):
    name = "templates"
    async def start(self):
        yield scrapy.Request("data:text/html,<html><body><p>x</p></body></html>")
    def parse(self, response):
        pass

process = CrawlerProcess({
    "LOG_LEVEL": "INFO",
    "TELNETCONSOLE_ENABLED": False,
    "DOWNLOADER_MIDDLEWARES": {"pagesim_scrapy.middlewares.PageSimDownloaderMiddleware": 545},
    "PAGESIM_TEMPLATES": {"question": [sys.argv[1]]},
    "PAGESIM_MAX_TEMPLATES_PER_LABEL": 0,
})
process.crawl(Spider)
process.start()
"""


def test_one_sigint_stops_a_crawl_that_is_loading_many_templates(tmp_path: Path):
    folder = template_folder(tmp_path / "many", 1500)
    script = tmp_path / "crawl.py"
    script.write_text(SIGINT_SCRIPT, encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, str(script), str(folder)],
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    assert proc.stderr is not None
    lines = []
    for line in proc.stderr:
        lines.append(line)
        if "Spider opened" in line:
            break
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        _, rest = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("a SIGINT did not stop the crawl while templates loaded")
    waited = time.monotonic() - sent
    log = "".join(lines) + rest
    assert "pagesim: the crawl was stopped while the templates loaded" in log, log[-3000:]
    assert "pagesim: classifying pages" not in log
    assert waited < 30


# Kinds used by the crawl tests below (one template each, from the fixtures).
SO_KINDS = TYPES


# --------------------------------------------------------------------------------------------
# 2. crawl limits in drop mode


def many_pages_routes(per_kind: int) -> dict[str, Route]:
    """``per_kind`` pages of each of the 5 Stack Overflow types (the 3 real pages of each,
    repeated under different URLs)."""
    html = {"Content-Type": "text/html; charset=utf-8"}
    return {
        f"/so/{kind}/{n:02d}.html": Route(200, so_page(kind, n % 3 + 1), html)
        for kind in SO_KINDS
        for n in range(per_kind)
    }


@pytest.fixture
def big_site() -> Iterator[Site]:
    yield from serve(many_pages_routes(12))


def interleaved(site: Site, per_kind: int) -> list[dict[str, Any]]:
    return [
        {"url": site.url(f"/so/{kind}/{n:02d}.html"), "kind": kind}
        for n in range(per_kind)
        for kind in SO_KINDS
    ]


def test_dropped_pages_count_toward_closespider_pagecount(big_site: Site, tmp_path: Path):
    templates = {kind: [str(FIXTURES / kind / "01.html")] for kind in SO_KINDS}
    result = run_crawl(
        tmp_path,
        {
            **ADDON,
            "PAGESIM_TEMPLATES": templates,
            "PAGESIM_TARGETS": ["question"],
            "PAGESIM_ACTION": "drop",
            "PAGESIM_SITE_MODELS_SAVE": False,
            "CLOSESPIDER_PAGECOUNT": 10,
            "CONCURRENT_REQUESTS": 2,
        },
        interleaved(big_site, 12),
    )
    assert result["finish_reason"] == "closespider_pagecount"
    downloaded = len(big_site.seen)
    # the limit, plus the requests in flight when it was reached (only kept pages counted
    # before: all 60 pages were downloaded)
    assert 10 <= downloaded <= 10 + 2 + 1, downloaded
    stats = result["stats"]
    assert stats["response_received_count"] >= 10
    assert stats["pagesim/dropped"] >= 7
    # the pages turned away on young sites were recorded, and the limit ended the crawl
    # before their second look: counted and named in one WARNING
    recorded = stats.get("pagesim/second_look/recorded", 0)
    assert recorded > 0
    assert stats["pagesim/second_look/not_looked"] == recorded
    warnings = [m for m in log_messages(result, "WARNING") if "never looked at again" in m]
    assert len(warnings) == 1 and "closespider_pagecount" in warnings[0]


# --------------------------------------------------------------------------------------------
# 3. saved state over repeat crawls


def verdicts(result: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    return {
        page["url"]: (page["pagesim"]["label"], round(page["pagesim"]["score"], 9))
        for page in result["seen"]
    }


def test_repeat_crawls_of_the_same_pages_keep_the_saved_state_stable(
    big_site: Site, tmp_path: Path
):
    templates = {kind: [str(FIXTURES / kind / "01.html")] for kind in ("question", "users")}
    state = tmp_path / "sites.json"
    sizes, seen = [], []
    for _ in range(5):
        result = run_crawl(
            tmp_path,
            {
                **ADDON,
                "PAGESIM_TEMPLATES": templates,
                "PAGESIM_SITE_MODELS_FILE": str(state),
                "PAGESIM_HOLD_UNSETTLED": False,
                # one page at a time: the same order in every crawl, so the same scores
                "CONCURRENT_REQUESTS": 1,
            },
            interleaved(big_site, 12),
        )
        assert result["finish_reason"] == "finished"
        sizes.append(state.stat().st_size)
        seen.append(verdicts(result))
    # appended, the same 60 pages were kept and counted again on every crawl
    assert max(sizes) <= sizes[0] * 1.03, sizes
    assert len(seen[0]) == 60
    assert seen[2] == seen[1] and seen[4] == seen[1]


def test_a_past_page_met_again_is_counted_once():
    from pagesim_scrapy.core.site import SavedSite

    a, b = "\x01\x02", "\x03\x04"  # two packed pages of one feature each
    saved = SavedSite("s", 2, {"\x01": 2, "\x03": 1}, [a, b])
    assert saved.without([b]) == SavedSite("s", 1, {"\x01": 1}, [a])
    assert saved.without(["\x05\x06"]) is saved
    # adopted at weight 1, then the crawl met b again and a new page c
    this_crawl = SavedSite("s", 4, {"\x01": 2, "\x03": 2, "\x05": 1}, [a, b, b, "\x05\x06"])
    merged = this_crawl.merged_again(saved, 1.0)
    assert merged.pages == 3
    assert merged.df == {"\x01": 1, "\x03": 1, "\x05": 1}
    assert merged.kept == [a, b, "\x05\x06"]
