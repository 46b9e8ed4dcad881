"""A self-contained HTML report of a clustering (and of a classification run's scores).

One file, no network: inline CSS, inline SVG drawn here, a few lines of inline JavaScript for
highlighting. It shows what a person wants to see first: how many page types there are and how
big, what a representative page of each looks like (title, address, structural outline), how the
pages lie relative to each other (a 2-D map by classical multidimensional scaling of the leaders'
similarities, computed with power iteration in plain Python), how distinct the types are (a
heatmap of their representatives' similarities), and, for a classification run, the score
distribution of every label.
"""

from __future__ import annotations

import datetime
import html
import math
import operator
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pagesim_scrapy.core.summary import PageSummary

if TYPE_CHECKING:
    from pagesim_scrapy.core.cluster.pipeline import Clustering

_PALETTE = (
    "#4e79a7",
    "#f28e2b",
    "#e15759",
    "#76b7b2",
    "#59a14f",
    "#edc948",
    "#b07aa1",
    "#ff9da7",
    "#9c755f",
    "#86bcb6",
    "#d37295",
    "#8cd17d",
)


def cluster_colour(index: int) -> str:
    """A distinct colour per cluster: a fixed palette first, then golden-angle hues."""
    if index < len(_PALETTE):
        return _PALETTE[index]
    hue = (index * 137.508) % 360
    return f"hsl({hue:.0f},55%,50%)"


def _e(text: object) -> str:
    return html.escape("" if text is None else str(text), quote=True)


# ---------------------------------------------------------------------------------------------
# structure outline


def outline(summary: PageSummary, max_depth: int = 4, max_lines: int = 40) -> str:
    """An indented outline of the page's top levels; runs of alike siblings shown once (×n)."""
    n = summary.n_nodes
    if n == 0:
        return "(empty)"
    children: list[list[int]] = [[] for _ in range(n)]
    for node in range(1, n):
        children[summary.parent_bfs[node]].append(node)
    tags = summary.tags
    codes = summary.sequence("rpsa")

    def shape(node: int) -> tuple[str, tuple[str, ...]]:
        return codes[node], tuple(codes[c] for c in children[node])

    lines: list[str] = []

    def walk(node: int, depth: int, count: int) -> None:
        if len(lines) >= max_lines:
            return
        size = _subtree_size(children, node)
        label = tags[node] + (f" ×{count}" if count > 1 else "")
        each = " each" if count > 1 else ""
        hidden = f"  ({size - 1} below{each})" if depth >= max_depth and size > 1 else ""
        lines.append("  " * depth + label + hidden)
        if depth >= max_depth:
            return
        kids = children[node]
        i = 0
        while i < len(kids):
            j = i + 1
            while j < len(kids) and shape(kids[j]) == shape(kids[i]):
                j += 1
            walk(kids[i], depth + 1, j - i)
            i = j

    walk(0, 0, 1)
    if len(lines) >= max_lines:
        lines.append("  …")
    return "\n".join(lines)


def _subtree_size(children: list[list[int]], node: int) -> int:
    size = 0
    stack = [node]
    while stack:
        current = stack.pop()
        size += 1
        stack.extend(children[current])
    return size


# ---------------------------------------------------------------------------------------------
# 2-D map: classical MDS by power iteration


