"""The Spark jobs on PySpark local[2]: over WARC files written here from real pages, their
output equals the local commands' on the same pages (classify, cluster, extract)."""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from pagesim_scrapy.cli import main as local_main
from tests.conftest import shared_data

# Spark's Python side leaves sockets for the JVM gateway open until the session stops.
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")

#: Pages per site in the test archives: enough for each site's own cuts (min_pages 20 per
#: label), few enough for a quick test.
PAGES_PER_SITE = 60


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    pyspark = pytest.importorskip(
        "pyspark", reason='PySpark not installed (pip install ".[spark]")'
    )
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("no Java runtime for Spark (apt-get install default-jre-headless)")
    from pyspark.sql import SparkSession

    before = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the workers run this Python
    try:
        session = (
            SparkSession.builder.master("local[2]")
            .appName("pagesim tests")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .getOrCreate()
        )
    except Exception as exc:  # the JVM could not start: say why and skip
        pytest.skip(f"Spark {pyspark.__version__} could not start: {exc}")
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    if before is None:
        os.environ.pop("PYSPARK_PYTHON", None)
    else:
        os.environ["PYSPARK_PYTHON"] = before


def _write_warc(path: Path, site: Path, pages: int) -> list[Path]:
    """The first ``pages`` pages of a site folder as HTTP responses with their real URLs,
    plus records that are not pages; returns the pages written."""
    rows = list(csv.DictReader((site / "labels.csv").open(encoding="utf-8")))[:pages]
    with path.open("wb") as fh:
        writer = WARCWriter(fh, gzip=True)
        for number, row in enumerate(rows):
            body = (site / row["path"]).read_bytes()
            headers = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
            )
            writer.write_record(
                writer.create_warc_record(
                    row["url"],
                    "response",
                    payload=BytesIO(body),
                    length=len(body),
                    http_headers=headers,
                )
            )
            if number == 1:  # an image and a 404 page: neither is a page
                for status, kind, data in (
                    ("200 OK", "image/png", b"\x89PNG"),
                    ("404 Not Found", "text/html", b"<html><body>gone</body></html>"),
                ):
                    headers = StatusAndHeaders(status, [("Content-Type", kind)], "HTTP/1.1")
                    writer.write_record(
                        writer.create_warc_record(
                            row["url"] + "?other",
                            "response",
                            payload=BytesIO(data),
                            length=len(data),
                            http_headers=headers,
                        )
                    )
    return [site / row["path"] for row in rows]


