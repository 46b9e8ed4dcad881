"""Unit-level tests of the Scrapy components, built with ``get_crawler`` / ``build_from_crawler``.

Whole crawls are in test_scrapy_crawl.py; here each component is driven directly with real
Scrapy request/response objects and real Stack Overflow pages (tests/fixtures/stackoverflow).
"""

from __future__ import annotations

import asyncio
import gc
import importlib.util
import logging
import subprocess
import sys
import weakref
from pathlib import Path
from typing import Any, ClassVar

import pytest
import scrapy
from scrapy import Request
from scrapy.core.spidermw import SpiderMiddlewareManager
from scrapy.exceptions import CloseSpider, DropItem, IgnoreRequest, NotConfigured
from scrapy.http import HtmlResponse, Response, TextResponse
from scrapy.settings import Settings
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from pagesim_scrapy.addon import (
    DOWNLOADER_MIDDLEWARE_PRIORITY,
    FILTER_PIPELINE_PRIORITY,
    SPIDER_MIDDLEWARE_PRIORITY,
    Addon,
)
from pagesim_scrapy.items import PageItem
from pagesim_scrapy.middlewares import (
    META_KEY,
    HeldForSecondLook,
    PageSimDownloaderMiddleware,
    PageSimSpiderMiddleware,
    crawl_state,
    explore_selected,
)
from pagesim_scrapy.pipelines import PageSimFilterPipeline
from pagesim_scrapy.settings import DEFAULTS, SETTINGS, PageSimConfig, PageSimConfigError
from pagesim_scrapy.templates import TemplateError, load_templates, resolve_sources

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "stackoverflow"
TYPES = ("jobs", "newest_questions", "question", "tags", "users")
TEMPLATES = {kind: [str(FIXTURES / kind / "01.html")] for kind in TYPES}


def page(kind: str, number: int) -> Path:
    return FIXTURES / kind / f"{number:02d}.html"


def html_response(path: Path, url: str | None = None, status: int = 200) -> HtmlResponse:
    url = url or f"http://127.0.0.1/{path.parent.name}/{path.name}"
    return HtmlResponse(url=url, body=path.read_bytes(), status=status, request=Request(url))


class Spider(scrapy.Spider):
    name = "unit"


# --- settings --------------------------------------------------------------------------------


def test_defaults_live_in_one_place():
    config = PageSimConfig.from_settings(Settings())
    assert config == PageSimConfig()
    names = [spec.name for spec in SETTINGS]
    assert len(names) == len(set(names)) and all(n.startswith("PAGESIM_") for n in names)
    assert all(spec.type and spec.doc for spec in SETTINGS)
    assert DEFAULTS["PAGESIM_METHOD"] == config.method == "site"


