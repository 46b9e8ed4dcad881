"""``python -m pagesim_scrapy cluster`` and the HTML report (built and parsed, no browser).

Pages: real Stack Overflow pages of 5 types (tests/fixtures/stackoverflow, BSD-3-Clause).
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pagesim_scrapy.cli import main
from pagesim_scrapy.core.cluster import OnlineDiscovery, cluster_pages
from pagesim_scrapy.core.pageio import iter_page_paths
from pagesim_scrapy.core.summary import summarize
from pagesim_scrapy.reports import (
    classical_mds,
    classification_report,
    clustering_report,
    outline,
    scores_section,
)
from pagesim_scrapy.settings import PageSimConfig
from tests.conftest import FIXTURES

STACKOVERFLOW = FIXTURES / "stackoverflow"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pagesim_scrapy", *args], capture_output=True, text=True, timeout=300
    )


class _Collect(HTMLParser):
    """Tags and attributes of a document, to check the report's structure."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def having(self, tag: str, **attrs: str) -> list[dict[str, str | None]]:
        return [
            a
            for t, a in self.elements
            if t == tag and all(str(a.get(k.replace("_", "-"))) == v for k, v in attrs.items())
        ]

    def classed(self, tag: str, name: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.elements if t == tag and name in (a.get("class") or "").split()]


def parse(text: str) -> _Collect:
    collector = _Collect()
    collector.feed(text)
    return collector


def test_cluster_command_outputs(tmp_path: Path) -> None:
    out = tmp_path / "clusters.jsonl"
    report = tmp_path / "report.html"
    saved = tmp_path / "types.json"
    code = main(
        [
            "cluster",
            str(STACKOVERFLOW),
            "--output", str(out),
            "--report", str(report),
            "--save", str(saved),
            "--labels-from-folders",
        ]
    )  # fmt: skip
    assert code == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 15 and all(set(row) == {"path", "cluster"} for row in rows)
    by_folder: dict[str, set[str]] = {}
    for row in rows:
        by_folder.setdefault(Path(row["path"]).parent.name, set()).add(row["cluster"])
    assert all(len(clusters) == 1 for clusters in by_folder.values())
    assert len({next(iter(c)) for c in by_folder.values()}) == 5
    doc = parse(report.read_text())
    assert len(doc.classed("div", "cluster-card")) == 5
    assert "adjusted Rand index" in "".join(doc.text)
    # the crawl reads the file with its own summary options, the ones the command used
    crawl_options = PageSimConfig().summary_options()
    discovery = OnlineDiscovery.load(saved, options=crawl_options)
    assert len(discovery) == 5
    page = summarize(STACKOVERFLOW / "tags" / "02.html", crawl_options)
    label, _, is_new = discovery.assign(page)
    tags_cluster = next(iter(by_folder["tags"]))
    assert (label, is_new) == (tags_cluster, False)


@pytest.mark.parametrize("algorithm", ["agglomerative", "snn", "online"])
@pytest.mark.parametrize(
    "method", [["--method", "site"], ["--method", "lcs", "--max-nodes", "none"]]
)
def test_cluster_command_algorithms(algorithm: str, method: list[str]) -> None:
    result = run_cli(
        "cluster", str(STACKOVERFLOW), "--algorithm", algorithm, *method, "--no-progress"
    )
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    by_cluster: dict[str, set[str]] = {}
    for row in rows:
        by_cluster.setdefault(row["cluster"], set()).add(Path(row["path"]).parent.name)
    # one cluster per page type, each holding one type's pages
    assert len(by_cluster) == 5 and all(len(types) == 1 for types in by_cluster.values())
    assert f"({algorithm}, {method[1]};" in result.stderr


def test_templates_snippet(tmp_path: Path) -> None:
    result = run_cli("cluster", str(STACKOVERFLOW), "--templates-snippet")
    assert result.returncode == 0, result.stderr
    assert "per-page clusters not written" in result.stderr
    namespace: dict[str, object] = {}
    exec(result.stdout, namespace)
    templates = namespace["PAGESIM_TEMPLATES"]
    assert isinstance(templates, dict) and len(templates) == 5
    for sources in templates.values():
        assert 1 <= len(sources) <= 3
        assert all(Path(s).is_absolute() and Path(s).is_file() for s in sources)
        assert len({Path(s).parent.name for s in sources}) == 1
    # with --output, the per-page lines go to the file and the snippet to stdout
    out = tmp_path / "c.jsonl"
    both = run_cli("cluster", str(STACKOVERFLOW), "--templates-snippet", "-o", str(out))
    assert both.stdout.startswith("# Page types") and len(out.read_text().splitlines()) == 15


