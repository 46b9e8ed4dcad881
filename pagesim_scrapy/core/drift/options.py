"""The tunable constants of the drift decision, in one declared object callers pass in."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DriftOptions:
    """How sure the evidence must be before a label's look is called changed.

    A feature (a parent > child pair of node labels) *moved* when its share among the label's
    pages moved by at least ``min_shift``, it is part of a look (on at least ``look_share`` of
    the pages on one side), and a Fisher exact test puts the move below ``max_p``: a random
    half of the same pages almost never shows such a move, so same-layout crawls stay quiet.
    """

    #: Pages of the label needed on each side before any verdict (fewer: no verdict).
    min_pages: int = 5
    #: Least change of a feature's share among the label's pages for it to count as moved.
    min_shift: float = 0.3
    #: A moved feature is on at least this share of the label's pages before or now.
    look_share: float = 0.6
    #: Largest two-sided Fisher exact p-value of a move (smaller: less likely to be chance).
    max_p: float = 2e-3
    #: Moved features needed for any verdict but "unchanged" (a changed node moves several).
    min_moved: int = 2
    #: Share of the new pages in the new look from which the label is "changed".
    changed_share: float = 0.7
    #: Share of the new pages in the new look from which the label shows "two looks".
    two_looks_share: float = 0.2
    #: Most baseline pages that may already show the new look (more: it is not new).
    earlier_look_share: float = 0.1
    #: A feature on this share of the site's pages of *other* labels is its chrome.
    chrome_share: float = 0.5
    #: Pages of other labels needed to tell the chrome (fewer: nothing counts as chrome).
    min_other_pages: int = 3
    #: Pages kept per (site, label) and side: the most recent ones.
    max_kept: int = 300
    #: Sites whose looks are saved for the next crawl: every site this crawl met, then the
    #: sites the most recent earlier crawls met (the file keeps that order) up to this many
    #: in all, so the file does not grow with every site ever crawled.
    max_sites: int = 100
    #: Features and example pages listed per report.
    top: int = 8
    #: A label whose share of the site was at least this in the baseline can *collapse*.
    collapse_share: float = 0.1
    #: ... when its share now is at most this part of its share before (a redesign that
    #: no longer matches the label's templates leaves its pages unlabelled).
    collapse_ratio: float = 0.2
    #: ... once the site's pages now would hold this many of the label's at its old share.
    collapse_pages: int = 10
    #: An unlabelled page stands in for a collapsed label only when its tag skeleton is at
    #: most this much less like the label's pages than they are like each other.
    skeleton_margin: float = 0.12

    def __post_init__(self) -> None:
        if self.min_pages < 1 or self.max_sites < 1:
            raise ValueError("min_pages and max_sites must be >= 1")
        for name in (
            "min_shift",
            "look_share",
            "changed_share",
            "two_looks_share",
            "collapse_share",
            "collapse_ratio",
        ):
            if not 0.0 < getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be in (0, 1]")
        if not 0.0 < self.max_p < 1.0:
            raise ValueError("max_p must be in (0, 1)")


DEFAULT_DRIFT_OPTIONS = DriftOptions()
