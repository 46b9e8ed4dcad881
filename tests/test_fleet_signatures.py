"""A crawl fleet keeps the records' signature memory in its shared state (a real
redis-server): what one worker saves the next reads, two workers' saves pool their votes even
when they race, and a stored memory nobody can read is one ERROR and a stat, then replaced."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from pagesim_scrapy.core.record.signatures import SignatureMemory, parse_memory
from pagesim_scrapy.core.state import FileSharedState, open_shared_state
from pagesim_scrapy.fleet import SIGNATURES_DOCUMENT, SharedWrapperStore
from pagesim_scrapy.pipelines.induction.stores import load_signatures, save_signatures
from tests.redis_server import RedisServer, redis_or_skip

PREP = "^div.recipe-times/span.recipe-prep-time[0]"
COOK = "^div.recipe-times/span.recipe-cook-time[0]"


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    yield from redis_or_skip()


def _stats() -> MemoryStatsCollector:
    return MemoryStatsCollector(get_crawler())


def _vouched(sites: tuple[str, ...], name: str, key: str) -> SignatureMemory:
    memory = SignatureMemory()
    for site in sites:
        memory.learn(site, "recipe", {name: [key]})
    return memory


def test_what_one_worker_saves_the_next_reads(redis_server: RedisServer) -> None:
    first = SharedWrapperStore(open_shared_state(redis_server.url))
    stats = _stats()
    assert load_signatures(first, stats) is None  # nothing saved yet
    save_signatures(first, _vouched(("a.example", "b.example"), "prep_time", PREP), stats)
    assert stats.get_value("pagesim/induction/signatures/saved") == 1

    later = SharedWrapperStore(open_shared_state(redis_server.url))
    loaded = load_signatures(later, stats)
    assert loaded is not None
    assert loaded.signatures("recipe", "prep_time", "c.example") == [PREP]
    assert stats.get_value("pagesim/induction/signatures/loaded") == 1


def test_two_workers_saves_pool_their_votes(redis_server: RedisServer) -> None:
    one = SharedWrapperStore(open_shared_state(redis_server.url))
    two = SharedWrapperStore(open_shared_state(redis_server.url))
    # both started from the empty memory; each learned one site's vote for the same
    # signature, and the first one more; neither alone has the two sites a signature needs
    assert one.load_signatures() is None and two.load_signatures() is None
    mine = _vouched(("a.example",), "prep_time", PREP)
    mine.learn("a.example", "recipe", {"cook_time": [COOK]})
    assert mine.signatures("recipe", "prep_time", "c.example") == []
    one.save_signatures(mine)
    two.save_signatures(_vouched(("b.example",), "prep_time", PREP))

    pooled = SharedWrapperStore(open_shared_state(redis_server.url)).load_signatures()
    assert pooled is not None
    assert pooled.signatures("recipe", "prep_time", "c.example") == [PREP]
    assert pooled.to_dict()["votes"] == [
        ["recipe", COOK, "cook_time", ["a.example"]],
        ["recipe", PREP, "prep_time", ["a.example", "b.example"]],
    ]


def test_a_save_raced_by_another_worker_runs_again_on_what_it_saved(
    redis_server: RedisServer,
) -> None:
    import redis

    state = open_shared_state(redis_server.url)
    other = redis.Redis.from_url(redis_server.url)
    seen: list[str | None] = []

    def update(stored: str | None) -> str:
        seen.append(stored)
        if len(seen) == 1:  # another worker saves between this one's read and its write
            other.set(f"pagesim:{SIGNATURES_DOCUMENT}", "theirs")
        return (stored or "") + "+mine"

    state.update_document(SIGNATURES_DOCUMENT, update)
    assert seen == [None, "theirs"]
    assert state.load_document(SIGNATURES_DOCUMENT) == "theirs+mine"
    other.close()


def test_an_unreadable_stored_memory_is_an_error_then_replaced(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    state = open_shared_state(redis_server.url)
    state.update_document(SIGNATURES_DOCUMENT, lambda stored: '{"format": "something else"}')
    store, stats = SharedWrapperStore(state), _stats()
    with caplog.at_level(logging.ERROR):
        assert load_signatures(store, stats) is None
    assert "cannot load the signature memory" in caplog.text
    assert stats.get_value("pagesim/induction/errors/load") == 1
    save_signatures(store, _vouched(("a.example", "b.example"), "prep_time", PREP), stats)
    text = state.load_document(SIGNATURES_DOCUMENT)
    assert text is not None and len(parse_memory(text)) == 1


def test_one_machine_keeps_documents_for_the_process() -> None:
    state = FileSharedState("unused-wrappers", "unused-types.json")
    assert state.load_document(SIGNATURES_DOCUMENT) is None
    state.update_document(SIGNATURES_DOCUMENT, lambda stored: (stored or "") + "a")
    state.update_document(SIGNATURES_DOCUMENT, lambda stored: (stored or "") + "b")
    assert state.load_document(SIGNATURES_DOCUMENT) == "ab"
    assert state.load_drift() is None  # the drift looks are another document