def test_cluster_command_bad_input(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    shutil.copytree(STACKOVERFLOW / "jobs", folder)
    (folder / "empty.html").write_bytes(b"")
    (folder / "binary.html").write_bytes(b"\x00\x01\x02" * 10)
    result = run_cli("cluster", str(folder), "--no-progress")
    assert result.returncode == 0, result.stderr
    rows = {Path(r["path"]).name: r for r in map(json.loads, result.stdout.splitlines())}
    assert rows["empty.html"]["cluster"] is None and "empty" in rows["empty.html"]["error"]
    assert rows["01.html"]["cluster"] == rows["02.html"]["cluster"] == "cluster-1"
    assert "skipping" in result.stderr

    nothing = tmp_path / "nothing"
    nothing.mkdir()
    (nothing / "a.html").write_bytes(b"   ")
    assert run_cli("cluster", str(nothing)).returncode == 2
    empty_dir = tmp_path / "none"
    empty_dir.mkdir()
    no_pages = run_cli("cluster", str(empty_dir))
    assert no_pages.returncode == 2 and "no pages" in no_pages.stderr
    bad_param = run_cli("cluster", str(folder), "-m", "lcs", "-p", "kappa=2")
    assert bad_param.returncode == 2 and "kappa" in bad_param.stderr
    site_param = run_cli("cluster", str(folder), "-p", "kappa=2")
    assert site_param.returncode == 2 and "site" in site_param.stderr
    bad_threshold = run_cli("cluster", str(folder), "--t-n", "1.5")
    assert bad_threshold.returncode == 2 and "--t-n" in bad_threshold.stderr
    bad_verdicts = tmp_path / "v.jsonl"
    bad_verdicts.write_text("{not json\n")
    broken = run_cli("cluster", str(folder), "--verdicts", str(bad_verdicts))
    assert broken.returncode == 2 and "not JSON" in broken.stderr


def test_report_with_classification_scores(tmp_path: Path) -> None:
    verdicts = tmp_path / "verdicts.jsonl"
    classified = main(
        [
            "classify",
            "--template", f"jobs={STACKOVERFLOW / 'jobs' / '01.html'}",
            "--template", f"tags={STACKOVERFLOW / 'tags' / '01.html'}",
            str(STACKOVERFLOW),
            "--output", str(verdicts),
        ]
    )  # fmt: skip
    assert classified == 0
    report = tmp_path / "r.html"
    code = main(["cluster", str(STACKOVERFLOW), "--report", str(report), "-o", "-",
                 "--verdicts", str(verdicts)])  # fmt: skip
    assert code == 0
    doc = parse(report.read_text())
    cards = doc.classed("div", "hist-card")
    assert sorted(c["data-label"] for c in cards) == ["jobs", "tags"]
    assert len(doc.classed("svg", "hist")) == 2


# --------------------------------------------------------------------------------------------
# report pieces


def test_report_structure() -> None:
    paths = list(iter_page_paths([STACKOVERFLOW]))
    result = cluster_pages(summarize(p, source=str(p)) for p in paths)
    truth = [p.parent.name for p in paths]
    text = clustering_report(result, truth=truth, title="SO <types>")
    assert "SO &lt;types&gt;" in text and "<script>" in text
    assert "http://" not in text.replace('xmlns="http://', "") and "https://" not in text
    doc = parse(text)
    cards = doc.classed("div", "cluster-card")
    assert [c["id"] for c in cards] == [c.label for c in result.clusters]
    points = doc.classed("circle", "pt")
    assert len(points) == len(result.leaders)
    assert {p["data-cluster"] for p in points} == {str(i) for i in range(5)}
    assert len(doc.having("rect")) >= 25  # heatmap cells of 5 x 5 representatives
    # each card names its representative page and shows the known labels
    for card_text, cluster in zip(text.split('class="card cluster-card"')[1:], result.clusters):
        assert Path(result.sources[cluster.representative]).name in card_text
        assert "known labels" in card_text


def test_outline_collapses_runs() -> None:
    summary = summarize(
        "<html><body><div id='a'><ul>" + "<li><a>x</a></li>" * 12 + "</ul></div>"
        "<p>one</p><p>two</p></body></html>"
    )
    text = outline(summary)
    lines = text.splitlines()
    assert lines[0] == "body"
    assert "    ul" in lines and "      li ×12" in lines
    assert "  p ×2" in lines
    assert "      li ×12  (1 below each)" in outline(summary, max_depth=3).splitlines()
    assert "    ul  (24 below)" in outline(summary, max_depth=2).splitlines()


def test_classical_mds_recovers_a_square() -> None:
    square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
    distances = [[math.dist(a, b) for b in square] for a in square]
    points = classical_mds(distances)
    for i in range(4):
        for j in range(4):
            assert math.dist(points[i], points[j]) == pytest.approx(distances[i][j], abs=1e-6)
    assert classical_mds([]) == [] and classical_mds([[0.0]]) == [(0.0, 0.0)]


def test_scores_section_from_verdict_dicts() -> None:
    verdicts = [
        {"label": "a", "score": 0.9, "scores": {"a": 0.9, "b": 0.2}, "threshold": 0.5},
        {"label": "b", "score": 0.8, "scores": {"a": 0.1, "b": 0.8}},
        {"label": None, "score": 0.3, "scores": {"a": 0.3, "b": 0.25}},
        {"label": "a"},  # no scores: left out and said so
        {"label": "a", "scores": {"a": "high"}},  # not a number: ignored
    ]
    doc = parse(scores_section(verdicts))
    assert [c["data-label"] for c in doc.classed("div", "hist-card")] == ["a", "b"]
    assert len(doc.classed("line", "threshold")) == 1  # only label a has a threshold
    assert "1 verdicts without scores" in "".join(doc.text)
    labelled = doc.classed("rect", "h-label")
    assert len(labelled) == 2  # one page labelled a, one labelled b
    assert scores_section([]) == ""
    page = classification_report(verdicts, thresholds={"b": 0.6})
    assert len(parse(page).classed("line", "threshold")) == 2
