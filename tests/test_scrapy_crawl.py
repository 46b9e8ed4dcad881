"""Real crawls with pagesim against a local HTTP server on 127.0.0.1.

The server runs in a thread of the test process and records every request it gets; each crawl
runs in a fresh Python process (this file run as a script: ``python test_scrapy_crawl.py SPEC
OUT``) with Scrapy's default asyncio reactor and download handlers, exactly as ``scrapy crawl``
would, and writes what it saw (verdicts, flags, items, drops, errbacks, stats, log) as JSON.

Pages: real Stack Overflow pages of 5 types (tests/fixtures/stackoverflow, BSD-3-Clause).
"""

from __future__ import annotations

import gzip
import json
import logging
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "stackoverflow"
TYPES = ("jobs", "newest_questions", "question", "tags", "users")
USER_AGENT = "pagesim-tests/1.0 (+http://127.0.0.1/)"
CRAWL_TIMEOUT = 240


# --------------------------------------------------------------------------------------------
# The local site


@dataclass
class Route:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html"})


@dataclass
class Site:
    """A threaded HTTP server on 127.0.0.1 serving ``routes``; ``seen`` logs every request."""

    routes: dict[str, Route]
    server: ThreadingHTTPServer | None = None
    seen: list[dict[str, Any]] = field(default_factory=list)

    @property
    def base(self) -> str:
        assert self.server is not None
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def url(self, path: str) -> str:
        return self.base + path

    def requests_to(self, path: str) -> list[dict[str, Any]]:
        return [r for r in self.seen if r["path"] == path]


def _handler_for(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            site.seen.append({"path": self.path, "headers": dict(self.headers.items())})
            route = site.routes.get(self.path) or Route(404, b"<html><body>404</body></html>")
            self.send_response(route.status)
            for name, value in route.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(route.body)))
            self.end_headers()
            self.wfile.write(route.body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def serve(routes: dict[str, Route]) -> Iterator[Site]:
    site = Site(routes)
    site.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(site))
    site.server.daemon_threads = True
    thread = threading.Thread(target=site.server.serve_forever, daemon=True)
    thread.start()
    try:
        yield site
    finally:
        site.server.shutdown()
        site.server.server_close()
        thread.join(5)


def so_page(kind: str, number: int) -> bytes:
    return (FIXTURES / kind / f"{number:02d}.html").read_bytes()


def so_routes() -> dict[str, Route]:
    html = {"Content-Type": "text/html; charset=utf-8"}
    return {
        f"/so/{kind}/{n:02d}.html": Route(200, so_page(kind, n), html)
        for kind in TYPES
        for n in (1, 2, 3)
    }


@pytest.fixture
def so_site() -> Iterator[Site]:
    yield from serve(so_routes())


def closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


# --------------------------------------------------------------------------------------------
# Running a crawl in a subprocess


def run_crawl(
    tmp_path: Path,
    settings: dict[str, Any],
    requests: list[dict[str, Any]],
    spider_kwargs: dict[str, Any] | None = None,
) -> dict[str, Any]:
    base = {
        "USER_AGENT": USER_AGENT,
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": "DEBUG",
        "RETRY_TIMES": 1,
        "DOWNLOAD_TIMEOUT": 30,
    }
    spec = {
        "settings": {**base, **settings},
        "requests": requests,
        "spider_kwargs": spider_kwargs or {},
    }
    spec_path, out_path = tmp_path / "spec.json", tmp_path / "out.json"
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, str(Path(__file__)), str(spec_path), str(out_path)],
        capture_output=True,
        text=True,
        timeout=CRAWL_TIMEOUT,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    result: dict[str, Any] = json.loads(out_path.read_text(encoding="utf-8"))
    result["stderr"] = proc.stderr
    return result


def pages(site: Site, kinds: tuple[str, ...] = TYPES, numbers: tuple[int, ...] = (1, 2, 3)):
    return [{"url": site.url(f"/so/{k}/{n:02d}.html"), "kind": k} for k in kinds for n in numbers]


