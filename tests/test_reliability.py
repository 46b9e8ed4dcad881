"""Reliability (issue 14): hostile saved state, hostile pages, interrupted saves, long crawls.

* Saved state files (wrappers, discovered types): a generated set of hostile files — the issue's
  reproducers, truncations and mutations of real saved files — goes through the loaders the
  crawl uses; each one either loads into something usable or is moved aside and reported as
  :class:`CorruptStateError`, never another exception. Real crawls show that items survive a
  corrupt file and that the file is moved aside once, with one ERROR and a stat.
* Hostile pages (a control character in a link, JSON-LD nested 1,500 deep, a broken
  ``<base href>``, ``charset=idna`` bytes) through the real induction pipeline: every item comes
  out, with an empty record and a reason, and the label's wrapper is untouched.
* Temporary files of a killed save are removed at the next start (foreign files are not).
* Discovery saves keep ``max_nodes``: a round trip keeps types that have no stored HTML.
* ``TemplateClassifier.observe`` re-splits every 50 pages past its 2,000-score window.

Crawls run in a fresh Python process (this file run as a script: ``python test_reliability.py
SPEC OUT``) against a threaded HTTP server on 127.0.0.1 with an ephemeral port.
"""

from __future__ import annotations

import json
import logging
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.test_induce_core import pages as recipe_pages  # noqa: E402
from tests.test_induce_core import recipe_page  # noqa: E402
from tests.test_induce_pipeline import TITLES, _serve  # noqa: E402

CRAWL_TIMEOUT = 180
DEEP = 100_000


# --------------------------------------------------------------------------------------------
# helpers


