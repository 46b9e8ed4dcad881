"""A layout's leaders are bounded while condensing: past the bound its pages fold into a leader."""

from __future__ import annotations

import pytest

from pagesim_scrapy.core.cluster.leader import LeaderClustering
from pagesim_scrapy.core.cluster.pipeline import ClusterOptions
from pagesim_scrapy.core.summary import PageSummary, summarize

ITEMS = "".join(f"<li class='i{n}'>{n}</li>" for n in range(12))
PAGE = "<html><body><div class='a'><p>x</p></div><ul>{items}</ul>{extra}</body></html>"


def _pages(count: int) -> list[PageSummary]:
    return [summarize(PAGE.format(items=ITEMS, extra="<b></b>" * n)) for n in range(count)]


def _alike(a: PageSummary, b: PageSummary) -> float:
    return 1.0 if a is b else 0.9  # one layout: under the condensing bar, over the layout's


def _leaders(layout_leaders: int | None, layout_bar: float = 0.55) -> LeaderClustering:
    condenser = LeaderClustering(_alike, 0.95, layout_leaders=layout_leaders, layout_bar=layout_bar)
    for page in _pages(6):
        condenser.add(page)
    return condenser


def test_pages_of_a_full_layout_fold_into_their_best_leader() -> None:
    bounded = _leaders(2)
    assert len(bounded) == 2
    assert bounded.layout_folds == 4
    assert sum(leader.weight for leader in bounded.leaders.values()) == 6
    assert min(leader.sim_min for leader in bounded.leaders.values()) == pytest.approx(0.9)


def test_without_a_bound_or_under_the_layout_bar_every_variant_leads() -> None:
    assert len(_leaders(None)) == 6
    assert len(_leaders(2, layout_bar=0.95)) == 6


def test_removing_a_leader_frees_its_layout_place() -> None:
    condenser = _leaders(2)
    key = next(iter(condenser.leaders))
    condenser.remove(key)
    assert condenser.add(_pages(7)[-1]).is_new


def test_the_bound_is_half_the_neighbourhood_and_only_for_snn() -> None:
    assert ClusterOptions(method="site").layout_bound() == 15
    assert ClusterOptions(method="site", k=10, layout_leaders=4).layout_bound() == 4
    assert ClusterOptions(method="site", layout_leaders=0).layout_bound() is None
    assert ClusterOptions(method="site", algorithm="agglomerative").layout_bound() is None
    assert ClusterOptions(method="combined").layout_bound() is None
    assert ClusterOptions(method="combined", layout_bar=0.8).layout_bound() == 15
    with pytest.raises(ValueError):
        ClusterOptions(layout_leaders=-1)
