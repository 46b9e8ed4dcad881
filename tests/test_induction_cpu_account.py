"""The induction pipeline's CPU accounting (issue 31): a held item's settle and extraction
share one worker job without changing its record, and the ``time_ms`` stat counts the
pipeline's work in the reactor thread beside the worker's."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from scrapy.utils.test import get_crawler

from pagesim_scrapy.core.induce import parse_html
from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

DEMO_SITE = Path(__file__).resolve().parent.parent / "sample_project" / "demo_site"
SETTINGS = {"PAGESIM_INDUCTION_ENABLED": True, "PAGESIM_INDUCTION_MIN_PAGES": 5}


def demo_products(count: int) -> list[tuple[str, str]]:
    """``count`` product pages of the demo shop, in a fixed shuffled order."""
    labels = json.loads((DEMO_SITE / "labels.json").read_text(encoding="utf-8"))
    paths = sorted(path for path, label in labels.items() if label == "product")
    random.Random(1).shuffle(paths)
    return [
        ((DEMO_SITE / path).read_text(encoding="utf-8"), "file:///demo_site/" + path)
        for path in paths[:count]
    ]


def _records(pages: list[tuple[str, str]], one_job: bool) -> list[Any]:
    pipeline = TemplateInductionPipeline.from_crawler(get_crawler(settings_dict=SETTINGS))
    state = pipeline._label("product")
    assert state is not None
    for html, url in pages:
        pipeline._take(state, html, url)
    out: list[Any] = []
    for html, url in pages:
        if one_job:
            pages_after, extracted = pipeline._settle_and_extract(state, html, html, url)
        else:
            pipeline._relearn_locked(state)
            pages_after, extracted = state.pages, pipeline._extract_record(state, html, html, url)
        assert extracted is not None
        result, composed = extracted
        out.append([pages_after, composed.record, result.records, round(result.fit, 6)])
    out.append(state.wrapper.to_json())
    return out


def test_settling_in_the_extraction_job_gives_the_records_of_two_jobs():
    pages = demo_products(24)
    one_job = _records(pages, one_job=True)
    assert one_job == _records(pages, one_job=False)
    assert all(row[0] == len(pages) and row[1] for row in one_job[:-1])


def test_settling_a_label_without_pages_extracts_nothing():
    pipeline = TemplateInductionPipeline.from_crawler(get_crawler(settings_dict=SETTINGS))
    state = pipeline._label("product")
    assert state is not None
    html, url = demo_products(1)[0]
    assert pipeline._settle_and_extract(state, html, html, url) == (0, None)


def test_time_ms_counts_the_reactor_threads_work_beside_the_workers():
    crawler = get_crawler(settings_dict=SETTINGS)
    pipeline = TemplateInductionPipeline.from_crawler(crawler)
    worker = pipeline.worker
    worker.cpu_seconds = 0.25  # as if the worker thread's jobs had taken that much
    html, url = demo_products(1)[0]
    with worker.counting():
        for _ in range(5):  # real work in this thread: parsing a page
            parse_html(html, base_url=url)
    assert worker.reactor_seconds > 0
    time_ms = crawler.stats.get_value("pagesim/induction/time_ms")
    assert time_ms == round((0.25 + worker.reactor_seconds) * 1000)
    assert time_ms > 250