def test_settings_given_as_command_line_strings():
    settings = Settings(
        {
            "PAGESIM_TEMPLATES": '{"a": "a.html", "b": ["b1.html", "b2.html"]}',
            "PAGESIM_TARGETS": "b, a",
            "PAGESIM_METHOD": "lcs",
            "PAGESIM_METHOD_PARAMS": '{"relation": "rsn"}',
            "PAGESIM_THRESHOLD": '{"a": 0.4, "b": "auto"}',
            "PAGESIM_ENABLED": "False",
            "PAGESIM_EXPLORE_FRACTION": "0.25",
            "PAGESIM_ACTION": "DROP",
            "PAGESIM_MAX_BODY_SIZE": "1000",
            "PAGESIM_MAX_NODES": "500",
            "PAGESIM_MAX_DEPTH": "none",
        }
    )
    config = PageSimConfig.from_settings(settings)
    assert config.templates == {"a": ("a.html",), "b": ("b1.html", "b2.html")}
    assert config.targets == ("b", "a") and config.target_labels == {"a", "b"}
    assert config.method_params == {"relation": "rsn"}
    assert config.threshold == {"a": 0.4, "b": "auto"}
    assert config.enabled is False and config.action == "drop"
    assert config.explore_fraction == 0.25 and config.max_body_size == 1000
    assert config.max_nodes == 500 and config.max_depth is None
    assert config.summary_options().max_nodes == 500
    assert PageSimConfig.from_settings(Settings({"PAGESIM_THRESHOLD": "0.3"})).threshold == 0.3


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"PAGESIM_METHOD": "nope"}, "PAGESIM_METHOD: unknown similarity method"),
        ({"PAGESIM_METHOD_PARAMS": {"colour": 1}}, "PAGESIM_METHOD_PARAMS: unknown parameter"),
        ({"PAGESIM_METHOD_PARAMS": {"relation": "xyz"}}, "PAGESIM_METHOD_PARAMS"),
        ({"PAGESIM_THRESHOLD": 1.5}, "PAGESIM_THRESHOLD must be within [0, 1]"),
        ({"PAGESIM_THRESHOLD": -0.1}, "PAGESIM_THRESHOLD must be within [0, 1]"),
        ({"PAGESIM_THRESHOLD": "high"}, "PAGESIM_THRESHOLD must be a number"),
        ({"PAGESIM_THRESHOLD": {"question": 2}}, "PAGESIM_THRESHOLD['question']"),
        ({"PAGESIM_THRESHOLD": {"video": 0.5}}, "PAGESIM_THRESHOLD names label(s) ['video']"),
        ({"PAGESIM_TARGETS": ["question", "video"]}, "PAGESIM_TARGETS names label(s) ['video']"),
        ({"PAGESIM_ACTION": "delete"}, "PAGESIM_ACTION must be one of tag, drop"),
        ({"PAGESIM_EXPLORE_FRACTION": 1.5}, "PAGESIM_EXPLORE_FRACTION"),
        ({"PAGESIM_MAX_BODY_SIZE": -1}, "PAGESIM_MAX_BODY_SIZE"),
        ({"PAGESIM_AGGREGATE": "median"}, "PAGESIM_AGGREGATE"),
        ({"PAGESIM_MAX_NODES": 0}, "PAGESIM_MAX_NODES must be >= 1"),
        ({"PAGESIM_MAX_NODES": "many"}, "PAGESIM_MAX_NODES must be an integer"),
        ({"PAGESIM_MAX_DEPTH": -2}, "PAGESIM_MAX_DEPTH must be >= 0"),
        ({"PAGESIM_ENABLED": "perhaps"}, "PAGESIM_ENABLED"),
        ({"PAGESIM_TEMPLATES": {"question": []}}, "must be a non-empty list"),
        ({"PAGESIM_TEMPLATES": {"question": [3]}}, "a source must be a URL or a path"),
        ({"PAGESIM_TEMPLATES": ["a.html"]}, "PAGESIM_TEMPLATES"),
    ],
)
def test_invalid_settings_raise_a_clear_error(values: dict[str, Any], message: str):
    settings = {"PAGESIM_TEMPLATES": TEMPLATES, **values}
    with pytest.raises(PageSimConfigError) as info:
        PageSimConfig.from_settings(Settings(settings))
    assert message in str(info.value)
    # the same error stops every component at crawler start
    crawler = get_crawler(Spider, settings)
    with pytest.raises(PageSimConfigError):
        build_from_crawler(PageSimDownloaderMiddleware, crawler)


def test_empty_templates_are_an_error_once_the_spider_is_known():
    config = PageSimConfig.from_settings(Settings())
    with pytest.raises(PageSimConfigError, match="PAGESIM_TEMPLATES is empty"):
        config.check_ready()


def test_spider_attributes_override_templates_and_targets():
    class WithTemplates(scrapy.Spider):
        name = "with_templates"
        pagesim_templates: ClassVar[dict[str, list[str]]] = {"question": [str(page("question", 1))]}
        pagesim_targets = "question"

    config = PageSimConfig.from_settings(Settings({"PAGESIM_TEMPLATES": TEMPLATES}), WithTemplates)
    assert list(config.templates) == ["question"] and config.targets == ("question",)
    # targets are checked against the spider's templates
    WithTemplates.pagesim_targets = "jobs"
    with pytest.raises(PageSimConfigError, match="PAGESIM_TARGETS"):
        PageSimConfig.from_settings(Settings({"PAGESIM_TEMPLATES": TEMPLATES}), WithTemplates)


