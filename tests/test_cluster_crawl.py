"""OnlineDiscovery in a real Scrapy crawl against a local HTTP server on 127.0.0.1.

A spider follows the links of an index page and hands every response to the discovery the way
the downloader middleware will: the summary is built from the response's own parsed selector
(no second parse). The crawl runs in a fresh Python process (this file run as a script), as
``scrapy crawl`` would, and reports what the discovery assigned. A second crawl loads the
representatives the first one saved.

Pages: real Stack Overflow pages of 5 types (tests/fixtures/stackoverflow, BSD-3-Clause).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures" / "stackoverflow"
TYPES = ("jobs", "newest_questions", "question", "tags", "users")
CRAWL_TIMEOUT = 240


def _routes() -> dict[str, bytes]:
    routes = {
        f"/so/{kind}/{n:02d}.html": (FIXTURES / kind / f"{n:02d}.html").read_bytes()
        for kind in TYPES
        for n in (1, 2, 3)
    }
    links = "".join(
        f'<li><a href="/so/{kind}/{n:02d}.html">{kind} {n}</a></li>'
        for n in (1, 2, 3)
        for kind in TYPES
    )
    routes["/"] = f"<html><body><ul>{links}</ul></body></html>".encode()
    return routes


@pytest.fixture
def site() -> Iterator[str]:
    routes = _routes()

    from tests.route_server import serve_routes  # not in the crawl's own process

    with serve_routes(routes) as url:
        yield url


def crawl(tmp_path: Path, start: str, save: Path, load: Path | None) -> dict[str, Any]:
    spec = {"start": start, "save": str(save), "load": str(load) if load else None}
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
    return result


def kind_of(url: str) -> str:
    return url.split("/so/")[1].split("/")[0]


def test_discovery_during_a_crawl(site: str, tmp_path: Path) -> None:
    saved = tmp_path / "discovered.json"
    first = crawl(tmp_path, site + "/", saved, None)
    assigned = first["assigned"]
    assert len(assigned) == 15 + 1  # the index page is a page type of its own
    labels_by_kind: dict[str, set[str]] = {}
    for url, (label, score, _) in assigned.items():
        assert label is not None and 0.0 <= score <= 1.0
        if "/so/" in url:
            labels_by_kind.setdefault(kind_of(url), set()).add(label)
    assert all(len(labels) == 1 for labels in labels_by_kind.values())
    assert len({next(iter(v)) for v in labels_by_kind.values()}) == 5
    assert first["clusters"] == 6
    assert sum(is_new for _, _, is_new in assigned.values()) == 6

    # the snippet points at pages of the crawl, ready for PAGESIM_TEMPLATES
    namespace: dict[str, Any] = {}
    exec(first["snippet"], namespace)
    templates = namespace["PAGESIM_TEMPLATES"]
    for label, urls in templates.items():
        assert all(url.startswith(site) for url in urls)
        kinds = {kind_of(url) for url in urls if "/so/" in url}
        assert len(kinds) <= 1, (label, urls)

    # a second crawl continues with the saved types: same labels, nothing new
    second = crawl(tmp_path, site + "/", tmp_path / "again.json", saved)
    assert second["clusters"] == 6
    for url, (label, _, is_new) in second["assigned"].items():
        assert label == assigned[url][0] and not is_new


# --------------------------------------------------------------------------------------------
# The crawl process


def _worker(spec_path: str, out_path: str) -> None:
    import scrapy
    from scrapy import signals
    from scrapy.crawler import CrawlerProcess

    from pagesim_scrapy.core.cluster import OnlineDiscovery
    from pagesim_scrapy.core.summary import summarize_tree

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    discovery = (
        OnlineDiscovery.load(spec["load"]) if spec["load"] else OnlineDiscovery(max_clusters=50)
    )
    assigned: dict[str, Any] = {}

    class DiscoverySpider(scrapy.Spider):
        name = "discovery"

        async def start(self):  # type: ignore[override]
            yield scrapy.Request(spec["start"])

        @classmethod
        def from_crawler(cls, crawler, *args, **kwargs):  # type: ignore[no-untyped-def]
            spider = super().from_crawler(crawler, *args, **kwargs)
            crawler.signals.connect(spider.closed_save, signal=signals.spider_closed)
            return spider

        def parse(self, response):  # type: ignore[no-untyped-def]
            summary = summarize_tree(response.selector.root, source=response.url)
            label, score, is_new = discovery.assign(
                summary, source=response.url, html=response.text
            )
            assigned[response.url] = [label, score, is_new]
            if response.url == spec["start"]:  # the index; the pages' own links lead off-site
                yield from response.follow_all(css="a::attr(href)", callback=self.parse)

        def closed_save(self, spider: scrapy.Spider) -> None:
            discovery.save(spec["save"])

    process = CrawlerProcess(
        {
            "TELNETCONSOLE_ENABLED": False,
            "ROBOTSTXT_OBEY": False,
            "LOG_LEVEL": "WARNING",
            "CONCURRENT_REQUESTS": 4,
            "RETRY_ENABLED": False,
        }
    )
    process.crawl(DiscoverySpider)
    process.start()
    result = {
        "assigned": assigned,
        "clusters": len(discovery),
        "snippet": discovery.templates_snippet(),
    }
    Path(out_path).write_text(json.dumps(result), encoding="utf-8")


if __name__ == "__main__":
    _worker(sys.argv[1], sys.argv[2])