def kind_of(url: str) -> str:
    return url.split("/so/")[1].split("/")[0]


def log_messages(result: dict[str, Any], level: str | None = None) -> list[str]:
    return [r["message"] for r in result["log"] if level is None or r["level"] == level]


def pagesim_stats(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result["stats"].items() if k.startswith("pagesim/")}


EXPLICIT_COMPONENTS = {
    "DOWNLOADER_MIDDLEWARES": {"pagesim_scrapy.middlewares.PageSimDownloaderMiddleware": 545},
    "SPIDER_MIDDLEWARES": {"pagesim_scrapy.middlewares.PageSimSpiderMiddleware": 950},
    "ITEM_PIPELINES": {"pagesim_scrapy.pipelines.filter.PageSimFilterPipeline": 100},
}
ADDON = {"ADDONS": {"pagesim_scrapy.Addon": 0}}


# --------------------------------------------------------------------------------------------
# Tests


def test_tag_mode_labels_every_page_with_templates_fetched_through_the_crawl(
    so_site: Site, tmp_path: Path
):
    templates = {kind: [so_site.url(f"/so/{kind}/01.html")] for kind in TYPES}
    crawled = pages(so_site, numbers=(2, 3))
    skipped = {"url": so_site.url("/so/question/01.html"), "meta": {"dont_pagesim": True}}
    result = run_crawl(
        tmp_path,
        {**EXPLICIT_COMPONENTS, "PAGESIM_TEMPLATES": templates, "PAGESIM_ACTION": "tag"},
        [*crawled, skipped],
    )
    assert result["finish_reason"] == "finished"
    # every template was fetched by the crawl itself: the project's USER_AGENT was sent
    for kind in TYPES:
        hits = so_site.requests_to(f"/so/{kind}/01.html")
        assert hits and all(h["headers"].get("User-Agent") == USER_AGENT for h in hits)
    seen = {page["url"]: page for page in result["seen"]}
    # each page reaches the callback once: a page whose verdict was not settled yet (this
    # site is too small to leave its templates' prior) is held back until the crawl runs dry,
    # and then delivered with the site's final verdict, not twice
    assert len(seen) == len(result["seen"]) == len(crawled) + 1
    stats = pagesim_stats(result)
    held = stats.get("pagesim/second_look/held", 0)
    assert held == stats.get("pagesim/second_look/requested", 0) > 0
    assert stats["pagesim/second_look/replayed"] == held  # from memory, not downloaded again
    held_back = {e["url"] for e in result["errors"] if e["error"] == "HeldForSecondLook"}
    assert len(held_back) == held and held_back <= set(seen)
    assert all(len(so_site.requests_to(urlsplit(url).path)) == 1 for url in held_back)
    for page in crawled:
        verdict = seen[page["url"]]["pagesim"]
        assert verdict["label"] == page["kind"], (page["url"], verdict)
        assert verdict["target"] is True and verdict["method"] == "site"
        assert set(verdict["scores"]) == set(TYPES)
        assert verdict["score"] == max(verdict["scores"].values())
        assert verdict["runner_up"] in TYPES and 0.0 < verdict["margin"] <= 1.0
        assert f"pagesim:{page['kind']}" in seen[page["url"]]["flags"]
        assert seen[page["url"]]["parsed"] is True  # one parse for pagesim and the callback
    # dont_pagesim: no verdict, no flag, not counted
    assert seen[skipped["url"]]["pagesim"] is None
    assert seen[skipped["url"]]["parsed"] is False
    assert not any(f.startswith("pagesim:") for f in seen[skipped["url"]]["flags"])
    # a held page is counted when it is held and again when it is delivered
    assert stats["pagesim/response_count"] == len(crawled) + held
    labelled = sum(v for k, v in stats.items() if k.startswith("pagesim/label_count/"))
    assert labelled + stats.get("pagesim/unmatched", 0) == len(crawled) + held
    assert all(stats[f"pagesim/label_count/{kind}"] >= 2 for kind in TYPES)
    assert "pagesim/dropped" not in stats
    assert stats["pagesim/time_ms"] > 0
    # the flag is in the "Crawled" log line, and the closing paragraph is logged at INFO
    assert any("Crawled (200)" in m and "'pagesim:tags'" in m for m in log_messages(result))
    summary = [m for m in log_messages(result, "INFO") if m.startswith("pagesim summary")]
    assert len(summary) == 1
    assert f"{len(crawled)} pages classified ({held} of them twice: the second look)" in summary[0]
    assert "jobs 2 (mean score" in summary[0]
    # the thresholds in force are the crawled site's own (host and port), not the templates'
    assert f"thresholds: on {urlsplit(so_site.url('/')).netloc} (" in summary[0]
    assert not log_messages(result, "ERROR")
    # templates are not spider pages: they never reach the callback
    assert len(result["items"]) == len(crawled) + 1