def test_disabled_components_are_not_configured():
    crawler = get_crawler(Spider, {"PAGESIM_ENABLED": False, "PAGESIM_TEMPLATES": TEMPLATES})
    for component in (
        PageSimDownloaderMiddleware,
        PageSimSpiderMiddleware,
        PageSimFilterPipeline,
    ):
        with pytest.raises(NotConfigured):
            build_from_crawler(component, crawler)
    # the filter is off unless asked for
    crawler = get_crawler(Spider, {"PAGESIM_TEMPLATES": TEMPLATES})
    with pytest.raises(NotConfigured):
        build_from_crawler(PageSimFilterPipeline, crawler)


# --- add-on ----------------------------------------------------------------------------------


def test_addon_enables_every_component_and_project_settings_win():
    crawler = get_crawler(
        Spider,
        {
            "ADDONS": {Addon: 0},
            "PAGESIM_METHOD": "layers",
            "SPIDER_MIDDLEWARES": {"pagesim_scrapy.middlewares.PageSimSpiderMiddleware": None},
        },
    )
    settings = crawler.settings
    assert settings.getdict("DOWNLOADER_MIDDLEWARES")[PageSimDownloaderMiddleware] == (
        DOWNLOADER_MIDDLEWARE_PRIORITY
    )
    assert settings.getdict("ITEM_PIPELINES")[PageSimFilterPipeline] == FILTER_PIPELINE_PRIORITY
    # the project disabled the spider middleware: the add-on does not re-enable it
    middlewares = settings.getdict("SPIDER_MIDDLEWARES")
    assert middlewares == {"pagesim_scrapy.middlewares.PageSimSpiderMiddleware": None}
    assert SPIDER_MIDDLEWARE_PRIORITY > 900  # after DepthMiddleware, next to the spider
    # defaults are declared at add-on priority; the project's own value wins
    assert settings["PAGESIM_METHOD"] == "layers"
    assert settings["PAGESIM_ACTION"] == "tag"
    assert settings.getpriority("PAGESIM_ACTION") == 15  # "addon"
    induction = importlib.util.find_spec("pagesim_scrapy.pipelines.induction") is not None
    names = {getattr(k, "__name__", k) for k in settings.getdict("ITEM_PIPELINES")}
    assert ("TemplateInductionPipeline" in names) == induction


def test_addon_by_import_path_and_classify_priority_after_retry_and_redirect():
    crawler = get_crawler(Spider, {"ADDONS": {"pagesim_scrapy.Addon": 0}})
    order = crawler.settings.getwithbase("DOWNLOADER_MIDDLEWARES")
    mine = order[PageSimDownloaderMiddleware]
    for name in ("retry.RetryMiddleware", "redirect.RedirectMiddleware", "httpcompression"):
        priority = next(v for k, v in order.items() if name in str(k))
        assert priority > mine  # process_response runs from high to low priority


def test_pipelines_package_exports():
    import pagesim_scrapy.pipelines as pipelines

    assert pipelines.PageSimFilterPipeline is PageSimFilterPipeline
    installed = importlib.util.find_spec("pagesim_scrapy.pipelines.induction") is not None
    assert hasattr(pipelines, "TemplateInductionPipeline") == installed
    with pytest.raises(AttributeError):
        pipelines.NoSuchPipeline  # noqa: B018


def test_import_pagesim_scrapy_is_light():
    code = "import sys, pagesim_scrapy; print('scrapy' in sys.modules, 'lxml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    import pagesim_scrapy

    assert pagesim_scrapy.Addon is Addon and pagesim_scrapy.PageItem is PageItem


# --- downloader middleware --------------------------------------------------------------------


def make_downloader_mw(**settings: Any) -> tuple[PageSimDownloaderMiddleware, Any]:
    crawler = get_crawler(Spider, {"PAGESIM_TEMPLATES": TEMPLATES, **settings})
    return build_from_crawler(PageSimDownloaderMiddleware, crawler), crawler


