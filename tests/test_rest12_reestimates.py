"""A site's re-estimates with their lookups made once: the scorer made per re-estimate, the
pairs' likeness in one call and the shortcuts of a site whose labels have no cut yet give the
very floats and verdicts of the step-by-step forms."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

from pagesim_scrapy.core.site import grouped_weights, jaccard_of_totals, template_members
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from tests.test_rest8_reestimate import _page


def _classifier(seed: int) -> tuple[SiteAwareClassifier, list[str]]:
    rng = random.Random(seed)
    templates = {kind: [_page(rng, kind), _page(rng, kind)] for kind in "abc"}
    templates["d"] = [_page(rng, "d")]
    pages = [_page(rng, rng.choice("abcde")) for _ in range(160)]
    return SiteAwareClassifier(templates), pages


def test_the_scorer_of_a_reestimate_scores_as_each_page_alone() -> None:
    classifier, pages = _classifier(3)
    made = classifier._rescorer
    checked = 0

    def checking(state: Any, cache: Any) -> Any:
        rescore = made(state, cache)

        def both(packed: str) -> dict[str, float]:
            nonlocal checked
            scores = rescore(packed)
            assert scores == classifier._rescored(packed, state, cache)
            checked += 1
            return scores

        return both

    classifier._rescorer = checking  # type: ignore[method-assign]
    verdicts = [classifier.classify(page, site="s") for page in pages]
    assert checked > 100
    plain, _ = _classifier(3)
    assert [plain.classify(page, site="s") for page in pages] == verdicts


def test_the_pairs_likeness_is_each_pairs_jaccard() -> None:
    classifier, pages = _classifier(5)
    flat = [page for label in classifier.labels for page in classifier.template_features(label)]
    members = template_members(flat)
    union = frozenset().union(*flat)
    pairs = list(combinations(range(len(flat)), 2))
    for number, page in enumerate(pages):
        site = f"s{number % 4}"  # young sites, re-estimated on every page
        classifier.learn(page, site=site)
        state = classifier._sites[site]
        model = state.model
        table = model.table()
        totals = grouped_weights(union, members, len(flat), model.df, table)
        shared = [
            grouped_weights(flat[i] & flat[j], members, len(flat), model.df, table)[i]
            for i, j in pairs
        ]
        expected = [
            jaccard_of_totals(both, totals[i], totals[j]) for (i, j), both in zip(pairs, shared)
        ]
        assert classifier._pair_likeness(state) == expected


def test_a_site_without_cuts_has_no_coverage_and_no_highest() -> None:
    classifier, pages = _classifier(7)
    for number, page in enumerate(pages[:120]):
        classifier.classify(page, site=f"s{number % 8}")  # 15 pages a site: no label cuts
    for state in classifier._sites.values():
        assert all(info.cut is None for info in state.labels.values())
        assert state.coverage == 0.0
        assert all(info.highest is None for info in state.labels.values())
        assert all(len(info.observed) == len(state.model.recent) for info in state.labels.values())


def test_a_reestimate_that_scores_no_page_leaves_the_templates_totals() -> None:
    classifier, _ = _classifier(9)
    classifier.threshold_info("a", site="s")  # a new site, re-estimated with no kept page
    state = classifier._sites["s"]
    assert state.refreshed_at >= 0
    assert state.totals_table is None  # summed at the first page scored, as before
