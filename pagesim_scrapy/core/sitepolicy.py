"""Every tunable of the site-aware decision in one declared, frozen object.

:class:`SitePolicy` holds the constants of :mod:`~pagesim_scrapy.core.siteaware` and its cut
rules (:mod:`~pagesim_scrapy.core.cutrules`): the classifier takes one, the benchmarks pass
one (``dataclasses.replace(SitePolicy(), anchor_floor=0.5)``) instead of patching module
globals, and an expert reaches it from the settings (``PAGESIM_SITE_POLICY``, a dict read by
:meth:`SitePolicy.from_mapping`). The defaults were chosen leave-one-site-out on real
multi-type sites; the figures behind them are in ``docs/benchmarks.md``.

This module imports nothing heavy: the settings import it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

#: The method name of site-aware classification (``PAGESIM_METHOD = "site"``): defined here
#: once, imported by the measure registry, the CLI and the settings.
SITE_METHOD = "site"


@dataclass(frozen=True)
class SitePolicy:
    """The constants of the site-aware decision, field by field.

    Construction checks the ranges; :meth:`from_mapping` also checks the names and types of a
    user's dict. Every field keeps the value the classifier had before it was declared here.
    """

    # -- the classifier's own sizes ------------------------------------------------------------

    #: The one-label prior is this share of the label's templates' similarity to each other:
    #: a page of the type resembles its templates nearly as much as they resemble each other.
    prior_weight: float = 0.85
    #: Scores a label needs on a site before it gets a cut of its own (with several labels,
    #: more: a label's own pages must be among the kept ones). Until then the prior decides.
    min_pages: int = 20
    #: Pages of a site whose features are kept to re-score as the weights settle: the window
    #: the cuts are estimated from, and the "young" period in which a verdict may not last.
    keep_pages: int = 300
    #: Sites kept at once; the least recently seen are forgotten first (bounded memory).
    max_sites: int = 1000
    #: Kept pages over all sites together, the other bound on memory.
    max_kept_pages: int = 100_000
    #: Features counted per site; past it, the ones seen on a single page are forgotten.
    max_features: int = 50_000
    #: A feature's weight ramps up from nothing on one page to its full IDF on this many: a
    #: feature on two or three pages is mostly a one-off and at full weight it outweighed the
    #: structure a type's pages share.
    ramp_pages: int = 8

    # -- when the cuts are re-estimated --------------------------------------------------------

    #: A site's kept pages are re-scored on every new page until it has this many; from then
    #: on the within-group spread of a split is pooled (see ``cutrules.separation``).
    early_pages: int = 50
    #: Past ``early_pages``, the kept pages are re-scored whenever the site has grown by this
    #: factor, so the cost stays flat in a long crawl while early pages do not fix the cut.
    refresh_growth: float = 1.25

    # -- a label's own cut ---------------------------------------------------------------------

    #: The widest-gap candidate of a label's own cut is looked for above this percentile of its
    #: scores: when the type is a small part of the site, the gaps below are between other
    #: kinds of pages. It also defines a "small top" (fewer pages above a cut than the share
    #: above this percentile).
    cut_floor_percentile: int = 75
    #: A cut that keeps only a small top and sits in a gap narrower than this found no
    #: boundary: the scores run on (a free-form type sharing little beyond the chrome), so the
    #: templates' anchor (``prior_weight`` x their likeness) is the cut instead.
    narrow_gap: float = 0.1
    #: A cut is raised to this share of the templates' likeness when most pages it keeps score
    #: below that: they are of other types, and the label's own type has not been met yet.
    #: Also the lowest score the core rule accepts, and the floor of the early cut.
    anchor_floor: float = 0.6
    #: A type is "most of the site" when at least this share of the site's pages reach its
    #: templates' anchor; a core held by this share of the site is the site's, not the type's.
    dominant_share: float = 0.5
    #: ... and only when its templates are at least this alike: templates that share little
    #: give an anchor that any site's pages reach. Such a type is cut at its edge below the
    #: anchor, not between its own pages.
    dominant_within: float = 0.25

    # -- several labels ------------------------------------------------------------------------

    #: When at least this share of the site's kept pages are nearest a label and pass its cut,
    #: the labels describe the site and the nearest label decides; below it, most pages are of
    #: types nobody configured and every label keeps its own cut. Chosen leave-one-site-out
    #: among the values that keep "none"'s precision for the types nobody configured: a label
    #: with one example has a one-class cut that splits its own type, so with every type
    #: configured the share passing can fall well below the share the labels really describe.
    covering_share: float = 0.5
    #: With labels that cover the site, a label whose cut sits in a gap at least this wide keeps
    #: it (a clear boundary: the pages below are of another type, even when nearest this label).
    wide_gap: float = 0.4
    #: With labels that cover the site, a page the nearest label decides must still reach this
    #: share of that label's templates' likeness: a page of an unconfigured type can be nearest
    #: a label only for want of its own, scoring next to nothing against it.
    nearest_floor: float = 0.3
    #: In a batch (``classify_all``), a page left with none takes the label of its cluster
    #: among the site's clustered pages when the clusters that hold the labels' examples hold
    #: at least this share of the site (:mod:`~pagesim_scrapy.core.clusterfill`): the labels
    #: then describe the site, and a cluster holding a label's examples is its type. Below it,
    #: clusters mix configured types with types nobody configured. Above 1: off. Chosen
    #: leave-one-site-out (every fold chose it) among the values that keep "none"'s precision
    #: for the types nobody configured and the one-class F1.
    site_types_cover: float = 0.95
    #: ... and with several labels, when they hold at least this share (clusters are coarse
    #: below the share above), a page still left with none takes the label of its most similar
    #: page of the site when that page has one, along the chain of nearest pages
    #: (``clusterfill.fill_from_neighbours``): a page of a type nobody configured is nearest a
    #: page of its own type, without a label. Above 1 (or ``site_types_cover`` above 1): off.
    #: Chosen leave-one-site-out among the values that keep "none"'s precision for the types
    #: nobody configured (figures in docs/benchmarks.md).
    site_neighbour_cover: float = 0.6
    #: In a crawl (``SiteAwareClassifier.fill_from_kept``), with several labels, a page left
    #: with none takes its nearest label when its most similar kept page of the site chains to
    #: that label and at least this share of the site's kept pages chain to a label (the
    #: crawl's measure of how much of the site the labels describe: it has no clusters).
    #: Above 1 (or either batch cover above 1): off. Chosen leave-one-site-out by the online
    #: every-type own share among the values that keep the online "some of the types"
    #: precision (figures in docs/benchmarks.md).
    crawl_neighbour_cover: float = 0.5

    # -- the early cut of one label ------------------------------------------------------------

    #: Before ``min_pages``, the site's own split lowers the prior (never under the anchor
    #: floor) when at least this share of the pages seen are above it: a large type is met many
    #: times while the prior waits, and its early pages fall under it.
    early_cut_share: float = 1 / 3
    #: ... and at least this many pages are above the split (a group, not one odd page).
    early_cut_group: int = 3
    #: ... and the label has at least this many scores (a split of fewer says nothing).
    early_cut_pages: int = 5

    # -- recurring crawls ----------------------------------------------------------------------

    #: What a site's counts saved by an earlier crawl weigh when adopted: a recurring crawl
    #: meets mostly the same pages again, and a quarter drops their one-off features (a count
    #: of one rounds to nothing) and lets the new crawl's pages outweigh a changed site's past.
    saved_site_weight: float = 0.25

    # -- confidence ----------------------------------------------------------------------------

    #: Logistic weights of ``verdict_confidence``, in the order of ``confidence_features``,
    #: fitted by ``benchmarks/calibrate_confidence.py`` on labelled real sites.
    confidence_weights: tuple[float, ...] = (
        1.663,
        -0.319,
        0.080,
        -6.100,
        2.716,
        -2.380,
        -0.100,
        1.327,
        -0.830,
    )

    def __post_init__(self) -> None:
        for f in fields(self):
            _check_field(f.name, getattr(self, f.name))

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], base: SitePolicy | None = None) -> SitePolicy:
        """``base`` (default: the shipped policy) with the fields named in ``values``.

        Raises ValueError naming the key for an unknown key, a value of the wrong type or one
        out of range: a user's dict from the settings must fail loudly, not be half applied.
        """
        if not isinstance(values, Mapping):
            raise ValueError(f"must be a dict {{field: value}}, not {values!r}")
        known = {f.name: f.type for f in fields(cls)}
        changes: dict[str, Any] = {}
        for key, value in values.items():
            if key not in known:
                raise ValueError(f"unknown key {key!r} (known: {', '.join(sorted(known))})")
            changes[key] = _coerce(key, value, type(getattr(DEFAULT_POLICY, key)))
        return replace(DEFAULT_POLICY if base is None else base, **changes)


def _coerce(key: str, value: Any, kind: type) -> Any:
    """``value`` as the type of the field ``key`` (ints for floats; a list for a tuple)."""
    if kind is tuple:
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise ValueError(f"{key} must be a list of numbers, not {value!r}")
        return tuple(_coerce(key, item, float) for item in value)
    if isinstance(value, bool):
        raise ValueError(f"{key} must be a number, not {value!r}")
    if kind is int and isinstance(value, int):
        return value
    if kind is float and isinstance(value, (int, float)):
        return float(value)
    wanted = "an integer" if kind is int else "a number"
    raise ValueError(f"{key} must be {wanted}, not {value!r}")


#: (low, high, low included, high included) per bounded field; any other int field is >= its
#: entry in _AT_LEAST (0 if absent).
_RANGES: dict[str, tuple[float, float, bool, bool]] = {
    "prior_weight": (0.0, 1.0, False, False),
    "narrow_gap": (0.0, 1.0, True, True),
    "anchor_floor": (0.0, 1.0, True, True),
    "dominant_share": (0.0, 1.0, True, True),
    "dominant_within": (0.0, 2.0, True, True),
    "covering_share": (0.0, 1.0, True, True),
    "wide_gap": (0.0, 1.0, True, True),
    "nearest_floor": (0.0, 1.0, True, True),
    "site_types_cover": (0.0, 2.0, True, True),
    "site_neighbour_cover": (0.0, 2.0, True, True),
    "crawl_neighbour_cover": (0.0, 2.0, True, True),
    "early_cut_share": (0.0, 2.0, True, True),
    "saved_site_weight": (0.0, 1.0, False, True),
    "refresh_growth": (1.0, math.inf, False, False),
    "cut_floor_percentile": (1, 99, True, True),
}
_AT_LEAST = {"min_pages": 1, "ramp_pages": 2, "max_sites": 1}


def _check_field(name: str, value: Any) -> None:
    """Raise ValueError naming ``name`` when ``value`` is out of its range."""
    if name == "confidence_weights":
        if len(value) != 9 or not all(math.isfinite(w) for w in value):
            raise ValueError(f"{name} must be 9 finite numbers, not {value!r}")
        return
    if name not in _RANGES:
        least = _AT_LEAST.get(name, 0)
        if not value >= least:
            raise ValueError(f"{name} must be >= {least}, not {value!r}")
        return
    low, high, low_closed, high_closed = _RANGES[name]
    above = value >= low if low_closed else value > low
    below = value <= high if high_closed else value < high
    if not (above and below):
        span = f"{'[' if low_closed else '('}{low:g}, {high:g}{']' if high_closed else ')'}"
        raise ValueError(f"{name} must be within {span}, not {value!r}")


#: The shipped policy.
DEFAULT_POLICY = SitePolicy()