def test_responses_wait_for_templates_then_get_a_verdict():
    mw, crawler = make_downloader_mw(PAGESIM_TARGETS=["question"], PAGESIM_HOLD_UNSETTLED=False)
    response = html_response(page("question", 2))
    request = response.request
    assert request is not None

    async def scenario() -> Response:
        early = asyncio.ensure_future(mw.process_response(request, response))
        await asyncio.sleep(0.01)
        assert not early.done()  # waiting for the templates
        await mw.spider_opened(Spider())
        return await asyncio.wait_for(early, 5)

    result = asyncio.run(scenario())
    assert result is response  # flags added in place: the parsed selector is kept
    verdict = request.meta[META_KEY]
    assert verdict["label"] == "question" and verdict["target"] is True
    assert set(verdict) >= {"label", "score", "scores", "method", "margin", "threshold"}
    assert response.flags == ["pagesim:question"]
    assert crawler.stats.get_value("pagesim/response_count") == 1
    assert crawler.stats.get_value("pagesim/label_count/question") == 1


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def opened(**settings: Any) -> tuple[PageSimDownloaderMiddleware, Any]:
    mw, crawler = make_downloader_mw(**settings)
    run(mw.spider_opened(Spider()))
    return mw, crawler


def test_every_page_type_gets_its_label():
    mw, crawler = opened(PAGESIM_HOLD_UNSETTLED=False)  # decided at once: holding is tested below
    for kind in TYPES:
        for number in (2, 3):
            response = html_response(page(kind, number))
            run(mw.process_response(response.request, response))
            assert response.request is not None
            assert response.request.meta[META_KEY]["label"] == kind
    assert crawler.stats.get_value("pagesim/response_count") == 10
    summary = mw.summary()
    assert "10 pages classified" in summary and "question 2 (mean score" in summary


def test_a_classified_response_is_freed_without_the_cyclic_collector():
    """The callback reuses the middleware's parse, and the response (body, text, lxml tree) goes
    as soon as nothing uses it: a crawl that holds a large state runs the cyclic collector
    rarely, and parsed pages kept for it piled up (issue 14)."""
    mw, _ = opened(PAGESIM_HOLD_UNSETTLED=False)  # decided at once: holding is tested below
    response = html_response(page("question", 2))
    run(mw.process_response(response.request, response))
    selector = response.selector
    assert response.css("title::text").get() == selector.css("title::text").get()
    assert selector.response.url == response.url
    assert isinstance(selector.response, HtmlResponse)
    freed = weakref.ref(response)
    gc.disable()
    try:
        del response, selector
        assert freed() is None
    finally:
        gc.enable()


def test_node_budget_applies_to_templates_and_pages_alike():
    # decided at once: holding is tested below
    mw, _ = opened(PAGESIM_MAX_NODES=200, PAGESIM_HOLD_UNSETTLED=False)
    assert mw.options.max_nodes == 200
    templates = run(load_templates(TEMPLATES, options=mw.options))
    assert all(len(t) == 200 for pages in templates.values() for t in pages)
    response = html_response(page("users", 3))
    run(mw.process_response(response.request, response))
    assert response.request is not None
    assert response.request.meta[META_KEY]["label"] == "users"


def test_responses_that_are_not_classified_are_counted_and_untouched():
    mw, crawler = opened(PAGESIM_MAX_BODY_SIZE=50_000)
    url = "http://127.0.0.1/x"
    cases = {
        "not_html": Response(url, body=b"\x89PNG", request=Request(url)),
        "http_status": html_response(page("jobs", 2), status=404),
        "empty": HtmlResponse(url, body=b"   ", request=Request(url)),
        "too_large": html_response(page("jobs", 2)),
    }
    cases["not_html"].request.meta[META_KEY] = {"label": "stale"}  # type: ignore[union-attr]
    for reason, response in cases.items():
        assert run(mw.process_response(response.request, response)) is response
        assert META_KEY not in response.request.meta  # type: ignore[union-attr]
        assert response.flags == []
        assert crawler.stats.get_value(f"pagesim/skipped/{reason}") == 1
    assert crawler.stats.get_value("pagesim/response_count") is None


