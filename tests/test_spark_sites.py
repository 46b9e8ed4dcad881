"""The Spark cluster job's steps without Spark: a site's task gives the local command's lines
for that site's pages (``--site host``), and the driver's union-find names the components as
label propagation does (``--site all``)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pagesim_scrapy.cli import main as local_main
from pagesim_scrapy.core.cluster import ClusterOptions
from pagesim_scrapy.core.summary import SummaryOptions
from pagesim_scrapy.settings import DEFAULT_MAX_NODES
from pagesim_scrapy.spark.cluster_sites import _site_page, cluster_site, site_cluster_name
from pagesim_scrapy.spark.jobs import PageRecord, _least_linked
from tests.conftest import shared_data


def test_a_site_task_gives_the_local_command_s_lines(tmp_path: Path) -> None:
    folder = shared_data("site_page_types", "flink_site")
    with (folder / "labels.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))[:60]
    paths = [folder / row["path"] for row in rows]
    output = tmp_path / "local.jsonl"
    assert local_main(["cluster", *map(str, paths), "-o", str(output), "--no-progress"]) == 0
    local = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]

    options = SummaryOptions(max_nodes=DEFAULT_MAX_NODES)
    pages = [
        _site_page(PageRecord((n, 0), str(path), "flink", path.read_bytes(), None), options)[1]
        for n, path in enumerate(paths)
    ]
    pages.append(((len(paths), 0), "broken.html", None, "cannot parse"))
    # the cluster command's defaults: the merges by overlap are off there unless asked
    command_defaults = ClusterOptions(method="site", overlap=0.0, lone=0.0)
    rows_out = list(cluster_site("flink", reversed(pages), command_defaults))
    page_rows = [row for kind, row in rows_out if kind == "page"]
    ordered = [line for _, line in sorted(page_rows, key=lambda row: row[0])]
    assert len(ordered) == len(paths) + 1
    expected = [
        {"path": line["path"], "cluster": site_cluster_name("flink", line["cluster"])}
        for line in local
    ]
    assert ordered[: len(paths)] == expected
    assert ordered[-1] == {"path": "broken.html", "cluster": None, "error": "cannot parse"}
    (figures,) = [row for kind, row in rows_out if kind == "site"]
    assert figures == ("flink", len(paths), len({line["cluster"] for line in local}))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=40))
def test_the_driver_union_find_names_components_by_their_least_page(
    links: list[tuple[int, int]],
) -> None:
    # label propagation: every page takes the least label among itself and its links
    labels: dict[Any, Any] = {page: page for link in links for page in link}
    changed = True
    while changed:
        changed = False
        for one, other in links:
            least = min(labels[one], labels[other])
            for page in (one, other):
                if labels[page] != least:
                    labels[page], changed = least, True
    assert _least_linked(links) == labels
