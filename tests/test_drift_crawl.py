"""The layout-change alarm in real crawls against a local HTTP server on 127.0.0.1.

One server (one site: its port is part of the site key) serves the demo shop's pages; each
crawl runs in its own process (see :mod:`tests.test_scrapy_crawl`) with the same drift file,
as a recurring crawl would. The theme change is one of the drift benchmark's (a gallery added
at the top of the product pages' main content).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from .test_drift import bench
from .test_scrapy_crawl import Route, Site, log_messages, run_crawl, serve

HTML = {"Content-Type": "text/html; charset=utf-8"}
PAGES = 12


LABELS = ("product", "category", "search")


@pytest.fixture(scope="module")
def demo() -> dict[str, list[Path]]:
    return {label: sorted(bench.demo_site()[label]) for label in LABELS}


@pytest.fixture
def shop(demo: dict[str, list[Path]]) -> Iterator[Site]:
    routes = _routes(demo["product"][2 : 2 + PAGES], "item")
    for label in LABELS[1:]:
        routes.update(_routes(demo[label][2 : 2 + PAGES // 2], label))
    yield from serve(routes)


def _routes(pages: list[Path], folder: str, change: Any = None) -> dict[str, Route]:
    routes = {}
    for number, path in enumerate(pages):
        body = path.read_bytes() if change is None else bench.changed_page(path, change)
        routes[f"/{folder}/{number:02d}.html"] = Route(200, body, HTML)
    return routes


def _crawl(
    tmp_path: Path, shop: Site, demo: dict[str, list[Path]], **settings: Any
) -> dict[str, Any]:
    requests = [{"url": shop.url(path)} for path in sorted(shop.routes)]
    base = {
        "DOWNLOADER_MIDDLEWARES": {"pagesim_scrapy.middlewares.PageSimDownloaderMiddleware": 545},
        "PAGESIM_TEMPLATES": {label: [str(p) for p in demo[label][:2]] for label in LABELS},
        "PAGESIM_SECOND_LOOK": False,
        "PAGESIM_DRIFT_FILE": str(tmp_path / "drift.json"),
        "CONCURRENT_REQUESTS": 1,
    }
    return run_crawl(tmp_path, {**base, **settings}, requests)


def _drift_warnings(result: dict[str, Any]) -> list[str]:
    return [m for m in log_messages(result, "WARNING") if m.startswith("pagesim: layout of")]


def _drift_stats(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result["stats"].items() if k.startswith("pagesim/drift/")}


def test_a_changed_layout_warns_in_the_next_crawl_and_an_unchanged_one_does_not(
    shop: Site, demo: dict[str, list[Path]], tmp_path: Path
) -> None:
    first = _crawl(tmp_path, shop, demo)
    assert first["stats"].get("pagesim/label_count/product", 0) >= PAGES - 2
    assert not _drift_warnings(first) and not _drift_stats(first)  # no baseline yet
    assert (tmp_path / "drift.json").is_file()

    again = _crawl(tmp_path, shop, demo)
    assert not log_messages(again, "WARNING") and not _drift_stats(again)
    assert any("product on 127.0.0.1" in m and "unchanged" in m for m in log_messages(again))
    shutil.copy(tmp_path / "drift.json", tmp_path / "before-change.json")

    shop.routes.update(_routes(demo["product"][2 : 2 + PAGES], "item", bench.add_gallery))
    changed = _crawl(tmp_path, shop, demo)
    warnings = _drift_warnings(changed)
    assert len(warnings) == 1, log_messages(changed, "WARNING")
    assert "product" in warnings[0] and "changed" in warnings[0]
    # the evidence names the new part
    assert "new: " in warnings[0] and "section.media-gallery" in warnings[0]
    assert _drift_stats(changed) == {"pagesim/drift/product": 1}
    assert changed["finish_reason"] == "finished"

    closed = _crawl(
        tmp_path,
        shop,
        demo,
        PAGESIM_DRIFT_ACTION="close",
        PAGESIM_DRIFT_FILE=str(tmp_path / "before-change.json"),
    )
    assert closed["finish_reason"] == "pagesim_layout_changed"
    assert len(_drift_warnings(closed)) == 1
    # closed as the change was seen, before the rest of the shop was crawled
    assert len(closed["seen"]) < len(shop.routes)
    # the old look is kept: the next scheduled run fails too, until the change is accepted
    assert (
        _crawl(
            tmp_path,
            shop,
            demo,
            PAGESIM_DRIFT_ACTION="close",
            PAGESIM_DRIFT_FILE=str(tmp_path / "before-change.json"),
        )["finish_reason"]
        == "pagesim_layout_changed"
    )
    assert _drift_stats(closed) == {"pagesim/drift/product": 1}


def test_a_corrupt_drift_file_is_moved_aside_with_one_error(
    shop: Site, demo: dict[str, list[Path]], tmp_path: Path
) -> None:
    (tmp_path / "drift.json").write_text("{not json", encoding="utf-8")
    result = _crawl(tmp_path, shop, demo)
    errors = [m for m in log_messages(result, "ERROR") if "drift looks" in m]
    assert len(errors) == 1, log_messages(result, "ERROR")
    assert result["stats"].get("pagesim/state/corrupt") == 1
    assert (tmp_path / "drift.json.corrupt").is_file()
    assert (tmp_path / "drift.json").is_file()  # written anew at close
    assert result["finish_reason"] == "finished"


def test_an_unknown_drift_action_is_refused() -> None:
    from scrapy.settings import Settings

    from pagesim_scrapy.settings import PageSimConfig, PageSimConfigError

    with pytest.raises(PageSimConfigError, match="PAGESIM_DRIFT_ACTION"):
        PageSimConfig.from_settings(Settings({"PAGESIM_DRIFT_ACTION": "repair"}))
    config = PageSimConfig.from_settings(Settings({"PAGESIM_DRIFT_ACTION": " Close "}))
    assert config.drift_action == "close" and config.drift_enabled


def test_a_redesign_that_leaves_the_pages_unlabelled_warns(
    shop: Site, demo: dict[str, list[Path]], tmp_path: Path
) -> None:
    first = _crawl(tmp_path, shop, demo)
    assert not _drift_warnings(first)
    # every class of the product pages' main content renamed: they match no template now
    shop.routes.update(_routes(demo["product"][2 : 2 + PAGES], "item", bench.rename_classes))
    changed = _crawl(tmp_path, shop, demo, PAGESIM_REPORT=str(tmp_path / "report.html"))
    assert changed["stats"].get("pagesim/label_count/product", 0) <= 1
    warnings = _drift_warnings(changed)
    assert len(warnings) == 1, log_messages(changed, "WARNING")
    assert "layout of product" in warnings[0] and "changed" in warnings[0]
    assert "share of the site's pages fell" in warnings[0]
    assert _drift_stats(changed) == {"pagesim/drift/product": 1}
    # the crawl report's section: the evidence, both looks' pages, proposed example pages
    report = (tmp_path / "report.html").read_text(encoding="utf-8")
    section = report[report.index("<h2>Layout changes</h2>") :]
    assert "product on 127.0.0.1" in section and "changed (confidence" in section
    assert "Structure gone" in section and "Structure new" in section
    assert "Example pages before" in section and "Example pages now" in section
    snippet = section[section.index("PAGESIM_TEMPLATES") : section.index("</pre>")]
    assert "&#x27;product&#x27;: [" in snippet and shop.url("/item/") in snippet


def test_relearn_drops_the_wrapper_of_a_changed_label_once(
    shop: Site, demo: dict[str, list[Path]], tmp_path: Path
) -> None:
    induction = {
        "ADDONS": {"pagesim_scrapy.Addon": 0},
        "PAGESIM_PAGE_ITEMS": True,
        "PAGESIM_INDUCTION_ENABLED": True,
        "PAGESIM_INDUCTION_DIR": str(tmp_path / "wrappers"),
        "PAGESIM_DRIFT_ACTION": "relearn",
    }
    first = _crawl(tmp_path, shop, demo, **induction)
    assert not _drift_warnings(first)
    learned = [i for i in _page_items(first, "product") if i["verdict"]["induction"]["pages"]]
    stored = max(i["verdict"]["induction"]["pages"] for i in learned)
    assert stored >= PAGES - 2

    shop.routes.update(_routes(demo["product"][2 : 2 + PAGES], "item", bench.add_gallery))
    changed = _crawl(tmp_path, shop, demo, **induction)
    warnings = _drift_warnings(changed)
    assert len(warnings) == 1, log_messages(changed, "WARNING")
    assert "changed" in warnings[0] and "relearns from the new pages" in warnings[0]
    assert changed["finish_reason"] == "finished"
    assert any("wrapper of 'product' relearns" in m for m in log_messages(changed, "INFO"))
    pages = [i["verdict"]["induction"]["pages"] for i in _page_items(changed, "product")]
    # the stored wrapper first (it grows), then a fresh one learned from the new pages only
    # (held until it is ready, so its items show the pages it had then)
    drop = next(n for n, (a, b) in enumerate(pairwise(pages)) if b < a)
    assert pages[drop] > stored, pages
    assert all(n <= len(pages) - drop - 1 for n in pages[drop + 1 :]), pages


def _page_items(result: dict[str, Any], label: str) -> list[dict[str, Any]]:
    return [i for i in result["items"] if i["type"] == "PageItem" and i["label"] == label]


def drop_sku_and_stock(root: Any) -> None:
    """A theme change that keeps the product page's look but drops its SKU and its stock
    line (the rating summary's count is no record field: the record leaves it out as chrome)."""
    for element in root.xpath('//*[@class="sku" or @class="stock"]'):
        element.getparent().remove(element)


def _field_warnings(result: dict[str, Any]) -> list[str]:
    return [m for m in log_messages(result, "WARNING") if "finds other fields" in m]


def test_a_wrapper_whose_field_disappeared_warns_in_the_next_crawl(
    shop: Site, demo: dict[str, list[Path]], tmp_path: Path
) -> None:
    induction = {
        "ADDONS": {"pagesim_scrapy.Addon": 0},
        "PAGESIM_PAGE_ITEMS": True,
        "PAGESIM_INDUCTION_ENABLED": True,
        "PAGESIM_INDUCTION_DIR": str(tmp_path / "wrappers"),
        "PAGESIM_REPORT": str(tmp_path / "report.html"),
    }
    first = _crawl(tmp_path, shop, demo, **induction)
    assert not _field_warnings(first)
    again = _crawl(tmp_path, shop, demo, **induction)
    assert not _field_warnings(again), log_messages(again, "WARNING")
    assert not [k for k in again["stats"] if k.startswith("pagesim/drift/field/")]

    shop.routes.update(_routes(demo["product"][2 : 2 + PAGES], "item", drop_sku_and_stock))
    changed = _crawl(tmp_path, shop, demo, **induction)
    warnings = _field_warnings(changed)
    assert len(warnings) == 1, log_messages(changed, "WARNING")
    assert "the wrapper of product on 127.0.0.1" in warnings[0]
    # the stock line's field (named by the wrapper from the node it reads) is no longer found
    assert re.search(r"stock\w*: found on \d+% of the pages before, 0% now", warnings[0])
    fields = {k: v for k, v in changed["stats"].items() if k.startswith("pagesim/drift/field/")}
    assert fields and all(k.startswith("pagesim/drift/field/product/") for k in fields), fields
    assert any("stock" in k for k in fields) and set(fields.values()) == {1}, fields
    report = (tmp_path / "report.html").read_text(encoding="utf-8")
    section = report[report.index("<h2>Layout changes</h2>") :]
    assert "product on 127.0.0.1" in section and "<code>field stock" in section