ODD_BODIES = [
    b"<!-- only a comment -->",
    b"\x00\x00\x00",
    b"<?xml version='1.0' encoding='utf-8'?><html><body><p>x</p></body></html>",
    b"plain text, no tag",
    b"</p>",
    b"\xff\xfe<\x00h\x00t\x00m\x00l\x00>\x00",
    b"<frameset><frame src=a></frameset>",
    b"<html><body>" + b"<b>" * 5000,
]


def test_odd_bodies_are_classified_or_counted_never_raised():
    mw, crawler = opened()
    for body in ODD_BODIES:
        response = HtmlResponse("http://127.0.0.1/odd", body=body, request=Request("http://x/"))
        assert run(mw.process_response(response.request, response)) is response
    stats = crawler.stats.get_stats()
    classified = stats.get("pagesim/response_count", 0)
    skipped = sum(v for k, v in stats.items() if k.startswith("pagesim/skipped/"))
    assert classified + skipped == len(ODD_BODIES)
    assert stats.get("pagesim/skipped/error") is None


def test_dont_pagesim_skips_a_request():
    mw, crawler = opened()
    response = html_response(page("jobs", 2))
    assert response.request is not None
    response.request.meta["dont_pagesim"] = True
    assert run(mw.process_response(response.request, response)) is response
    assert META_KEY not in response.request.meta
    assert crawler.stats.get_value("pagesim/response_count") is None


def test_drop_mode_raises_ignore_request_for_non_targets_only():
    mw, crawler = opened(
        PAGESIM_ACTION="drop", PAGESIM_TARGETS=["tags"], PAGESIM_HOLD_UNSETTLED=False
    )
    target = html_response(page("tags", 2))
    assert run(mw.process_response(target.request, target)) is target
    other = html_response(page("users", 2))
    with pytest.raises(IgnoreRequest, match="not a target page"):
        run(mw.process_response(other.request, other))
    assert crawler.stats.get_value("pagesim/dropped") == 1


def test_drop_mode_holds_a_young_site_s_first_target_page_for_the_second_look():
    """By default the site's first page is decided on its templates' prior alone, before the
    label has a cut of its own: it waits for the second look, recorded, not lost."""
    mw, crawler = opened(PAGESIM_ACTION="drop", PAGESIM_TARGETS=["tags"])
    target = html_response(page("tags", 2))
    with pytest.raises(IgnoreRequest, match="held for the second look"):
        run(mw.process_response(target.request, target))
    assert target.request.meta["pagesim"]["label"] == "tags"
    assert target.request.meta["pagesim"]["held"] is True
    stats = crawler.stats
    assert stats.get_value("pagesim/second_look/held") == 1
    assert stats.get_value("pagesim/second_look/recorded") == 1
    assert mw.second_look is not None and len(mw.second_look) == 1


def test_tag_mode_holds_a_young_site_s_unsettled_pages_and_owes_them_to_the_spider():
    """In tag mode the spider sees every verdict: a young site's first pages, decided on the
    templates' prior, are held whether they pass or not (HeldForSecondLook, an IgnoreRequest
    an errback can tell apart), and the second look gives every one back, passing or not."""
    mw, crawler = opened(PAGESIM_TARGETS=["tags"])
    held = []
    for kind in ("tags", "users"):
        response = html_response(page(kind, 2))
        with pytest.raises(HeldForSecondLook, match="held for the second look"):
            run(mw.process_response(response.request, response))
        assert response.request is not None and response.request.meta["pagesim"]["held"]
        held.append(response.request)
    assert crawler.stats.get_value("pagesim/second_look/held") == 2
    assert mw.second_look is not None
    due = mw.second_look.due()
    assert [request for request, _ in due] == held  # the non-target one too
    assert [verdict.label for _, verdict in due] == ["tags", "users"]


def test_a_crawl_closed_before_it_runs_dry_says_which_held_pages_it_never_delivered(caplog):
    mw, crawler = opened(PAGESIM_ACTION="drop", PAGESIM_TARGETS=["tags"])
    for number in (2, 3):
        target = html_response(page("tags", number))
        with pytest.raises(IgnoreRequest, match="held for the second look"):
            run(mw.process_response(target.request, target))
    with caplog.at_level(logging.WARNING):
        mw.spider_closed(Spider(), "shutdown")
    assert crawler.stats.get_value("pagesim/second_look/held_undelivered") == 2
    assert "2 pages held for the second look never reached the spider" in caplog.text
    assert "(shutdown)" in caplog.text


