"""The layout-change alarm in a crawl fleet: the drift looks live in the fleet's Redis (a real
redis-server on 127.0.0.1 with an ephemeral port), not in a drift file per worker."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("redis", reason="the redis package is not installed (extra [redis])")

from pagesim_scrapy.core.drift import DriftBaseline, FieldCounts, parse_baseline
from pagesim_scrapy.core.state import open_shared_state
from pagesim_scrapy.core.state.redisstate import RedisSharedState
from pagesim_scrapy.core.summary import SummaryOptions
from pagesim_scrapy.fleet import SharedDriftLooks
from tests.redis_server import RedisServer, redis_or_skip

from .test_drift import bench
from .test_drift_crawl import PAGES, _crawl, _drift_stats, _drift_warnings, _routes, demo, shop
from .test_scrapy_crawl import Site

__all__ = ["demo", "shop"]  # the fixtures of the drift crawl tests

OPTIONS = SummaryOptions(max_nodes=300)


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    yield from redis_or_skip()


@pytest.fixture
def open_state(redis_server: RedisServer) -> Iterator[Callable[..., RedisSharedState]]:
    """Open shared states on the test's server and close them all at teardown: an unclosed
    client's socket is reported when it is collected, in whichever test runs then."""
    opened: list[RedisSharedState] = []

    def open_one(prefix: str = "pagesim") -> RedisSharedState:
        opened.append(open_shared_state(redis_server.url, prefix=prefix))
        return opened[-1]

    yield open_one
    for state in opened:
        state.close()


def _looks(label: str, pages: int) -> DriftBaseline:
    baseline = DriftBaseline()
    own = 0x100 + 16 * len(label)  # features are pairs of node codes
    for n in range(pages):
        features = frozenset({chr(own) + chr(own + n % 3), chr(0x400) + chr(0x401)})
        baseline.add("shop", label, features, f"/{label}/{n}")
    baseline.site("shop").fields[label] = FieldCounts(pages)
    return baseline


def test_workers_saving_meanwhile_keep_each_other_s_looks(
    open_state: Callable[..., RedisSharedState],
) -> None:
    first = SharedDriftLooks(open_state("t"), OPTIONS)
    assert first.load() is None
    assert first.save(_looks("product", 6), [("shop", "product")], [("shop", "product")])
    # a second worker, started before the first saved, met another label only
    second = SharedDriftLooks(open_state("t"), OPTIONS)
    assert second.save(_looks("category", 7), [("shop", "category")], [])
    loaded = SharedDriftLooks(open_state("t"), OPTIONS).load()
    assert loaded is not None
    labels = loaded.sites["shop"].labels
    assert labels["product"].pages == 6 and labels["category"].pages == 7
    assert set(loaded.sites["shop"].fields) == {"product"}
    # another prefix is another fleet
    other = open_state("other")
    assert other.load_drift() is None
    stored = open_state("t").load_drift()
    assert stored is not None and parse_baseline(stored, OPTIONS) is not None


def test_an_unreadable_fleet_look_is_one_error_and_a_fresh_start(
    open_state: Callable[..., RedisSharedState], caplog: pytest.LogCaptureFixture
) -> None:
    state = open_state("t")
    state.client.set("t:drift", b"{not json")
    assert SharedDriftLooks(state, OPTIONS).load() is None
    assert "cannot read the fleet's drift looks" in caplog.text
    assert SharedDriftLooks(state, OPTIONS).save(_looks("product", 5), [("shop", "product")], [])
    assert SharedDriftLooks(state, OPTIONS).load() is not None


def test_a_fleet_crawl_warns_of_a_changed_layout_from_the_looks_in_redis(
    shop: Site,
    demo: dict[str, list[Path]],
    tmp_path: Path,
    redis_server: RedisServer,
    open_state: Callable[..., RedisSharedState],
) -> None:
    fleet: dict[str, Any] = {"PAGESIM_STATE_URL": redis_server.url}
    first = _crawl(tmp_path, shop, demo, **fleet)
    assert not _drift_warnings(first)
    assert not (tmp_path / "drift.json").exists()  # the looks are in Redis
    stored = open_state().load_drift()
    assert stored is not None and "product" in stored

    same = _crawl(tmp_path, shop, demo, **fleet)
    assert not _drift_warnings(same) and not _drift_stats(same)

    shop.routes.update(_routes(demo["product"][2 : 2 + PAGES], "item", bench.add_gallery))
    changed = _crawl(tmp_path, shop, demo, **fleet)
    warnings = _drift_warnings(changed)
    assert len(warnings) == 1 and "layout of product" in warnings[0], warnings
    assert _drift_stats(changed) == {"pagesim/drift/product": 1}
