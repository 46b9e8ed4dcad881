"""Main-text accuracy as the Zyte article extraction benchmark measures it.

The benchmark (scrapinghub/article-extraction-benchmark, ``evaluate.py`` and README) compares an
extracted text with the ground-truth ``articleBody`` on word 4-gram shingles:

* tokens are the ``\\w+`` runs of the text (case kept);
* shingles are the 4-grams of consecutive tokens (a text of fewer than 4 tokens is one shingle);
* per page, with shingle multisets T (truth) and P (prediction): tp = |T ∩ P|, fp = |P - T|,
  fn = |T - P|, then divided by tp + fp + fn so that every page weighs the same;
* precision = mean of tp / (tp + fp) over pages with tp + fp > 0, recall = mean of tp / (tp + fn)
  over pages with tp + fn > 0 (a page with fp = fn = 0 scores 1, one with tp = 0 scores 0);
* F1 = harmonic mean of those two means (not a mean of per-page F1).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

_TOKEN = re.compile(r"\w+")

SHINGLE_SIZE = 4


def shingles(text: str | None, size: int = SHINGLE_SIZE) -> Counter[tuple[str, ...]]:
    """Multiset of the text's word ``size``-grams."""
    tokens = _TOKEN.findall(text or "")
    if not tokens:
        return Counter()
    if len(tokens) <= size:
        return Counter([tuple(tokens)])
    return Counter(tuple(tokens[i : i + size]) for i in range(len(tokens) - size + 1))


@dataclass(frozen=True, slots=True)
class PageMatch:
    """Normalised true positives, false positives and false negatives of one page."""

    tp: float
    fp: float
    fn: float

    @property
    def precision(self) -> float:
        if self.fp == 0.0 and self.fn == 0.0:
            return 1.0
        return self.tp / (self.tp + self.fp) if self.tp > 0.0 else 0.0

    @property
    def recall(self) -> float:
        if self.fp == 0.0 and self.fn == 0.0:
            return 1.0
        return self.tp / (self.tp + self.fn) if self.tp > 0.0 else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r > 0.0 else 0.0


def match_page(truth: str | None, predicted: str | None) -> PageMatch:
    """Shingle match of one page, normalised to tp + fp + fn = 1."""
    t = shingles(truth)
    p = shingles(predicted)
    tp = float(sum((t & p).values()))
    fp = float(sum((p - t).values()))
    fn = float(sum((t - p).values()))
    total = tp + fp + fn
    if total > 0.0:
        tp, fp, fn = tp / total, fp / total, fn / total
    return PageMatch(tp, fp, fn)


@dataclass(frozen=True, slots=True)
class TextScores:
    """Corpus precision, recall and F1 (the benchmark's averaging rule)."""

    precision: float
    recall: float
    f1: float
    pages: int


def corpus_scores(matches: Iterable[PageMatch]) -> TextScores:
    """Average page matches the way the benchmark does (see the module docstring)."""
    items = list(matches)
    ps = [m.precision for m in items if m.tp + m.fp > 0.0]
    rs = [m.recall for m in items if m.tp + m.fn > 0.0]
    precision = sum(ps) / len(ps) if ps else 0.0
    recall = sum(rs) / len(rs) if rs else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0.0 else 0.0
    return TextScores(precision, recall, f1, len(items))