def classical_mds(
    distances: Sequence[Sequence[float]], iterations: int = 200
) -> list[tuple[float, float]]:
    """2-D coordinates whose Euclidean distances approximate ``distances`` (Torgerson's MDS).

    Double-centre the squared distances into B = -1/2 J D² J and take B's two leading
    eigenvectors, found by power iteration with deflation (no numpy needed).
    """
    m = len(distances)
    if m == 0:
        return []
    if m == 1:
        return [(0.0, 0.0)]
    squared = [[d * d for d in row] for row in distances]
    row_mean = [sum(row) / m for row in squared]
    total_mean = sum(row_mean) / m
    b = [
        [-0.5 * (squared[i][j] - row_mean[i] - row_mean[j] + total_mean) for j in range(m)]
        for i in range(m)
    ]
    axes: list[tuple[float, list[float]]] = []
    for axis in range(2):
        vector = [math.sin(1.0 + i * (1.7 + axis)) + 0.1 for i in range(m)]
        value = 0.0
        for _ in range(iterations):
            nxt = [sum(map(operator.mul, row, vector)) for row in b]
            for lam, u in axes:  # deflate the axes found already
                dot = sum(map(operator.mul, u, vector))
                nxt = [x - lam * dot * ui for x, ui in zip(nxt, u)]
            norm = math.sqrt(sum(x * x for x in nxt))
            if norm < 1e-12:
                break
            nxt = [x / norm for x in nxt]
            value = norm
            change = sum(abs(x - y) for x, y in zip(nxt, vector))
            vector = nxt
            if change < 1e-9:
                break
        axes.append((value, vector))
    xs = [math.sqrt(max(axes[0][0], 0.0)) * v for v in axes[0][1]]
    ys = [math.sqrt(max(axes[1][0], 0.0)) * v for v in axes[1][1]]
    return list(zip(xs, ys))


def _map_svg(
    points: Sequence[tuple[float, float]],
    radii: Sequence[float],
    clusters: Sequence[int],
    tooltips: Sequence[str],
    width: int = 640,
    height: int = 460,
) -> str:
    pad = 24
    if not points:
        return "<p>No pages to map.</p>"
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    span_x = (max(xs) - min(xs)) or 1.0
    span_y = (max(ys) - min(ys)) or 1.0
    scale = min((width - 2 * pad) / span_x, (height - 2 * pad) / span_y)
    cx = (max(xs) + min(xs)) / 2
    cy = (max(ys) + min(ys)) / 2
    parts = [
        f'<svg class="map" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="2-D map of pages coloured by cluster">',
        f'<rect x="0" y="0" width="{width}" height="{height}" class="map-bg"/>',
    ]
    order = sorted(range(len(points)), key=lambda i: -radii[i])  # small points drawn on top
    for i in order:
        x = width / 2 + (points[i][0] - cx) * scale
        y = height / 2 + (points[i][1] - cy) * scale
        parts.append(
            f'<circle class="pt" data-cluster="{clusters[i]}" cx="{x:.1f}" cy="{y:.1f}" '
            f'r="{radii[i]:.1f}" fill="{cluster_colour(clusters[i])}">'
            f"<title>{_e(tooltips[i])}</title></circle>"
        )
    parts.append("</svg>")
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# heatmap and bars


def _map_leaders(clustering: Clustering, n_clusters: int, limit: int) -> list[int]:
    """Leaders to draw: every shown cluster's representative first, then the largest others."""
    page_leader = {info.page: i for i, info in enumerate(clustering.leaders)}
    chosen = [page_leader[c.representative] for c in clustering.clusters[:n_clusters]][:limit]
    taken = set(chosen)
    others = sorted(
        (
            i
            for i, info in enumerate(clustering.leaders)
            if info.cluster < n_clusters and i not in taken
        ),
        key=lambda i: (-clustering.leaders[i].weight, i),
    )
    return chosen + others[: max(0, limit - len(chosen))]


def _map_distances(
    clustering: Clustering, leaders: Sequence[int], rep_sim: Sequence[Sequence[float]]
) -> list[list[float]]:
    """1 - similarity between leaders; for pairs never compared, 1 - their clusters' estimate."""
    graph = clustering.graph
    out = []
    for i in leaders:
        ci = clustering.leaders[i].cluster
        edges = graph.edges[i]
        row = []
        for j in leaders:
            if i == j:
                row.append(0.0)
                continue
            known = edges.get(j)
            if known is None:
                cj = clustering.leaders[j].cluster
                known = clustering.clusters[ci].cohesion if ci == cj else rep_sim[ci][cj]
            row.append(1.0 - known)
        out.append(row)
    return out


def _heat_colour(value: float) -> str:
    value = min(1.0, max(0.0, value))
    # white (0) to deep blue (1)
    r = int(247 - value * (247 - 33))
    g = int(251 - value * (251 - 102))
    b = int(255 - value * (255 - 172))
    return f"rgb({r},{g},{b})"


