"""The shared state (core/state) against a real redis-server: site models, relevance counts,
discovered types and wrappers shared between workers, and a server that cannot be reached.

The pages are the bundled demo shop's (sample_project/demo_site), so nothing here needs
../shared. Crawl fleets of real ``scrapy crawl`` processes are in test_fleet.py.
"""

from __future__ import annotations

import json
import logging
import random
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("redis", reason="the redis package is not installed (extra [redis])")

from pagesim_scrapy.core.cluster import OnlineDiscovery
from pagesim_scrapy.core.content import DocumentFrequencies, tokenize
from pagesim_scrapy.core.induce import Wrapper
from pagesim_scrapy.core.site import SavedSite, structural_features
from pagesim_scrapy.core.siteaware import SAVED_SITE_WEIGHT, SiteAwareClassifier
from pagesim_scrapy.core.state import (
    CRAWL_AGING,
    CRAWL_JOINED,
    CRAWL_NEW,
    StateUnavailable,
    open_shared_state,
)
from pagesim_scrapy.core.state.redisstate import RedisSharedState
from pagesim_scrapy.core.state.sync import FleetSync
from pagesim_scrapy.core.statefile import CorruptStateError
from pagesim_scrapy.core.summary import summarize
from sample_project.demo_shop import DEMO_LABELS_FILE, DEMO_SITE_DIR
from tests.redis_server import (
    RedisServer,
    free_port,
    redis_or_skip,
    running_redis,
)

SITE = "shop.example"

#: The demo shop spider's templates (sample_project/demo_shop/settings.py).
TEMPLATES = {
    "product": ["p/13391.html", "item/brio-prime-wooden-puzzle-ii-13646.html"],
    "category": ["shop/apparel/shirts/index.html", "shop/kitchen/index.html"],
    "search": ["search/backpack.html"],
    "help": ["help/shipping.html"],
}
TEMPLATE_PAGES = sum(len(paths) for paths in TEMPLATES.values())


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    yield from redis_or_skip()


@pytest.fixture
def state(redis_server: RedisServer, request: pytest.FixtureRequest) -> Iterator[RedisSharedState]:
    # one key prefix per test: the tests share the server, never their keys
    shared = open_shared_state(redis_server.url, prefix=f"t-{request.node.name}")
    yield shared
    shared.close()


def demo_pages() -> list[tuple[str, str, str]]:
    """(path, label, html) of every labelled page of the demo shop, in a fixed shuffled order."""
    labels: dict[str, str] = json.loads(DEMO_LABELS_FILE.read_text(encoding="utf-8"))
    pages = [
        (path, label, (DEMO_SITE_DIR / path).read_text(encoding="utf-8"))
        for path, label in sorted(labels.items())
    ]
    random.Random(12).shuffle(pages)
    return pages


def classifier(labels: tuple[str, ...] = tuple(TEMPLATES)) -> SiteAwareClassifier:
    return SiteAwareClassifier(
        {
            label: [(DEMO_SITE_DIR / path).read_text(encoding="utf-8") for path in paths]
            for label, paths in TEMPLATES.items()
            if label in labels
        }
    )


def test_site_models_are_the_fleets_counts_on_every_worker(state: RedisSharedState):
    pages = [summarize(html) for _, _, html in demo_pages()[:60]]
    single = classifier()
    workers = [classifier(), classifier()]
    syncs = [FleetSync(state, keep_pages=300) for _ in workers]
    for sync, worker in zip(syncs, workers):
        sync.attach_classifier(worker)
    for i, page in enumerate(pages):
        single.classify(page, site=SITE)
        workers[i % 2].classify(page, site=SITE)
    for sync in syncs:
        assert sync.sync_once()
    syncs[0].sync_once()  # the first worker pulls what the second pushed after it
    expected = single.site_model(SITE)
    for worker in workers:
        model = worker.site_model(SITE)
        assert model.pages == expected.pages
        assert model.df == expected.df
        assert sorted(model.recent) == sorted(expected.recent)
    # in Redis: the pages, once each (the templates are each worker's own seed, not pushed)
    assert state.site_pages([SITE]) == {SITE: len(pages)}
    counts = state.pull_sites([SITE])[SITE]
    assert sum(counts.df.values()) == sum(len(structural_features(p)) for p in pages)


