"""The site-based template check: a cut with no gap is flagged, a clear cut and a young site are
not; on real pages a blog entry given beside a static page is flagged (a blog entry proposed
when asked), and the crawl's close logs it once with its stat."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.examplecheck import (
    DEFAULT_CHECK_POLICY,
    NO_GAP,
    CheckPolicy,
    check_label,
    check_labels,
    cut_gap,
)
from pagesim_scrapy.core.examples import SitePage
from pagesim_scrapy.core.site import SiteModel, structural_features
from pagesim_scrapy.core.summary import summarize


def _model() -> SiteModel:
    model = SiteModel()
    for n in range(20):
        model.add(frozenset({"chrome", f"kind{n % 2}", f"variant{n % 5}"}))
    return model


def test_the_gap_at_the_cut() -> None:
    assert abs(cut_gap([0.1, 0.2, 0.5, 0.52, 0.9], 0.51) - 0.02 / 0.8) < 1e-9  # of the span
    assert cut_gap([0.5, 0.6], 0.1) == 0.0  # keeps every page: no gap to sit in


def test_scores_running_through_the_cut_warn_and_a_clear_cut_does_not() -> None:
    model = _model()
    page = frozenset({"chrome", "kind0", "variant0"})
    running = [SitePage(f"/p{i}", page, 0.3 + i * 0.01, False) for i in range(30)]
    found = check_label("x", [page], running, 0.445, model)
    assert found is not None and found.kind == NO_GAP and found.pages == 30
    assert "label 'x'" in found.message() and "no gap" in found.message()
    assert found.as_dict()["kind"] == NO_GAP
    clear = [
        SitePage(f"/p{i}", page, 0.2 + (0.5 if i > 20 else 0) + i * 0.001, False) for i in range(30)
    ]
    assert check_label("x", [page], clear, 0.6, model) is None
    assert check_label("x", [page], running[:10], 0.345, model) is None  # too few pages yet


def _opensource() -> tuple[dict[str, str], Path]:
    from sample_project.demo_shop.spiders.opensource import LABELS_FILE, SITE_DIR

    return json.loads(LABELS_FILE.read_text(encoding="utf-8")), SITE_DIR


#: A blog entry and a static page given as one label's examples: the site's pages show it.
UNLIKE_PAIR = [
    "blog/entries/2020-03-05-participe-gsoc/index.html",
    "community/community-team/index.html",
]


def test_a_blog_entry_beside_a_static_page_warns_and_a_blog_entry_is_proposed() -> None:
    labels, site_dir = _opensource()
    paths = sorted(labels)
    summaries = [summarize(site_dir / p) for p in paths]
    clf = build_classifier({"entry": [summarize(site_dir / p) for p in UNLIKE_PAIR]}, method="site")
    verdicts = clf.classify_all(summaries)
    pages = [
        SitePage(p, structural_features(s), v.scores["entry"], v.label == "entry")
        for p, s, v in zip(paths, summaries, verdicts)
    ]
    (plain,) = check_labels(clf, {"entry": pages}, site=None)
    assert plain.proposed is None and "a label of their own" in plain.message()  # off for users
    (found,) = check_labels(clf, {"entry": pages}, site=None, policy=CheckPolicy(propose=True))
    assert found.kind == NO_GAP and found.gap < DEFAULT_CHECK_POLICY.gap_below
    assert found.proposed is not None and labels[found.proposed] == "blog_entry"
    assert found.keeps == 0 and found.proposed_gap is not None and found.proposed_gap > found.gap
    assert found.proposed in found.message() and found.as_dict()["kind"] == NO_GAP


def test_the_close_logs_the_check_once_per_label_and_site(caplog: pytest.LogCaptureFixture) -> None:
    from scrapy.statscollectors import MemoryStatsCollector
    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.middlewares.closing import ExampleWatch

    labels, site_dir = _opensource()
    stats = MemoryStatsCollector(get_crawler())
    watch = ExampleWatch(stats, None)
    watch.classifier = build_classifier(
        {"entry": [summarize(site_dir / p) for p in UNLIKE_PAIR]}, method="site"
    )
    for path in sorted(labels):
        summary = summarize(site_dir / path)
        url = f"http://x.org/{path}"
        watch.classifier.classify(summary, site="x.org")
        watch.observe(url, summary)
    with caplog.at_level(logging.WARNING):
        watch.close()
    lines = [r for r in caplog.records if "template check" in r.getMessage()]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING
    assert "label 'entry'" in lines[0].getMessage() and "no gap" in lines[0].getMessage()
    assert stats.get_value(f"pagesim/template_warnings/{NO_GAP}") == 1
