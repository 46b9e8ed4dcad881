"""The clustering report in a real browser: Debian's chromium, headless.

The report must load from a file without the network and without script errors, and show the
clusters. Skipped when chromium is not installed (``apt-get install -y chromium`` as root).

Pages: real Stack Overflow pages of 5 types (tests/fixtures/stackoverflow, BSD-3-Clause).
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from pagesim_scrapy.core.classify import TemplateClassifier
from pagesim_scrapy.core.cluster import cluster_pages
from pagesim_scrapy.core.pageio import iter_page_paths
from pagesim_scrapy.core.report import clustering_report, write_report
from pagesim_scrapy.core.summary import summarize
from tests.conftest import FIXTURES

STACKOVERFLOW = FIXTURES / "stackoverflow"
BROWSER_TIMEOUT = 120


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(
        "chromium is not installed (as root: apt-get update && apt-get install -y chromium)"
    )


def run_browser(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=3000",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=BROWSER_TIMEOUT)


@pytest.fixture(scope="module")
def report_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    paths = list(iter_page_paths([STACKOVERFLOW]))
    summaries = [summarize(p, source=str(p)) for p in paths]
    result = cluster_pages(summaries)
    classifier = TemplateClassifier(
        {"jobs": [summaries[0], summaries[1]], "tags": [summaries[9], summaries[10]]}
    )
    verdicts = [classifier.classify(s).as_dict() for s in summaries]
    text = clustering_report(result, truth=[p.parent.name for p in paths], verdicts=verdicts)
    return write_report(tmp_path_factory.mktemp("report") / "report.html", text)


class _Dom(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.errors_text: list[str] = []
        self._in_errors = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.elements.append((tag, attributes))
        self._in_errors = attributes.get("id") == "js-errors"

    def handle_endtag(self, tag: str) -> None:
        self._in_errors = False

    def handle_data(self, data: str) -> None:
        if self._in_errors:
            self.errors_text.append(data)

    def classed(self, tag: str, name: str) -> list[dict[str, str | None]]:
        return [a for t, a in self.elements if t == tag and name in (a.get("class") or "").split()]


def test_report_loads_and_shows_the_clusters(report_file: Path, tmp_path: Path) -> None:
    result = run_browser(tmp_path, "--dump-dom", report_file.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    dom = _Dom()
    dom.feed(result.stdout)
    html_attrs = next(attrs for tag, attrs in dom.elements if tag == "html")
    # set by the report's script as its last step: it ran to the end
    assert html_attrs.get("data-report-ready") == "5"
    assert "".join(dom.errors_text).strip() == ""
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    cards = dom.classed("div", "cluster-card")
    assert [c["id"] for c in cards] == [f"cluster-{n}" for n in range(1, 6)]
    assert len(dom.classed("circle", "pt")) >= 5
    assert {c["data-label"] for c in dom.classed("div", "hist-card")} == {"jobs", "tags"}


def _png_size_and_pixels(data: bytes) -> tuple[int, int, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    idat = b""
    offset = 8
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        if kind == b"IDAT":
            idat += data[offset + 8 : offset + 8 + length]
        offset += 12 + length
    return width, height, zlib.decompress(idat)


def test_report_screenshot(report_file: Path, tmp_path: Path) -> None:
    shot = tmp_path / "report.png"
    result = run_browser(
        tmp_path, "--window-size=1280,1800", f"--screenshot={shot}", report_file.as_uri()
    )
    assert result.returncode == 0, result.stderr[-2000:]
    width, height, pixels = _png_size_and_pixels(shot.read_bytes())
    assert (width, height) == (1280, 1800)
    # a rendered report, not a blank page: many distinct colour values
    assert len(set(pixels)) > 100
