"""Similarity measures between page summaries, behind one entry point and a registry.

Every measure returns a float in [0, 1], is symmetric, and gives 1.0 for identical structure.
``similarity(a, b, method="lcs", **params)`` checks the parameters against the measure's
declared defaults, so a misspelt option is an error rather than silently ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pagesim_scrapy.core.similarity.layers import check_layers_params, layers_similarity
from pagesim_scrapy.core.similarity.lcs import lcs_similarity, lcs_similarity_many
from pagesim_scrapy.core.similarity.style import style_similarity
from pagesim_scrapy.core.sitepolicy import SITE_METHOD as SITE_METHOD
from pagesim_scrapy.core.summary import PageSummary, summarize

# SITE_METHOD ("site") is the site-aware classifier's method, not a pairwise measure: it is
# not in METHODS, and ``core.classify.build_classifier`` builds it from its own registry.

MeasureFunc = Callable[..., float]
#: ``many(page, others, **params)``: the measure of ``page`` against each of ``others`` at once.
ManyFunc = Callable[..., list[float]]


@dataclass(frozen=True)
class Measure:
    name: str
    func: MeasureFunc
    defaults: Mapping[str, Any] = field(default_factory=dict)
    choices: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    summary: str = ""
    #: Optional faster form for one page against many (the classifier's templates).
    many: ManyFunc | None = None
    #: Optional check of the merged parameters' values (ValueError naming the parameter).
    check: Callable[[Mapping[str, Any]], None] | None = None

    def similarities(
        self, page: PageSummary, others: Sequence[PageSummary], **params: Any
    ) -> list[float]:
        """The measure of ``page`` against each of ``others`` (params already checked)."""
        if self.many is not None:
            return self.many(page, others, **params)
        return [self.func(page, other, **params) for other in others]

    def check_params(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Return the full parameter set, raising ValueError for unknown names or bad choices."""
        unknown = set(params) - set(self.defaults)
        if unknown:
            known = ", ".join(sorted(self.defaults)) or "none"
            raise ValueError(
                f"unknown parameter(s) for method {self.name!r}: {', '.join(sorted(unknown))}"
                f" (known: {known})"
            )
        merged = {**self.defaults, **params}
        for name, allowed in self.choices.items():
            if merged[name] not in allowed:
                options = ", ".join(map(repr, allowed))
                raise ValueError(f"{self.name}: {name}={merged[name]!r} is not one of {options}")
        if self.check is not None:
            self.check(merged)
        return merged


METHODS: dict[str, Measure] = {}


def register(measure: Measure) -> Measure:
    """Add a measure to the registry (a plug-in may register its own)."""
    METHODS[measure.name] = measure
    return measure


def get_measure(name: str) -> Measure:
    try:
        return METHODS[name]
    except KeyError:
        raise ValueError(
            f"unknown similarity method {name!r}; choose from {', '.join(sorted(METHODS))}"
        ) from None


def _ted_measure(a: PageSummary, b: PageSummary, **params: Any) -> float:
    from pagesim_scrapy.core.similarity.ted import ted_similarity

    return ted_similarity(a, b, **params)


def _combined(
    a: PageSummary,
    b: PageSummary,
    *,
    kappa: float = 0.5,
    structural: str = "lcs",
    structural_params: Mapping[str, Any] | None = None,
) -> float:
    """Seed 004: kappa * structural + (1 - kappa) * style."""
    if not 0.0 <= kappa <= 1.0:
        raise ValueError("kappa must be within [0, 1]")
    if structural == "combined":
        raise ValueError("combined cannot use itself as its structural measure")
    structural_score = similarity(a, b, structural, **dict(structural_params or {}))
    return kappa * structural_score + (1.0 - kappa) * style_similarity(a, b)


register(
    Measure(
        "lcs",
        lcs_similarity,
        {"relation": "csr", "order": "bfs"},
        {"relation": ("rsn", "rpsa", "csr"), "order": ("bfs", "dfs")},
        "seed 002: LCS of node sequences / mean length",
        many=lcs_similarity_many,
    )
)
register(
    Measure(
        "layers",
        layers_similarity,
        {"depth": 8, "amplification": 2.0, "align": "position", "normalise": False},
        {"align": ("position", "lcs"), "normalise": (True, False)},
        "seed 000: layered BFS comparison (align=lcs: alignment-based variant)",
        check=check_layers_params,
    )
)
register(
    Measure(
        "ted",
        _ted_measure,
        {
            "relation": "csr",
            "variant": "seed004",
            "gamma_max": None,
            "insert_cost": 1.0,
            "delete_cost": 1.0,
            "rename_cost": 1.0,
            "max_depth": None,
            "collapse_runs": False,
            "max_nodes": 20000,
        },
        {"relation": ("rsn", "rpsa", "csr"), "variant": ("seed004", "seed003")},
        "seeds 003/004: normalised ordered tree edit distance",
    )
)
register(Measure("style", style_similarity, {}, {}, "seed 004: Jaccard of CSS class sets"))
register(
    Measure(
        "combined",
        _combined,
        {"kappa": 0.5, "structural": "lcs", "structural_params": None},
        {},
        "seed 004: kappa * structural + (1 - kappa) * style",
    )
)


def similarity(a: Any, b: Any, method: str = "lcs", **params: Any) -> float:
    """Similarity of two pages (summaries, lxml trees, HTML or paths) under ``method``."""
    measure = get_measure(method)
    full = measure.check_params(params)
    summary_a = a if isinstance(a, PageSummary) else summarize(a)
    summary_b = b if isinstance(b, PageSummary) else summarize(b, summary_a.options)
    return measure.func(summary_a, summary_b, **full)


__all__ = ["METHODS", "Measure", "get_measure", "register", "similarity"]