def dead_pid() -> int:
    """The id of a process that has ended (a save killed with -9 leaves such a pid behind)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def real_wrapper_json() -> str:
    from pagesim_scrapy.core.induce import induce

    return induce([p.encode() for p in recipe_pages(4)], label="recipe").to_json()


def real_discovery_json(tmp: Path) -> str:
    """A discovery file as a crawl saves it (the crawl's summary options; 5 Stack Overflow page
    types, one with its HTML stored)."""
    from scrapy.settings import Settings

    from pagesim_scrapy.core.cluster import OnlineDiscovery
    from pagesim_scrapy.core.summary import summarize
    from pagesim_scrapy.settings import PageSimConfig
    from tests.test_scrapy_crawl import TYPES, so_page

    options = PageSimConfig.from_settings(Settings()).summary_options()
    discovery = OnlineDiscovery(options=options)
    for n, kind in enumerate(TYPES):
        html = so_page(kind, 1).decode("utf-8", "replace")
        discovery.assign(summarize(html, options), source=f"http://x/{kind}", html=None)
        if n == 0:
            discovery.assign(summarize(html, options), source="http://x/again", html=html)
    path = tmp / "d.json"
    discovery.save(path)
    return path.read_text(encoding="utf-8")


def check_wrapper_file(directory: Path, content: bytes) -> str:
    """Write ``content`` as a stored wrapper and load it the way the pipeline does: it must load
    into a usable wrapper, or be moved aside with CorruptStateError. Returns what happened."""
    from pagesim_scrapy.core.induce import Wrapper
    from pagesim_scrapy.core.statefile import CorruptStateError
    from pagesim_scrapy.pipelines.induction import JsonFileWrapperStore

    store = JsonFileWrapperStore(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = store.path_for("recipe")
    path.write_bytes(content)
    try:
        wrapper = store.load("recipe")
    except CorruptStateError as exc:
        assert exc.path == path and exc.moved_to == path.with_name("recipe.json.corrupt")
        assert not path.exists() and exc.moved_to.read_bytes() == content
        assert str(path) in str(exc) and exc.reason
        return "corrupt"
    assert isinstance(wrapper, Wrapper)
    if wrapper.pages:  # usable: it extracts (or says why not) without raising
        wrapper.extract(recipe_pages(5)[4])
    wrapper.to_json()
    return "loaded"


def check_discovery_file(directory: Path, content: bytes, reason: str = "") -> str:
    """Write ``content`` as the discovery file and load it with the downloader middleware's own
    loader (built by Scrapy's crawler utilities): it loads into a usable discovery, or it is
    moved aside with one ERROR naming it and ``pagesim/state/corrupt``."""
    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.core.summary import summarize
    from pagesim_scrapy.middlewares import PageSimDownloaderMiddleware

    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "discovery.json"
    path.write_bytes(content)
    crawler = get_crawler(settings_dict={"PAGESIM_DISCOVERY_ENABLED": True})
    crawler.stats.open_spider()
    middleware = PageSimDownloaderMiddleware.from_crawler(crawler)
    arguments = {"method": "combined", "threshold": None, "options": middleware.options}
    logger = logging.getLogger("pagesim_scrapy.middlewares")
    errors: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.ERROR:
                errors.append(record.getMessage())

    handler = Collect()
    logger.addHandler(handler)
    try:
        discovery = middleware._load_discovery(path, arguments)
    finally:
        logger.removeHandler(handler)
    if discovery is None:
        moved = path.with_name("discovery.json.corrupt")
        assert not path.exists() and moved.read_bytes() == content
        assert crawler.stats.get_value("pagesim/state/corrupt") == 1
        assert len(errors) == 1 and str(path) in errors[0] and reason in errors[0], errors
        return "corrupt"
    assert not errors and crawler.stats.get_value("pagesim/state/corrupt") is None
    discovery.assign(summarize(recipe_pages(1)[0], middleware.options))  # usable
    discovery.save(path)
    return "loaded"


# --------------------------------------------------------------------------------------------
# 1. hostile saved state files


WRAPPER_REPRODUCERS: dict[str, bytes] = {
    "pages 1e400": b'{"format":"pagesim-wrapper","version":1,"pages":1e400}',
    "pages NaN": b'{"format":"pagesim-wrapper","version":1,"pages":NaN}',
    "pages with 5000 digits": b'{"format":"pagesim-wrapper","version":1,"pages":1' + b"0" * 5000
    + b"}",
    "100k-deep arrays": b"[" * DEEP + b"]" * DEEP,
    "100k-deep nodes": b'{"format":"pagesim-wrapper","version":1,"nodes":' + b"[" * DEEP
    + b"]" * DEEP + b"}",
    "samples nested 500 deep": json.dumps(
        {"format": "pagesim-wrapper", "version": 1, "pages": 1,
         "nodes": [{"k": "t", "s": "#text", "n": 1, "c": 0, "x": [[[[[[[[["a"]]]]]]]]] * 500}]}
    ).encode(),
    "docs 1e400": b'{"format":"pagesim-wrapper","version":1,"docs":[1e400]}',
    "child count past the list": b'{"format":"pagesim-wrapper","version":1,"pages":1,'
    b'"nodes":[{"k":"e","s":"html","n":1,"c":99999999999}]}',
    "version true": b'{"format":"pagesim-wrapper","version":true,"pages":0}',
    "label an object": b'{"format":"pagesim-wrapper","version":1,"label":{"a":1}}',
    "lambda out of range": b'{"format":"pagesim-wrapper","version":1,"lambda":7}',
    "node a list": b'{"format":"pagesim-wrapper","version":1,"pages":1,"nodes":[[1]]}',
    "kv short": b'{"format":"pagesim-wrapper","version":1,"pages":1,"nodes":'
    b'[{"k":"e","s":"html","n":1,"c":0,"kv":{"a":[1]}}]}',
    "not utf-8": b'{"format":"pagesim-wrapper","version":1,"label":"\xff\xfe"}',
    "empty": b"",
    "a list": b"[]",
}  # fmt: skip


@pytest.mark.parametrize("name", list(WRAPPER_REPRODUCERS))
def test_hostile_wrapper_files_are_moved_aside(name: str, tmp_path: Path):
    assert check_wrapper_file(tmp_path / "w", WRAPPER_REPRODUCERS[name]) == "corrupt"


DISCOVERY_REPRODUCERS: dict[str, tuple[Any, str]] = {
    "max_depth -1": (lambda d: d["summary_options"].update(max_depth=-1), "max_depth"),
    "max_nodes 0": (lambda d: d["summary_options"].update(max_nodes=0), "max_nodes"),
    "skip_tags a number": (lambda d: d["summary_options"].update(skip_tags=5), "skip_tags"),
    "options a list": (lambda d: d.update(summary_options=[1]), "summary options"),
    "threshold a string": (lambda d: d["settings"].update(threshold="x"), "threshold"),
    "max_clusters 0": (lambda d: d["settings"].update(max_clusters=0), "max_clusters"),
    "clusters an object": (lambda d: d.update(clusters={"a": 1}), "clusters"),
    "version 0": (lambda d: d.update(version=0), "version"),
}


@pytest.mark.parametrize("name", list(DISCOVERY_REPRODUCERS))
def test_hostile_discovery_files_are_moved_aside(name: str, tmp_path: Path):
    document = json.loads(real_discovery_json(tmp_path))
    mutate, reason = DISCOVERY_REPRODUCERS[name]
    mutate(document)
    content = json.dumps(document).encode()
    assert check_discovery_file(tmp_path / "d", content, reason) == "corrupt"


@pytest.mark.parametrize(
    "content",
    [
        b"[" * DEEP + b"]" * DEEP,
        b'{"format":"pagesim-discovery","version":1,"clusters":' + b"[" * DEEP + b"]" * DEEP + b"}",
        b'{"format":"pagesim-discovery","version":1,"settings":{"threshold":1e400}}',
    ],
    ids=["100k-deep", "100k-deep clusters", "threshold 1e400"],
)
def test_deep_and_infinite_discovery_files_are_moved_aside(content: bytes, tmp_path: Path):
    reason = "RecursionError" if b"[[[" in content else "out of range"
    assert check_discovery_file(tmp_path / "d", content, reason) == "corrupt"


def test_broken_representatives_are_skipped_not_loaded(tmp_path: Path, caplog):
    """Inside a sound file, a representative with impossible content is skipped (a warning),
    never loaded to fail later in the crawl."""
    document = json.loads(real_discovery_json(tmp_path))
    clusters = document["clusters"]
    assert len(clusters) >= 4
    clusters[0]["summary"]["bfs"]["rsn"][0] = 2**40  # not a code
    clusters[1]["summary"]["level_starts"] = [0, 10**9]  # levels that do not match the parents
    # not a number, though str.isdigit() says so: loaded, and numbering goes on
    clusters[2]["label"] = "cluster-" + "²" * 3
    del clusters[3]["summary"]["bfs"]["csr"]
    with caplog.at_level(logging.WARNING):
        result = check_discovery_file(tmp_path / "d", json.dumps(document).encode())
    assert result == "loaded"
    saved = json.loads((tmp_path / "d" / "discovery.json").read_text())
    labels = {c["label"] for c in saved["clusters"]}
    # the one sound representative, and the type the new page founded
    assert clusters[2]["label"] in labels and len(labels) == len(clusters) - 3 + 1
    assert caplog.text.count("skipping representative") == 3


NUMBER_REPLACEMENTS = [
    "1e400", "-1", "-1e400", "99999999999999999999", "0.5", "true", "null", '"x"', "[]", "{}",
    "[" * 2000 + "]" * 2000,
]  # fmt: skip


NUMBER_REPLACEMENTS = [
    "1e400", "-1", "-1e400", "99999999999999999999", "0.5", "true", "null", '"x"', "[]", "{}",
    "[" * 2000 + "]" * 2000,
]  # fmt: skip


def _mutations(text: str) -> st.SearchStrategy[bytes]:
    data = text.encode("utf-8")
    truncated = st.integers(0, len(data) - 1).map(lambda n: data[:n])

    def flip(args: tuple[int, int]) -> bytes:
        at, byte = args
        return data[:at] + bytes([byte]) + data[at + 1 :]

    flipped = st.tuples(st.integers(0, len(data) - 1), st.integers(0, 255)).map(flip)
    numbers = [m for m in range(len(text)) if text[m].isdigit() and not text[m - 1].isdigit()]

    def number(args: tuple[int, str]) -> bytes:
        at, value = args
        end = at
        while end < len(text) and text[end].isdigit():
            end += 1
        return (text[:at] + value + text[end:]).encode("utf-8")

    replaced = st.tuples(
        st.sampled_from(numbers),
        st.sampled_from(NUMBER_REPLACEMENTS),
    ).map(number)
    cut = st.tuples(st.integers(0, len(data) - 1), st.integers(1, 400)).map(
        lambda a: data[: a[0]] + data[a[0] + a[1] :]
    )
    return st.one_of(truncated, flipped, replaced, cut)


WRAPPER_TEXT = real_wrapper_json()


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(_mutations(WRAPPER_TEXT))
def test_mutated_real_wrapper_files_load_or_are_moved_aside(content: bytes):
    with tempfile.TemporaryDirectory() as folder:
        assert check_wrapper_file(Path(folder) / "w", content) in ("loaded", "corrupt")


with tempfile.TemporaryDirectory() as _folder:
    DISCOVERY_TEXT = real_discovery_json(Path(_folder))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(_mutations(DISCOVERY_TEXT))
def test_mutated_real_discovery_files_load_or_are_moved_aside(content: bytes):
    with tempfile.TemporaryDirectory() as folder:
        assert check_discovery_file(Path(folder) / "d", content) in ("loaded", "corrupt")


def test_moving_aside_never_overwrites_an_earlier_corrupt_file(tmp_path: Path):
    from pagesim_scrapy.core.statefile import CorruptStateError
    from pagesim_scrapy.pipelines.induction import JsonFileWrapperStore

    store = JsonFileWrapperStore(tmp_path)
    path = store.path_for("recipe")
    contents = [b"{", b"[" * DEEP, b'{"format":"pagesim-wrapper","version":1,"pages":-1}']
    for content in contents:
        path.write_bytes(content)
        with pytest.raises(CorruptStateError):
            store.load("recipe")
    names = ["recipe.json.corrupt", "recipe.json.corrupt.1", "recipe.json.corrupt.2"]
    assert [(tmp_path / name).read_bytes() for name in names] == contents
    assert store.load("recipe") is None  # nothing left to load: fresh state


# --------------------------------------------------------------------------------------------
# crawls: the induction pipeline with corrupt state and hostile pages


def crawl(tmp_path: Path, urls: list[str], settings: dict[str, Any], raw: tuple[str, ...] = ()):
    base = {
        "TELNETCONSOLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": "INFO",
        "ITEM_PIPELINES": {"pagesim_scrapy.pipelines.induction.TemplateInductionPipeline": 300},
        "PAGESIM_INDUCTION_ENABLED": True,
        "PAGESIM_INDUCTION_DIR": str(tmp_path / "wrappers"),
        "CONCURRENT_REQUESTS": 4,
    }
    spec = {"settings": {**base, **settings}, "urls": urls, "raw": list(raw)}
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


def messages(result: dict[str, Any], level: str) -> list[str]:
    return [r["message"] for r in result["log"] if r["level"] == level]


def recipe_routes() -> dict[str, bytes]:
    rng = random.Random(3)
    return {
        f"/recipes/{k}.html": recipe_page(rng, TITLES[k], 3 + k, rating=k + 1).encode()
        for k in range(6)
    }


@pytest.fixture
def recipes() -> Iterator[tuple[str, dict[str, bytes]]]:
    routes = recipe_routes()
    for base in _serve(routes):
        yield base, routes


def test_a_corrupt_wrapper_file_costs_no_item_and_is_moved_aside_once(
    recipes: tuple[str, dict[str, bytes]], tmp_path: Path
):
    base, routes = recipes
    urls = [base + path for path in routes]
    folder = tmp_path / "wrappers"
    folder.mkdir()
    stored = folder / "recipe.json"
    reproducer = b'{"format":"pagesim-wrapper","version":1,"pages":1e400}'
    stored.write_bytes(reproducer)
    # an orphan of a save killed with -9, and files that are not ours
    pid = dead_pid()
    orphan = folder / f".recipe.json.{pid}.140000000000.tmp"
    orphan.write_text("{half a wrap")
    foreign = [folder / "notes.tmp", folder / f".recipe.json.{pid}.x.tmp", folder / "a.json.tmp"]
    for path in foreign:
        path.write_text("not ours")

    result = crawl(tmp_path, urls, {"PAGESIM_INDUCTION_MIN_PAGES": 3})
    assert result["crawl_error"] is None and result["finish_reason"] == "finished"
    items = [i for i in result["items"] if i["type"] == "PageItem"]
    assert len(items) == len(urls)
    assert all(i["record"]["name"] in TITLES for i in items), items
    stats = result["stats"]
    assert stats["pagesim/state/corrupt"] == 1
    assert stats["pagesim/induction/errors/load"] == 1
    assert stats["pagesim/induction/learned/recipe"] == len(urls)
    assert stats["pagesim/state/stale_temp_removed"] == 1
    assert not orphan.exists() and all(path.exists() for path in foreign)
    errors = messages(result, "ERROR")
    assert len(errors) == 1 and str(stored) in errors[0] and "pages" in errors[0], errors
    assert (folder / "recipe.json.corrupt").read_bytes() == reproducer
    assert json.loads(stored.read_text())["pages"] == len(urls)  # a fresh wrapper, saved

    # the next crawl with another corrupt file keeps the first one moved aside
    stored.write_bytes(b"[" * DEEP + b"]" * DEEP)
    again = crawl(tmp_path, urls, {"PAGESIM_INDUCTION_MIN_PAGES": 3})
    assert len([i for i in again["items"] if i["type"] == "PageItem"]) == len(urls)
    assert again["stats"]["pagesim/state/corrupt"] == 1
    assert (folder / "recipe.json.corrupt").read_bytes() == reproducer
    assert (folder / "recipe.json.corrupt.1").read_bytes() == b"[" * DEEP + b"]" * DEEP
    assert any("RecursionError" in m for m in messages(again, "ERROR"))


def hostile_pages() -> dict[str, bytes]:
    rng = random.Random(9)
    page = recipe_page(rng, "Hostile Pie", 4)
    jsonld = '{"@type": "Recipe", "x": ' * 1500 + "1" + "}" * 1500
    return {
        "/hostile/control.html": page.replace("/u/", "p\x01/u/").encode(),
        "/hostile/jsonld.html": page.replace(
            "</head>", f'<script type="application/ld+json">{jsonld}</script></head>'
        ).encode(),
        "/hostile/base.html": page.replace("</head>", '<base href="http://[::1"></head>').encode(),
        "/raw/idna.html": page.replace("<head>", '<head><meta charset="idna">').encode(),
    }


def test_hostile_pages_keep_their_items_with_a_reason(tmp_path: Path):
    routes = {**recipe_routes(), **hostile_pages()}
    for base in _serve(routes):
        urls = [base + path for path in routes]
        # Scrapy's own MetaRefreshMiddleware fails on the broken <base href> before any
        # pipeline sees the page: off, so that the page reaches the pipeline as a spider of
        # another kind (or a user's own PageItem) would give it
        custom = {"PAGESIM_INDUCTION_MIN_PAGES": 3, "METAREFRESH_ENABLED": False}
        result = crawl(tmp_path, urls, custom, raw=("/raw/",))
        assert result["crawl_error"] is None and result["finish_reason"] == "finished"
        items = {i["url"][len(base) :]: i for i in result["items"] if i["type"] == "PageItem"}
        assert sorted(items) == sorted(routes)  # no item lost
        stats = result["stats"]
        assert "item_scraped_count" in stats and "spider_exceptions" not in str(stats)
        # every hostile page is learned now; the 1,500-deep JSON-LD block alone is skipped,
        # named in a WARNING and counted (issue 30)
        assert "pagesim/induction/errors/parse" not in stats
        assert stats.get("pagesim/induction/parts_skipped/jsonld_too_deep", 0) >= 1
        # (how many pages a label learns depends on when it became ready, not on these pages)
        assert stats["pagesim/induction/learned/recipe"] >= len(recipe_routes())
        warnings = "\n".join(messages(result, "WARNING"))
        assert base + "/hostile/jsonld.html" in warnings
        for path in hostile_pages():
            assert "Hostile Pie" in json.dumps(items[path]["record"]), (path, items[path]["record"])
        for path in recipe_routes():
            assert items[path]["record"]["name"] in TITLES
        assert not messages(result, "ERROR")


def test_a_failing_page_leaves_the_wrapper_untouched():
    """The real pipeline object, built by Scrapy's crawler utilities: learning and extracting a
    hostile page give a reason and leave the label's wrapper exactly as it was."""
    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

    crawler = get_crawler(settings_dict={"PAGESIM_INDUCTION_ENABLED": True})
    pipeline = TemplateInductionPipeline.from_crawler(crawler)
    state = pipeline._label("recipe")
    for k, page in enumerate(recipe_pages(4)):
        assert pipeline._learn(state, page, f"http://x/{k}.html")[0] == "learned"
    before = state.wrapper.to_json()
    # pages that cannot be parsed at all: empty, binary, a body of spaces
    for name, html in (("empty", ""), ("binary", "\x00\x01"), ("spaces", "   ")):
        outcome, reason, root = pipeline._learn(state, html, f"http://x/{name}.html")
        assert root is None, name  # a page that cannot be parsed gives no tree
        assert outcome == "error" and reason, name
        extraction = pipeline._extract(state, html, f"http://x/{name}.html")
        assert extraction.record == {} and extraction.reason, name
        assert state.wrapper.to_json() == before, name
    assert state.wrapper.pages == 4 and state.failed is None


# --------------------------------------------------------------------------------------------
# 5. interrupted saves; max_nodes kept


def test_stale_temp_files_of_the_discovery_file_are_removed_at_start_and_a_corrupt_one_moved(
    tmp_path: Path,
):
    from tests.test_scrapy_crawl import ADDON, pages, pagesim_stats, run_crawl, serve, so_routes

    types = tmp_path / "types.json"
    document = json.loads(real_discovery_json(tmp_path))
    document["summary_options"]["max_depth"] = -1  # the reproducer
    types.write_text(json.dumps(document))
    pid = dead_pid()
    orphan = tmp_path / f".types.json.{pid}.139999.tmp"
    orphan.write_text("{")
    live = tmp_path / f".types.json.{os.getpid()}.1.tmp"  # a save in progress, elsewhere
    live.write_text("{")
    foreign = [tmp_path / f".other.json.{pid}.1.tmp", tmp_path / "types.json.tmp"]
    for path in foreign:
        path.write_text("not ours")
    for site in serve(so_routes()):
        result = run_crawl(
            tmp_path,
            {**ADDON, "PAGESIM_DISCOVERY_ENABLED": True, "PAGESIM_DISCOVERY_FILE": str(types)},
            pages(site, kinds=("jobs", "users"), numbers=(1,)),
        )
    assert result["finish_reason"] == "finished" and len(result["seen"]) == 2
    stats = pagesim_stats(result)
    assert stats["pagesim/state/corrupt"] == 1 and stats["pagesim/state/stale_temp_removed"] == 1
    assert not orphan.exists() and live.exists() and all(p.exists() for p in foreign)
    errors = [r["message"] for r in result["log"] if r["level"] == "ERROR"]
    assert len(errors) == 1 and str(types) in errors[0] and "max_depth" in errors[0], errors
    assert json.loads((tmp_path / "types.json.corrupt").read_text()) == document
    assert json.loads(types.read_text())["clusters"]  # written anew at close


def test_wrapper_store_open_removes_only_its_own_stale_temp_files(tmp_path: Path):
    from scrapy.utils.test import get_crawler

    from pagesim_scrapy.pipelines.induction import TemplateInductionPipeline

    folder = tmp_path / "w"
    folder.mkdir()
    pid = dead_pid()
    mine = [folder / f".recipe.json.{pid}.1.tmp", folder / f".list_page.json.{pid}.22.tmp"]
    old = folder / f".recipe.json.{os.getpid()}.7.tmp"  # this process, but an hour old
    young = folder / f".recipe.json.{os.getpid()}.8.tmp"
    others = [folder / f".recipe.txt.{pid}.1.tmp", folder / "x.tmp", folder / f".{pid}.1.tmp"]
    for path in [*mine, old, young, *others]:
        path.write_text("{")
    os.utime(old, (0, 0))
    crawler = get_crawler(
        settings_dict={"PAGESIM_INDUCTION_ENABLED": True, "PAGESIM_INDUCTION_DIR": str(folder)}
    )
    crawler.stats.open_spider()
    pipeline = TemplateInductionPipeline.from_crawler(crawler)
    pipeline.open_spider()
    assert not any(p.exists() for p in [*mine, old])
    assert young.exists() and all(p.exists() for p in others)
    assert crawler.stats.get_value("pagesim/state/stale_temp_removed") == 3


def test_a_failed_save_leaves_no_temp_file(tmp_path: Path):
    from pagesim_scrapy.core.induce import Wrapper

    target = tmp_path / "recipe.json"
    target.mkdir()  # the rename onto a folder fails
    wrapper = Wrapper.from_json(WRAPPER_TEXT)
    with pytest.raises(OSError):
        wrapper.save(target)
    assert [p.name for p in tmp_path.iterdir()] == ["recipe.json"]


def test_discovery_round_trip_keeps_max_nodes_and_types_without_html(tmp_path: Path):
    from pagesim_scrapy.core.cluster import OnlineDiscovery
    from pagesim_scrapy.core.summary import SummaryOptions, summarize
    from tests.test_scrapy_crawl import TYPES, so_page

    options = SummaryOptions(max_nodes=300)
    discovery = OnlineDiscovery(options=options)
    for kind in TYPES:
        html = so_page(kind, 1).decode("utf-8", "replace")
        discovery.assign(summarize(html, options), source=f"http://x/{kind}")  # no HTML kept
    assert len(discovery) >= 4
    path = tmp_path / "types.json"
    discovery.save(path)
    assert json.loads(path.read_text())["summary_options"]["max_nodes"] == 300
    loaded = OnlineDiscovery.load(path, options=options)
    assert loaded.counts() == discovery.counts()
    before = {r.label: r.summary for r in discovery.representatives()}
    after = {r.label: r.summary for r in loaded.representatives()}
    for label, summary in before.items():
        assert after[label].bfs == summary.bfs and after[label].options == options
        assert after[label].level_starts == summary.level_starts
    # and a third generation still has them all
    loaded.save(path)
    assert len(OnlineDiscovery.load(path, options=options)) == len(discovery)


# --------------------------------------------------------------------------------------------
# 7. the classifier's re-split stays periodic past its score window


def test_observe_resplits_every_fifty_pages_past_the_window():
    from pagesim_scrapy.core.classify import TemplateClassifier

    class Counting(TemplateClassifier):
        calls = 0

        def _adapt(self, state: Any) -> None:
            type(self).calls += 1
            super()._adapt(state)

    page = recipe_pages(1)[0]
    classifier = Counting({"recipe": [page]}, method="lcs", adapt_after=20)
    rng = random.Random(4)
    calls_at: dict[int, int] = {}
    for n in range(1, 3001):
        classifier.observe({"recipe": rng.random()})
        calls_at[n] = Counting.calls
    # pages 20..199 re-split each time, then every 50th page: 200, 250, ..., 3000
    assert calls_at[199] == 180
    assert calls_at[2000] - calls_at[199] == len(range(200, 2001, 50))
    assert calls_at[3000] - calls_at[2000] == 20  # not 1,000: the window is full but counted


# --------------------------------------------------------------------------------------------
# 8. parameters checked where they are given


@pytest.mark.parametrize("amplification", [0, 0.0, -1.0, float("inf"), float("nan"), "2", True])
def test_layers_amplification_is_checked_with_a_clear_error(amplification: Any):
    from pagesim_scrapy.core.classify import TemplateClassifier
    from pagesim_scrapy.core.similarity import similarity

    a, b = recipe_pages(2)
    with pytest.raises(ValueError, match="amplification must be a number > 0"):
        similarity(a, b, method="layers", amplification=amplification)
    with pytest.raises(ValueError, match="amplification"):  # at construction, not per page
        params = {"amplification": amplification}
        TemplateClassifier({"recipe": [a]}, method="layers", params=params)
    assert 0.0 <= similarity(a, b, method="layers", amplification=0.5) <= 1.0


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

    from pagesim_scrapy.items import PageItem

    reactor = cast(Any, _reactor)
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    out: dict[str, Any] = {"items": [], "crawl_error": None, "log": []}

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            out["log"].append({"level": record.levelname, "message": record.getMessage()})

    logging.getLogger().addHandler(Collect(logging.INFO))

    class PagesSpider(scrapy.Spider):
        name = "pages"

        async def start(self) -> AsyncIterator[Any]:
            for url in spec["urls"]:
                yield scrapy.Request(url, callback=self.parse, dont_filter=True)

        def parse(self, response: Any, **kwargs: Any) -> Iterator[Any]:
            raw = any(part in response.url for part in spec["raw"])
            html = response.body if raw else response.text  # a user's spider may give bytes
            yield PageItem(url=response.url, label="recipe", score=1.0, html=html)

    def item_scraped(item: Any) -> None:
        from dataclasses import asdict

        data = asdict(item)
        data.pop("html", None)
        out["items"].append({"type": type(item).__name__, **data})

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
