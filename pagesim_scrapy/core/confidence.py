"""How sure a site-aware verdict is: a logistic model over a few facts of the decision.

The weights are the policy's (:attr:`~pagesim_scrapy.core.sitepolicy.SitePolicy.confidence_weights`,
fitted by ``benchmarks/calibrate_confidence.py``), so a verdict's ``confidence`` reads as the
probability that it is right.
"""

from __future__ import annotations

import math

from pagesim_scrapy.core.sitepolicy import DEFAULT_POLICY


def confidence_features(
    score: float,
    threshold: float,
    *,
    accepted: bool,
    margin: float,
    labels: int,
    source: str,
) -> tuple[float, ...]:
    """What the confidence of a verdict is computed from.

    The distance of the best score from its threshold, relative to the threshold (a page just
    over or under the cut is a coin toss, one far from it is not); for an accepted page with
    several labels, its margin over the runner-up relative to its score; whether the cut was
    still the prior (the site had too few pages for its own); and, with several labels,
    whether each label kept its own cut (the labels cover little of the site).
    """
    distance = max(-5.0, min(5.0, (score - threshold) / max(threshold, 0.05)))
    several = labels > 1
    relative_margin = margin / max(score, 1e-6) if several else 0.0
    return (
        float(accepted),
        float(not accepted),
        distance if accepted else 0.0,
        0.0 if accepted else distance,
        relative_margin if accepted else 0.0,
        float(accepted and several),
        float(source == "prior" and not several),
        float(accepted and several and source == "distribution"),
        float(not accepted and several and source == "distribution"),
    )


def verdict_confidence(
    features: tuple[float, ...],
    weights: tuple[float, ...] = DEFAULT_POLICY.confidence_weights,
) -> float:
    """Probability that a verdict is right, from :func:`confidence_features` (logistic)."""
    z = math.fsum(w * x for w, x in zip(weights, features, strict=True))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