def _three_workers(
    state: RedisSharedState | None, pages: list[str], labels: tuple[str, ...]
) -> list[str | None]:
    """Labels of ``pages`` dealt in turn to three workers that sync every 10 pages (none
    without ``state``)."""
    workers = [classifier(labels) for _ in range(3)]
    syncs = [FleetSync(state, keep_pages=300) for _ in workers] if state is not None else []
    for sync, worker in zip(syncs, workers):
        sync.attach_classifier(worker)
    got = []
    for i, html in enumerate(pages):
        got.append(workers[i % 3].classify(summarize(html), site=SITE).label)
        if i % 10 == 9:
            for sync in syncs:
                sync.sync_once()
    return got


def test_fleet_verdicts_agree_with_one_process(state: RedisSharedState):
    """Three workers each see a third of the pages and sync every 10 pages; their verdicts
    are compared with one process that sees all pages in the same order.

    Online decisions differ: a page decided before the fleet's latest counts arrive is decided
    on fewer pages, and each worker re-estimates its cuts at its own moments (every page while
    the site is small, then per 25 % of growth). Two of the shop's four labels (product and
    category), so that each label's cut comes from the site's own scores: with all four the
    labels cover the shop and the nearest label decides, and three workers that share nothing
    already agree with one process (0-3 of 266 verdicts differ), leaving sharing nothing to
    show. Measured on the 266 demo pages: 4 verdicts differ syncing every 10 pages, against 23
    for three workers that share nothing. Asserted: at least 90 % agree, and sharing removes
    at least two thirds of the disagreement of unshared workers."""
    labels = ("product", "category")
    pages = [html for _, _, html in demo_pages()]
    single = classifier(labels)
    expected = [single.classify(summarize(html), site=SITE).label for html in pages]
    shared = _three_workers(state, pages, labels)
    alone = _three_workers(None, pages, labels)
    differ = sum(a != b for a, b in zip(expected, shared))
    differ_alone = sum(a != b for a, b in zip(expected, alone))
    assert differ <= 0.10 * len(pages), (differ, len(pages))
    assert differ * 3 <= differ_alone, (differ, differ_alone)


def test_a_late_worker_starts_from_the_fleets_site_model(state: RedisSharedState):
    pages = [summarize(html) for _, _, html in demo_pages()[:40]]
    early = classifier()
    early_sync = FleetSync(state)
    early_sync.attach_classifier(early)
    for page in pages:
        early.classify(page, site=SITE)
    early_sync.sync_once()
    late = classifier()
    late_sync = FleetSync(state)
    late_sync.attach_classifier(late)
    late.classify(pages[0], site=SITE)  # its first page of the site: decided locally
    assert late.site_model(SITE).pages == TEMPLATE_PAGES + 1
    assert late_sync.sync_once()
    assert late.site_model(SITE).pages == TEMPLATE_PAGES + len(pages) + 1
    assert (
        late.describe(SITE)["labels"]["product"]["threshold_source"]
        == (early.describe(SITE)["labels"]["product"]["threshold_source"])
    )


def _one_crawl(state: RedisSharedState, pages: list[Any]) -> FleetSync:
    """A worker that signs in, classifies ``pages``, pushes them and signs out."""
    worker = classifier()
    sync = FleetSync(state, keep_pages=300)
    sync.attach_classifier(worker)
    sync.join_crawl()
    for page in pages:
        worker.classify(page, site=SITE)
    assert sync.sync_once()
    sync.stop()
    return sync


