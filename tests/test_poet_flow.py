"""The page-object flow of docs/page-objects.md, end to end, as a user runs it.

1. ``scrapy crawl learn``: pagesim classifies the demo shop's pages (served on 127.0.0.1),
   its induction pipeline learns the product wrapper and saves it under
   ``.scrapy/pagesim/wrappers``; the spider keeps the pages it saw.
2. ``scrapy pagesim export-page-object``: the saved wrapper becomes a web-poet module in the
   project, with fixtures made from the kept pages.
3. ``scrapy crawl shop``: the project maps the label to the exported class
   (``PAGESIM_POET_LAYOUTS``), scrapy-poet builds it, and its items are compared with the
   records pagesim's induction pipeline gives the same pages in the same crawl.
4. ``python -m pytest fixtures``: web-poet's plugin runs the fixtures.

Skipped where the ``poet`` extra is not installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("scrapy_poet")
pytest.importorskip("web_poet")

from tests.test_scrapy_crawl import Route, Site, serve

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PROJECT = HERE / "poet_project"
DEMO = REPO / "sample_project" / "demo_site"
TIMEOUT = 240
#: the pages crawled: products (the exported type) and pages of other types around them
PRODUCTS = 20
OTHERS = {"category": 3, "search": 2, "help": 2}
TEMPLATES = {
    "product": ["p/13391.html", "item/brio-prime-wooden-puzzle-ii-13646.html"],
    "category": ["shop/apparel/shirts/index.html", "shop/kitchen/index.html"],
    "search": ["search/backpack.html"],
    "help": ["help/shipping.html"],
}
MODULE = "shop_pages"


def demo_paths() -> dict[str, str]:
    """{path: label} of the pages crawled, none of them a template."""
    labels: dict[str, str] = json.loads((DEMO / "labels.json").read_text(encoding="utf-8"))
    templates = {path for paths in TEMPLATES.values() for path in paths}
    chosen: dict[str, str] = {}
    wanted = {"product": PRODUCTS, **OTHERS}
    for path, label in sorted(labels.items()):
        if path not in templates and wanted.get(label, 0) > 0:
            chosen[path] = label
            wanted[label] -= 1
    return chosen


@pytest.fixture(scope="module")
def shop_site() -> Iterator[Site]:
    html = {"Content-Type": "text/html; charset=utf-8"}
    routes = {"/" + path: Route(200, (DEMO / path).read_bytes(), html) for path in demo_paths()}
    yield from serve(routes)


def env() -> dict[str, str]:
    environ = dict(os.environ)
    paths = [str(REPO), environ.get("PYTHONPATH", "")]
    environ["PYTHONPATH"] = os.pathsep.join(path for path in paths if path)
    return environ


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        command, capture_output=True, text=True, timeout=TIMEOUT, cwd=cwd, env=env()
    )
    assert proc.returncode == 0, (proc.stdout[-3000:], proc.stderr[-4000:])
    return proc


def scrapy_crawl(project: Path, spider: str, urls: list[str], *args: str) -> list[dict[str, Any]]:
    """``scrapy crawl spider`` in the project; the items it exported."""
    out = project / f"{spider}.jsonl"
    templates = {label: [str(DEMO / path) for path in paths] for label, paths in TEMPLATES.items()}
    command = [sys.executable, "-m", "scrapy", "crawl", spider, "-O", str(out)]
    command += ["-a", "urls=" + ",".join(urls), *args]
    command += ["-s", "PAGESIM_TEMPLATES=" + json.dumps(templates)]
    command += ["-s", "PAGESIM_TARGETS=product", "-s", "PAGESIM_PAGE_ITEMS=True"]
    command += ["-s", "PAGESIM_INDUCTION_ENABLED=True", "-s", "LOG_LEVEL=INFO"]
    proc = run(command, project)
    assert "'finish_reason': 'finished'" in proc.stderr, proc.stderr[-4000:]
    errors = [line for line in proc.stderr.splitlines() if "] ERROR:" in line]
    assert not errors, errors
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_crawl_export_recrawl_with_the_exported_page_objects(shop_site: Site, tmp_path: Path):
    project = tmp_path / "project"
    shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("__pycache__", ".scrapy"))
    urls = [shop_site.url("/" + path) for path in demo_paths()]

    # 1. learn: the wrapper is saved, the pages are kept
    scrapy_crawl(project, "learn", urls, "-a", "pages=pages")
    wrapper = project / ".scrapy" / "pagesim" / "wrappers" / "product.json"
    assert wrapper.is_file()
    assert len(list((project / "pages" / "product").glob("*.html"))) == PRODUCTS

    # 2. export the saved wrapper, checked on the kept pages, with fixtures
    export = [sys.executable, "-m", "scrapy", "pagesim", "export-page-object", str(wrapper)]
    export += ["--pages", "pages", "-o", f"{MODULE}.py", "--fixtures", "fixtures"]
    proc = run(export, project)
    assert "ProductPage ('product')" in proc.stdout and "checked on 20 pages" in proc.stdout
    fields = exported_fields(project / f"{MODULE}.py")
    assert len(fields) >= 10

    # 3. the next crawl: the label picks the exported page object
    layouts = json.dumps({"product": f"{MODULE}.ProductPage"})
    items = scrapy_crawl(project, "shop", urls, "-s", f"PAGESIM_POET_LAYOUTS={layouts}")
    records = {item["url"]: item["record"] for item in items if "record" in item}
    outputs = {item["url"]: item for item in items if "page_object" in item}
    assert set(outputs) == set(urls) and len(records) == PRODUCTS
    assert {outputs[url]["page_object"] for url in records} == {"ProductPage"}
    assert {item["page_object"] for url, item in outputs.items() if url not in records} == {
        "OtherPage"
    }
    equal = [same_fields(outputs[url], record, fields) for url, record in records.items()]
    assert sum(equal) >= 0.95 * len(equal), records

    # 4. the fixtures pass under web-poet's pytest plugin
    tests = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "fixtures"]
    proc = run(tests, project)
    # one test per fixture, or per fixture and field (web-poet's default for many fields)
    passed = re.search(r"(\d+) passed", proc.stdout)
    assert passed and "failed" not in proc.stdout, proc.stdout[-3000:]
    assert int(passed.group(1)) >= 10 and int(passed.group(1)) % 10 == 0, proc.stdout[-3000:]


def same_fields(output: dict[str, Any], record: dict[str, Any], fields: dict[str, str]) -> bool:
    """Whether the page object's item equals pagesim's record on the exported fields the
    record keeps (the record leaves out what the page shows in its header and footer, empty
    values and copies of its core fields; the page object gives the wrapper's fields as
    learned), and the two share most of those fields."""
    kept = {attr: name for attr, name in fields.items() if name in record}
    same = all(output.get(attr) == record[name] for attr, name in kept.items())
    return same and len(kept) >= 5


_FIELD = re.compile(
    r"def (\w+)\(self\):\n\s+# anchored on: [^\n]*?(?:\(pagesim's field '([^']+)'\))?\n"
)


def exported_fields(module: Path) -> dict[str, str]:
    """{page object field: pagesim record field} of an exported module."""
    source = module.read_text(encoding="utf-8")
    return {attr: name or attr for attr, name in _FIELD.findall(source)}
