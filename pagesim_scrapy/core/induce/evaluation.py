"""Scoring helpers for unsupervised wrappers (used by ``benchmarks/eval_induction.py``).

The protocol: a wrapper names its fields by itself, so for each attribute the field is
*chosen* on the pages the wrapper was learned from (the field whose values match the
attribute best there) and then *judged* on pages it was not learned from.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "LineScore",
    "candidate_lists",
    "candidate_values",
    "choose",
    "line_similarity",
    "match_lines",
    "normalise",
    "tokens",
]

_FRACTIONS = {
    "½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅖": "2/5",
    "⅗": "3/5", "⅘": "4/5", "⅙": "1/6", "⅚": "5/6", "⅛": "1/8", "⅜": "3/8", "⅝": "5/8",
    "⅞": "7/8",
}  # fmt: skip
_DECIMALS = {"1/2": "0.5", "1/3": "0.33", "2/3": "0.67", "1/4": "0.25", "3/4": "0.75",
             "1/8": "0.125"}  # fmt: skip
_WORD = re.compile(r"\d+|[^\W\d_]+")
_FRACTION = re.compile(r"(\d+)\s*/\s*(\d+)")


def normalise(text: str | None) -> str:
    """Lower case, NFKC, whitespace collapsed: the form titles are compared in."""
    if not text:
        return ""
    return " ".join(unicodedata.normalize("NFKC", text).lower().split())


def tokens(text: str | None) -> set[str]:
    """Word tokens of a line (numbers and words apart: "1kg" is "1" "kg"), with vulgar
    fractions and decimals made comparable."""
    if not text:
        return set()
    for char, frac in _FRACTIONS.items():
        if char in text:
            text = text.replace(char, " " + frac + " ")
    text = _FRACTION.sub(lambda m: " " + _DECIMALS.get(f"{m[1]}/{m[2]}", f"{m[1]} {m[2]}"), text)
    return set(_WORD.findall(text.lower()))


def line_similarity(a: str, b: str) -> float:
    """Dice coefficient of the two lines' token sets."""
    ta, tb = tokens(a), tokens(b)
    if not ta or not tb:
        return 0.0
    return 2 * len(ta & tb) / (len(ta) + len(tb))


@dataclass
class LineScore:
    matched: int
    predicted: int
    expected: int

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.expected if self.expected else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def __add__(self, other: LineScore) -> LineScore:
        return LineScore(
            self.matched + other.matched,
            self.predicted + other.predicted,
            self.expected + other.expected,
        )


def match_lines(
    predicted: Sequence[str], expected: Sequence[str], threshold: float = 0.5
) -> LineScore:
    """One-to-one greedy matching of predicted lines to expected lines (best pairs first)."""
    pairs: list[tuple[float, int, int]] = []
    pred_tokens = [tokens(p) for p in predicted]
    exp_tokens = [tokens(e) for e in expected]
    for i, tp in enumerate(pred_tokens):
        if not tp:
            continue
        for j, te in enumerate(exp_tokens):
            if not te:
                continue
            score = 2 * len(tp & te) / (len(tp) + len(te))
            if score >= threshold:
                pairs.append((score, i, j))
    pairs.sort(reverse=True)
    used_p: set[int] = set()
    used_e: set[int] = set()
    for _, i, j in pairs:
        if i not in used_p and j not in used_e:
            used_p.add(i)
            used_e.add(j)
    return LineScore(len(used_p), sum(1 for p in predicted if p.strip()), len(expected))


def candidate_values(record: Mapping[str, Any]) -> dict[str, str]:
    """The scalar fields of a record (the candidates for a single-valued attribute)."""
    return {k: v for k, v in record.items() if isinstance(v, str)}


def candidate_lists(record: Mapping[str, Any]) -> dict[str, list[str]]:
    """Every repeating region of a record as a list of record texts, nested regions
    flattened over their outer groups under a ``outer/inner`` name."""
    out: dict[str, list[str]] = {}
    stack: list[tuple[str, list[Mapping[str, Any]]]] = [
        (k, v) for k, v in record.items() if isinstance(v, list)
    ]
    while stack:
        name, groups = stack.pop()
        texts = out.setdefault(name, [])
        inner: dict[str, list[Mapping[str, Any]]] = {}
        for group in groups:
            if not isinstance(group, Mapping):
                continue
            texts.append(str(group.get("text", "")))
            for key, value in group.items():
                if isinstance(value, list):
                    inner.setdefault(f"{name}/{key}", []).extend(value)
        stack.extend(inner.items())
    return out


def choose(scores: Iterable[tuple[str, float]]) -> tuple[str | None, float]:
    """The best-scoring candidate (ties: the first given), or None if nothing scored > 0."""
    best: str | None = None
    best_score = 0.0
    for name, score in scores:
        if score > best_score:
            best, best_score = name, score
    return best, best_score
