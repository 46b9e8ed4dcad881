"""A drift verdict for one (site, label) and its evidence, in words a user can act on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

CHANGED = "changed"
UNCHANGED = "unchanged"
TWO_LOOKS = "two looks"


def describe_feature(feature: str, names: Mapping[str, str]) -> str:
    """A feature as ``parent > child`` node labels (as :mod:`~pagesim_scrapy.core.explain`
    names them); ``?`` for a node code no walked page named."""
    if len(feature) == 1:
        return f"{names.get(feature, '?')} (start element)"
    return f"{names.get(feature[0], '?')} > {names.get(feature[1], '?')}"


@dataclass
class FeatureMove:
    """A parent > child pair whose share among the label's pages moved."""

    feature: str
    before: float  # share of the baseline pages holding it
    now: float  # share of the new pages holding it
    p_value: float
    text: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "pair": self.text,
            "before": round(self.before, 3),
            "now": round(self.now, 3),
            "p_value": float(f"{self.p_value:.3g}"),
        }

    def render(self) -> str:
        return f"{self.text}  (on {self.before:.0%} of the pages before, {self.now:.0%} now)"


@dataclass
class DriftReport:
    """Whether a label's pages on a site still look as they did (``verdict`` None: no verdict,
    ``reason`` says why: no baseline, too few pages)."""

    site: str | None
    label: str
    verdict: str | None
    confidence: float | None
    reason: str
    pages_before: int = 0
    pages_now: int = 0
    share_before: float = 0.0  # of the site's pages given the label
    share_now: float = 0.0
    score_before: float | None = None  # mean score against the baseline's look
    score_now: float | None = None
    new_look_before: float = 0.0  # share of the pages in the new look
    new_look_now: float = 0.0
    disappeared: list[FeatureMove] = field(default_factory=list)
    appeared: list[FeatureMove] = field(default_factory=list)
    examples_before: list[str] = field(default_factory=list)
    examples_now: list[str] = field(default_factory=list)
    #: pages without a label taken for the label's (its share of the site collapsed)
    stand_ins: int = 0

    @property
    def drifted(self) -> bool:
        return self.verdict == CHANGED

    def name_features(self, names: Mapping[str, str]) -> None:
        """Fill the readable text of every moved feature (node code -> node label)."""
        for move in (*self.disappeared, *self.appeared):
            move.text = describe_feature(move.feature, names)

    def summary(self) -> str:
        """One line: the verdict and its main evidence (a crawl's WARNING)."""
        site = self.site or "(no site)"
        if self.verdict is None:
            return f"{site} {self.label!r}: no verdict ({self.reason})"
        line = f"{site} {self.label!r}: {self.verdict} (confidence {self.confidence:.2f})"
        parts = [self.reason]
        if self.disappeared:
            parts.append(f"gone: {self.disappeared[0].text or self.disappeared[0].feature}")
        if self.appeared:
            parts.append(f"new: {self.appeared[0].text or self.appeared[0].feature}")
        return f"{line}: " + "; ".join(parts)

    def render(self) -> str:
        """The report as text for a terminal."""
        lines = [self.summary()]
        if self.verdict is None:
            return lines[0]
        lines.append(
            f"  pages: {self.pages_before} before, {self.pages_now} now; share of the site's "
            f"pages: {self.share_before:.0%} before, {self.share_now:.0%} now"
        )
        if self.score_before is not None and self.score_now is not None:
            lines.append(
                f"  score against the baseline's look: {self.score_before:.2f} before "
                f"(its own pages), {self.score_now:.2f} now"
            )
        lines.append(
            f"  pages in the new look: {self.new_look_before:.0%} before, "
            f"{self.new_look_now:.0%} now"
        )
        for title, moves in (
            ("structure gone (beyond the site's chrome)", self.disappeared),
            ("structure new (beyond the site's chrome)", self.appeared),
        ):
            if moves:
                lines.append(f"  {title}:")
                lines += [f"    {move.render()}" for move in moves]
        for title, pages in (("before", self.examples_before), ("now", self.examples_now)):
            if pages:
                lines.append(f"  example pages {title}: " + ", ".join(pages))
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 3)

        return {
            "site": self.site,
            "label": self.label,
            "verdict": self.verdict,
            "confidence": rounded(self.confidence),
            "reason": self.reason,
            "pages": {"before": self.pages_before, "now": self.pages_now},
            "site_share": {"before": rounded(self.share_before), "now": rounded(self.share_now)},
            "score": {"before": rounded(self.score_before), "now": rounded(self.score_now)},
            "new_look_share": {
                "before": rounded(self.new_look_before),
                "now": rounded(self.new_look_now),
            },
            "disappeared": [move.as_dict() for move in self.disappeared],
            "appeared": [move.as_dict() for move in self.appeared],
            "examples": {"before": self.examples_before, "now": self.examples_now},
        }
