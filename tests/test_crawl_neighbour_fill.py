"""The batch's neighbour fill at crawl time: a page left with none takes the label its nearest
kept pages chain to (core.clusterfill.KeptNeighbours, SiteAwareClassifier.fill_from_kept,
issue 32)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pagesim_scrapy.core.clusterfill import KeptNeighbours
from pagesim_scrapy.core.decide import PageDecider
from pagesim_scrapy.core.site import SiteModel
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.sitepolicy import DEFAULT_POLICY, SitePolicy
from pagesim_scrapy.core.summary import summarize
from pagesim_scrapy.core.verdict import Verdict
from tests.test_clusterfill import _page


def _model(pages: list[frozenset[str]]) -> SiteModel:
    model = SiteModel(max_features=1000, keep_pages=0)
    for page in pages:
        model.add(page, keep=False)
    return model


def test_kept_pages_chain_to_the_examples_and_their_share_is_counted() -> None:
    example = frozenset({"a", "b", "c", "d"})
    near = frozenset({"a", "b", "c", "d", "e"})  # nearest the example
    nearer = frozenset({"a", "b", "c", "e", "f"})  # nearest ``near``
    apart = [frozenset({"x", "y"}), frozenset({"x", "y", "z"})]  # nearest each other
    kept = [near, nearer, *apart]
    index = KeptNeighbours(
        [("p", example)], kept, lambda _: None, _model([example, *kept]), frozenset()
    )
    assert index.labels == ["p", "p", "p", None, None]
    assert index.covered == 0.5  # two of the four kept pages chain to a label
    found = index.fill(frozenset({"a", "b", "c", "e", "f", "g"}))
    assert found is not None and found.label == "p" and found.steps == 3
    assert 0.0 < found.score <= 1.0
    assert index.fill(frozenset({"x", "y", "w"})) is None  # its neighbours chain to no label


def test_a_fixed_label_is_never_filled() -> None:
    example = frozenset({"a", "b"})
    kept = [frozenset({"a", "b", "c"})]
    index = KeptNeighbours(
        [("p", example)], kept, lambda _: None, _model([example, *kept]), frozenset({"p"})
    )
    assert index.labels == ["p", None]


def _site_pages() -> list[Any]:
    pages = [summarize(_page("product", n)) for n in range(2, 14)]
    return pages + [summarize(_page("listing", n)) for n in range(2, 14)]


def _templates() -> dict[str, list[bytes]]:
    return {"p": [_page("product", 0)], "l": [_page("listing", 0)]}


def _learned(policy: SitePolicy = DEFAULT_POLICY, **templates: list[bytes]) -> SiteAwareClassifier:
    clf = SiteAwareClassifier(templates or _templates(), policy=policy)
    for page in _site_pages():
        clf.classify(page)
    return clf


def _none(clf: SiteAwareClassifier, page: Any) -> tuple[Verdict, frozenset[str]]:
    features = clf.features(page)
    return replace(clf.classify(features, learn=False), label=None), features


def test_a_crawl_page_left_with_none_takes_its_neighbours_label() -> None:
    clf = _learned()
    verdict, features = _none(clf, summarize(_page("product", 20)))
    filled, why = clf.fill_from_kept(verdict, features)
    assert filled.label == "p" and why is not None and why.label == "p"
    assert filled.scores == verdict.scores and filled.threshold == verdict.threshold
    assert why.as_meta()["by"] == "neighbours"


def test_one_label_or_the_policy_switch_never_fills() -> None:
    one = _learned(p=[_page("product", 0)])
    verdict, features = _none(one, summarize(_page("product", 20)))
    assert one.fill_from_kept(verdict, features) == (verdict, None)
    off = _learned(replace(DEFAULT_POLICY, crawl_neighbour_cover=2.0))
    verdict, features = _none(off, summarize(_page("product", 20)))
    assert off.fill_from_kept(verdict, features) == (verdict, None)


def test_a_labelled_verdict_is_left_as_it_is() -> None:
    clf = _learned()
    features = clf.features(summarize(_page("listing", 20)))
    verdict = replace(clf.classify(features, learn=False), label="l")
    assert clf.fill_from_kept(verdict, features) == (verdict, None)


class _Cautious(SiteAwareClassifier):
    """Leaves every page with none, as a cut that splits its own type does."""

    def classify(self, page: Any, *, site: str | None = None, learn: bool = True) -> Verdict:
        return replace(super().classify(page, site=site, learn=learn), label=None)


def test_the_crawls_decision_says_why_the_page_got_its_label() -> None:
    clf = _Cautious(_templates())
    decider = PageDecider(clf, targets=frozenset({"p", "l"}))
    decisions = [
        decider.decide(page, site=None, url=f"u{n}") for n, page in enumerate(_site_pages())
    ]
    late = decisions[-1]
    assert late.label == "l" and late.target
    meta = late.as_meta()
    assert meta["filled"]["by"] == "neighbours" and meta["filled"]["steps"] >= 1
    assert list(meta)[:10] == list(Verdict("l", 0, {}, "site", 0).as_meta())
    plain = PageDecider(SiteAwareClassifier(_templates())).decide(
        _site_pages()[0], site=None, url="u"
    )
    assert "filled" not in plain.as_meta()
