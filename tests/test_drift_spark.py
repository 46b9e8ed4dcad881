"""The Spark ``drift`` job on PySpark local[2]: two WARC sets of one site (the demo shop's
product pages, then the same pages with a new gallery, or other pages of the same layout), and
two folders of labelled pages, whose verdicts equal the local ``pagesim drift``'s."""

from __future__ import annotations

import json
import shutil
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pagesim_scrapy.cli import main as local_main
from pagesim_scrapy.core.drift import ALL_PAGES

from .test_drift import bench
from .test_spark import spark

__all__ = ["spark"]  # the Spark session fixture of the Spark tests

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

SITE = "shop.example"


def _write_warc(path: Path, pages: list[Path], change: Any = None) -> None:
    with path.open("wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for page in pages:
            body = page.read_bytes() if change is None else bench.changed_page(page, change)
            headers = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
            )
            url = f"https://{SITE}/{page.parent.name}/{page.name}"
            record = writer.create_warc_record(
                url, "response", payload=BytesIO(body), http_headers=headers
            )
            writer.write_record(record)


def _run(spark: Any, old: Path, new: Path, output: Path, *extra: str) -> tuple[int, list[dict]]:
    from pagesim_scrapy.spark.__main__ import main

    status = main(
        ["--master", "local[2]", "drift", str(old), str(new), "-o", str(output), *extra],
        spark=spark,
    )
    lines = [
        json.loads(line)
        for part in sorted(output.glob("part-*"))
        for line in part.read_text(encoding="utf-8").splitlines()
    ]
    return status, lines


@pytest.fixture(scope="module")
def products() -> list[Path]:
    return sorted(bench.demo_site()["product"])[:36]


def test_drift_between_two_warc_sets_of_one_site(
    spark: Any, products: list[Path], tmp_path: Path
) -> None:
    old, same, changed = tmp_path / "old", tmp_path / "same", tmp_path / "changed"
    for folder in (old, same, changed):
        folder.mkdir()
    _write_warc(old / "a.warc.gz", products[:10])
    _write_warc(old / "b.warc.gz", products[10:18])  # a set of WARC files
    _write_warc(same / "c.warc.gz", products[18:])
    _write_warc(changed / "c.warc.gz", products[18:], bench.add_gallery)

    status, lines = _run(spark, old, changed, tmp_path / "out-changed")
    assert status == 3
    [report] = lines
    assert (report["site"], report["label"], report["verdict"]) == (SITE, ALL_PAGES, "changed")
    assert report["pages"] == {"before": 18, "now": 18}
    assert report["appeared"] and report["examples"]["now"][0].startswith(str(changed))

    status, lines = _run(spark, old, same, tmp_path / "out-same")
    assert status == 0
    assert [(r["site"], r["verdict"]) for r in lines] == [(SITE, "unchanged")]


def test_drift_of_labelled_folders_says_what_the_local_command_says(
    spark: Any, products: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    categories = sorted(bench.demo_site()["category"])[:20]
    old, new = tmp_path / "old", tmp_path / "new"
    for side, pages, change in (
        (old, products[:18], None),
        (new, products[18:], bench.rename_classes),
    ):
        (side / "product").mkdir(parents=True)
        for page in pages:
            body = page.read_bytes() if change is None else bench.changed_page(page, change)
            (side / "product" / page.name).write_bytes(body)
    for side, pages in ((old, categories[:10]), (new, categories[10:])):
        (side / "category").mkdir()
        for number, page in enumerate(pages):  # every category page is an index.html
            shutil.copy(page, side / "category" / f"{number:02d}.html")

    status, lines = _run(spark, old, new, tmp_path / "out", "--site-name", "shop")
    assert status == 3
    assert local_main(["drift", str(old), str(new), "--site", "shop", "--json"]) == 3
    local = [json.loads(line) for line in capsys.readouterr().out.splitlines()]

    def verdicts(reports: list[dict]) -> list[tuple[Any, ...]]:
        return sorted((r["site"], r["label"], r["verdict"], r["reason"]) for r in reports)

    assert verdicts(lines) == verdicts(local)
    assert {r["label"]: r["verdict"] for r in lines} == {
        "product": "changed",
        "category": "unchanged",
    }


def test_a_missing_new_set_is_a_user_error(
    spark: Any, products: list[Path], tmp_path: Path
) -> None:
    from pagesim_scrapy.spark.__main__ import main

    (tmp_path / "old").mkdir()
    _write_warc(tmp_path / "old" / "a.warc.gz", products[:5])
    args = ["drift", str(tmp_path / "old"), str(tmp_path / "nowhere"), "-o", str(tmp_path / "o")]
    assert main(args, spark=spark) == 2