@pytest.fixture(scope="module")
def archives(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two sites' pages, one WARC file each, and templates of two types of the first site."""
    root = tmp_path_factory.mktemp("warc")
    flink = shared_data("site_page_types", "flink_site")
    blog = shared_data("site_page_types", "cc_opensource_blog")
    warcs = [root / "flink.warc.gz", root / "blog.warc.gz"]
    written = _write_warc(warcs[0], flink, PAGES_PER_SITE)
    _write_warc(warcs[1], blog, PAGES_PER_SITE)
    labels = {
        row["path"]: row["page_type"] for row in csv.DictReader((flink / "labels.csv").open())
    }
    by_type: dict[str, list[Path]] = {}
    for path in sorted(flink.glob("pages/**/*.html")):
        by_type.setdefault(labels.get(str(path.relative_to(flink)), ""), []).append(path)
    templates: list[str] = []
    for label in ("blog_post", "info_page"):
        for path in by_type[label][-2:]:
            templates += ["--template", f"{label}={path}"]
    posts = [page for page in written if labels[str(page.relative_to(flink))] == "blog_post"]
    others = [page for page in written if page not in posts]
    return {
        "root": root,
        "warcs": warcs,
        "templates": templates,
        "posts": posts,
        "others": others,
    }


def _local(args: list[str], output: Path) -> list[str]:
    assert local_main([*args, "-o", str(output), "--no-progress"]) == 0
    return output.read_text(encoding="utf-8").splitlines()


def _spark(spark: Any, args: list[str], output: Path) -> list[str]:
    from pagesim_scrapy.spark.__main__ import main

    assert main(["--master", "local[2]", *args, "-o", str(output)], spark=spark) == 0
    parts = sorted(output.glob("part-*"))
    assert parts, f"no output parts in {output}"
    return [line for part in parts for line in part.read_text(encoding="utf-8").splitlines()]


def test_classify_equals_the_local_command_per_site(
    spark: Any, archives: dict[str, Any], tmp_path: Path
) -> None:
    templates = archives["templates"]
    warcs = [str(path) for path in archives["warcs"]]
    # the local command decides the pages it is given as one site: run it on each host's
    # pages; the Spark job groups the pages by host and must give the same lines
    local: list[str] = []
    for number, warc in enumerate(warcs):
        local += _local(["classify", *templates, warc], tmp_path / f"local{number}.jsonl")
    spark_lines = _spark(spark, ["classify", *templates, *warcs], tmp_path / "spark")
    assert spark_lines == local
    verdicts = [json.loads(line) for line in local]
    assert len(verdicts) == 2 * PAGES_PER_SITE
    # not a trivial agreement: both labels and "none of these" are given, with the site's own cuts
    found = {verdict["label"] for verdict in verdicts}
    assert {"blog_post", "info_page", None} <= found
    assert {v.get("threshold_source") for v in verdicts} & {"distribution", "nearest"}


def test_classify_all_pages_as_one_site_and_as_parquet(
    spark: Any, archives: dict[str, Any], tmp_path: Path
) -> None:
    templates = archives["templates"]
    warcs = [str(path) for path in archives["warcs"]]
    local = _local(["classify", *templates, *warcs], tmp_path / "local.jsonl")
    assert _spark(spark, ["classify", "--site", "all", *templates, *warcs], tmp_path / "a") == local
    out = tmp_path / "parquet"
    from pagesim_scrapy.spark.__main__ import main

    args = ["classify", "--site", "all", "--format", "parquet", *templates, *warcs]
    assert main([*args, "-o", str(out)], spark=spark) == 0
    rows = spark.read.parquet(str(out)).collect()
    expected = {line["path"]: line for line in map(json.loads, local)}
    assert len(rows) == len(expected)
    for row in rows:
        line = expected[row["path"]]
        assert (row["label"], row["score"], row["threshold_source"]) == (
            line["label"],
            line["score"],
            line.get("threshold_source"),
        )
        assert dict(row["scores"] or {}) == line["scores"]


def test_classify_with_a_pairwise_measure_equals_the_local_command(
    spark: Any, archives: dict[str, Any], tmp_path: Path
) -> None:
    # the automatic thresholds are fitted to all the pages' scores, on the driver
    args = ["classify", "--method", "lcs", *archives["templates"], str(archives["warcs"][0])]
    local = _local(args, tmp_path / "local.jsonl")
    assert _spark(spark, args, tmp_path / "spark") == local
    assert {json.loads(line)["label"] for line in local} >= {"blog_post", "info_page"}


def test_cluster_equals_the_local_command(
    spark: Any, archives: dict[str, Any], tmp_path: Path
) -> None:
    warcs = [str(path) for path in archives["warcs"]]
    local = _local(["cluster", *warcs], tmp_path / "local.jsonl")
    assert _spark(spark, ["cluster", *warcs], tmp_path / "spark") == local
    clusters = {json.loads(line)["cluster"] for line in local}
    assert len(clusters) > 2  # two sites of several page types each


def test_cluster_per_site_equals_the_local_command_on_each_site(
    spark: Any, archives: dict[str, Any], tmp_path: Path
) -> None:
    from pagesim_scrapy.core.site import site_key
    from pagesim_scrapy.spark.cluster_sites import site_cluster_name

    # the local command clusters the pages it is given as one site: run it on each host's
    # archive in turn, its clusters named under the host
    local = []
    for warc, site in zip(archives["warcs"], ("flink_site", "cc_opensource_blog")):
        with (shared_data("site_page_types", site) / "labels.csv").open(encoding="utf-8") as fh:
            host = site_key(next(csv.DictReader(fh))["url"])
        for line in _local(["cluster", str(warc)], tmp_path / "local.jsonl"):
            record = json.loads(line)
            if record["cluster"] is not None:
                record["cluster"] = site_cluster_name(host, record["cluster"])
            local.append(record)
    warcs = [str(path) for path in archives["warcs"]]
    lines = _spark(spark, ["cluster", "--site", "host", *warcs], tmp_path / "spark")
    assert [json.loads(line) for line in lines] == local
    assert len({record["cluster"] for record in local}) > 2


def test_cluster_with_a_pairwise_measure_equals_the_local_command(
    spark: Any, archives: dict[str, Any], tmp_path: Path
) -> None:
    args = [
        "cluster",
        "--method",
        "lcs",
        "--algorithm",
        "agglomerative",
        *map(str, archives["warcs"]),
    ]
    local = _local(args, tmp_path / "local.jsonl")
    assert _spark(spark, args, tmp_path / "spark") == local


def test_extract_equals_the_local_command(
    spark: Any, archives: dict[str, Any], tmp_path: Path
) -> None:
    wrapper = tmp_path / "wrapper.json"
    induce = ["induce", *map(str, archives["posts"][:5]), "--no-progress", "-o", str(wrapper)]
    assert local_main(induce) == 0
    args = ["extract", "-w", str(wrapper), "--records", "--rows", str(archives["warcs"][0])]
    local = _local(args, tmp_path / "local.jsonl")
    assert _spark(spark, args, tmp_path / "spark") == local
    fitted = [json.loads(line) for line in local]
    assert any(line["fit"] > 0.5 and line["record"] for line in fitted)


def test_a_broken_archive_costs_its_own_pages_only(
    spark: Any, archives: dict[str, Any], tmp_path: Path
) -> None:
    good = archives["warcs"][0]
    broken = tmp_path / "broken.warc.gz"
    # the other site's records, then a line that is no WARC record
    broken.write_bytes(archives["warcs"][1].read_bytes() + b"not a WARC record\n")
    # the local command refuses such a file outright (exit status 2) ...
    assert local_main(["cluster", str(broken), "-o", str(tmp_path / "l.jsonl")]) == 2
    # ... the batch job keeps the file's records before the break and says where it broke
    lines = [
        json.loads(line)
        for line in _spark(spark, ["cluster", str(good), str(broken)], tmp_path / "s")
    ]
    name = [Path(line["path"]).name for line in lines]
    assert sum(n.startswith(good.name + "#") for n in name) == PAGES_PER_SITE
    assert sum(n.startswith("broken.warc.gz#") for n in name) == PAGES_PER_SITE
    errors = [line for line in lines if line.get("error")]
    assert len(errors) == 1 and errors[0]["cluster"] is None
    assert errors[0]["path"] == str(broken) and "Invalid WARC record" in errors[0]["error"]
    assert all(line["cluster"] for line in lines if not line.get("error"))


def test_a_missing_input_is_a_user_error(spark: Any, tmp_path: Path) -> None:
    from pagesim_scrapy.spark.__main__ import main

    assert (
        main(["cluster", str(tmp_path / "absent.warc.gz"), "-o", str(tmp_path / "o")], spark) == 2
    )


def test_many_small_files_are_read_in_runs_and_written_in_order(
    spark: Any, archives: dict[str, Any], tmp_path: Path
) -> None:
    from pagesim_scrapy.spark.jobs import input_groups, list_inputs

    # saved page files, one page each: several files to a read task, and the output's
    # partitions are those runs of files
    folder = tmp_path / "saved"
    folder.mkdir()
    for number, page in enumerate(archives["posts"] + archives["others"]):
        (folder / f"{number:03d}.html").write_bytes(page.read_bytes())
    inputs = list_inputs([str(folder)])
    groups = input_groups(inputs, 2)
    assert 1 < len(groups) < len(inputs)
    assert [item for group in groups for item in group] == inputs
    # the local command takes the folder's pages as one site: --site input on Spark
    for command, job in (
        (["classify", *archives["templates"]], ["--site", "input"]),
        (["cluster"], []),
    ):
        local = _local([*command, str(folder)], tmp_path / f"{command[0]}.jsonl")
        assert len(local) == len(inputs)
        args = [*command, *job, str(folder)]
        assert _spark(spark, args, tmp_path / f"spark-{command[0]}") == local


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.integers(0, 3), st.integers(0, 12)), min_size=1, max_size=6),
        max_size=25,
    )
)
def test_bucket_stars_keep_the_components_of_all_buckets(buckets: list[list[Any]]) -> None:
    from pagesim_scrapy.spark.jobs import _bucket_stars

    # the components of linking every pair in each bucket, by a plain graph search
    neighbours: dict[Any, set[Any]] = {}
    for bucket in buckets:
        for page in bucket:
            neighbours.setdefault(page, set()).update(bucket)
    least: dict[Any, Any] = {}
    for start in neighbours:
        if start in least:
            continue
        seen, stack = {start}, [start]
        while stack:
            for other in neighbours[stack.pop()] - seen:
                seen.add(other)
                stack.append(other)
        for page in seen:
            least[page] = min(seen)
    links = list(_bucket_stars((b"band", bucket) for bucket in buckets))
    # every page that is not the least of its component is linked with that least page only
    linked: dict[Any, set[Any]] = {}
    for page, other in links:
        linked.setdefault(page, set()).add(other)
    for page, root in least.items():
        if page != root:
            assert linked[page] == {root}
        else:
            assert linked.get(page, set()) == {p for p, r in least.items() if r == page} - {page}
