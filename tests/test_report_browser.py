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
from pagesim_scrapy.core.summary import summarize
from pagesim_scrapy.reports import clustering_report, write_report
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


# --------------------------------------------------------------------------------------------
# At 1400 px: the cluster report with 300 clusters uses the page width and stays readable, and
# the crawl report (PAGESIM_REPORT) shows its sites and labels. Screenshots are kept in the
# test's temporary folder (pytest --basetemp=DIR to keep them somewhere known) for a person to
# look at; the tests check what can be measured: layout boxes from the browser, pixels.

WINDOW = (1400, 2400)

#: Appended to a copy of a report: the browser writes layout measures into the DOM.
_MEASURE = """<script>
(function () {
  function box(sel) {
    var el = document.querySelector(sel);
    if (!el) { return null; }
    var r = el.getBoundingClientRect();
    return [Math.round(r.left), Math.round(r.right), Math.round(r.width), Math.round(r.height)];
  }
  var cell = document.querySelector('svg.heatmap rect');
  var label = document.querySelector('svg.heatmap text');
  var figs = Array.prototype.slice.call(document.querySelectorAll('#overview > .fig'))
    .map(function (f) { var r = f.getBoundingClientRect(); return [Math.round(r.left),
      Math.round(r.right)]; });
  var out = {
    window: window.innerWidth,
    main: box('main'),
    figs: figs,
    heat_box: box('.heat-box'),
    cell: cell ? cell.getBoundingClientRect().width : null,
    label_font: label ? parseFloat(getComputedStyle(label).fontSize) : null,
    hist: box('.label-card svg.hist'),
    label_cards: document.querySelectorAll('.label-card').length,
    overflow: document.documentElement.scrollWidth - window.innerWidth
  };
  document.documentElement.setAttribute('data-measure', JSON.stringify(out));
})();
</script></body>"""


def _measure(report: Path, tmp_path: Path) -> dict[str, object]:
    import json

    copy = tmp_path / ("measured-" + report.name)
    copy.write_text(report.read_text(encoding="utf-8").replace("</body>", _MEASURE), "utf-8")
    result = run_browser(
        tmp_path, f"--window-size={WINDOW[0]},{WINDOW[1]}", "--dump-dom", copy.as_uri()
    )
    assert result.returncode == 0, result.stderr[-2000:]
    dom = _Dom()
    dom.feed(result.stdout)
    html_attrs = next(attrs for tag, attrs in dom.elements if tag == "html")
    assert "".join(dom.errors_text).strip() == ""
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    measure = html_attrs.get("data-measure")
    assert measure, "the measuring script did not run"
    return dict(json.loads(measure))


