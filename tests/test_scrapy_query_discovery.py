"""Topic relevance (issue 6) and crawl-time page-type discovery (issue 5) in real crawls.

Each crawl runs in its own Python process against a local HTTP server on 127.0.0.1, through the
helpers of ``tests/test_scrapy_crawl.py`` (same worker, same recorded output). Pages: real Stack
Overflow pages of 5 types (tests/fixtures/stackoverflow, BSD-3-Clause); the three question pages
are about VB.NET bitmaps, a jQuery selector and MongoDB geonear indexes.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scrapy.settings import Settings

from pagesim_scrapy.settings import DEFAULTS, PageSimConfig, PageSimConfigError
from tests.test_scrapy_crawl import (
    ADDON,
    FIXTURES,
    TYPES,
    Route,
    Site,
    kind_of,
    log_messages,
    pages,
    pagesim_stats,
    run_crawl,
    serve,
    so_page,
    so_routes,
)

QUERY = "mongodb geonear 2dsphere indexes"
ON_TOPIC = 3  # question/03.html is the MongoDB one
TEMPLATES = {kind: [str(FIXTURES / kind / "01.html")] for kind in TYPES}
HTML = {"Content-Type": "text/html; charset=utf-8"}
COPIES = 4


def question_routes() -> dict[str, Route]:
    """Each question page under several URLs: enough target pages to pass a warm-up."""
    routes = so_routes()
    for n in (1, 2, 3):
        for copy in range(COPIES):
            routes[f"/q/{n}/{copy}.html"] = Route(200, so_page("question", n), HTML)
    return routes


@pytest.fixture
def site() -> Iterator[Site]:
    yield from serve(question_routes())


def question_number(url: str) -> int:
    if "/q/" in url:
        return int(url.split("/q/")[1].split("/")[0])
    return int(url.rsplit("/", 1)[1].split(".")[0])


# --- settings ---------------------------------------------------------------------------------


def test_new_settings_are_read_and_checked():
    config = PageSimConfig.from_settings(
        Settings(
            {
                "PAGESIM_QUERY": "  electric cars ",
                "PAGESIM_RELEVANCE_THRESHOLD": "0.2",
                "PAGESIM_RELEVANCE_MIN_PAGES": "5",
                "PAGESIM_DISCOVERY_ENABLED": "true",
                "PAGESIM_DISCOVERY_THRESHOLD": "none",
                "PAGESIM_DISCOVERY_CLOSENESS": "0.5",
                "PAGESIM_DISCOVERY_MAX_CLUSTERS": "7",
            }
        )
    )
    assert config.query == "electric cars" and config.relevance_threshold == 0.2
    assert config.relevance_min_pages == 5 and config.content_wanted
    assert config.discovery_enabled and config.discovery_threshold is None
    assert config.discovery_closeness == 0.5
    assert PageSimConfig().discovery_closeness is None  # the method's own default
    assert config.discovery_max_clusters == 7 and config.discovery_method == "site"
    config.check_ready()  # no templates is fine with discovery on
    bad = [
        ({"PAGESIM_QUERY": " -- ?"}, "PAGESIM_QUERY"),
        ({"PAGESIM_RELEVANCE_THRESHOLD": "1.5"}, "PAGESIM_RELEVANCE_THRESHOLD"),
        ({"PAGESIM_RELEVANCE_THRESHOLD": "high"}, "PAGESIM_RELEVANCE_THRESHOLD"),
        ({"PAGESIM_RELEVANCE_MIN_PAGES": "-1"}, "PAGESIM_RELEVANCE_MIN_PAGES"),
        (
            {"PAGESIM_DISCOVERY_ENABLED": True, "PAGESIM_DISCOVERY_METHOD": "nope"},
            "PAGESIM_DISCOVERY_METHOD",
        ),
        (
            {"PAGESIM_DISCOVERY_ENABLED": True, "PAGESIM_DISCOVERY_CLOSENESS": "1.5"},
            "PAGESIM_DISCOVERY_CLOSENESS",
        ),
        (
            {"PAGESIM_DISCOVERY_ENABLED": True, "PAGESIM_DISCOVERY_MAX_CLUSTERS": 0},
            "PAGESIM_DISCOVERY_MAX_CLUSTERS",
        ),
    ]
    for values, name in bad:
        with pytest.raises(PageSimConfigError, match=name):
            PageSimConfig.from_settings(Settings(values))


def test_induction_defaults_come_from_the_settings_module():
    from pagesim_scrapy.core.induce import DEFAULT_LAMBDA, DEFAULT_MIN_FIT
    from pagesim_scrapy.pipelines.induction import SETTING_DEFAULTS, SETTING_DOCS, InductionConfig

    assert {name: DEFAULTS[name] for name in SETTING_DEFAULTS} == SETTING_DEFAULTS
    assert set(SETTING_DOCS) == set(SETTING_DEFAULTS) and all(SETTING_DOCS.values())
    assert DEFAULTS["PAGESIM_INDUCTION_LAMBDA"] == DEFAULT_LAMBDA
    assert DEFAULTS["PAGESIM_INDUCTION_MIN_FIT"] == DEFAULT_MIN_FIT
    config = InductionConfig.from_settings(Settings())
    assert (
        config.lam == DEFAULT_LAMBDA and config.max_pages == DEFAULTS["PAGESIM_INDUCTION_MAX_PAGES"]
    )


# --- relevance --------------------------------------------------------------------------------


def test_query_adds_relevance_and_main_text_and_tags_off_topic_pages(site: Site, tmp_path: Path):
    requests = [*pages(site), {"url": site.url("/q/3/0.html")}]
    result = run_crawl(
        tmp_path,
        {
            **ADDON,
            "PAGESIM_TEMPLATES": TEMPLATES,
            "PAGESIM_TARGETS": ["question"],
            "PAGESIM_QUERY": QUERY,
            "PAGESIM_RELEVANCE_THRESHOLD": 0.2,
            "PAGESIM_RELEVANCE_MIN_PAGES": 0,
            "PAGESIM_PAGE_ITEMS": True,
        },
        requests,
    )
    assert result["crawl_error"] is None, result["crawl_error"]
    seen = {p["url"]: p["pagesim"] for p in result["seen"]}
    assert len(seen) == 16
    questions = {url: v for url, v in seen.items() if "/question/" in url or "/q/" in url}
    assert len(questions) == 4
    for url, verdict in seen.items():
        if url in questions:
            assert verdict["label"] == "question"
            assert isinstance(verdict["relevance"], float) and 0.0 <= verdict["relevance"] <= 1.0
            assert isinstance(verdict["main_text"], str) and verdict["main_text"]
        else:  # non-target pages are not scored
            assert "relevance" not in verdict and "main_text" not in verdict
    on_topic = {u: v for u, v in questions.items() if question_number(u) == ON_TOPIC}
    off_topic = {u: v for u, v in questions.items() if question_number(u) != ON_TOPIC}
    for verdict in on_topic.values():
        assert verdict["relevance"] >= 0.2 and verdict["target"] is True
        assert "off_topic" not in verdict
        assert "geonear" in verdict["main_text"].lower()
    for verdict in off_topic.values():
        assert verdict["relevance"] < 0.2
        assert verdict["off_topic"] is True and verdict["target"] is False
    stats = pagesim_stats(result)
    assert stats["pagesim/relevance/scored"] == 4
    assert stats["pagesim/off_topic"] == 2
    # page items only for the on-topic pages, carrying relevance and main text
    page_items = [i for i in result["items"] if i["type"] == "PageItem"]
    assert sorted(i["url"] for i in page_items) == sorted(on_topic)
    for item in page_items:
        assert (
            item["relevance"] == item["verdict"]["relevance"] == on_topic[item["url"]]["relevance"]
        )
        assert item["main_text"] == on_topic[item["url"]]["main_text"]


def test_main_text_without_a_query(site: Site, tmp_path: Path):
    result = run_crawl(
        tmp_path,
        {**ADDON, "PAGESIM_TEMPLATES": TEMPLATES, "PAGESIM_MAIN_TEXT": True},
        pages(site, kinds=("question", "users"), numbers=(2,)),
    )
    seen = {kind_of(p["url"]): p["pagesim"] for p in result["seen"]}
    assert "find()" in seen["question"]["main_text"] or "span" in seen["question"]["main_text"]
    assert isinstance(seen["users"]["main_text"], str)
    assert all("relevance" not in v for v in seen.values())
    assert "pagesim/relevance/scored" not in pagesim_stats(result)


def test_relevance_threshold_drops_off_topic_pages_after_the_warm_up(site: Site, tmp_path: Path):
    min_pages = 6
    requests = [
        {"url": site.url(f"/q/{n}/{copy}.html")} for copy in range(COPIES) for n in (1, 2, 3)
    ]
    result = run_crawl(
        tmp_path,
        {
            **ADDON,
            "PAGESIM_TEMPLATES": TEMPLATES,
            "PAGESIM_TARGETS": ["question"],
            "PAGESIM_ACTION": "drop",
            "PAGESIM_QUERY": QUERY,
            "PAGESIM_RELEVANCE_THRESHOLD": 0.2,
            "PAGESIM_RELEVANCE_MIN_PAGES": min_pages,
            "CONCURRENT_REQUESTS": 1,
            # the warm-up is counted in crawl order: no page held for the second look here
            "PAGESIM_HOLD_UNSETTLED": False,
        },
        requests,
    )
    stats = pagesim_stats(result)
    total_off = 2 * COPIES
    assert stats["pagesim/relevance/scored"] == 3 * COPIES
    # off-topic pages keep their label: the second look has nothing to decide again
    assert "pagesim/second_look/recorded" not in stats
    seen = {p["url"]: p["pagesim"] for p in result["seen"]}
    # every on-topic page is kept; off-topic pages are kept only while warming up
    assert {u for u in seen if question_number(u) == ON_TOPIC} == {
        r["url"] for r in requests if question_number(r["url"]) == ON_TOPIC
    }
    kept_off = [v for u, v in seen.items() if question_number(u) != ON_TOPIC]
    assert 1 <= len(kept_off) <= min_pages - 1
    assert all(v["relevance"] < 0.2 and "off_topic" not in v for v in kept_off)
    dropped = total_off - len(kept_off)
    assert stats["pagesim/off_topic"] == stats["pagesim/dropped"] == dropped
    errors = result["errors"]
    assert len(errors) == dropped and {e["error"] for e in errors} == {"IgnoreRequest"}
    assert all(question_number(e["url"]) != ON_TOPIC for e in errors)


# --- discovery --------------------------------------------------------------------------------


def _clusters_by_kind(seen: list[dict[str, Any]]) -> dict[str, set[str]]:
    by_kind: dict[str, set[str]] = {}
    for page in seen:
        by_kind.setdefault(kind_of(page["url"]), set()).add(page["pagesim"]["cluster"])
    return by_kind


def test_discovery_without_templates_then_with_templates_from_the_saved_file(
    site: Site, tmp_path: Path
):
    settings = {
        **ADDON,
        "PAGESIM_DISCOVERY_ENABLED": True,
        "PAGESIM_DISCOVERY_CLOSENESS": 0.65,
        # one request at a time: the pages come in the same order in every run, so the
        # labels given during the crawl are reproducible (a young host's first labels depend
        # on arrival order; tests/test_discovery_orders.py checks 20 orders in the core)
        "CONCURRENT_REQUESTS": 1,
    }
    first = run_crawl(tmp_path, settings, pages(site))
    assert first["crawl_error"] is None and first["finish_reason"] == "finished"
    assert len(first["seen"]) == 15
    for page in first["seen"]:
        verdict = page["pagesim"]
        assert verdict["cluster"] is not None and verdict["cluster"].startswith("cluster-")
        assert verdict["label"] == verdict["cluster"] and verdict["target"] is True
        assert 0.0 <= verdict["cluster_score"] <= 1.0 and verdict["method"] == "site"
        assert f"pagesim:{verdict['cluster']}" in page["flags"]
    by_kind = _clusters_by_kind(first["seen"])
    assert all(len(clusters) == 1 for clusters in by_kind.values()), by_kind
    found = {next(iter(clusters)) for clusters in by_kind.values()}
    assert len(found) >= 4
    stats = pagesim_stats(first)
    assert stats["pagesim/discovery/pages"] == 15
    assert stats["pagesim/discovery/new"] == stats["pagesim/discovery/clusters"] == len(found)
    for label in found:
        assert stats[f"pagesim/discovery/{label}"] == sum(
            1 for p in first["seen"] if p["pagesim"]["cluster"] == label
        )
    # logged: the types and a snippet that is valid Python naming pages of the crawl
    info = log_messages(first, "INFO")
    assert any(f"{len(found)} page types discovered over 15 pages" in m for m in info)
    snippet = next(m for m in info if "PAGESIM_TEMPLATES" in m).split("\n", 1)[1]
    namespace: dict[str, Any] = {}
    exec(snippet, namespace)
    assert set(namespace["PAGESIM_TEMPLATES"]) == found
    saved = tmp_path / ".scrapy" / "pagesim" / "discovery.json"
    document = json.loads(saved.read_text(encoding="utf-8"))
    assert len(document["clusters"]) == len(found)
    assert document["settings"]["closeness"] == 0.65  # the setting reached the discovery

    # second crawl: templates given too; the saved types are loaded and the labels kept
    first_cluster = {p["url"]: p["pagesim"]["cluster"] for p in first["seen"]}
    second = run_crawl(
        tmp_path,
        {**settings, "PAGESIM_TEMPLATES": TEMPLATES},
        pages(site, numbers=(2, 3)),
    )
    assert second["finish_reason"] == "finished"
    assert any(f"with {len(found)} types from" in m for m in log_messages(second, "INFO"))
    for page in second["seen"]:
        verdict = page["pagesim"]
        assert verdict["label"] == kind_of(page["url"])  # the classifier's label
        assert verdict["method"] == "site"
        assert verdict["cluster"] == first_cluster[page["url"]]
    stats = pagesim_stats(second)
    assert stats["pagesim/discovery/pages"] == 10
    assert "pagesim/discovery/new" not in stats
    assert stats["pagesim/discovery/clusters"] == len(found)


def test_an_unreadable_discovery_file_is_replaced(site: Site, tmp_path: Path):
    broken = tmp_path / "types.json"
    broken.write_text("{not json", encoding="utf-8")
    result = run_crawl(
        tmp_path,
        {
            **ADDON,
            "PAGESIM_DISCOVERY_ENABLED": True,
            "PAGESIM_DISCOVERY_FILE": str(broken),
            "PAGESIM_DISCOVERY_MAX_CLUSTERS": 1,
        },
        pages(site, kinds=("jobs", "users"), numbers=(1,)),
    )
    assert result["finish_reason"] == "finished"
    assert any("cannot use the discovered page types" in m for m in log_messages(result, "ERROR"))
    clusters = sorted(str(p["pagesim"]["cluster"]) for p in result["seen"])
    assert clusters == ["None", "cluster-1"]  # one type at most: the other page is unassigned
    stats = pagesim_stats(result)
    assert stats["pagesim/discovery/unassigned"] == 1
    assert json.loads(broken.read_text(encoding="utf-8"))["clusters"][0]["label"] == "cluster-1"