@pytest.mark.parametrize(
    "limit", [{"CLOSESPIDER_ITEMCOUNT": 100}, {"CLOSESPIDER_TIMEOUT": 3600}, {"JOBDIR": "job"}]
)
def test_no_page_is_held_when_the_crawl_may_stop_before_it_runs_dry(limit, caplog):
    with caplog.at_level(logging.INFO):
        mw, crawler = opened(PAGESIM_ACTION="drop", PAGESIM_TARGETS=["tags"], **limit)
    (name,) = limit
    assert f"{name} may end this crawl before it runs dry" in caplog.text
    target = html_response(page("tags", 2))
    assert run(mw.process_response(target.request, target)) is target
    assert crawler.stats.get_value("pagesim/second_look/held") is None
    assert mw.second_look is not None  # the pages turned away still get their second look


def test_exploration_is_deterministic_per_url():
    urls = [f"http://example.com/page/{i}" for i in range(10_000)]
    assert not any(explore_selected(u, 0.0) for u in urls)
    assert all(explore_selected(u, 1.0) for u in urls)
    share = sum(explore_selected(u, 0.1) for u in urls) / len(urls)
    assert 0.08 < share < 0.12
    assert [explore_selected(u, 0.1) for u in urls] == [explore_selected(u, 0.1) for u in urls]


def test_a_template_that_cannot_be_read_closes_the_spider(tmp_path: Path, caplog):
    empty = tmp_path / "empty.html"
    empty.write_bytes(b"")
    mw, _ = make_downloader_mw(PAGESIM_TEMPLATES={"a": [str(empty)]})
    with caplog.at_level(logging.ERROR), pytest.raises(CloseSpider) as info:
        run(mw.spider_opened(Spider()))
    assert info.value.reason == "pagesim_template_error"
    assert "empty document" in caplog.text and str(empty) in caplog.text
    # a response arriving afterwards is let through, not stuck
    response = html_response(page("jobs", 2))
    assert run(mw.process_response(response.request, response)) is response


# --- templates ----------------------------------------------------------------------------------


def test_template_sources(tmp_path: Path):
    folder = tmp_path / "pages"
    folder.mkdir()
    for number in (1, 2):
        (folder / f"{number}.html").write_bytes(page("tags", number).read_bytes())
    sources = resolve_sources(
        {"tags": [str(folder)], "jobs": [page("jobs", 1).as_uri()], "q": ["https://x.test/q"]}
    )
    assert [s.path.name for s in sources if s.label == "tags" and s.path] == ["1.html", "2.html"]
    assert [s.path for s in sources if s.label == "jobs"] == [page("jobs", 1)]
    assert [s.url for s in sources if s.label == "q"] == ["https://x.test/q"]
    with pytest.raises(TemplateError, match="no such file"):
        resolve_sources({"a": [str(tmp_path / "missing.html")]})
    with pytest.raises(TemplateError, match="need a running crawl"):
        run(load_templates({"q": ["https://x.test/q"]}))
    summaries = run(load_templates({"tags": [str(folder)]}))
    assert len(summaries["tags"]) == 2 and summaries["tags"][0].n_nodes > 100


# --- spider middleware ------------------------------------------------------------------------


async def collect(iterator: Any) -> list[Any]:
    return [obj async for obj in iterator]


async def spider_output(objects: list[Any]) -> Any:
    for obj in objects:
        yield obj


def classified(kind: str, number: int, target: bool) -> TextResponse:
    response = html_response(page(kind, number))
    assert response.request is not None
    response.request.meta[META_KEY] = {"label": kind, "score": 0.9, "target": target}
    return response


def test_spider_middleware_is_used_by_scrapy_as_an_async_output_processor(caplog):
    crawler = get_crawler(
        Spider,
        {"SPIDER_MIDDLEWARES": {PageSimSpiderMiddleware: 950}, "PAGESIM_TEMPLATES": TEMPLATES},
    )
    with caplog.at_level(logging.WARNING):
        manager = SpiderMiddlewareManager.from_crawler(crawler)
    methods = [getattr(m, "__self__", None) for m in manager.methods["process_spider_output"]]
    assert any(isinstance(m, PageSimSpiderMiddleware) for m in methods)
    assert not caplog.records