def _heatmap_svg(labels: Sequence[str], matrix: Sequence[Sequence[float]]) -> str:
    m = len(labels)
    if m == 0:
        return ""
    cell = max(10, min(28, 560 // m))
    left = 90
    top = 90
    size = left + cell * m + 10
    parts = [
        f'<svg class="heatmap" viewBox="0 0 {size} {top + cell * m + 10}" width="{size}" '
        f'height="{top + cell * m + 10}" role="img" aria-label="similarity of representatives">'
    ]
    for i, label in enumerate(labels):
        y = top + i * cell + cell * 0.7
        parts.append(
            f'<text x="{left - 4}" y="{y:.1f}" text-anchor="end" class="axis" '
            f'data-cluster="{i}">{_e(label)}</text>'
        )
        x = left + i * cell + cell * 0.7
        parts.append(
            f'<text x="{x:.1f}" y="{top - 4}" transform="rotate(-60 {x:.1f} {top - 4})" '
            f'class="axis" data-cluster="{i}">{_e(label)}</text>'
        )
    for i in range(m):
        for j in range(m):
            value = matrix[i][j]
            parts.append(
                f'<rect x="{left + j * cell}" y="{top + i * cell}" width="{cell}" '
                f'height="{cell}" fill="{_heat_colour(value)}"><title>{_e(labels[i])} vs '
                f"{_e(labels[j])}: {value:.2f}</title></rect>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _bars_svg(labels: Sequence[str], sizes: Sequence[int], width: int = 640) -> str:
    m = len(labels)
    if m == 0:
        return ""
    row = 18
    left = 90
    biggest = max(sizes) or 1
    height = row * m + 6
    parts = [
        f'<svg class="bars" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="cluster sizes">'
    ]
    for i, (label, size) in enumerate(zip(labels, sizes)):
        y = i * row + 3
        length = (width - left - 60) * size / biggest
        parts.append(
            f'<g class="bar" data-cluster="{i}"><text x="{left - 6}" y="{y + 12}" '
            f'text-anchor="end" class="axis">{_e(label)}</text>'
            f'<rect x="{left}" y="{y}" width="{max(length, 1):.1f}" height="{row - 5}" '
            f'fill="{cluster_colour(i)}"/>'
            f'<text x="{left + length + 4:.1f}" y="{y + 12}" class="axis">{size}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# classification scores


def _histogram_svg(
    label: str,
    assigned: Sequence[float],
    others: Sequence[float],
    threshold: float | None,
    bins: int = 20,
) -> str:
    width, height, pad_left, pad_bottom = 320, 150, 30, 22
    counts_a = [0] * bins
    counts_o = [0] * bins
    for value, counts in [(v, counts_a) for v in assigned] + [(v, counts_o) for v in others]:
        index = min(bins - 1, max(0, int(value * bins)))
        counts[index] += 1
    tallest = max([a + o for a, o in zip(counts_a, counts_o)] + [1])
    plot_w = width - pad_left - 8
    plot_h = height - pad_bottom - 8
    bar_w = plot_w / bins
    parts = [
        f'<svg class="hist" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="scores for {_e(label)}">'
    ]
    for i in range(bins):
        x = pad_left + i * bar_w
        h_o = plot_h * counts_o[i] / tallest
        h_a = plot_h * counts_a[i] / tallest
        base = 8 + plot_h
        if counts_o[i]:
            parts.append(
                f'<rect x="{x:.1f}" y="{base - h_o:.1f}" width="{bar_w - 1:.1f}" '
                f'height="{h_o:.1f}" class="h-other"><title>{counts_o[i]} other pages, '
                f"{i / bins:.2f}–{(i + 1) / bins:.2f}</title></rect>"
            )
        if counts_a[i]:
            parts.append(
                f'<rect x="{x:.1f}" y="{base - h_o - h_a:.1f}" width="{bar_w - 1:.1f}" '
                f'height="{h_a:.1f}" class="h-label"><title>{counts_a[i]} pages labelled '
                f"{_e(label)}, {i / bins:.2f}–{(i + 1) / bins:.2f}</title></rect>"
            )
    for tick in (0.0, 0.5, 1.0):
        x = pad_left + tick * plot_w
        parts.append(
            f'<text x="{x:.1f}" y="{height - 6}" text-anchor="middle" class="axis">'
            f"{tick:.1f}</text>"
        )
    parts.append(
        f'<line x1="{pad_left}" y1="{8 + plot_h}" x2="{pad_left + plot_w}" y2="{8 + plot_h}" '
        f'class="axis-line"/>'
    )
    if threshold is not None:
        x = pad_left + min(1.0, max(0.0, threshold)) * plot_w
        parts.append(
            f'<line x1="{x:.1f}" y1="6" x2="{x:.1f}" y2="{8 + plot_h}" class="threshold">'
            f"<title>threshold {threshold:.3f}</title></line>"
        )
    parts.append("</svg>")
    return "".join(parts)


def scores_section(
    verdicts: Sequence[Mapping[str, Any]],
    thresholds: Mapping[str, float] | None = None,
) -> str:
    """Histograms of every label's scores over a classification run's verdict dicts.

    A verdict dict has ``label`` and ``scores`` ({label: score}); pages given the label are
    stacked over the others. A threshold comes from ``thresholds`` or from the verdicts'
    ``threshold`` field for pages given that label.
    """
    per_label: dict[str, tuple[list[float], list[float]]] = {}
    seen_thresholds: dict[str, float] = dict(thresholds or {})
    skipped = 0
    for verdict in verdicts:
        scores = verdict.get("scores")
        if not isinstance(scores, Mapping):
            skipped += 1
            continue
        for label, score in scores.items():
            if not isinstance(score, (int, float)):
                continue
            assigned, others = per_label.setdefault(str(label), ([], []))
            (assigned if verdict.get("label") == label else others).append(float(score))
        label = verdict.get("label")
        threshold = verdict.get("threshold")
        if label is not None and isinstance(threshold, (int, float)):
            seen_thresholds.setdefault(str(label), float(threshold))
    if not per_label:
        return ""
    cards = []
    for label in sorted(per_label):
        assigned, others = per_label[label]
        cards.append(
            f'<div class="card hist-card" data-label="{_e(label)}"><h3>{_e(label)}</h3>'
            f"<p>{len(assigned)} labelled, {len(others)} other</p>"
            f"{_histogram_svg(label, assigned, others, seen_thresholds.get(label))}</div>"
        )
    note = f"<p>{skipped} verdicts without scores left out.</p>" if skipped else ""
    return (
        '<section id="scores"><h2>Classification scores per label</h2>'
        '<p class="legend"><span class="sw h-label"></span> pages given the label '
        '<span class="sw h-other"></span> other pages; the red line is the threshold.</p>'
        f'{note}<div class="grid">{"".join(cards)}</div></section>'
    )


# ---------------------------------------------------------------------------------------------
# the page


_CSS = """
:root { --fg:#1d2330; --muted:#5b6475; --line:#dde2ea; --bg:#f6f7fb; }
* { box-sizing:border-box; }
body { margin:0; font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
  color:var(--fg); background:var(--bg); }
header { background:#1d2330; color:#fff; padding:18px 28px; }
header h1 { margin:0 0 4px; font-size:22px; }
header p { margin:0; color:#c9d1e0; }
main { padding:18px 28px 40px; max-width:1400px; }
section { margin:22px 0; }
h2 { font-size:18px; margin:0 0 10px; }
h3 { font-size:15px; margin:0 0 4px; }
.stats { display:flex; flex-wrap:wrap; gap:10px; }
.stat { background:#fff; border:1px solid var(--line); border-radius:8px; padding:8px 14px; }
.stat b { display:block; font-size:20px; }
.stat span { color:var(--muted); font-size:12px; }
.grid { display:grid; grid-template-columns:repeat(auto-fill,minmax(330px,1fr)); gap:12px; }
.card { background:#fff; border:1px solid var(--line); border-radius:8px; padding:12px 14px;
  border-top:5px solid var(--c,#888); }
.card.dim, .pt.dim, .bar.dim { opacity:.18; }
.card .meta { color:var(--muted); font-size:12px; margin:2px 0 6px; }
.card a { color:#2357a6; word-break:break-all; }
.card pre { background:#f3f5f9; border-radius:6px; padding:6px 8px; font-size:11.5px;
  max-height:260px; overflow:auto; margin:6px 0 0; }
.composition { font-size:12px; color:var(--muted); }
.figs { display:flex; flex-wrap:wrap; gap:18px; align-items:flex-start; }
.fig { background:#fff; border:1px solid var(--line); border-radius:8px; padding:10px; }
.fig p { margin:4px 0 0; color:var(--muted); font-size:12px; max-width:640px; }
.map-bg { fill:#fff; }
.pt { stroke:#fff; stroke-width:1; cursor:pointer; }
.pt.hl { stroke:#000; stroke-width:2; }
.axis { font-size:11px; fill:#5b6475; }
.axis-line { stroke:#9aa3b5; }
.h-label { fill:#4e79a7; background:#4e79a7; }
.h-other { fill:#c7ccd6; background:#c7ccd6; }
.threshold { stroke:#d62728; stroke-width:2; stroke-dasharray:4 2; }
.legend .sw { display:inline-block; width:12px; height:12px; border-radius:2px;
  vertical-align:-1px; margin:0 4px 0 10px; }
.filter { margin:0 0 10px; }
.filter input { padding:5px 8px; border:1px solid var(--line); border-radius:6px; width:280px; }
#js-errors { color:#b00020; }
button.reset { margin-left:8px; }
"""

_JS = """
(function () {
  var errors = [];
  window.addEventListener('error', function (e) {
    errors.push(String(e.message));
    var box = document.getElementById('js-errors');
    if (box) { box.textContent = 'Script error: ' + errors.join('; '); }
  });
  function all(sel) { return Array.prototype.slice.call(document.querySelectorAll(sel)); }
  var active = null;
  function highlight(cluster) {
    active = (active === cluster) ? null : cluster;
    all('[data-cluster]').forEach(function (el) {
      var mine = el.getAttribute('data-cluster') === active;
      el.classList.toggle('dim', active !== null && !mine && !el.matches('text'));
      el.classList.toggle('hl', active !== null && mine);
    });
  }
  all('[data-cluster]').forEach(function (el) {
    el.addEventListener('click', function () { highlight(el.getAttribute('data-cluster')); });
  });
  var input = document.getElementById('cluster-filter');
  if (input) {
    input.addEventListener('input', function () {
      var q = input.value.toLowerCase();
      all('.cluster-card').forEach(function (card) {
        card.style.display = card.textContent.toLowerCase().indexOf(q) >= 0 ? '' : 'none';
      });
    });
  }
  document.documentElement.setAttribute('data-report-ready', String(all('.cluster-card').length));
})();
"""


def _link(source: str | None) -> str:
    if not source:
        return '<span class="meta">(no address)</span>'
    scheme = urlsplit(source).scheme.lower()
    if scheme in ("http", "https", "file"):
        href = source
    elif source.startswith("synthetic/"):
        return f"<code>{_e(source)}</code>"
    else:
        try:
            href = Path(source).resolve().as_uri()
        except (OSError, ValueError):
            return f"<code>{_e(source)}</code>"
    return f'<a href="{_e(href)}">{_e(source)}</a>'


def _page(title: str, subtitle: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{_e(title)}</h1><p>{_e(subtitle)}</p></header>"
        f'<main><div id="js-errors" role="alert"></div>{body}</main>'
        f"<script>{_JS}</script></body></html>\n"
    )


def _stats(items: Sequence[tuple[str, object]]) -> str:
    cells = "".join(
        f'<div class="stat"><b>{_e(value)}</b><span>{_e(name)}</span></div>'
        for name, value in items
    )
    return f'<section class="stats">{cells}</section>'


def clustering_report(
    clustering: Clustering,
    *,
    title: str = "Page types found by clustering",
    truth: Sequence[Hashable] | None = None,
    verdicts: Sequence[Mapping[str, Any]] | None = None,
    similarity: Callable[[PageSummary, PageSummary], float] | None = None,
    max_map_points: int = 150,
    max_map_clusters: int = 60,
    max_heatmap: int = 40,
    max_bars: int = 30,
    examples: int = 3,
) -> str:
    """The report of a :class:`~pagesim_scrapy.core.cluster.pipeline.Clustering` as HTML text.

    ``truth`` (a known label per page) adds each cluster's composition and the adjusted Rand
    index; ``verdicts`` adds score histograms; ``similarity`` (default: the clustering's own
    measure) fills the heatmap of representatives.
    """
    from pagesim_scrapy.core.cluster.metrics import adjusted_rand_index
    from pagesim_scrapy.core.cluster.pipeline import measure_function

    if truth is not None and len(truth) != len(clustering.assignments):
        raise ValueError("truth must hold one label per clustered page")
    options = clustering.options
    if similarity is None:
        similarity = clustering.similarity or measure_function(
            options.method, options.method_params
        )
    clusters = clustering.clusters
    n_pages = len(clustering.assignments)
    stats: list[tuple[str, object]] = [
        ("pages", n_pages),
        ("clusters", len(clusters)),
        ("leaders compared", len(clustering.leaders)),
        ("algorithm", options.algorithm),
        ("measure", options.method),
    ]
    singletons = sum(1 for c in clusters if c.size == 1)
    if singletons:
        stats.append(("single-page clusters", singletons))
    if truth is not None:
        stats.append(
            ("adjusted Rand index", f"{adjusted_rand_index(truth, clustering.assignments):.3f}")
        )
    seconds = sum(
        float(clustering.stats.get(key, 0.0))
        for key in ("seconds_condense", "seconds_compare", "seconds_cluster")
    )
    stats.append(("seconds", f"{seconds:.1f}"))

    composition: dict[int, Counter[Hashable]] = {}
    if truth is not None:
        for page, c in enumerate(clustering.assignments):
            composition.setdefault(c, Counter())[truth[page]] += 1
    representatives = clustering.representatives(examples)

    cards = []
    for index, (cluster, rep) in enumerate(zip(clusters, representatives)):
        share = 100.0 * cluster.size / n_pages if n_pages else 0.0
        extra = [s for s in rep.examples if s != rep.source]
        examples_html = (
            "<div class='meta'>also: " + ", ".join(_link(s) for s in extra) + "</div>"
            if extra
            else ""
        )
        comp = ""
        if index in composition:
            top = composition[index].most_common(3)
            rest = sum(composition[index].values()) - sum(c for _, c in top)
            comp = (
                "<div class='composition'>known labels: "
                + ", ".join(f"{_e(label)} {count}" for label, count in top)
                + (f", others {rest}" if rest else "")
                + "</div>"
            )
        cards.append(
            f'<div class="card cluster-card" data-cluster="{index}" '
            f'style="--c:{cluster_colour(index)}" id="{_e(cluster.label)}">'
            f"<h3>{_e(cluster.label)}</h3>"
            f'<div class="meta">{cluster.size} page{"s" if cluster.size != 1 else ""} '
            f"({share:.1f} %) · cohesion {cluster.cohesion:.2f} · "
            f"{cluster.summary.n_nodes} nodes</div>"
            f"<div><b>{_e(cluster.summary.title or '(no title)')}</b></div>"
            f"<div>{_link(rep.source)}</div>{examples_html}{comp}"
            f"<details><summary>structure outline</summary>"
            f"<pre>{_e(outline(cluster.summary))}</pre></details></div>"
        )

    labels = [c.label for c in clusters]
    bars = _bars_svg(labels[:max_bars], [c.size for c in clusters[:max_bars]])
    if len(clusters) > max_bars:
        smaller = clusters[max_bars:]
        bars += (
            f"<p>… and {len(smaller)} smaller clusters with {sum(c.size for c in smaller)} pages "
            "(all listed below).</p>"
        )

    # similarity between the representatives of the largest clusters: the heatmap, and the map's
    # estimate for two leaders that were never compared
    shown_clusters = list(range(min(len(clusters), max(max_heatmap, max_map_clusters))))
    rep_sim = [
        [
            1.0 if a == b else similarity(clusters[a].summary, clusters[b].summary)
            for b in shown_clusters
        ]
        for a in shown_clusters
    ]
    leaders = _map_leaders(clustering, min(len(clusters), max_map_clusters), max_map_points)
    distances = _map_distances(clustering, leaders, rep_sim)
    points = classical_mds(distances)
    biggest = max((clustering.leaders[i].weight for i in leaders), default=1)
    radii = [3.0 + 9.0 * math.sqrt(clustering.leaders[i].weight / biggest) for i in leaders]
    tips = []
    for i in leaders:
        info = clustering.leaders[i]
        tips.append(
            f"{labels[info.cluster]} · {info.weight} page(s) · "
            f"{clustering.sources[info.page] or ''} · {info.summary.title or ''}"
        )
    map_svg = _map_svg(points, radii, [clustering.leaders[i].cluster for i in leaders], tips)
    shown = (
        f"{len(leaders)} of {len(clustering.leaders)} leaders, from the largest clusters"
        if len(leaders) < len(clustering.leaders)
        else f"all {len(leaders)} leaders"
    )
    heat_ids = shown_clusters[:max_heatmap]
    matrix = [row[: len(heat_ids)] for row in rep_sim[: len(heat_ids)]]
    heat_note = (
        f"the {len(heat_ids)} largest of {len(clusters)} clusters"
        if len(heat_ids) < len(clusters)
        else "all clusters"
    )

    params = ", ".join(f"{k}={v}" for k, v in options.describe().items())
    body = (
        _stats(stats)
        + '<section id="overview"><h2>Cluster sizes</h2><div class="figs">'
        + f'<div class="fig">{bars}<p>Click a bar, a card or a point to highlight a cluster.</p>'
        + "</div></div></section>"
        + '<section id="map"><h2>Map of the pages</h2><div class="figs">'
        + f'<div class="fig">{map_svg}<p>Classical multidimensional scaling of 1 − similarity '
        + f"between leaders ({shown}); two leaders never compared are placed as far apart as "
        + "their clusters' representatives. A circle's area grows with the pages it stands "
        + "for, its colour is its cluster. Hover for the page.</p></div>"
        + f'<div class="fig">{_heatmap_svg(labels[: len(heat_ids)], matrix)}'
        + f"<p>Similarity ({_e(options.method)}) between the representatives of "
        + f"{heat_note}: a dark cell off the diagonal marks two types that look alike.</p>"
        + "</div></div></section>"
        + '<section id="clusters"><h2>Clusters and their representative pages</h2>'
        + '<div class="filter"><input id="cluster-filter" type="search" '
        + 'placeholder="filter by label, title or address"></div>'
        + f'<div class="grid">{"".join(cards)}</div></section>'
    )
    if verdicts:
        body += scores_section(verdicts)
    body += f'<section><p class="meta">Parameters: {_e(params)}</p></section>'
    generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    subtitle = f"{n_pages} pages, {len(clusters)} clusters · generated {generated}"
    return _page(title, subtitle, body)


def classification_report(
    verdicts: Sequence[Mapping[str, Any]],
    *,
    title: str = "Classification scores",
    thresholds: Mapping[str, float] | None = None,
) -> str:
    """A report of a classification run alone: counts per label and score histograms."""
    counts = Counter(str(v.get("label")) for v in verdicts)
    stats = [("pages", len(verdicts))] + [
        (f"label {label}", count) for label, count in counts.most_common()
    ]
    body = _stats(stats) + (scores_section(verdicts, thresholds) or "<p>No scores.</p>")
    return _page(title, f"{len(verdicts)} verdicts", body)


def write_report(path: str | Path, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