def test_a_new_crawl_of_the_fleet_weighs_the_earlier_ones_a_quarter(state: RedisSharedState):
    """A recurring crawl meets the same pages again: counted in full, a feature seen on one
    page would be on two after the second crawl and start to weigh. The first worker of a
    crawl multiplies the fleet's counts by SAVED_SITE_WEIGHT, as a crawl without a fleet
    adopts the site models saved by the last one (SavedSite.scaled)."""
    pages = [summarize(html) for _, _, html in demo_pages()[:60]]
    _one_crawl(state, pages)
    first = state.pull_sites([SITE])[SITE]
    one_offs = {feature for feature, n in first.df.items() if n == 1}
    assert first.pages == len(pages) and one_offs
    expected = SavedSite(SITE, first.pages, first.df, first.kept).scaled(SAVED_SITE_WEIGHT)

    worker = classifier()
    second = FleetSync(state, keep_pages=300)
    second.attach_classifier(worker)
    assert second.join_crawl() == CRAWL_NEW  # nobody else at work: a new crawl, aged
    aged = state.pull_sites([SITE])[SITE]
    assert (aged.pages, aged.df) == (expected.pages, expected.df)
    assert not one_offs & set(aged.df)
    assert aged.kept == first.kept
    # a worker that joins the running crawl ages nothing
    third = FleetSync(state)
    assert third.join_crawl() == CRAWL_JOINED
    assert state.pull_sites([SITE])[SITE].df == aged.df
    third.stop()

    # the second crawl meets the same pages: a one-off feature is on one page, not two
    for page in pages:
        worker.classify(page, site=SITE)
    second.stop()
    again = state.pull_sites([SITE])[SITE]
    assert again.pages == expected.pages + len(pages)
    assert all(again.df[feature] == 1 for feature in one_offs)


def test_a_killed_worker_does_not_hold_the_crawl_open(state: RedisSharedState):
    killed = FleetSync(state, stale_after=0.5)
    assert killed.join_crawl() == CRAWL_NEW
    assert FleetSync(state, stale_after=0.5).join_crawl() == CRAWL_JOINED
    time.sleep(0.7)  # neither signs out nor gives a sign of life
    assert FleetSync(state, stale_after=0.5).join_crawl() == CRAWL_NEW


def test_a_worker_joining_waits_while_the_first_ages_the_site_models(state: RedisSharedState):
    first = FleetSync(state)
    assert first.join_crawl() == CRAWL_NEW
    state.client.set(f"{state.prefix}:ageing", "slow first worker", ex=10)
    threading.Timer(0.4, state.client.delete, [f"{state.prefix}:ageing"]).start()
    started = time.monotonic()
    assert FleetSync(state).join_crawl() == CRAWL_AGING
    assert time.monotonic() - started >= 0.35
    assert not state.ageing()


def test_relevance_counts_are_shared(state: RedisSharedState):
    texts = [html for _, _, html in demo_pages()[:30]]
    single = DocumentFrequencies()
    shared = [DocumentFrequencies(), DocumentFrequencies()]
    syncs = [FleetSync(state) for _ in shared]
    for sync, df in zip(syncs, shared):
        sync.attach_terms(df)
    for i, text in enumerate(texts):
        single.add_page(tokenize(text))
        shared[i % 2].add_page(tokenize(text))
    for sync in [*syncs, syncs[0]]:
        assert sync.sync_once()
    for df in shared:
        assert df.documents == single.documents == len(texts)
        assert df.to_dict() == single.to_dict()


def test_discovered_types_are_shared_under_distinct_labels(state: RedisSharedState):
    pages = [(path, summarize(html)) for path, _, html in demo_pages()[:40]]
    workers = [OnlineDiscovery(method="site"), OnlineDiscovery(method="site")]
    syncs = [FleetSync(state) for _ in workers]
    for sync, discovery in zip(syncs, workers):
        sync.attach_discovery(discovery)
        sync._first_sync()  # reserves each worker's label numbers
    for i, (path, summary) in enumerate(pages):
        workers[i % 2].assign(summary, source=path, site=SITE)
    own = [set(worker.counts()) for worker in workers]
    assert own[0] and own[1]
    assert not own[0] & own[1], "two workers founded types under one label"
    for sync in [*syncs, syncs[0]]:
        assert sync.sync_once()
    for worker in workers:
        assert set(worker.counts()) == own[0] | own[1]
    reps = state.pull_types(workers[0].options, [])
    assert {rep.label for rep in reps} == own[0] | own[1]


