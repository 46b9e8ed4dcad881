"""The advice on weak examples on real pages: the core, ``classify --suggest-examples`` and a
real crawl of the bundled opensource.creativecommons.org snapshot over HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.examples import ONE_EXAMPLE, ExamplePolicy, SitePage, advise_labels
from pagesim_scrapy.core.site import structural_features
from pagesim_scrapy.core.summary import summarize
from sample_project.demo_shop.spiders.opensource import LABELS_FILE, SITE_DIR, TEMPLATES
from tests.test_crawl_report import _crawl, snapshot_server  # noqa: F401  (served once)

LABELS: dict[str, str] = json.loads(LABELS_FILE.read_text(encoding="utf-8"))
ONE = "blog_entry"
GOOD = "category_page"


def _templates() -> dict[str, list[str]]:
    """The sample spider's examples, the blog entries' cut to one."""
    return {ONE: [TEMPLATES[ONE][0]], GOOD: list(TEMPLATES[GOOD])}


def test_one_example_is_weak_and_a_page_of_its_type_is_proposed_when_asked() -> None:
    given = _templates()
    clf = build_classifier(
        {label: [summarize(SITE_DIR / p) for p in paths] for label, paths in given.items()},
        method="site",
    )
    paths = sorted(LABELS)
    summaries = [summarize(SITE_DIR / p) for p in paths]
    verdicts = clf.classify_all(summaries)
    pages: dict[str, list[SitePage]] = {label: [] for label in given}
    for path, summary, verdict in zip(paths, summaries, verdicts):
        for label, score in verdict.scores.items():
            features = structural_features(summary)
            pages[label].append(SitePage(path, features, score, verdict.label == label))
    advice = {a.label: a for a in advise_labels(clf, pages)}
    assert ONE_EXAMPLE in advice[ONE].reasons
    assert advice[ONE].proposed is None  # the proposal is off for users
    assert "add a second page of the type" in advice[ONE].message()
    assert not advice[GOOD].weak
    asked = {a.label: a for a in advise_labels(clf, pages, policy=ExamplePolicy(propose=True))}
    assert asked[ONE].proposed is not None and LABELS[asked[ONE].proposed] == ONE
    assert asked[ONE].proposed not in given[ONE]
    assert asked[ONE].reasons == advice[ONE].reasons


def test_classify_suggest_examples_prints_one_json_line_per_label(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "pagesim_scrapy", "classify", "--suggest-examples"]
    for label, paths in _templates().items():
        command += [f"--template={label}={SITE_DIR / p}" for p in paths]
    command += [str(SITE_DIR / "blog"), "-o", str(tmp_path / "out.jsonl")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=True)
    lines = [json.loads(line) for line in result.stderr.splitlines() if "suggest_examples" in line]
    advice = {line["suggest_examples"]["label"]: line["suggest_examples"] for line in lines}
    assert advice[ONE]["weak"] and ONE_EXAMPLE in advice[ONE]["reasons"]
    assert advice[ONE]["proposed"] is None and "add a second page" in advice[ONE]["message"]
    assert not advice[GOOD]["weak"]


def test_a_crawl_warns_about_a_label_given_one_example(
    snapshot_server: str,  # noqa: F811  (the fixture imported above)
    tmp_path: Path,
) -> None:
    templates = {label: [str(SITE_DIR / p) for p in paths] for label, paths in _templates().items()}
    _, log = _crawl(
        tmp_path,
        "-s",
        "PAGESIM_TEMPLATES=" + json.dumps(templates),
        "-a",
        f"start_url={snapshot_server}",
    )
    weak = [line for line in log.splitlines() if "pagesim: weak examples on" in line]
    assert any(f"label {ONE!r}: one example only" in line for line in weak), weak
    line = next(line for line in weak if f"label {ONE!r}" in line)
    assert "add a second page of the type" in line and snapshot_server not in line
    assert f"'pagesim/examples/weak/{ONE}': 1" in log
    assert not any(f"label {GOOD!r}" in line for line in weak)
    assert f"pagesim/examples/weak/{GOOD}" not in log


def test_the_crawl_report_shows_the_proposal(tmp_path: Path) -> None:
    from pagesim_scrapy.core.examples import ExampleAdvice
    from pagesim_scrapy.crawlreport import CrawlReportCollector
    from pagesim_scrapy.middlewares.closing import write_report

    advice = ExampleAdvice(
        ONE,
        (ONE_EXAMPLE,),
        15,
        proposed="http://x/blog/entries/a/",
        typicality=0.7,
        likeness_to_examples=0.8,
        site="x",
    )
    path = tmp_path / "report.html"
    write_report(CrawlReportCollector(), str(path), [advice])
    html = path.read_text(encoding="utf-8")
    assert "Weak examples" in html and "http://x/blog/entries/a/" in html
    write_report(CrawlReportCollector(), str(path))
    assert "Weak examples" not in path.read_text(encoding="utf-8")
