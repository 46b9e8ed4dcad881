"""Verdict confidence and the ``explain`` command, on real pages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pagesim_scrapy.cli import main
from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.explain import explain_page, readable_codes
from pagesim_scrapy.core.siteaware import confidence_features, verdict_confidence
from pagesim_scrapy.core.summary import PageSummary, SummaryOptions, parse_html, summarize
from tests.conftest import FIXTURES

SO = FIXTURES / "stackoverflow"
OPTIONS = SummaryOptions(max_nodes=300)
REPO = Path(__file__).resolve().parent.parent


def _pages() -> list[tuple[str, Path]]:
    return [
        (folder.name, page)
        for folder in sorted(SO.iterdir())
        if folder.is_dir()
        for page in sorted(folder.glob("*.html"))
    ]


def test_confidence_grows_with_the_distance_from_the_threshold():
    def conf(score: float, accepted: bool, early: bool = False) -> float:
        return verdict_confidence(
            confidence_features(
                score,
                0.4,
                accepted=accepted,
                margin=1.0,
                labels=1,
                source="prior" if early else "distribution",
            )
        )

    assert conf(0.41, True) < conf(0.6, True) < conf(0.95, True) <= 1.0
    assert conf(0.39, False) < conf(0.2, False) < conf(0.01, False) <= 1.0
    assert 0.0 < conf(0.41, True) < 0.9  # just over the cut: far from certain


def test_verdicts_carry_a_confidence_that_orders_right_before_wrong():
    """On real pages the confident verdicts are the right ones, and every one is in [0, 1]."""
    pages = _pages()
    templates = {"question": [summarize(p, OPTIONS) for kind, p in pages if kind == "question"][:2]}
    clf = build_classifier(templates, summary_options=OPTIONS)
    tests = [(kind, summarize(p, OPTIONS)) for kind, p in pages][2:]
    verdicts = clf.classify_all([s for _, s in tests])
    right = [
        (v.label == "question") == (kind == "question") for (kind, _), v in zip(tests, verdicts)
    ]
    confidence = [v.confidence for v in verdicts]
    assert all(c is not None and 0.0 <= c <= 1.0 for c in confidence)
    assert all(v.threshold_source in ("prior", "distribution") for v in verdicts)
    assert sum(right) / len(right) >= 0.9
    # the verdicts it is sure of (>= 0.9) are right at least as often as it says
    sure = [r for r, c in zip(right, confidence) if c is not None and c >= 0.9]
    assert sure and sum(sure) / len(sure) >= 0.9


def test_explain_names_the_structure_that_decides():
    pages = _pages()
    question = [p for kind, p in pages if kind == "question"]
    templates = {"question": [summarize(p, OPTIONS) for p in question[:2]]}
    clf = build_classifier(templates, summary_options=OPTIONS)
    summaries = [summarize(p, OPTIONS) for _, p in pages]
    clf.classify_all(summaries)
    names = readable_codes([parse_html(p.read_bytes()) for _, p in pages], OPTIONS)
    own = explain_page(clf, summarize(question[2], OPTIONS), names=names)
    other_path = next(p for kind, p in pages if kind == "users")
    other = explain_page(clf, summarize(other_path, OPTIONS), names=names)
    assert own.verdict.label == "question" and other.verdict.label is None
    assert own.labels[0].source in ("prior", "distribution") and own.labels[0].how
    # a question shares weighty, type-level structure with a question template; a user page
    # shares less with it than it lacks
    assert own.matching and all(note.weight > 0 and "?" not in note.text for note in own.matching)
    assert sum(n.weight for n in own.matching) > sum(n.weight for n in other.matching)
    assert 0 < own.chrome_features < own.page_features
    text = own.render()
    assert "verdict: question" in text and "shared with the template" in text


def test_explain_command_text_json_and_through_scrapy(tmp_path, capsys):
    question = sorted((SO / "question").glob("*.html"))
    page = str(question[-1])
    args = ["explain", "--template", f"question={question[0]}"]
    args += ["--template", f"question={question[1]}", "--site", str(SO), page]
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"]["label"] == "question"
    assert 0.5 <= data["verdict"]["confidence"] <= 1.0
    assert data["labels"][0]["threshold_source"] in ("prior", "distribution")
    assert data["matching"] and data["site_pages"] > 10
    # the verdict is the one ``classify`` gives the same page among the same site
    out = tmp_path / "c.jsonl"
    assert main(["classify", *args[1:5], str(SO), "--output", str(out)]) == 0
    rows = {row["path"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert rows[page]["label"] == data["verdict"]["label"]
    assert rows[page]["score"] == pytest.approx(data["verdict"]["score"], abs=1e-6)
    scrapy = subprocess.run(
        [sys.executable, "-m", "scrapy", "pagesim", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert scrapy.returncode == 0, scrapy.stderr
    assert "verdict: question" in scrapy.stdout and "how the threshold was set" in scrapy.stdout


def test_explain_command_errors_are_clear(tmp_path, capsys):
    question = SO / "question" / "01.html"
    bad = tmp_path / "empty.html"
    bad.write_bytes(b"")
    assert main(["explain", "--template", f"question={question}", str(bad)]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["explain", str(question)]) == 2
    assert "--template" in capsys.readouterr().err


def _site_firsts(
    site: str, leave_out: str | None = None
) -> tuple[list[tuple[str, PageSummary]], dict[str, PageSummary]]:
    """A real site's (type, summary) pages, and the first page of every type with >= 3 pages
    (but ``leave_out``) as its template."""
    import csv
    from collections import Counter

    from tests.conftest import shared_data

    folder = shared_data("site_page_types", site)
    with open(folder / "labels.csv", newline="", encoding="utf-8") as handle:
        rows = sorted(csv.DictReader(handle), key=lambda row: row["path"])
    pages = [(row["page_type"], summarize(folder / row["path"], OPTIONS)) for row in rows]
    counts = Counter(label for label, _ in pages)
    firsts: dict[str, PageSummary] = {}
    for label, summary in pages:
        if counts[label] >= 3 and label != leave_out:
            firsts.setdefault(label, summary)
    return pages, firsts


def test_explain_says_which_rule_decides_with_several_labels():
    """Every type of a real site configured: the labels cover it and the nearest one decides;
    two of its types: each keeps its own cut and the other types' pages get none."""
    pages, firsts = _site_firsts("android_stackexchange")
    every = build_classifier({label: [s] for label, s in firsts.items()}, summary_options=OPTIONS)
    every.classify_all([s for _, s in pages])
    question = next(s for label, s in pages if label == "question" and s is not firsts["question"])
    covered = explain_page(every, question)
    assert covered.verdict.label == "question" and covered.verdict.threshold_source == "nearest"
    assert "cover" in covered.labels[0].how
    two = {label: [s for lab, s in pages if lab == label][:2] for label in ("question", "badge")}
    some = build_classifier(two, summary_options=OPTIONS)
    some.classify_all([s for _, s in pages])
    user = next(s for label, s in pages if label == "user_profile")
    outside = explain_page(some, user)
    assert outside.verdict.label is None
    assert outside.verdict.threshold_source == "distribution"
    assert "widest gap" in outside.labels[0].how


def test_explain_says_when_a_wide_gap_overrules_the_nearest_label():
    """Every type of the real blog configured but its series pages: a series page is nearest
    the category label, whose own cut sits in a wide gap, and explain says why that cut, not
    the nearest label, decides."""
    pages, firsts = _site_firsts("cc_opensource_blog", leave_out="series_page")
    clf = build_classifier({label: [s] for label, s in firsts.items()}, summary_options=OPTIONS)
    clf.classify_all([s for _, s in pages])
    series = next(s for label, s in pages if label == "series_page")
    explained = explain_page(clf, series)
    assert explained.verdict.label is None
    nearest = explained.labels[0]
    assert nearest.label == "category_page" and nearest.source == "distribution"
    assert "clear boundary" in nearest.how and "cover" in nearest.how