def test_drop_mode_drops_non_targets_and_stats_match(so_site: Site, tmp_path: Path):
    # templates from disk this time: a plain path and a file:// URL
    templates: dict[str, list[str]] = {
        kind: [str(FIXTURES / kind / "01.html")] for kind in TYPES if kind != "question"
    }
    templates["question"] = [(FIXTURES / "question" / "01.html").as_uri()]
    crawled = pages(so_site, numbers=(2, 3))
    result = run_crawl(
        tmp_path,
        {
            **ADDON,
            "PAGESIM_TEMPLATES": templates,
            "PAGESIM_TARGETS": ["question"],
            "PAGESIM_ACTION": "drop",
        },
        crawled,
    )
    assert result["finish_reason"] == "finished"
    targets = [p for p in crawled if p["kind"] == "question"]
    others = [p for p in crawled if p["kind"] != "question"]
    assert sorted(p["url"] for p in result["seen"]) == sorted(p["url"] for p in targets)
    assert all(p["pagesim"]["label"] == "question" for p in result["seen"])
    stats = pagesim_stats(result)
    # A site this small never leaves the templates' prior: its target pages are held for the
    # second look (PAGESIM_HOLD_UNSETTLED), turned away first and requested again at the end.
    held = stats.get("pagesim/second_look/held", 0)
    again = stats.get("pagesim/second_look/requested", 0)
    assert held == again == stats.get("pagesim/second_look/kept", 0) == len(targets)
    # every page turned away is accounted for: its errback got IgnoreRequest, or for a held
    # page the IgnoreRequest that says so
    dropped = [e["url"] for e in result["errors"] if e["error"] == "IgnoreRequest"]
    assert sorted(dropped) == sorted(p["url"] for p in others)
    held_back = [e["url"] for e in result["errors"] if e["error"] == "HeldForSecondLook"]
    assert sorted(held_back) == sorted(p["url"] for p in targets)
    assert stats["pagesim/dropped"] == len(others)
    assert stats["pagesim/response_count"] == len(crawled) + again
    labelled = sum(v for k, v in stats.items() if k.startswith("pagesim/label_count/"))
    assert labelled == len(crawled) + again
    assert len(result["items"]) == len(targets)
    assert sum(1 for m in log_messages(result, "DEBUG") if m.startswith("pagesim: dropped")) == len(
        others
    )
    # nothing was fetched over HTTP for the templates
    assert not so_site.requests_to("/so/jobs/01.html")