def _product_wrapper(paths: list[str]) -> Wrapper:
    wrapper = Wrapper(label="product")
    wrapper.add_pages((DEMO_SITE_DIR / path).read_text(encoding="utf-8") for path in paths)
    return wrapper


def test_concurrent_wrapper_saves_are_merged_not_lost(state: RedisSharedState):
    products = [path for path, label, _ in demo_pages() if label == "product"][:6]
    first, second = _product_wrapper(products[:3]), _product_wrapper(products[3:])
    # both workers started from "no wrapper" (version 0) and save at close
    assert state.save_wrapper("product", first, 0) == 1
    assert state.save_wrapper("product", second, 0) == 2
    stored, version = state.load_wrapper("product")
    assert version == 2
    assert stored is not None
    assert stored.pages == 6
    # a worker that continued version 2 replaces it
    stored.add_pages((DEMO_SITE_DIR / p).read_text(encoding="utf-8") for p in products[:1])
    assert state.save_wrapper("product", stored, 2) == 3
    again, _ = state.load_wrapper("product")
    assert again is not None and again.pages == stored.pages


def test_a_corrupt_wrapper_in_redis_is_moved_aside(state: RedisSharedState):
    key = f"{state.prefix}:wrapper:product"
    state.client.hset(key, mapping={"json": '{"format": "pagesim-wrapper", "version": 99}'})
    with pytest.raises(CorruptStateError) as caught:
        state.load_wrapper("product")
    assert caught.value.moved_to is not None
    assert state.client.exists(str(caught.value.moved_to)) == 1
    assert state.client.exists(key) == 0
    assert state.load_wrapper("product") == (None, 0)


def test_unreachable_state_one_error_local_decisions_and_deltas_kept(caplog, tmp_path: Path):
    if shutil.which("redis-server") is None:  # the server is started later in the test
        pytest.skip("no redis-server: redis-server is not installed (apt-get install redis-server)")
    port = free_port()  # nothing listens there yet
    state = open_shared_state(f"redis://127.0.0.1:{port}/0", prefix="down", timeout=0.5)
    counted: dict[str, int] = {}

    def count(name: str, amount: int) -> None:
        counted[name] = counted.get(name, 0) + amount

    worker, alone = classifier(), classifier()
    sync = FleetSync(state, count=count)
    sync.attach_classifier(worker)
    pages = [summarize(html) for _, _, html in demo_pages()[:20]]
    with caplog.at_level(logging.INFO, logger="pagesim_scrapy.core.state.sync"):
        for page in pages[:10]:
            assert worker.classify(page, site=SITE).label == alone.classify(page, site=SITE).label
        assert not sync.sync_once()
        assert not sync.sync_once()
        errors = [r for r in caplog.records if r.levelno == logging.ERROR]
        assert len(errors) == 1, [r.getMessage() for r in errors]
        assert "cannot be reached" in errors[0].getMessage()
        assert counted["errors"] == 2
        for page in pages[10:]:
            worker.classify(page, site=SITE)
        # the server comes back: every page learned meanwhile is pushed, once
        with running_redis(port) as server:
            assert sync.sync_once()
            assert state.site_pages([SITE]) == {SITE: len(pages)}
            assert any("reachable again" in r.getMessage() for r in caplog.records)
            assert server.port == port
    state.close()


def test_state_unavailable_is_a_connection_error():
    # the induction pipeline reports a failed save (OSError) without stopping the crawl
    assert issubclass(StateUnavailable, OSError)


@pytest.mark.parametrize(
    ("settings", "url"),
    [
        ({}, None),
        ({"REDIS_URL": "redis://r:6379/1"}, "redis://r:6379/1"),
        ({"REDIS_URL": "redis://r/1", "PAGESIM_STATE_URL": "redis://s/2"}, "redis://s/2"),
        ({"REDIS_URL": "redis://r/1", "PAGESIM_STATE_URL": "local"}, None),
    ],
)
def test_the_state_url_falls_back_to_scrapy_redis(settings: dict[str, str], url: str | None):
    from scrapy.settings import Settings

    from pagesim_scrapy.settings import PageSimConfig

    assert PageSimConfig.from_settings(Settings(settings)).state_url == url