def _screenshot(report: Path, tmp_path: Path, name: str) -> tuple[int, int, bytes]:
    shot = tmp_path / name
    result = run_browser(
        tmp_path,
        "--hide-scrollbars",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        f"--screenshot={shot}",
        report.as_uri(),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    print(f"\nscreenshot: {shot}")
    width, height, pixels = _png_size_and_pixels(shot.read_bytes())
    assert (width, height) == WINDOW
    return width, height, pixels


def _unfilter(width: int, height: int, pixels: bytes, last: int) -> list[bytes]:
    """Rows 0..last of a decompressed 8-bit PNG image, PNG row filters undone."""
    stride = len(pixels) // height - 1
    bpp = stride // width
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(min(height, last + 1)):
        start = y * (stride + 1)
        kind = pixels[start]
        row = bytearray(pixels[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = row[i - bpp] if i >= bpp else 0
            up = previous[i]
            corner = previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                row[i] = (row[i] + left) & 0xFF
            elif kind == 2:
                row[i] = (row[i] + up) & 0xFF
            elif kind == 3:
                row[i] = (row[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                row[i] = (row[i] + pred) & 0xFF
        rows.append(bytes(row))
        previous = row
    return rows


def _busy_columns(width: int, height: int, pixels: bytes, top: int, bottom: int) -> int:
    """How many pixels wide the drawn part of rows top..bottom is: columns (sampled every
    5 px) where some row holds something other than the page background."""
    rows = _unfilter(width, height, pixels, bottom)
    bpp = len(rows[0]) // width
    busy = set()
    for y in range(top, bottom, 7):
        row = rows[y]
        for x in range(0, width, 5):
            r, g, b = row[x * bpp : x * bpp + 3]
            if abs(r - 0xF6) + abs(g - 0xF7) + abs(b - 0xFB) > 12:
                busy.add(x)
    return len(busy) * 5


def _synthetic_page(kind: int, variant: int) -> str:
    """A page of type ``kind``: the type's own random block structure, a small variation."""
    import random

    tags = [
        "div",
        "section",
        "article",
        "ul",
        "ol",
        "table",
        "form",
        "nav",
        "aside",
        "header",
        "footer",
        "p",
        "h2",
        "h3",
        "dl",
    ]
    rng = random.Random(kind)

    def block(depth: int) -> str:
        tag = rng.choice(tags)
        if depth > 2:
            return f"<{tag} class='c{rng.randint(0, 40)}'>x</{tag}>"
        kids = "".join(block(depth + 1) for _ in range(rng.randint(1, 4)))
        return f"<{tag} class='c{rng.randint(0, 40)}'>{kids}</{tag}>"

    blocks = [block(0) for _ in range(rng.randint(3, 7))]
    if random.Random(kind * 1000 + variant).random() < 0.5:
        blocks.append("<p>extra</p>")
    return (
        f"<html><head><title>type {kind} page {variant}</title></head>"
        f"<body>{''.join(blocks)}</body></html>"
    )


@pytest.fixture(scope="module")
def big_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    summaries = []
    truth = []
    for kind in range(300):
        for variant in range(1 + (kind % 4 == 0) + (kind % 7 == 0)):
            html = _synthetic_page(kind, variant)
            summaries.append(summarize(html, source=f"https://example.org/t{kind}/p{variant}"))
            truth.append(kind)
    result = cluster_pages(summaries)
    assert len(result.clusters) >= 290
    text = clustering_report(result, truth=truth)
    return write_report(tmp_path_factory.mktemp("big") / "clusters-300.html", text)


def test_cluster_report_at_300_clusters_uses_the_width_and_stays_readable(
    big_report: Path, tmp_path: Path
) -> None:
    m = _measure(big_report, tmp_path)
    window = int(m["window"])  # type: ignore[call-overload]
    main_left, main_right, *_ = m["main"]  # type: ignore[misc]
    assert main_right - main_left >= window - 30  # the whole width (less a scroll bar)
    figs = m["figs"]
    assert len(figs) == 2  # type: ignore[arg-type]
    # sizes and map side by side, together spanning the page
    assert figs[0][1] < figs[1][0]  # type: ignore[index]
    assert figs[1][1] >= window - 60  # type: ignore[index]
    assert figs[0][0] <= 60  # type: ignore[index]
    # the heatmap of the 60 largest clusters: cells and labels big enough to read and point at
    assert float(m["cell"]) >= 12  # type: ignore[arg-type]
    assert float(m["label_font"]) >= 9  # type: ignore[arg-type]
    assert int(m["overflow"]) <= 0  # type: ignore[call-overload]  # no sideways scrolling
    text = big_report.read_text(encoding="utf-8")
    n = text.count('class="card cluster-card"')
    assert n >= 290
    assert f"the 60 largest of {n} clusters" in text
    assert text.count("<tr><td><a href=") == 15  # the most alike pairs

    width, height, pixels = _screenshot(big_report, tmp_path, "clusters-300.png")
    # the first screen is drawn across the window, not in its left third
    assert _busy_columns(width, height, pixels, 200, 900) >= 0.85 * width


@pytest.fixture(scope="module")
def crawl_report_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The crawl report of the real-site snapshot, classified with the site method as the
    middleware does (page by page, learning the site as it goes)."""
    import json

    from pagesim_scrapy.core.classify import build_classifier
    from pagesim_scrapy.crawlreport import CrawlReportCollector
    from pagesim_scrapy.reports import crawl_report
    from sample_project.demo_shop.spiders.opensource import LABELS_FILE, SITE_DIR, TEMPLATES

    labels = json.loads(LABELS_FILE.read_text(encoding="utf-8"))
    templates = {
        label: [summarize(SITE_DIR / path) for path in paths] for label, paths in TEMPLATES.items()
    }
    classifier = build_classifier(templates, method="site")
    collector = CrawlReportCollector()
    for path in sorted(labels):
        url = "https://opensource.creativecommons.org/" + path
        verdict = classifier.classify(summarize(SITE_DIR / path), site="opensource")
        collector.add(verdict.as_dict(), url)
    text = crawl_report(collector.as_dict())
    return write_report(tmp_path_factory.mktemp("crawl") / "crawl-report.html", text)


def test_crawl_report_in_the_browser(crawl_report_file: Path, tmp_path: Path) -> None:
    m = _measure(crawl_report_file, tmp_path)
    window = int(m["window"])  # type: ignore[call-overload]
    main_left, main_right, *_ = m["main"]  # type: ignore[misc]
    assert main_right - main_left >= window - 30  # the whole width (less a scroll bar)
    assert int(m["label_cards"]) == 8  # type: ignore[call-overload]  # 7 labels + unmatched
    hist_width = m["hist"][2]  # type: ignore[index]
    assert 250 <= hist_width <= 700  # a histogram fills its card, not clipped, not huge
    assert int(m["overflow"]) <= 0  # type: ignore[call-overload]
    width, height, pixels = _screenshot(crawl_report_file, tmp_path, "crawl-report.png")
    assert _busy_columns(width, height, pixels, 300, 1200) >= 0.85 * width