def test_drop_mode_explore_fraction_and_filter(so_site: Site, tmp_path: Path):
    templates = {kind: [str(FIXTURES / kind / "01.html")] for kind in TYPES}
    crawled = pages(so_site, numbers=(2, 3))
    result = run_crawl(
        tmp_path,
        {
            **ADDON,
            "PAGESIM_TEMPLATES": templates,
            "PAGESIM_TARGETS": ["question", "tags"],
            "PAGESIM_ACTION": "drop",
            "PAGESIM_EXPLORE_FRACTION": 0.5,
            "PAGESIM_FILTER_ITEMS": True,
        },
        crawled,
    )
    stats = pagesim_stats(result)
    others = [p for p in crawled if p["kind"] not in ("question", "tags")]
    explored = [p for p in result["seen"] if p["pagesim"].get("explored")]
    assert explored, "half of the non-target pages should be let through"
    assert all(not p["pagesim"]["target"] for p in explored)
    assert stats["pagesim/explored"] == len(explored)
    assert stats["pagesim/explored"] + stats["pagesim/dropped"] == len(others)
    # explored pages reach the callback, but the filter drops their items
    assert stats["pagesim/items_dropped"] == len(explored)
    assert {i["url"] for i in result["items"]} == {
        p["url"] for p in crawled if p["kind"] in ("question", "tags")
    }
    assert result["stats"]["item_dropped_count"] == len(explored)
    # the second look records the pages turned away (dropped, or held while the site's cut
    # settles), not those let through to explore (the spider has had them): no page reaches
    # the callback twice
    held = stats.get("pagesim/second_look/held", 0)
    assert stats["pagesim/second_look/recorded"] == stats["pagesim/dropped"] + held
    assert stats["pagesim/second_look/looked"] == stats["pagesim/dropped"] + held
    urls = [p["url"] for p in result["seen"]]
    assert len(urls) == len(set(urls))


def test_filter_pipeline_page_items_and_label_field_with_the_addon(so_site: Site, tmp_path: Path):
    templates = {kind: [str(FIXTURES / kind / "01.html")] for kind in TYPES}
    crawled = pages(so_site, numbers=(2, 3))
    result = run_crawl(
        tmp_path,
        {
            **ADDON,
            "PAGESIM_TEMPLATES": templates,
            "PAGESIM_TARGETS": ["users"],
            "PAGESIM_FILTER_ITEMS": True,
            "PAGESIM_PAGE_ITEMS": True,
            "PAGESIM_ITEM_LABEL_FIELD": "page_type",
        },
        crawled,
    )
    assert result["finish_reason"] == "finished"
    stats = pagesim_stats(result)
    # tag mode: every page reaches the callback; a target page held for the second look
    # (this small site never leaves its templates' prior) twice: first as a non-target, its
    # items dropped, then as a target when it is requested again
    held = stats.get("pagesim/second_look/held", 0)
    assert held == stats.get("pagesim/second_look/requested", 0)
    seen = [p["url"] for p in result["seen"]]
    assert sorted(set(seen)) == sorted(p["url"] for p in crawled)
    assert len(seen) == len(crawled) + held
    spider_items = [i for i in result["items"] if i["type"] == "dict"]
    page_items = [i for i in result["items"] if i["type"] == "PageItem"]
    users = {p["url"] for p in crawled if p["kind"] == "users"}
    assert {i["url"] for i in spider_items} == users
    assert all(i["page_type"] == "users" for i in spider_items)
    assert {i["url"] for i in page_items} == users
    for item in page_items:
        assert item["label"] == "users" and item["verdict"]["target"] is True
        assert item["html_length"] > 10_000
    assert stats["pagesim/items_dropped"] == len(crawled) - len(users) + held
    assert len(result["dropped_items"]) == len(crawled) - len(users) + held
    assert all("non-target page" in d["reason"] for d in result["dropped_items"])
    # DropItem at DEBUG level: the page HTML is never dumped into a WARNING
    assert not [m for m in log_messages(result, "WARNING") if "Dropped" in m]


@pytest.mark.parametrize("dead", ["404", "closed_port"])
def test_dead_template_url_stops_the_spider_at_start(so_site: Site, tmp_path: Path, dead: str):
    templates = {kind: [str(FIXTURES / kind / "01.html")] for kind in TYPES}
    if dead == "404":
        bad = so_site.url("/so/missing-template.html")
    else:
        bad = f"http://127.0.0.1:{closed_port()}/template.html"
    templates["question"] = [bad]
    result = run_crawl(
        tmp_path,
        {**ADDON, "PAGESIM_TEMPLATES": templates, "RETRY_TIMES": 0},
        pages(so_site, numbers=(2,)),
    )
    assert result["finish_reason"] == "pagesim_template_error"
    # no page was requested: only the dead template
    assert not result["seen"] and not result["items"]
    assert not [
        r for r in so_site.seen if r["path"].startswith("/so/") and "missing" not in r["path"]
    ]
    errors = log_messages(result, "ERROR")
    assert any("cannot load a template page" in m and bad in m for m in errors), errors
    expected = "HTTP status 404" if dead == "404" else "download failed"
    assert any(expected in m for m in errors), errors