def test_page_items_and_item_labels():
    crawler = get_crawler(
        Spider,
        {
            "PAGESIM_TEMPLATES": TEMPLATES,
            "PAGESIM_PAGE_ITEMS": True,
            "PAGESIM_ITEM_LABEL_FIELD": "page_type",
        },
    )
    mw = build_from_crawler(PageSimSpiderMiddleware, crawler)
    follow = Request("http://127.0.0.1/next")
    response = classified("tags", 2, target=True)
    out = run(collect(mw.process_spider_output(response, spider_output([{"a": 1}, follow]))))
    assert isinstance(out[0], PageItem)
    assert out[0].label == "tags" and out[0].url == response.url
    assert out[0].html == response.text and out[0].verdict["target"] is True
    assert out[1] == {"a": 1, "page_type": "tags"} and out[2] is follow
    # no page item for a non-target page; unclassified responses pass untouched
    other = classified("jobs", 2, target=False)
    out = run(collect(mw.process_spider_output(other, spider_output([{"b": 2}]))))
    assert out == [{"b": 2, "page_type": "jobs"}]
    plain = html_response(page("jobs", 3))
    assert run(collect(mw.process_spider_output(plain, spider_output([{"c": 3}])))) == [{"c": 3}]


# --- filter pipeline --------------------------------------------------------------------------


def test_filter_pipeline_drops_items_of_non_target_pages():
    crawler = get_crawler(
        Spider,
        {
            "PAGESIM_TEMPLATES": TEMPLATES,
            "PAGESIM_TARGETS": ["tags"],
            "PAGESIM_FILTER_ITEMS": True,
        },
    )
    pipeline = build_from_crawler(PageSimFilterPipeline, crawler)
    mw = build_from_crawler(PageSimSpiderMiddleware, crawler)
    good, bad, start_item = {"n": 1}, {"n": 2}, {"n": 3}
    run(collect(mw.process_spider_output(classified("tags", 2, True), spider_output([good]))))
    run(collect(mw.process_spider_output(classified("jobs", 2, False), spider_output([bad]))))
    assert pipeline.process_item(good) is good
    assert pipeline.process_item(start_item) is start_item  # no page verdict: kept
    with pytest.raises(DropItem) as info:
        pipeline.process_item(bad)
    assert info.value.log_level == "DEBUG" and "non-target page" in str(info.value)
    assert crawler.stats.get_value("pagesim/items_dropped") == 1
    assert len(crawl_state(crawler)) == 0  # nothing left remembered


def test_filter_pipeline_judges_by_label_field():
    crawler = get_crawler(
        Spider,
        {
            "PAGESIM_TEMPLATES": TEMPLATES,
            "PAGESIM_TARGETS": ["tags"],
            "PAGESIM_FILTER_ITEMS": True,
            "PAGESIM_ITEM_LABEL_FIELD": "page_type",
        },
    )
    pipeline = build_from_crawler(PageSimFilterPipeline, crawler)
    assert pipeline.process_item({"page_type": "tags"}) == {"page_type": "tags"}
    assert pipeline.process_item({"other": 1}) == {"other": 1}
    for label in ("jobs", None):
        with pytest.raises(DropItem):
            pipeline.process_item({"page_type": label})


# --- documentation ----------------------------------------------------------------------------


def test_settings_table_in_readme_matches_the_settings_module():
    docs = Path(__file__).resolve().parent.parent / "README.md"
    rows = [
        line.split("|")[1:-1]
        for line in docs.read_text(encoding="utf-8").splitlines()
        if line.startswith("| `PAGESIM_")
    ]
    documented = {cells[0].strip().strip("`"): cells[2].strip() for cells in rows}
    assert list(documented) == [spec.name for spec in SETTINGS]
    for spec in SETTINGS:
        assert str(spec.default).lower().strip("{}[]") in documented[spec.name].lower(), spec.name