@pytest.mark.parametrize(
    "settings",
    [
        {"PAGESIM_STATE_URL": "http://r:6379"},
        {"PAGESIM_STATE_SYNC_INTERVAL": 0},
        {"PAGESIM_STATE_SYNC_PAGES": 0},
        {"PAGESIM_STATE_TIMEOUT": -1},
        {"PAGESIM_STATE_PREFIX": ""},
    ],
)
def test_bad_state_settings_name_the_setting(settings: dict[str, object]):
    from scrapy.settings import Settings

    from pagesim_scrapy.settings import PageSimConfig, PageSimConfigError

    with pytest.raises(PageSimConfigError, match="PAGESIM_STATE_"):
        PageSimConfig.from_settings(Settings(settings))


def test_the_file_state_keeps_todays_formats(tmp_path: Path):
    """FileSharedState writes the files a crawl without a fleet reads: a wrapper file that
    JsonFileWrapperStore loads and a representatives file that OnlineDiscovery loads."""
    from pagesim_scrapy.core.state import FileSharedState, SiteDelta
    from pagesim_scrapy.pipelines.induction import JsonFileWrapperStore

    files = FileSharedState(tmp_path / "wrappers", tmp_path / "discovery.json")
    products = [path for path, label, _ in demo_pages() if label == "product"][:3]
    wrapper = _product_wrapper(products)
    assert files.save_wrapper("product", wrapper, 0) == 1
    loaded = JsonFileWrapperStore(tmp_path / "wrappers").load("product")
    assert loaded is not None and loaded.to_dict() == wrapper.to_dict()
    assert files.load_wrapper("product")[0] is not None

    discovery = OnlineDiscovery(method="site")
    for path, _, html in demo_pages()[:20]:
        discovery.assign(summarize(html), source=path, site=SITE)
    files.publish_types(discovery.representatives(), discovery.options, discovery.settings())
    again = OnlineDiscovery.load(tmp_path / "discovery.json")
    assert again.counts() == discovery.counts()
    everything = [rep.label for rep in files.pull_types(discovery.options, [])]
    assert everything == list(discovery.counts())
    assert [rep.label for rep in files.pull_types(discovery.options, ["cluster-1"])] == [
        label for label in everything if label != "cluster-1"
    ]

    delta = SiteDelta(pages=2)
    delta.df.update({"ab": 2, "cd": 1})
    files.push_sites({SITE: delta}, keep_pages=300)
    files.push_sites({SITE: delta}, keep_pages=300)
    assert files.site_pages([SITE, "other"]) == {SITE: 4}
    assert files.pull_sites([SITE])[SITE].df == {"ab": 4, "cd": 2}


@pytest.mark.parametrize(
    ("settings", "store"),
    [
        ({"REDIS_URL": "redis://127.0.0.1:1/0"}, "SharedWrapperStore"),
        ({"PAGESIM_STATE_URL": "redis://127.0.0.1:1/0"}, "SharedWrapperStore"),
        ({"REDIS_URL": "redis://127.0.0.1:1/0", "PAGESIM_STATE_URL": "local"}, "JsonFile"),
        ({"PAGESIM_STATE_URL": "http://127.0.0.1:1/"}, "JsonFile"),  # and one ERROR
        ({}, "JsonFile"),
    ],
)
def test_the_induction_pipeline_keeps_wrappers_where_the_fleet_does(
    settings: dict[str, str], store: str, caplog
):
    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

    crawler = get_crawler(settings_dict={"PAGESIM_INDUCTION_ENABLED": True, **settings})
    with caplog.at_level(logging.ERROR):
        pipeline = TemplateInductionPipeline.from_crawler(crawler)
    assert type(pipeline.store).__name__.startswith(store)
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == (1 if "http" in settings.get("PAGESIM_STATE_URL", "") else 0), errors
