from __future__ import annotations

from pathlib import Path

import pytest

from pagesim_scrapy.core.classify import TemplateClassifier, gap_split
from pagesim_scrapy.core.evaluate import label_scores, prf, threshold_sweep
from pagesim_scrapy.core.summary import summarize


def _pages(root: Path, label: str) -> list[Path]:
    return sorted((root / label).glob("*.html"))


def test_verdict_shape_and_margin(stackoverflow: Path):
    clf = TemplateClassifier(
        {
            "question": _pages(stackoverflow, "question")[:2],
            "tags": _pages(stackoverflow, "tags")[:2],
        }
    )
    verdict = clf.classify(summarize(_pages(stackoverflow, "question")[5]))
    assert verdict.label == "question"
    assert verdict.runner_up == "tags"
    assert verdict.margin == pytest.approx(verdict.scores["question"] - verdict.scores["tags"])
    data = verdict.as_dict()
    assert set(data) >= {"label", "score", "scores", "method"}
    assert data["method"] == "lcs"


def test_auto_threshold_rejects_other_types(stackoverflow: Path):
    """One label, two templates, no labelled data: other page types come out unlabelled."""
    clf = TemplateClassifier({"users": _pages(stackoverflow, "users")[:2]})
    info = clf.describe()["labels"]["users"]
    assert info["threshold_source"] == "prior"
    assert info["background"] < info["threshold"] < info["within"]
    assert clf.classify(_pages(stackoverflow, "users")[4]).label == "users"
    for other in ("jobs", "question", "tags", "newest_questions"):
        assert clf.classify(_pages(stackoverflow, other)[3]).label is None


def test_distribution_adapts_threshold(stackoverflow: Path):
    clf = TemplateClassifier({"question": _pages(stackoverflow, "question")[:2]}, adapt_after=20)
    pages = [
        p
        for label in ("question", "jobs", "tags", "users")
        for p in _pages(stackoverflow, label)[2:9]
    ]
    verdicts = [clf.classify(p) for p in pages]
    assert clf.threshold("question").source == "distribution"
    truth = ["question" if "question" in str(p) else None for p in pages]
    # the first pages were judged with the prior, later ones with the adapted threshold
    final = [clf.decide(v.scores).label for v in verdicts]
    assert label_scores(truth, final, ["question"])[0].f1 == 1.0


def test_given_thresholds_and_validation(stackoverflow: Path):
    tpl = {"jobs": _pages(stackoverflow, "jobs")[:1], "tags": _pages(stackoverflow, "tags")[:1]}
    clf = TemplateClassifier(tpl, threshold={"jobs": 0.99})
    assert clf.threshold("jobs").source == "given"
    assert clf.threshold("tags").source == "prior"
    assert (
        TemplateClassifier(tpl, threshold=1.0).classify(_pages(stackoverflow, "jobs")[3]).label
        is None
    )
    with pytest.raises(ValueError, match="unknown label"):
        TemplateClassifier(tpl, threshold={"nope": 0.5})
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        TemplateClassifier(tpl, threshold=1.5)
    with pytest.raises(ValueError, match="auto"):
        TemplateClassifier(tpl, threshold="high")
    with pytest.raises(ValueError, match="no template"):
        TemplateClassifier({"x": []})
    with pytest.raises(ValueError, match="unknown similarity method"):
        TemplateClassifier(tpl, method="nope")
    with pytest.raises(ValueError, match="aggregate"):
        TemplateClassifier(tpl, aggregate="median")


def test_mean_aggregate(stackoverflow: Path):
    tpl = {"jobs": _pages(stackoverflow, "jobs")[:3]}
    mean = TemplateClassifier(tpl, aggregate="mean").scores(_pages(stackoverflow, "jobs")[5])
    best = TemplateClassifier(tpl, aggregate="max").scores(_pages(stackoverflow, "jobs")[5])
    assert mean["jobs"] <= best["jobs"]


def test_gap_split_picks_the_lowest_wide_gap():
    negatives = [0.20, 0.22, 0.25, 0.28, 0.30, 0.33, 0.36, 0.39]
    positives = [0.53, 0.68, 0.70, 0.75]
    split = gap_split(negatives + positives, 0.15, 1.0, 0.05)
    assert 0.39 < split < 0.53
    assert gap_split([0.2, 0.21, 0.22], 0.15, 1.0, 0.05) is None


def test_metrics():
    assert prf(0, 0, 0)[:2] == (1.0, 1.0)
    p, r, f = prf(3, 4, 6)
    assert (p, r) == (0.75, 0.5) and f == pytest.approx(0.6)
    curve, best = threshold_sweep([0.1, 0.2, 0.8, 0.9], [False, False, True, True])
    assert best.f1 == 1.0 and 0.2 < best.threshold <= 0.8
    assert len(curve) == 101
