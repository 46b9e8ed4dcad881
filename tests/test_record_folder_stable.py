"""A ``file://`` crawl gives the same records from whichever folder the site is in (issue 31,
item 5).

The wrapper's learning order broke ties between pages of one size by a digest of the parsed
page, whose absolute links hold the folder the site is in
(:func:`~pagesim_scrapy.core.induce.wrapper.page_order_key`): the README's main job gave
different records from two checkouts. Here the sample project is copied into two temporary
folders (names of different lengths) and ``scrapy crawl shop`` runs from each: the records
are identical once each folder's own URL prefix is taken out of them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pagesim_scrapy.core.induce import parse_html
from pagesim_scrapy.core.induce.wrapper import page_order_key
from sample_project.demo_shop import DEMO_LABELS_FILE, DEMO_SITE_DIR

REPO_ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("one", "a_much_longer_second_checkout")

pytestmark = pytest.mark.skipif(
    not DEMO_LABELS_FILE.is_file(), reason="the demo site is not generated"
)


def _product_paths() -> list[str]:
    labels = json.loads(DEMO_LABELS_FILE.read_text(encoding="utf-8"))
    return sorted(path for path, label in labels.items() if label == "product")


def test_the_learning_order_of_file_pages_does_not_depend_on_their_folder(tmp_path: Path):
    paths = _product_paths()[:30]
    orders = []
    for name in FOLDERS:
        site = tmp_path / name / "demo_site"
        roots = []
        for path in paths:
            target = site / path
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(DEMO_SITE_DIR / path, target)
            roots.append(parse_html(target.read_bytes(), base_url=target.as_uri()))
        orders.append(sorted(paths, key=lambda p: page_order_key(roots[paths.index(p)])))
    assert orders[0] == orders[1]


def test_page_order_key_of_http_pages_is_the_digest_of_the_page(tmp_path: Path):
    """Pages without ``file://`` links keep their key (http crawls learn in the same order)."""
    import hashlib

    from lxml import etree

    path = _product_paths()[0]
    root = parse_html((DEMO_SITE_DIR / path).read_bytes(), base_url="https://shop.example/" + path)
    digest = hashlib.sha256(etree.tostring(root, encoding="utf-8", method="xml")).digest()
    assert page_order_key(root) == (-sum(1 for _ in root.iter()), digest)


def _crawl(project: Path) -> subprocess.Popen[str]:
    shutil.copytree(REPO_ROOT / "sample_project", project / "sample_project")
    shutil.copyfile(REPO_ROOT / "scrapy.cfg", project / "scrapy.cfg")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(project), str(REPO_ROOT)]))
    args = [sys.executable, "-m", "scrapy", "crawl", "shop", "-O", str(project / "items.jsonl")]
    for name, value in (
        ("PAGESIM_INDUCTION_DIR", project / "wrappers"),
        ("PAGESIM_SITE_MODELS_FILE", project / "sites.json"),
        ("PAGESIM_DRIFT_FILE", project / "drift.json"),
        ("LOG_LEVEL", "WARNING"),
        # the label learns every product page, not the first 50 to arrive (which ones those
        # are depends on the timing of the two crawls, run side by side)
        ("PAGESIM_INDUCTION_MAX_PAGES", 1000),
        # ... and holds every item until its wrapper is ready (an item released early by the
        # buffer's cap is extracted with the wrapper of that moment: timing again)
        ("PAGESIM_INDUCTION_BUFFER_SIZE", 1000),
    ):
        args += ["-s", f"{name}={value}"]
    return subprocess.Popen(
        args, cwd=project, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )


def _records(project: Path) -> dict[str, str]:
    """Each page item's record as JSON, keyed by its URL, the folder's prefix taken out."""
    prefix = project.as_uri() + "/"
    out = {}
    for line in (project / "items.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line.replace(prefix, "SITE/"))
        if "record" in item:
            out[item["url"]] = json.dumps(item["record"], sort_keys=True)
    return out


def test_the_demo_crawl_from_two_folders_gives_identical_records(tmp_path: Path) -> None:
    projects = [tmp_path / name for name in FOLDERS]
    runs = [_crawl(project) for project in projects]
    for run in runs:
        _, err = run.communicate(timeout=600)
        assert run.returncode == 0, err[-3000:]
    first, second = (_records(project) for project in projects)
    assert len(first) >= 150
    assert first.keys() == second.keys()
    differing = [url for url in first if first[url] != second[url]]
    assert not differing, differing[:5]
