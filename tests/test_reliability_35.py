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
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.test_scrapy_crawl import FIXTURES, TYPES  # noqa: E402

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
