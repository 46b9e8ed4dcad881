"""The site model's counts made in one compiled pass, and a re-estimate's kept pages scored
in one compiled call: the very dictionaries (order included) and floats of the step-by-step
forms."""

from __future__ import annotations

import random
from collections import _count_elements  # type: ignore[attr-defined]
from typing import Any

import pytest

from pagesim_scrapy.core import site
from pagesim_scrapy.core.site import SiteModel, count_features
from pagesim_scrapy.core.siteaware import SiteAwareClassifier
from pagesim_scrapy.core.summary import _walk_c
from tests.test_rest8_reestimate import _page

compiled = pytest.mark.skipif(
    getattr(_walk_c, "count_features", None) is None, reason="the C walk is not built"
)


def _features(rng: random.Random, size: int) -> frozenset[str]:
    return frozenset(chr(rng.randrange(1, 60)) + chr(rng.randrange(1, 60)) for _ in range(size))


@compiled
def test_counts_are_collections_counts_in_the_same_order() -> None:
    rng = random.Random(4)
    compiled_df: dict[str, int] = {}
    plain: dict[str, int] = {}
    for _ in range(400):  # counts past the small ints Python shares
        page = _features(rng, rng.randrange(0, 300)) | {"\x01\x01"}  # on every page
        _walk_c.count_features(compiled_df, page)
        _count_elements(plain, page)
        assert list(compiled_df.items()) == list(plain.items())
    assert max(plain.values()) > 300
    mutable = set(_features(rng, 50))
    _walk_c.count_features(compiled_df, mutable)
    _count_elements(plain, mutable)
    assert list(compiled_df.items()) == list(plain.items())


@compiled
def test_counts_of_odd_input() -> None:
    big = {"ab": 2**70, "cd": 2**63 - 1}
    _walk_c.count_features(big, frozenset(("ab", "cd", 7)))
    assert big == {"ab": 2**70 + 1, "cd": 2**63, 7: 1}
    with pytest.raises(TypeError):
        _walk_c.count_features({}, ["ab"])
    with pytest.raises(TypeError):
        _walk_c.count_features({"ab": "x"}, frozenset(("ab",)))


def test_the_model_counts_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(9)
    pages = [_features(rng, rng.randrange(1, 200)) for _ in range(120)]
    fast = SiteModel(max_features=2_000)
    for page in pages:
        fast.add(page)
    monkeypatch.setattr(site, "_compiled_count", None)
    slow = SiteModel(max_features=2_000)
    for page in pages:
        slow.add(page)
    assert list(fast.df.items()) == list(slow.df.items())
    assert list(fast.recent) == list(slow.recent)
    counted: dict[str, int] = {}
    count_features(counted, pages[0])
    assert counted == dict.fromkeys(pages[0], 1)


def _classifier(seed: int) -> tuple[SiteAwareClassifier, list[str]]:
    rng = random.Random(seed)
    templates = {kind: [_page(rng, kind), _page(rng, kind)] for kind in "abc"}
    templates["d"] = [_page(rng, "d")]
    pages = [_page(rng, rng.choice("abcde")) for _ in range(220)]
    return SiteAwareClassifier(templates), pages


@compiled
@pytest.mark.parametrize("sites", [1, 5])
def test_a_list_of_kept_pages_scores_as_each_page_alone(sites: int) -> None:
    classifier, pages = _classifier(11)
    made = classifier._rescorer
    checked = 0

    def checking(state: Any, cache: Any) -> Any:
        rescorer = made(state, cache)
        many = rescorer.many

        def both(packed: list[str]) -> list[dict[str, float]]:
            nonlocal checked
            scores = many(packed)
            alone = [classifier._rescored(page, state, cache) for page in packed]
            assert [{k: v.hex() for k, v in s.items()} for s in scores] == [
                {k: v.hex() for k, v in s.items()} for s in alone
            ]
            checked += len(packed)
            return scores

        rescorer.many = both
        return rescorer

    classifier._rescorer = checking  # type: ignore[method-assign]
    verdicts = [classifier.classify(page, site=f"s{n % sites}") for n, page in enumerate(pages)]
    assert checked > 100
    plain, _ = _classifier(11)
    plain._rescorer = lambda state, cache: made.__func__(plain, state, cache).__call__  # type: ignore[method-assign,attr-defined]
    assert [plain.classify(page, site=f"s{n % sites}") for n, page in enumerate(pages)] == verdicts


@compiled
def test_weights_many_checks_its_input() -> None:
    classifier, pages = _classifier(2)
    for page in pages[:40]:
        classifier.classify(page, site="s")
    counts = next(iter(classifier._sites.values())).model
    table = _walk_c.KeptCounts(_walk_c.shared_keys(("ab",)), 1)
    df, weights = counts.df, counts.table()
    with pytest.raises(TypeError):
        table.weights_many([1], {}, df, weights, 1, [0.0])
    with pytest.raises(ValueError):
        table.weights_many([], {}, df, weights, 2, [0.0])
    with pytest.raises(ValueError):
        table.weights_many(["ab"], {}, df, weights, 1, [0.0])  # not a packed page
    assert table.weights_many([], {}, df, weights, 0, []) == []