def test_spider_attributes_override_templates_and_targets(so_site: Site, tmp_path: Path):
    result = run_crawl(
        tmp_path,
        {**ADDON, "PAGESIM_TEMPLATES": {"nothing": [str(FIXTURES / "jobs" / "01.html")]}},
        pages(so_site, kinds=("jobs", "users"), numbers=(2,)),
        spider_kwargs={
            "pagesim_templates": {
                "jobs": [str(FIXTURES / "jobs" / "01.html")],
                "users": [str(FIXTURES / "users" / "01.html")],
            },
            "pagesim_targets": ["users"],
        },
    )
    labels = {kind_of(p["url"]): p["pagesim"] for p in result["seen"]}
    assert labels["jobs"]["label"] == "jobs" and labels["jobs"]["target"] is False
    assert labels["users"]["label"] == "users" and labels["users"]["target"] is True


def test_invalid_settings_fail_the_crawl_at_start(so_site: Site, tmp_path: Path):
    result = run_crawl(
        tmp_path,
        {
            **ADDON,
            "PAGESIM_TEMPLATES": {"jobs": [str(FIXTURES / "jobs" / "01.html")]},
            "PAGESIM_METHOD": "no-such-method",
        },
        pages(so_site, kinds=("jobs",), numbers=(2,)),
    )
    assert "PageSimConfigError" in result["crawl_error"]
    assert "PAGESIM_METHOD" in result["crawl_error"]
    assert not so_site.seen


def test_missing_templates_fail_the_crawl_at_start(so_site: Site, tmp_path: Path):
    result = run_crawl(tmp_path, {**ADDON}, pages(so_site, kinds=("jobs",), numbers=(2,)))
    assert "PageSimConfigError" in result["crawl_error"]
    assert any("PAGESIM_TEMPLATES is empty" in m for m in log_messages(result, "ERROR"))
    assert not so_site.seen


# --- bad input ------------------------------------------------------------------------------

PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84"
    b"\x00\x00\x00\x00IEND\xaeB`\x82"
)


def bad_routes() -> dict[str, Route]:
    html = {"Content-Type": "text/html; charset=utf-8"}
    huge = (
        b"<html><body><div>" + b"<p class='x'>filler text</p>" * 740_000 + b"</div></body></html>"
    )
    deep = b"<html><body>" + b"<div>" * 10_000 + b"deep" + b"</div>" * 10_000 + b"</body></html>"
    # bytes that are not UTF-8, under a UTF-8 header, and an unknown charset
    bad_bytes = so_page("question", 2).replace(b"<body", b"<body data-x='\xff\xfe\xc3\x28'", 1)
    bomb = gzip.compress(b"\0" * (64 * 1024 * 1024), 9)
    return {
        **so_routes(),
        "/bad/image.png": Route(200, PNG, {"Content-Type": "image/png"}),
        "/bad/data.json": Route(200, b'{"a": [1, 2]}', {"Content-Type": "application/json"}),
        "/bad/empty.html": Route(200, b"", html),
        "/bad/blank.html": Route(200, b" \n\t ", html),
        "/bad/error.html": Route(500, so_page("jobs", 2), html),
        "/bad/huge.html": Route(200, huge, html),
        "/bad/deep.html": Route(200, deep, html),
        "/bad/bytes.html": Route(200, bad_bytes, html),
        "/bad/charset.html": Route(
            200, so_page("tags", 2), {"Content-Type": "text/html; charset=klingon-42"}
        ),
        "/bad/garbage.html": Route(200, bytes(range(256)) * 64, html),
        "/bad/bomb.html": Route(
            200, bomb, {"Content-Type": "text/html", "Content-Encoding": "gzip"}
        ),
    }


