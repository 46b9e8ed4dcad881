"""``TemplateInductionPipeline``: settings, the wrapper store, and real crawls.

The crawls run against a threaded HTTP server on 127.0.0.1 (ephemeral port) in this process;
each crawl runs in a fresh Python process (this file run as a script: ``python
test_induce_pipeline.py SPEC OUT``) with Scrapy's asyncio reactor, and writes the items it
scraped and its stats as JSON. The spider yields its own ``PageItem`` per page (and a plain
dict item that must pass through untouched).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, cast

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.test_induce_core import recipe_page  # noqa: E402

CRAWL_TIMEOUT = 180
TITLES = [
    "Tomato Soup", "Lemon Cake", "Rice Salad", "Garlic Bread", "Onion Tart", "Basil Pesto",
    "Cream Pie", "Butter Rolls", "Sugar Buns", "Cheese Toast",
]  # fmt: skip


# --------------------------------------------------------------------------------------------
# settings and store (no crawl)


def test_settings_defaults_validation_and_not_configured(caplog: pytest.LogCaptureFixture):
    from scrapy.exceptions import NotConfigured
    from scrapy.settings import Settings
    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.pipelines.induction import (
        SETTING_DEFAULTS,
        InductionConfig,
        TemplateInductionPipeline,
    )
    from pagesim_scrapy.settings import PageSimConfigError

    config = InductionConfig.from_settings(Settings())
    assert config.enabled is False and config.min_pages == 5 and not config.keep_html
    assert config.jsonld is True
    assert set(SETTING_DEFAULTS) == {
        "PAGESIM_INDUCTION_ENABLED", "PAGESIM_INDUCTION_MIN_PAGES", "PAGESIM_INDUCTION_MAX_PAGES",
        "PAGESIM_INDUCTION_MAX_LABELS", "PAGESIM_INDUCTION_MAX_NODES",
        "PAGESIM_INDUCTION_LAMBDA", "PAGESIM_INDUCTION_MIN_FIT",
        "PAGESIM_INDUCTION_BUFFER_SIZE",
        "PAGESIM_INDUCTION_WAIT", "PAGESIM_INDUCTION_STORE", "PAGESIM_INDUCTION_DIR",
        "PAGESIM_INDUCTION_JSONLD", "PAGESIM_PAGE_ITEMS_KEEP_HTML",
    }  # fmt: skip
    with pytest.raises(NotConfigured):
        TemplateInductionPipeline.from_crawler(get_crawler(settings_dict={}))
    bad = {"PAGESIM_INDUCTION_ENABLED": True, "PAGESIM_INDUCTION_MIN_PAGES": "9",
           "PAGESIM_INDUCTION_MAX_PAGES": "3"}  # fmt: skip
    with pytest.raises(PageSimConfigError, match="MAX_PAGES"):
        TemplateInductionPipeline.from_crawler(get_crawler(settings_dict=bad))
    negative = {"PAGESIM_INDUCTION_ENABLED": True, "PAGESIM_INDUCTION_MAX_LABELS": "-1"}
    with pytest.raises(PageSimConfigError, match="MAX_LABELS"):
        TemplateInductionPipeline.from_crawler(get_crawler(settings_dict=negative))
    negative = {"PAGESIM_INDUCTION_ENABLED": True, "PAGESIM_INDUCTION_MAX_NODES": "-1"}
    with pytest.raises(PageSimConfigError, match="MAX_NODES"):
        TemplateInductionPipeline.from_crawler(get_crawler(settings_dict=negative))
    # bad induction settings fail the crawl as bad PAGESIM_* settings do: one ERROR line each
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 3 and all("pagesim: invalid configuration" in e for e in errors)
    not_a_number = {"PAGESIM_INDUCTION_ENABLED": True, "PAGESIM_INDUCTION_WAIT": "soon"}
    with pytest.raises(PageSimConfigError, match="PAGESIM_INDUCTION_WAIT"):
        TemplateInductionPipeline.from_crawler(get_crawler(settings_dict=not_a_number))
    crawler = get_crawler(
        settings_dict={"PAGESIM_INDUCTION_ENABLED": "1", "PAGESIM_INDUCTION_MIN_PAGES": "2"}
    )
    pipeline = TemplateInductionPipeline.from_crawler(crawler)
    assert pipeline.config.min_pages == 2


def test_json_store_keeps_labels_inside_its_folder(tmp_path: Path):
    from pagesim_scrapy.core.induce import induce
    from pagesim_scrapy.pipelines.induction import JsonFileWrapperStore
    from tests.test_induce_core import pages

    store = JsonFileWrapperStore(tmp_path / "w")
    assert store.path_for("../../etc/passwd").parent == tmp_path / "w"
    assert store.path_for("product page").name == "product_page.json"
    assert store.load("recipe") is None
    wrapper = induce([p.encode() for p in pages(3)], label="recipe")
    store.save("recipe", wrapper)
    loaded = store.load("recipe")
    assert loaded is not None and loaded.pages == 3


# --------------------------------------------------------------------------------------------
# real crawls


def _pages() -> dict[str, bytes]:
    rng = random.Random(2)
    return {
        f"/recipes/{k}.html": recipe_page(
            rng, TITLES[k], 3 + k, notes=k % 3 == 0, rating=k + 1
        ).encode()
        for k in range(len(TITLES))
    }


def _serve(routes: dict[str, bytes]) -> Iterator[str]:
    from tests.route_server import serve_routes  # not in the crawl's own process

    with serve_routes(routes) as base:
        yield base


@pytest.fixture
def site() -> Iterator[tuple[str, dict[str, bytes]]]:
    routes = _pages()
    routes["/broken.html"] = b"\x00\x01\x02 not a page"
    for base in _serve(routes):
        yield base, routes


def crawl(tmp_path: Path, urls: list[str], settings: dict[str, Any]) -> dict[str, Any]:
    base = {
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": "INFO",
        "ITEM_PIPELINES": {"pagesim_scrapy.pipelines.induction.TemplateInductionPipeline": 300},
        "PAGESIM_INDUCTION_ENABLED": True,
        "PAGESIM_INDUCTION_DIR": str(tmp_path / "wrappers"),
        "CONCURRENT_REQUESTS": 4,
    }
    spec = {"settings": {**base, **settings}, "urls": urls}
    spec_path = tmp_path / "spec.json"
    out_path = tmp_path / "out.json"
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(Path(__file__)), str(spec_path), str(out_path)],
        capture_output=True,
        text=True,
        timeout=CRAWL_TIMEOUT,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    result: dict[str, Any] = json.loads(out_path.read_text(encoding="utf-8"))
    result["seconds"] = time.monotonic() - started
    result["stderr"] = proc.stderr
    return result


def page_items(result: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in result["items"] if i["type"] == "PageItem"]


def stat(result: dict[str, Any], key: str) -> Any:
    return result["stats"].get(f"pagesim/induction/{key}", 0)


def test_crawl_learns_holds_and_fills_every_page_item_then_reuses_the_wrapper(
    site: tuple[str, dict[str, bytes]], tmp_path: Path
):
    base, routes = site
    urls = [base + path for path in routes if path.startswith("/recipes/")]
    first = crawl(tmp_path, urls, {"PAGESIM_INDUCTION_MIN_PAGES": 4})
    assert first["crawl_error"] is None and first["finish_reason"] == "finished"
    items = page_items(first)
    # every item is accounted for: items out == items in, the plain ones untouched
    assert len(items) == len(urls) == first["yielded"]["PageItem"]
    plain = [i for i in first["items"] if i["type"] == "dict"]
    assert plain == [{"type": "dict", "url": u, "kind": "plain"} for u in sorted(urls)] or (
        sorted(p["url"] for p in plain) == sorted(urls)
    )
    by_url = {i["url"]: i for i in items}
    for path, body in routes.items():
        if not path.startswith("/recipes/"):
            continue
        item = by_url[base + path]
        title = TITLES[int(path.split("/")[-1].split(".")[0])]
        # the core record leads: the title under its standard name (og:title)
        assert item["record"]["name"] == title, item
        assert len(item["record"]["ingredients"]) == body.count(b"class='ingredient'")
        assert item["html_length"] == 0  # PAGESIM_PAGE_ITEMS_KEEP_HTML is off
        assert item["verdict"]["induction"]["wrapper"] in ("ready", "partial")
    # the items waited until their label learned no more pages (here: nothing else to crawl)
    assert stat(first, "held") >= 1
    settled = stat(first, "released/ready") + stat(first, "released/idle")
    assert settled + stat(first, "released/close") == stat(first, "held")
    assert stat(first, "learned/recipe") == len(urls)
    assert stat(first, "wrappers_saved") == 1
    stored = tmp_path / "wrappers" / "recipe.json"
    assert json.loads(stored.read_text())["pages"] == len(urls)

    # the next crawl starts from the stored wrapper: nothing waits
    second = crawl(
        tmp_path,
        urls,
        {"PAGESIM_INDUCTION_MIN_PAGES": 4, "PAGESIM_INDUCTION_MAX_PAGES": len(urls)},
    )
    assert stat(second, "wrappers_loaded") == 1
    assert stat(second, "held") == 0 and stat(second, "learned/recipe") == 0
    items = page_items(second)
    assert len(items) == len(urls)
    assert all(i["verdict"]["induction"]["wrapper"] == "ready" for i in items)
    assert all(i["record"]["name"] in TITLES for i in items)
    assert stat(second, "wrappers_saved") == 0  # nothing new learned


def test_a_label_that_never_gets_enough_pages_is_released_not_lost(
    site: tuple[str, dict[str, bytes]], tmp_path: Path
):
    base, routes = site
    urls = [base + path for path in routes] + [base + "/missing.html"]
    result = crawl(
        tmp_path,
        urls,
        {
            "PAGESIM_INDUCTION_MIN_PAGES": 50,
            "PAGESIM_INDUCTION_BUFFER_SIZE": 3,
            "PAGESIM_PAGE_ITEMS_KEEP_HTML": True,
        },
    )
    assert result["finish_reason"] == "finished"
    items = page_items(result)
    # the 404 page yields nothing (HttpErrorMiddleware); every other page comes out
    assert len(items) == len(routes) == result["yielded"]["PageItem"]
    held = stat(result, "held")
    released = sum(
        stat(result, f"released/{why}") for why in ("ready", "overflow", "timeout", "idle", "close")
    )
    assert held == released >= len(routes) - 1
    assert stat(result, "released/overflow") >= 1  # a buffer of 3 cannot hold them all
    assert stat(result, "released/idle") + stat(result, "released/close") >= 1
    recipes = [i for i in items if "/recipes/" in i["url"]]
    assert all(i["verdict"]["induction"]["wrapper"] == "partial" for i in recipes)
    filled = [i for i in recipes if i["record"]]
    assert filled and all(i["record"]["pagesim_wrapper"] == "partial" for i in filled)
    assert all(i["html_length"] > 0 for i in recipes)  # kept on request
    broken = next(i for i in items if i["url"].endswith("/broken.html"))
    assert broken["record"] == {}
    assert stat(result, "errors/parse") == 1
    # released because the crawl had nothing left to do, not after PAGESIM_INDUCTION_WAIT
    assert result["seconds"] < 60


def test_the_node_budget_stops_learning_and_every_item_is_still_extracted(
    site: tuple[str, dict[str, bytes]], tmp_path: Path
):
    """PAGESIM_INDUCTION_MAX_NODES: once the wrappers hold that many template nodes, no page
    is learned any more (a stat per page), and every item is extracted with the
    wrapper as it is."""
    base, routes = site
    urls = [base + path for path in routes if path.startswith("/recipes/")]
    result = crawl(
        tmp_path, urls, {"PAGESIM_INDUCTION_MIN_PAGES": 1, "PAGESIM_INDUCTION_MAX_NODES": 1}
    )
    assert result["finish_reason"] == "finished"
    items = page_items(result)
    assert len(items) == len(urls)
    assert stat(result, "learned/recipe") == 1  # the first page: 0 nodes were below 1
    assert stat(result, "not_learned/node_limit") == len(urls) - 1
    assert stat(result, "nodes_max") > 1
    assert all(i["verdict"]["induction"]["wrapper"] == "ready" for i in items)
    assert all(i["verdict"]["induction"]["pages"] == 1 for i in items)
    titled = [i for i in items if i["record"].get("name") in TITLES]
    assert titled, [i["record"] for i in items]
    stored = tmp_path / "wrappers" / "recipe.json"
    assert json.loads(stored.read_text())["pages"] == 1


def test_a_page_fetched_twice_is_learned_once_and_links_come_out_absolute(tmp_path: Path):
    routes = _pages()
    routes["/recipes/0.html?ref=menu"] = routes["/recipes/0.html"]  # the same document
    for base in _serve(routes):
        urls = [base + path for path in routes]
        result = crawl(tmp_path, urls, {"PAGESIM_INDUCTION_MIN_PAGES": 3})
        items = page_items(result)
        assert len(items) == len(urls)
        assert stat(result, "duplicates/recipe") == 1
        assert stat(result, "learned/recipe") == len(urls) - 1
        for item in items:
            assert item["record"]["name"] in TITLES
            assert item["record"]["by_url"].startswith(base + "/u/"), item["record"]


def test_real_recipe_pages_of_one_site(tmp_path: Path):
    from tests.conftest import shared_data

    folder = shared_data("recipe_scrapers_testdata", "tests", "test_data", "plantyou.com")
    files = sorted(folder.glob("*.testhtml"))
    expected = {f"/{p.stem}.html": json.loads(p.with_suffix(".json").read_text()) for p in files}
    for base in _serve({f"/{p.stem}.html": p.read_bytes() for p in files}):
        urls = [base + path for path in expected]
        result = crawl(tmp_path, urls, {"PAGESIM_INDUCTION_MIN_PAGES": 2})
        items = page_items(result)
        assert len(items) == len(files)
        for item in items:
            want = expected[item["url"][len(base) :]]
            values = [v for v in item["record"].values() if isinstance(v, str)]
            assert any(v.lower() == want["title"].lower() for v in values), item["url"]


def test_a_crawl_reads_section_lists_and_label_rows_of_real_pages(tmp_path: Path):
    # keukenliefde.nl: the ingredients under "Ingrediënten" (an <h2> on two pages, a
    # <p><strong> on the third); mollybaz.com: "Produce" / "Pantry" / "Dairy" lists inside a
    # heading-keyed region (transparent sections)
    from pagesim_scrapy.core.induce.evaluation import candidate_lists, match_lines
    from tests.conftest import shared_data

    for site_name in ("keukenliefde.nl", "mollybaz.com"):
        folder = shared_data("recipe_scrapers_testdata", "tests", "test_data", site_name)
        files = sorted(folder.glob("*.testhtml"))
        expected = {
            f"/{p.stem}.html": json.loads(p.with_suffix(".json").read_text()) for p in files
        }
        for base in _serve({f"/{p.stem}.html": p.read_bytes() for p in files}):
            urls = [base + path for path in expected]
            (tmp_path / site_name).mkdir()
            result = crawl(tmp_path / site_name, urls, {"PAGESIM_INDUCTION_MIN_PAGES": 3})
            items = page_items(result)
            assert len(items) == len(files)
            for item in items:
                want = expected[item["url"][len(base) :]]["ingredients"]
                lists = candidate_lists(item["record"])  # nested regions as "outer/inner"
                best = max(match_lines(texts, want).matched for texts in lists.values())
                assert best >= 0.9 * len(want), (site_name, item["url"])


# --------------------------------------------------------------------------------------------
# the crawl process (this file run as a script)


def _worker(spec_path: str, out_path: str) -> None:
    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")

    import scrapy
    from scrapy import signals
    from scrapy.crawler import AsyncCrawlerRunner
    from scrapy.utils.defer import deferred_from_coro
    from twisted.internet import reactor as _reactor

    reactor = cast(Any, _reactor)

    from pagesim_scrapy.items import PageItem

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    out: dict[str, Any] = {"items": [], "crawl_error": None, "yielded": {"PageItem": 0}}

    class PagesSpider(scrapy.Spider):
        name = "pages"

        async def start(self) -> AsyncIterator[Any]:
            for url in spec["urls"]:
                yield scrapy.Request(url, callback=self.parse, dont_filter=True)

        def parse(self, response: Any, **kwargs: Any) -> Iterator[Any]:
            out["yielded"]["PageItem"] += 1
            text = response.text if hasattr(response, "text") else response.body.decode("latin-1")
            yield PageItem(url=response.url, label="recipe", score=1.0, html=text)
            yield {"url": response.url, "kind": "plain"}

    def describe(item: Any) -> dict[str, Any]:
        if isinstance(item, dict):
            return {"type": "dict", **item}
        from dataclasses import asdict

        data = asdict(item)
        html = data.pop("html", None)
        return {"type": type(item).__name__, **data, "html_length": len(html or "")}

    def item_scraped(item: Any) -> None:
        out["items"].append(describe(item))

    async def run() -> None:
        runner = AsyncCrawlerRunner(spec["settings"])
        crawler = runner.create_crawler(PagesSpider)
        crawler.signals.connect(item_scraped, signal=signals.item_scraped)
        try:
            await crawler.crawl_async()
        except Exception as exc:
            out["crawl_error"] = f"{type(exc).__name__}: {exc}"
        stats = crawler.stats.get_stats()
        out["stats"] = {
            k: v if isinstance(v, (int, float, str)) else str(v) for k, v in stats.items()
        }
        out["finish_reason"] = stats.get("finish_reason")

    def done(_: Any) -> None:
        Path(out_path).write_text(json.dumps(out), encoding="utf-8")
        reactor.stop()

    deferred_from_coro(run()).addBoth(done)
    reactor.run()


if __name__ == "__main__":
    _worker(sys.argv[1], sys.argv[2])


def _learning_run(pages: list[tuple[str, str]], lazy: bool, releases: set[int]) -> list[Any]:
    """The pipeline's worker steps for one label, pages learned at once (``_learn``) or kept
    until the label settles (``_take``), items released by a cap at ``releases``."""
    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

    settings = {"PAGESIM_INDUCTION_ENABLED": True, "PAGESIM_INDUCTION_MIN_PAGES": 3}
    pipeline = TemplateInductionPipeline.from_crawler(get_crawler(settings_dict=settings))
    state = pipeline._label("recipe")
    step = pipeline._take if lazy else pipeline._learn
    out: list[Any] = []
    for k, (html, url) in enumerate(pages):
        out.append((*step(state, html, url)[:2], state.pages))
        if k in releases:  # an item released by a cap: the wrapper as learned so far
            out.append(pipeline._extract_record(state, html, html, url)[0].record)
    pipeline._relearn_locked(state)  # the label settles
    out.append(state.wrapper.to_json())
    out += [pipeline._extract_record(state, html, html, url)[0].record for html, url in pages]
    return out


def test_pages_kept_until_their_label_settles_give_the_wrapper_of_learning_each_at_once():
    """Each page is learned once, when its label settles: outcomes, page counts, the
    wrapper and every record are those of learning each page as it comes and again in
    canonical order, duplicates and items released early by a cap included."""
    from tests.conftest import shared_data

    folder = shared_data("recipe_scrapers_testdata", "tests", "test_data", "plantyou.com")
    pages = [
        (path.read_text(encoding="utf-8"), f"https://plantyou.com/{path.stem}/")
        for path in sorted(folder.glob("*.testhtml"))
    ]
    assert len(pages) >= 2
    order = pages + pages[:1]  # a duplicate too
    random.Random(3).shuffle(order)
    for releases in (set(), {1}):
        assert _learning_run(order, True, releases) == _learning_run(order, False, releases)
