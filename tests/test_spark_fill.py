"""The Spark classify job's per-site step gives the local batch's verdicts, the cluster fill
included (issue 32): the fill needs the pages' summaries, so the job moves them with the
features when the classifier fills. Runs the per-site step without Spark."""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pagesim_scrapy.cli.classify import verdict_record
from pagesim_scrapy.core.decide import PageDecider
from pagesim_scrapy.core.summary import summarize
from pagesim_scrapy.settings import PageSimConfig
from pagesim_scrapy.spark.jobs import (
    ClassifierSpec,
    PageRecord,
    _classify_site,
    _site_features,
    fills_from_types,
)
from tests.conftest import shared_data


@dataclass
class _Broadcast:
    """What the per-site step reads of a Spark broadcast."""

    value: ClassifierSpec


def _every_type_configured() -> tuple[ClassifierSpec, list[PageRecord]]:
    """A real blog's pages with every type of >= 3 pages configured (two examples of the
    largest type, one of each other), and the rest of its pages as the site to decide."""
    site = shared_data("site_page_types", "cc_opensource_blog")
    with open(site / "labels.csv", newline="", encoding="utf-8") as handle:
        rows = sorted(csv.DictReader(handle), key=lambda row: row["path"])
    counts = Counter(row["page_type"] for row in rows)
    detail = max(sorted(counts), key=counts.__getitem__)
    templates: dict[str, list[tuple[str, bytes]]] = {}
    pages = []
    for row in rows:
        label, data = row["page_type"], (site / row["path"]).read_bytes()
        wanted = 2 if label == detail else 1
        if counts[label] >= 3 and len(templates.setdefault(label, [])) < wanted:
            templates[label].append((row["path"], data))
        else:
            pages.append(PageRecord((0, len(pages)), row["path"], "blog", data, None))
    options = PageSimConfig().summary_options()
    return ClassifierSpec(templates, "site", {}, "auto", options), pages


def _lines(spec: ClassifierSpec, pages: list[PageRecord], keep: bool) -> list[dict[str, Any]]:
    moved = [_site_features(page, spec.summary_options, keep)[1] for page in pages]
    return [line for _, line in _classify_site(_Broadcast(spec), "blog", moved)]


def test_the_spark_site_step_gives_the_local_batch_verdicts_with_the_fill() -> None:
    spec, pages = _every_type_configured()
    assert fills_from_types(spec)
    summaries = [summarize(p.data or b"", spec.summary_options, source=p.path) for p in pages]
    local = PageDecider(spec.build()).decide_all(summaries)
    expected = [verdict_record(page.path, d, None) for page, d in zip(pages, local)]
    assert _lines(spec, pages, keep=True) == expected
    # not a trivial agreement: the features alone leave pages with none that the fill names
    without = _lines(spec, pages, keep=False)
    left = sum(line["label"] is None for line in without)
    assert left > sum(line["label"] is None for line in expected)
