"""The verdict every classifier returns, and the checks of a ``threshold`` argument.

A module of its own so that both classifiers (:mod:`~pagesim_scrapy.core.classify` and
:mod:`~pagesim_scrapy.core.siteaware`) use it without importing each other.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import repeat
from typing import Any

#: round()'s digits for every score of a verdict (``map`` over the scores: no Python frame per
#: verdict, which every page of a crawl builds)
_SIX = repeat(6)

#: How a label's score combines its templates' similarities.
AGGREGATES = ("max", "mean")


@dataclass
class Verdict:
    """The classifier's decision for one page (``response.meta["pagesim"]`` in a crawl)."""

    label: str | None
    score: float
    scores: dict[str, float]
    method: str
    margin: float  # best score minus the runner-up label's score (1.0 with one label)
    runner_up: str | None = None
    threshold: float | None = None  # the threshold the best label had to reach
    # how that threshold was set: "given", "prior", "distribution" or "nearest"
    threshold_source: str | None = None
    confidence: float | None = None  # probability the verdict is right (site method only)
    # given the label under its threshold, for holding the node pairs all of the label's
    # templates share beyond the site's chrome (site method only, see cutrules.holds_the_core)
    core: bool = False

    def as_meta(self) -> dict[str, Any]:
        """The verdict as ``response.meta["pagesim"]`` carries it (the one meta contract)."""
        return {
            "label": self.label,
            "score": round(self.score, 6),
            "scores": dict(zip(self.scores, map(round, self.scores.values(), _SIX))),
            "method": self.method,
            "margin": round(self.margin, 6),
            "runner_up": self.runner_up,
            "threshold": None if self.threshold is None else round(self.threshold, 6),
            "threshold_source": self.threshold_source,
            "confidence": None if self.confidence is None else round(self.confidence, 4),
            "core": self.core,
        }

    def as_dict(self) -> dict[str, Any]:
        """The same as :meth:`as_meta` (the older name)."""
        return self.as_meta()


def given_thresholds(
    threshold: float | str | Mapping[str, float], labels: Iterable[str]
) -> dict[str, float]:
    """The fixed thresholds in a ``threshold`` argument, by label (auto labels left out)."""
    labels = list(labels)
    if isinstance(threshold, str):
        if threshold != "auto":
            raise ValueError(f"threshold must be a number, a dict or 'auto', not {threshold!r}")
        return {}
    if isinstance(threshold, Mapping):
        unknown = set(threshold) - set(labels)
        if unknown:
            raise ValueError(f"threshold given for unknown label(s): {sorted(unknown)}")
        return {
            label: check_threshold(value, label)
            for label, value in threshold.items()
            if not (isinstance(value, str) and value == "auto")
        }
    value = check_threshold(threshold, None)
    return dict.fromkeys(labels, value)


def check_threshold(value: Any, label: str | None) -> float:
    """``value`` as a threshold in [0, 1] (ValueError naming ``label`` otherwise)."""
    where = f" for label {label!r}" if label else ""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"threshold{where} must be a number in [0, 1], not {value!r}") from None
    if not 0.0 <= number <= 1.0 or math.isnan(number):
        raise ValueError(f"threshold{where} must be in [0, 1], not {number}")
    return number
