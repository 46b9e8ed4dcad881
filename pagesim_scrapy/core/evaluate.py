"""Measuring classification on labelled pages: precision, recall, F1 and a threshold sweep.

Precision and recall here are seed 002's PR and RR: of the pages given a label, the share that
truly have it; of the pages that truly have it, the share given it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pagesim_scrapy.core.pageio import iter_page_paths


@dataclass(frozen=True)
class LabelScore:
    label: str
    precision: float
    recall: float
    f1: float
    support: int  # pages that truly have the label
    predicted: int  # pages given the label

    def as_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "support": self.support,
            "predicted": self.predicted,
        }


def prf(true_positive: int, predicted: int, support: int) -> tuple[float, float, float]:
    """Precision, recall, F1; an empty denominator gives 1.0 when nothing was expected of it."""
    precision = true_positive / predicted if predicted else (1.0 if support == 0 else 0.0)
    recall = true_positive / support if support else (1.0 if predicted == 0 else 0.0)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def label_scores(
    truth: Sequence[str | None], predicted: Sequence[str | None], labels: Iterable[str]
) -> list[LabelScore]:
    """Per-label precision/recall/F1 of ``predicted`` against ``truth`` (None = no label)."""
    if len(truth) != len(predicted):
        raise ValueError("truth and predictions differ in length")
    out = []
    for label in labels:
        support = sum(1 for t in truth if t == label)
        given = sum(1 for p in predicted if p == label)
        hits = sum(1 for t, p in zip(truth, predicted) if t == label and p == label)
        out.append(LabelScore(label, *prf(hits, given, support), support, given))
    return out


def accuracy(truth: Sequence[str | None], predicted: Sequence[str | None]) -> float:
    if not truth:
        return 0.0
    return sum(1 for t, p in zip(truth, predicted) if t == p) / len(truth)


@dataclass(frozen=True)
class SweepPoint:
    threshold: float
    precision: float
    recall: float
    f1: float


def threshold_sweep(
    scores: Sequence[float], is_positive: Sequence[bool], steps: int = 101
) -> tuple[list[SweepPoint], SweepPoint]:
    """P/R/F1 of "score >= t" for t in [0, 1]; returns the curve and the recommended point.

    The recommendation is the threshold with the best F1; among ties, the middle of the tied
    range, so that it sits as far as possible from both kinds of error.
    """
    if len(scores) != len(is_positive):
        raise ValueError("scores and is_positive differ in length")
    support = sum(1 for p in is_positive if p)
    curve = []
    for i in range(steps):
        t = i / (steps - 1)
        given = [s >= t for s in scores]
        hits = sum(1 for g, p in zip(given, is_positive) if g and p)
        curve.append(SweepPoint(t, *prf(hits, sum(given), support)))
    best_f1 = max(point.f1 for point in curve)
    tied = [point for point in curve if point.f1 >= best_f1 - 1e-12]
    return curve, tied[len(tied) // 2]


def labelled_folders(root: str | Path) -> dict[str, list[Path]]:
    """``root/<label>/*.html`` -> {label: sorted pages}; the folder name is the label."""
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"{root} is not a folder of labelled sub-folders")
    out: dict[str, list[Path]] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        pages = list(iter_page_paths([folder]))
        if pages:
            out[folder.name] = pages
    if not out:
        raise ValueError(f"no labelled sub-folders with pages under {root}")
    return out


def format_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """A plain-text table for terminals."""
    cells = [[_cell(row.get(col)) for col in columns] for row in rows]
    widths = [max([len(col), *(len(r[i]) for r in cells)]) for i, col in enumerate(columns)]
    lines = ["  ".join(col.ljust(w) for col, w in zip(columns, widths))]
    lines.append("  ".join("-" * w for w in widths))
    lines.extend("  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in cells)
    return "\n".join(lines)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    return "" if value is None else str(value)