def test_bad_input_never_crashes_and_every_request_is_accounted_for(tmp_path: Path):
    for site in serve(bad_routes()):
        templates = {kind: [str(FIXTURES / kind / "01.html")] for kind in TYPES}
        paths = [p for p in site.routes if p.startswith("/bad/")]
        requests = [{"url": site.url(p)} for p in paths]
        requests.append({"url": site.url("/so/users/02.html")})
        result = run_crawl(
            tmp_path,
            {
                **ADDON,
                "PAGESIM_TEMPLATES": templates,
                "RETRY_ENABLED": False,
                "DOWNLOAD_MAXSIZE": 32 * 1024 * 1024,
                "DOWNLOAD_WARNSIZE": 0,
            },
            requests,
        )
    assert result["finish_reason"] == "finished"
    by_url: dict[str, str] = {}
    for page in result["seen"]:
        by_url[page["url"]] = "callback"
    held_back = set()
    for error in result["errors"]:
        if error["error"] == "HeldForSecondLook":  # its errback first, its callback later
            held_back.add(error["url"])
        else:
            by_url[error["url"]] = error["error"]
    # every request ends in the callback or the errback; no held page is lost
    assert set(by_url) == {r["url"] for r in requests}
    assert all(by_url[url] == "callback" for url in held_back)
    stats = pagesim_stats(result)
    skipped = {k.rsplit("/", 1)[1]: v for k, v in stats.items() if "/skipped/" in k}
    assert skipped.get("not_html") == 2  # the PNG and the JSON
    assert skipped.get("empty") == 2
    assert skipped.get("http_status") == 1
    assert skipped.get("too_large") == 1
    # the 500 response is Scrapy's HttpError; the gzip bomb is refused by Scrapy itself
    assert by_url[site.url("/bad/error.html")] == "HttpError"
    assert by_url[site.url("/bad/bomb.html")] != "callback"
    # deep nesting, broken bytes, unknown charset and binary garbage are classified
    classified = {kind_of(u) if "/so/" in u else u.rsplit("/", 1)[1] for u in by_url}
    assert "deep.html" in classified
    seen = {p["url"]: p for p in result["seen"]}
    for name in ("deep.html", "bytes.html", "charset.html", "garbage.html"):
        verdict = seen[site.url(f"/bad/{name}")]["pagesim"]
        assert verdict is not None and set(verdict["scores"]) == set(TYPES), name
    assert seen[site.url("/bad/bytes.html")]["pagesim"]["label"] == "question"
    assert seen[site.url("/bad/charset.html")]["pagesim"]["label"] == "tags"
    assert seen[site.url("/so/users/02.html")]["pagesim"]["label"] == "users"
    assert stats["pagesim/response_count"] + sum(skipped.values()) == len(result["seen"]) + 1 + len(
        held_back
    )
    assert not log_messages(result, "ERROR"), log_messages(result, "ERROR")
    assert "Traceback" not in result["stderr"]


# --------------------------------------------------------------------------------------------
# The crawl process (this file run as a script)


