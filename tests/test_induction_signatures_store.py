"""The wrapper store keeps the crawl's signature memory between crawls: what one crawl saves
the next reads, and a broken or hostile file is moved aside with an ERROR and a stat, the
crawl going on with an empty memory."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from scrapy.statscollectors import MemoryStatsCollector
from scrapy.utils.test import get_crawler

from pagesim_scrapy.core.record.signatures import SignatureMemory
from pagesim_scrapy.pipelines.induction.naming import Signatures
from pagesim_scrapy.pipelines.induction.stores import (
    SIGNATURES_FILE,
    JsonFileWrapperStore,
    load_signatures,
    save_signatures,
)

PREP = "^div.recipe-times/span.recipe-prep-time[0]"


def _stats() -> MemoryStatsCollector:
    return MemoryStatsCollector(get_crawler())


def _taught() -> SignatureMemory:
    memory = SignatureMemory()
    for site in ("a.example", "b.example"):
        memory.learn(site, "recipe", {"prep_time": [PREP]})
    return memory


def test_what_one_crawl_saves_the_next_reads(tmp_path: Path) -> None:
    store, stats = JsonFileWrapperStore(tmp_path / "wrappers"), _stats()
    assert load_signatures(store, stats) is None  # the first crawl: nothing saved yet
    save_signatures(store, _taught(), stats)
    assert stats.get_value("pagesim/induction/signatures/saved") == 1
    loaded = load_signatures(store, stats)
    assert loaded is not None and loaded.signatures("recipe", "prep_time", "c.example") == [PREP]
    assert stats.get_value("pagesim/induction/signatures/loaded") == 1
    # no label's wrapper file can take the memory's name
    assert store.path_for("_signatures") != store.signatures_path
    assert store.signatures_path.name == SIGNATURES_FILE


def test_the_crawl_asks_what_was_saved_and_teaches_a_copy() -> None:
    saved = _taught()
    signatures = Signatures.from_saved(saved)
    signatures.taught.learn("c.example", "recipe", {"cook_time": [PREP]})
    assert signatures.known is saved and len(saved) == 1
    assert signatures.taught.to_dict() != saved.to_dict()


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        '{"format": "pagesim-signatures", "version": 1, "votes": [[1, 2, 3, 4]]}',
        '{"format": "pagesim-signatures", "version": 1, "votes": "x"}',
        "[" * 100_000,
    ],
)
def test_a_broken_file_is_moved_aside_and_the_crawl_goes_on(
    tmp_path: Path, text: str, caplog: pytest.LogCaptureFixture
) -> None:
    store, stats = JsonFileWrapperStore(tmp_path), _stats()
    store.signatures_path.write_text(text, encoding="utf-8")
    with caplog.at_level(logging.ERROR):
        assert load_signatures(store, stats) is None
    assert "signature memory is unusable" in caplog.text
    assert stats.get_value("pagesim/state/corrupt") == 1
    assert not store.signatures_path.exists()  # moved aside: the next crawl starts afresh
    assert list(tmp_path.glob("_signatures.memory.corrupt*"))


def test_an_empty_memory_writes_no_file(tmp_path: Path) -> None:
    store, stats = JsonFileWrapperStore(tmp_path), _stats()
    save_signatures(store, SignatureMemory(), stats)
    assert not store.signatures_path.exists()
    assert stats.get_value("pagesim/induction/signatures/saved") is None
