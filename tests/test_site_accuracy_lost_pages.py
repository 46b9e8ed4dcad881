"""The benchmark's lost-pages analysis (issue 32, item 1): why a page that one label alone
keeps is not given it when every type is configured.

The causes are told apart from the two verdicts alone; on a real site (skipped when the data
is absent) every type configured keeps what each label alone keeps.
"""

from __future__ import annotations

import pytest

from pagesim_scrapy.core.verdict import Verdict

from .conftest import load_benchmark, shared_data

bench = load_benchmark("site_accuracy")


def _verdict(label: str | None, scores: dict[str, float], threshold: float, **extra) -> Verdict:
    best = max(scores.values())
    return Verdict(label, best, scores, "site", 0.0, threshold=threshold, **extra)


ALONE = _verdict("a", {"a": 0.5}, 0.4)


@pytest.mark.parametrize(
    ("every", "cause"),
    [
        (_verdict("b", {"a": 0.5, "b": 0.6}, 0.3), "nearest another label, which gives its label"),
        (_verdict(None, {"a": 0.5, "b": 0.6}, 0.7), "nearest another label, which rejects"),
        (_verdict(None, {"a": 0.45, "b": 0.1}, 0.5), "nearest own, its cut moved up"),
        (
            _verdict(None, {"a": 0.3, "b": 0.1}, 0.5),
            "nearest own, its score fell (the weights changed)",
        ),
    ],
)
def test_a_lost_page_is_told_its_cause(every: Verdict, cause: str) -> None:
    assert bench._lost_cause("a", ALONE, every, every.threshold) == cause


def test_a_page_one_label_gave_by_its_core_is_told_so() -> None:
    alone = _verdict("a", {"a": 0.3}, 0.4, core=True)
    every = _verdict(None, {"a": 0.3, "b": 0.1}, 0.5)
    assert bench._lost_cause("a", alone, every, 0.5) == "nearest own, one-class gave it by core"


def test_every_type_configured_keeps_what_each_label_alone_keeps() -> None:
    pages = bench.load_site(shared_data("site_page_types", "android_stackexchange"))
    found = bench.lost_pages(pages)
    assert found.kept > 150 and found.lost == 0