def _worker(spec_path: str, out_path: str) -> None:
    from scrapy.utils.reactor import install_reactor

    install_reactor("twisted.internet.asyncioreactor.AsyncioSelectorReactor")

    import scrapy
    from scrapy import signals
    from scrapy.crawler import AsyncCrawlerRunner
    from scrapy.utils.defer import deferred_from_coro
    from twisted.internet import reactor

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    records: list[dict[str, Any]] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            message = record.getMessage()
            records.append({"level": record.levelname, "name": record.name, "message": message})

    root = logging.getLogger()
    root.setLevel(logging.DEBUG)
    root.addHandler(Collect(logging.DEBUG))

    class RecordingSpider(scrapy.Spider):
        name = "recording"

        def __init__(self, requests: list[dict[str, Any]], **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.requests = requests
            self.seen: list[dict[str, Any]] = []
            self.errors: list[dict[str, Any]] = []

        async def start(self):  # type: ignore[override]
            for entry in self.requests:
                yield scrapy.Request(
                    entry["url"],
                    meta=dict(entry.get("meta", {})),
                    callback=self.parse,
                    errback=self.failed,
                    dont_filter=True,
                )

        def parse(self, response):  # type: ignore[override]
            self.seen.append(
                {
                    "url": response.url,
                    "status": response.status,
                    "flags": list(response.flags),
                    "pagesim": response.meta.get("pagesim"),
                    "class": type(response).__name__,
                    # parsed by pagesim's middleware already: the callback reuses that parse
                    "parsed": getattr(response, "_cached_selector", None) is not None,
                }
            )
            yield {"url": response.url}

        def failed(self, failure):
            self.errors.append({"url": failure.request.url, "error": failure.type.__name__})

    out: dict[str, Any] = {"items": [], "dropped_items": [], "crawl_error": None}

    def describe(item: Any) -> dict[str, Any]:
        if isinstance(item, dict):
            return {"type": "dict", **item}
        from dataclasses import asdict

        data = asdict(item)
        html = data.pop("html", None)
        return {"type": type(item).__name__, **data, "html_length": len(html or "")}

    def item_scraped(item: Any) -> None:
        out["items"].append(describe(item))

    def item_dropped(item: Any, exception: BaseException) -> None:
        out["dropped_items"].append({"item": describe(item), "reason": str(exception)})

    async def crawl() -> None:
        runner = AsyncCrawlerRunner(spec["settings"])
        crawler = runner.create_crawler(RecordingSpider)
        crawler.signals.connect(item_scraped, signal=signals.item_scraped)
        crawler.signals.connect(item_dropped, signal=signals.item_dropped)
        try:
            await crawler.crawl_async(requests=spec["requests"], **spec["spider_kwargs"])
        except Exception as exc:
            out["crawl_error"] = f"{type(exc).__name__}: {exc}"
        spider = crawler.spider
        out["seen"] = getattr(spider, "seen", [])
        out["errors"] = getattr(spider, "errors", [])
        try:
            stats = crawler.stats.get_stats()
        except Exception:
            stats = {}
        out["stats"] = {
            k: v if isinstance(v, (int, float, str)) else str(v) for k, v in stats.items()
        }
        out["finish_reason"] = stats.get("finish_reason")

    def done(_: Any) -> None:
        out["log"] = records
        Path(out_path).write_text(json.dumps(out), encoding="utf-8")
        reactor.stop()  # type: ignore[attr-defined]

    deferred_from_coro(crawl()).addBoth(done)
    reactor.run()  # type: ignore[attr-defined]


if __name__ == "__main__":
    _worker(sys.argv[1], sys.argv[2])


def test_degenerate_templates_are_named_in_a_warning_and_counted(so_site: Site, tmp_path: Path):
    # the same saved page under two labels, and a saved 404 page as a template
    not_found = tmp_path / "not-found.html"
    not_found.write_text(
        "<html><head><title>404 Not Found</title></head><body><h1>Not Found</h1></body></html>"
    )
    jobs = str(FIXTURES / "jobs" / "01.html")
    result = run_crawl(
        tmp_path,
        {
            **ADDON,
            "PAGESIM_TEMPLATES": {"jobs": [jobs], "listing": [jobs], "gone": [str(not_found)]},
        },
        pages(so_site, kinds=("jobs",), numbers=(2,)),
    )
    assert result["finish_reason"] == "finished"
    warnings = [m for m in log_messages(result, "WARNING") if "template check" in m]
    assert any("duplicate" in m and "jobs" in m and "listing" in m for m in warnings), warnings
    assert any("error_page" in m and "not-found.html" in m for m in warnings), warnings
    stats = pagesim_stats(result)
    assert stats["pagesim/template_warnings/duplicate"] == 1
    assert stats["pagesim/template_warnings/error_page"] == 1
