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


def _heat_colour(value: float, low: float = 0.0) -> str:
    """White at ``low`` (and below) to deep blue at 1."""
    value = min(1.0, max(0.0, (value - low) / (1.0 - low) if low < 1.0 else value))
    # white (0) to deep blue (1)
    r = int(247 - value * (247 - 33))
    g = int(251 - value * (251 - 102))
    b = int(255 - value * (255 - 172))
    return f"rgb({r},{g},{b})"


def seriate(matrix: Sequence[Sequence[float]]) -> list[int]:
    """An order of the rows that puts alike rows next to each other (greedy nearest-neighbour
    chain from row 0, the largest cluster), so that groups of alike types show as blocks."""
    m = len(matrix)
    if m == 0:
        return []
    order = [0]
    left = set(range(1, m))
    while left:
        last = order[-1]
        nxt = max(left, key=lambda j: (matrix[last][j], -j))
        order.append(nxt)
        left.remove(nxt)
    return order


def _heatmap_svg(
    labels: Sequence[str],
    matrix: Sequence[Sequence[float]],
    ids: Sequence[int] | None = None,
    cell: int = 14,
    low: float = 0.0,
) -> str:
    """A similarity heatmap drawn at its natural size (``cell`` px per cell, labels legible);
    the page puts it in a scrolling, zoomable box. ``ids`` are the rows' cluster numbers."""
    m = len(labels)
    if m == 0:
        return ""
    ids = list(range(m)) if ids is None else list(ids)
    longest = max(len(label) for label in labels)
    left = top = 12 + int(6.2 * longest)
    width = left + cell * m + 8
    height = top + cell * m + 8
    font = max(8, min(12, cell - 3))
    parts = [
        f'<svg class="heatmap" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" data-width="{width}" role="img" '
        f'aria-label="similarity of the representatives" style="font-size:{font}px">'
    ]
    for i, label in enumerate(labels):
        y = top + i * cell + cell * 0.72
        parts.append(
            f'<text x="{left - 4}" y="{y:.1f}" text-anchor="end" class="axis hl-label" '
            f'data-cluster="{ids[i]}">{_e(label)}</text>'
        )
        x = left + i * cell + cell * 0.72
        parts.append(
            f'<text x="{x:.1f}" y="{top - 4}" transform="rotate(-90 {x:.1f} {top - 4})" '
            f'class="axis hl-label" data-cluster="{ids[i]}">{_e(label)}</text>'
        )
    for i in range(m):
        for j in range(m):
            value = matrix[i][j]
            parts.append(
                f'<rect x="{left + j * cell}" y="{top + i * cell}" width="{cell}" '
                f'height="{cell}" fill="{_heat_colour(value, low)}"><title>{_e(labels[i])} vs '
                f"{_e(labels[j])}: {value:.2f}</title></rect>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _heat_legend(low: float = 0.0) -> str:
    stops = "".join(
        f'<span style="background:{_heat_colour(low + (1.0 - low) * v / 10, low)}"></span>'
        for v in range(11)
    )
    return f'<div class="heat-legend">{low:.2f} <span class="ramp">{stops}</span> 1</div>'


def _off_diagonal_floor(matrix: Sequence[Sequence[float]]) -> float:
    """The colour scale's white: the 5th percentile of the similarities between distinct
    types, so that the scale spends its range where the values are."""
    values = sorted(matrix[i][j] for i in range(len(matrix)) for j in range(len(matrix)) if i != j)
    if not values:
        return 0.0
    return min(0.9, values[len(values) // 20])


def _closest_pairs(
    labels: Sequence[str], matrix: Sequence[Sequence[float]], limit: int = 15, low: float = 0.0
) -> str:
    """The most alike pairs of distinct types: candidates for one type split in two."""
    pairs = sorted(
        ((matrix[i][j], i, j) for i in range(len(labels)) for j in range(i + 1, len(labels))),
        key=lambda item: (-item[0], item[1], item[2]),
    )[:limit]
    if not pairs:
        return ""
    rows = "".join(
        f'<tr><td><a href="#{_e(labels[i])}">{_e(labels[i])}</a></td>'
        f'<td><a href="#{_e(labels[j])}">{_e(labels[j])}</a></td>'
        f'<td class="num"><span class="swatch" style="background:{_heat_colour(value, low)}">'
        f"</span>{value:.2f}</td></tr>"
        for value, i, j in pairs
    )
    return (
        '<table class="pairs"><thead><tr><th>type</th><th>type</th><th>similarity</th></tr>'
        f"</thead><tbody>{rows}</tbody></table>"
    )


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
    """The cluster report's histogram: raw scores binned over [0, 1], then drawn as the crawl
    report's."""
    counts_a = [0] * bins
    counts_o = [0] * bins
    for value, counts in [(v, counts_a) for v in assigned] + [(v, counts_o) for v in others]:
        counts[min(bins - 1, max(0, int(value * bins)))] += 1
    return _binned_svg(label, counts_a, counts_o, threshold, None, None, others_name="other pages")


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
main { padding:18px 28px 40px; max-width:2400px; margin:0 auto; }
section { margin:22px 0; }
h2 { font-size:18px; margin:0 0 10px; }
h3 { font-size:15px; margin:0 0 4px; }
.stats { display:flex; flex-wrap:wrap; gap:10px; }
.stat { background:#fff; border:1px solid var(--line); border-radius:8px; padding:8px 14px; }
.stat b { display:block; font-size:20px; }
.stat span { color:var(--muted); font-size:12px; }
.grid { display:grid; grid-template-columns:repeat(auto-fill,minmax(300px,1fr)); gap:12px; }
.card { background:#fff; border:1px solid var(--line); border-radius:8px; padding:12px 14px;
  border-top:5px solid var(--c,#888); }
.card.dim, .pt.dim, .bar.dim { opacity:.18; }
.card .meta { color:var(--muted); font-size:12px; margin:2px 0 6px; }
.card a { color:#2357a6; word-break:break-all; }
.card pre { background:#f3f5f9; border-radius:6px; padding:6px 8px; font-size:11.5px;
  max-height:260px; overflow:auto; margin:6px 0 0; }
.composition { font-size:12px; color:var(--muted); }
.figs { display:flex; flex-wrap:wrap; gap:18px; align-items:flex-start; }
.row2 { display:grid; grid-template-columns:repeat(auto-fit,minmax(520px,1fr)); gap:16px;
  align-items:start; }
.row-heat { display:grid; grid-template-columns:minmax(0,2.2fr) minmax(300px,1fr); gap:16px;
  align-items:start; }
@media (max-width:1000px) { .row-heat { grid-template-columns:1fr; } }
.fig { background:#fff; border:1px solid var(--line); border-radius:8px; padding:12px 14px;
  min-width:0; }
.fig p { margin:6px 0 0; color:var(--muted); font-size:12px; }
.fig svg.map, .fig svg.bars, .fig svg.hist, .fig svg.comp, .card svg.hist { width:100%;
  height:auto; display:block; }
.fig svg.comp { height:26px; }
.heat-box { overflow:auto; max-height:80vh; border:1px solid var(--line); border-radius:6px; }
.heat-box svg { display:block; }
.hl-label { cursor:pointer; }
.zoom { display:flex; align-items:center; gap:10px; font-size:12px; color:var(--muted);
  margin:0 0 8px; flex-wrap:wrap; }
.heat-legend { display:flex; align-items:center; gap:4px; margin-left:auto; }
.heat-legend .ramp { display:inline-flex; }
.heat-legend .ramp span { width:14px; height:12px; display:inline-block; }
table.pairs, table.glance { border-collapse:collapse; width:100%; font-size:13px; }
table.pairs th, table.pairs td, table.glance th, table.glance td { text-align:left;
  padding:4px 8px; border-bottom:1px solid var(--line); }
table.glance th, table.pairs th { color:var(--muted); font-weight:600; font-size:12px; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
.swatch { display:inline-block; width:11px; height:11px; border-radius:2px;
  vertical-align:-1px; margin-right:6px; border:1px solid #0001; }
.map-bg { fill:#fff; }
.pt { stroke:#fff; stroke-width:1; cursor:pointer; }
.pt.hl { stroke:#000; stroke-width:2; }
.axis { font-size:11px; fill:#5b6475; }
.axis-line { stroke:#9aa3b5; }
.h-label { fill:#4e79a7; background:#4e79a7; }
.h-other { fill:#c7ccd6; background:#c7ccd6; }
.threshold { stroke:#d62728; stroke-width:2; stroke-dasharray:4 2; }
.th-range { fill:#d62728; opacity:.08; }
.legend .sw.th-key { background:repeating-linear-gradient(90deg,#d62728 0 4px,#fff 4px 6px);
  height:3px; vertical-align:3px; }
.label-card h4 { margin:8px 0 2px; font-size:12px; color:var(--muted); font-weight:600; }
.label-card .th-text { margin-top:4px; }
ul.urls { margin:0; padding-left:16px; font-size:12px; }
ul.urls li { margin:1px 0; }
.legend-line { margin:6px 0 8px; font-size:12px; }
.toc a { color:#2357a6; }
section.site { margin:26px 0; }
section.site > .fig { margin-bottom:12px; }
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
  var zoom = document.getElementById('heat-zoom');
  var heat = document.querySelector('svg.heatmap');
  if (zoom && heat) {
    var natural = Number(heat.getAttribute('data-width'));
    var ratio = Number(heat.getAttribute('height')) / natural;
    zoom.addEventListener('input', function () {
      var w = natural * Number(zoom.value) / 100;
      heat.setAttribute('width', String(w));
      heat.setAttribute('height', String(w * ratio));
      document.getElementById('heat-zoom-value').textContent = zoom.value + ' %';
    });
  }
  var cards = all('.cluster-card, .label-card').length;
  document.documentElement.setAttribute('data-report-ready', String(cards));
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
    max_heatmap: int = 60,
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
    order = seriate([row[: len(heat_ids)] for row in rep_sim[: len(heat_ids)]])
    matrix = [[rep_sim[i][j] for j in order] for i in order]
    heat_note = (
        f"the {len(heat_ids)} largest of {len(clusters)} clusters"
        if len(heat_ids) < len(clusters)
        else f"all {len(clusters)} clusters"
    )
    low = _off_diagonal_floor(matrix)
    heatmap = _heatmap_svg([labels[i] for i in order], matrix, ids=order, low=low)
    pairs = _closest_pairs(labels[: len(heat_ids)], rep_sim, low=low)
    bars_note = "Click a bar, a card or a point to highlight a cluster."

    params = ", ".join(f"{k}={v}" for k, v in options.describe().items())
    body = (
        _stats(stats)
        + '<section id="overview" class="row2">'
        + '<div class="fig"><h2>Cluster sizes</h2>'
        + f"{bars}<p>{bars_note}</p></div>"
        + f'<div class="fig" id="map"><h2>Map of the pages</h2>{map_svg}'
        + "<p>Classical multidimensional scaling of 1 − similarity "
        + f"between leaders ({shown}); two leaders never compared are placed as far apart as "
        + "their clusters' representatives. A circle's area grows with the pages it stands "
        + "for, its colour is its cluster. Hover for the page.</p></div></section>"
        + '<section id="similarity" class="row-heat">'
        + '<div class="fig"><h2>How alike the types are</h2>'
        + '<div class="zoom"><label>zoom <input id="heat-zoom" type="range" min="40" '
        + 'max="200" value="100" step="10"></label> <span id="heat-zoom-value">100 %</span>'
        + f"{_heat_legend(low)}</div>"
        + f'<div class="heat-box">{heatmap}</div>'
        + f"<p>Similarity ({_e(options.method)}) between the representatives of "
        + f"{heat_note}, rows ordered so that alike types sit together: a dark block off the "
        + "diagonal marks types that look alike. Hover a cell for its value.</p></div>"
        + '<div class="fig"><h2>Most alike pairs</h2>'
        + f"{pairs}<p>The closest pairs among the {len(heat_ids)} largest clusters: "
        + "candidates for one page type split in two.</p></div></section>"
        + '<section id="clusters"><h2>Clusters and their representative pages</h2>'
        + '<div class="filter"><input id="cluster-filter" type="search" '
        + 'placeholder="filter by label, title or address"> '
        + f'<span class="meta">{len(clusters)} clusters, largest first</span></div>'
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


# ---------------------------------------------------------------------------------------------
# the crawl report (PAGESIM_REPORT): per site and label, from CrawlReportCollector.as_dict()

#: How a verdict's threshold was set, in words (``threshold_source``).
THRESHOLD_SOURCES = {
    "given": "set in PAGESIM_THRESHOLD",
    "prior": "prior, from the templates' similarity to each other; no cut from the site's "
    "own scores",
    "distribution": "from the site's own score distribution",
}

#: Pages within this distance of their threshold count as borderline.
BORDERLINE = 0.05


def _binned_svg(
    label: str,
    given: Sequence[int],
    unmatched: Sequence[int],
    threshold: float | None,
    threshold_range: Sequence[float] | None,
    colour: str | None,
    *,
    others_name: str = "unmatched",
) -> str:
    """Stacked histogram of pre-binned scores over [0, 1] with the threshold (and the range it
    moved in during the crawl); ``colour`` None draws the label's bars in the ``h-label``
    class."""
    bins = len(given)
    width, height, pad_left, pad_bottom, pad_top = 440, 150, 34, 22, 10
    tallest = max([a + b for a, b in zip(given, unmatched)] + [1])
    plot_w = width - pad_left - 10
    plot_h = height - pad_bottom - pad_top
    base = pad_top + plot_h
    bar_w = plot_w / bins
    paint = 'class="h-label"' if colour is None else f'fill="{colour}"'
    parts = [
        f'<svg class="hist" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="scores of the pages nearest {_e(label)}">'
    ]
    if threshold_range is not None and threshold_range[1] - threshold_range[0] > 1e-6:
        x0 = pad_left + min(1.0, max(0.0, threshold_range[0])) * plot_w
        x1 = pad_left + min(1.0, max(0.0, threshold_range[1])) * plot_w
        parts.append(
            f'<rect x="{x0:.1f}" y="{pad_top}" width="{max(x1 - x0, 1):.1f}" height="{plot_h}" '
            f'class="th-range"><title>the threshold moved within {threshold_range[0]:.3f}–'
            f"{threshold_range[1]:.3f} during the crawl</title></rect>"
        )
    for i in range(bins):
        x = pad_left + i * bar_w
        lo, hi = i / bins, (i + 1) / bins
        h_u = plot_h * unmatched[i] / tallest
        h_g = plot_h * given[i] / tallest
        if unmatched[i]:
            parts.append(
                f'<rect x="{x:.1f}" y="{base - h_u:.1f}" width="{max(bar_w - 1, 0.5):.1f}" '
                f'height="{h_u:.1f}" class="h-other"><title>{unmatched[i]} {others_name}, '
                f"{lo:.3f}–{hi:.3f}</title></rect>"
            )
        if given[i]:
            parts.append(
                f'<rect x="{x:.1f}" y="{base - h_u - h_g:.1f}" width="{max(bar_w - 1, 0.5):.1f}" '
                f'height="{h_g:.1f}" {paint}><title>{given[i]} given {_e(label)}, '
                f"{lo:.3f}–{hi:.3f}</title></rect>"
            )
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = pad_left + tick * plot_w
        parts.append(
            f'<text x="{x:.1f}" y="{height - 6}" text-anchor="middle" class="axis">{tick:g}</text>'
        )
    parts.append(
        f'<text x="{pad_left - 4}" y="{pad_top + 9}" text-anchor="end" class="axis">'
        f"{tallest}</text>"
        f'<line x1="{pad_left}" y1="{base}" x2="{pad_left + plot_w}" y2="{base}" '
        f'class="axis-line"/>'
    )
    if threshold is not None:
        x = pad_left + min(1.0, max(0.0, threshold)) * plot_w
        parts.append(
            f'<line x1="{x:.1f}" y1="{pad_top - 4}" x2="{x:.1f}" y2="{base}" class="threshold">'
            f"<title>threshold {threshold:.3f}</title></line>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _composition_svg(parts_: Sequence[tuple[str, int, str]], total: int) -> str:
    """One horizontal bar split by label: what the site's pages were classified as."""
    width, height = 1000, 26
    if total <= 0:
        return ""
    out = [
        f'<svg class="comp" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'preserveAspectRatio="none" role="img" aria-label="pages per label">'
    ]
    x = 0.0
    for name, count, colour in parts_:
        w = width * count / total
        if w <= 0:
            continue
        out.append(
            f'<rect x="{x:.2f}" y="0" width="{w:.2f}" height="{height}" fill="{colour}">'
            f"<title>{_e(name)}: {count} ({100.0 * count / total:.1f} %)</title></rect>"
        )
        x += w
    out.append("</svg>")
    return "".join(out)


def _common_folder(urls: Sequence[str]) -> str:
    """The longest folder (ending in /) that every URL starts with."""
    if not urls:
        return ""
    prefix = urls[0]
    for url in urls[1:]:
        while not url.startswith(prefix):
            prefix = prefix[:-1]
    return prefix[: prefix.rfind("/") + 1]


def _short(url: str, folder: str, limit: int = 70) -> str:
    text = url[len(folder) :] if folder and url.startswith(folder) else url
    text = text or url
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def _url_list(rows: Sequence[Mapping[str, Any]], folder: str = "") -> str:
    items = []
    for row in rows:
        conf = row.get("confidence")
        conf_text = f", confidence {conf:.2f}" if isinstance(conf, (int, float)) else ""
        url = str(row.get("url"))
        items.append(
            f'<li><a href="{_e(url)}" title="{_e(url)}">{_e(_short(url, folder))}</a> '
            f"<span class='meta'>score {float(row.get('score') or 0.0):.3f}{conf_text}"
            "</span></li>"
        )
    return f"<ul class='urls'>{''.join(items)}</ul>" if items else ""


def _near_cut(stats: Mapping[str, Any], bins: int) -> int:
    """Pages (either side) in the bins within BORDERLINE of the threshold."""
    threshold = stats.get("threshold")
    if threshold is None:
        return 0
    total = 0
    for i in range(bins):
        middle = (i + 0.5) / bins
        if abs(middle - threshold) <= BORDERLINE:
            total += stats["hist_given"][i] + stats["hist_unmatched"][i]
    return total


def _threshold_text(stats: Mapping[str, Any]) -> str:
    threshold = stats.get("threshold")
    if threshold is None:
        return "no threshold"
    source = stats.get("threshold_source")
    how = THRESHOLD_SOURCES.get(str(source), str(source))
    text = f"threshold <b>{threshold:.3f}</b> ({_e(how)})"
    low_high = stats.get("threshold_range")
    if low_high and low_high[1] - low_high[0] > 1e-6:
        text += f"; it moved within {low_high[0]:.3f}–{low_high[1]:.3f} during the crawl"
    return text


def _label_card(
    site_index: int, name: str, stats: Mapping[str, Any], colour: str, bins: int, folder: str
) -> str:
    given = int(stats["given"])
    missed = int(stats["unmatched"])
    conf = stats.get("mean_confidence")
    near = _near_cut(stats, bins)
    conf_text = f" · mean confidence <b>{conf:.2f}</b>" if conf is not None else ""
    svg = _binned_svg(
        name,
        stats["hist_given"],
        stats["hist_unmatched"],
        stats.get("threshold"),
        stats.get("threshold_range"),
        colour,
    )
    above_one = int(stats.get("above_one") or 0)
    above = f"; {above_one} score(s) above 1 counted in the last bar" if above_one else ""
    examples = ""
    if stats.get("examples"):
        examples += "<h4>Given this label (first pages)</h4>" + _url_list(stats["examples"], folder)
    borderline = [
        row for row in stats.get("borderline", []) if row not in stats.get("examples", [])
    ]
    if borderline:
        examples += "<h4>Lowest scores given it</h4>" + _url_list(borderline, folder)
    if stats.get("near_misses"):
        examples += "<h4>Near misses (unmatched)</h4>" + _url_list(stats["near_misses"], folder)
    return (
        f'<div class="card label-card" data-site="{site_index}" data-label="{_e(name)}" '
        f'style="--c:{colour}"><h3>{_e(name)}</h3>'
        f'<div class="meta"><b>{given}</b> given the label · <b>{missed}</b> unmatched pages '
        f"closest to it{conf_text} · {near} within ±{BORDERLINE:g} of the threshold</div>"
        f"{svg}<div class='meta th-text'>{_threshold_text(stats)}{above}</div>"
        f"<details{' open' if given + missed else ''}><summary>example pages</summary>"
        f"{examples or '<p>none</p>'}</details></div>"
    )


def _unmatched_card(site_index: int, labels: Mapping[str, Mapping[str, Any]], folder: str) -> str:
    total = sum(int(s["unmatched"]) for s in labels.values())
    closest = sorted(
        ((name, int(s["unmatched"])) for name, s in labels.items() if s["unmatched"]),
        key=lambda item: -item[1],
    )
    misses = sorted(
        (row for s in labels.values() for row in s.get("near_misses", [])),
        key=lambda row: -float(row.get("score") or 0.0),
    )[:5]
    closest_text = ", ".join(f"{_e(name)} {count}" for name, count in closest) or "none"
    return (
        f'<div class="card label-card unmatched-card" data-site="{site_index}" '
        f'data-label="unmatched" style="--c:#9aa3b5"><h3>unmatched</h3>'
        f'<div class="meta"><b>{total}</b> pages reached no threshold; closest label: '
        f"{closest_text}</div>"
        + ("<h4>Highest-scoring unmatched pages</h4>" + _url_list(misses, folder) if misses else "")
        + "</div>"
    )


def crawl_report(data: Mapping[str, Any], *, title: str = "pagesim crawl report") -> str:
    """The crawl report as HTML text, from ``CrawlReportCollector.as_dict()``.

    Per site: what its pages were classified as (a bar), a table with one row per label
    (pages given it, unmatched pages closest to it, mean score and confidence, the threshold
    and how it was set, pages near the cut), and per label a histogram of the scores of the
    pages nearest it — those given the label in its colour, the unmatched ones in grey, the
    threshold as a red dashed line — with example URLs.
    """
    bins = int(data.get("bins") or 40)
    sites = list(data.get("sites") or [])
    all_labels = sorted({name for site in sites for name in site["labels"]})
    colours = {name: cluster_colour(i) for i, name in enumerate(all_labels)}
    pages = int(data.get("pages") or 0)
    given = sum(int(s["given"]) for site in sites for s in site["labels"].values())
    confidences = [
        (float(s["mean_confidence"]), int(s["given"]) + int(s["unmatched"]))
        for site in sites
        for s in site["labels"].values()
        if s.get("mean_confidence") is not None
    ]
    weight = sum(n for _, n in confidences)
    stats: list[tuple[str, object]] = [
        ("pages classified", pages),
        ("sites", len(sites)),
        ("given a label", f"{given} ({100.0 * given / pages:.0f} %)" if pages else 0),
        ("unmatched", f"{pages - given} ({100.0 * (pages - given) / pages:.0f} %)" if pages else 0),
    ]
    if weight:
        stats.append(("mean confidence", f"{sum(c * n for c, n in confidences) / weight:.2f}"))
    methods = data.get("methods") or {}
    if methods:
        stats.append(("method", ", ".join(sorted(str(m) for m in methods))))

    sections = []
    toc = []
    for index, site in enumerate(sites):
        name = site["site"] or "(local files)"
        labels = site["labels"]
        anchor = f"site-{index + 1}"
        toc.append(f'<a href="#{anchor}">{_e(name)}</a> ({site["pages"]})')
        site_given = sum(int(s["given"]) for s in labels.values())
        comp = [
            (label, int(s["given"]), colours[label]) for label, s in labels.items() if s["given"]
        ]
        comp.append(("unmatched", site["pages"] - site_given, "#c7ccd6"))
        rows = []
        for label, s in labels.items():
            mean = s.get("mean_score")
            conf = s.get("mean_confidence")
            threshold = s.get("threshold")
            rows.append(
                f'<tr><td><span class="swatch" style="background:{colours[label]}"></span>'
                f"{_e(label)}</td><td class='num'>{s['given']}</td>"
                f"<td class='num'>{s['unmatched']}</td>"
                f"<td class='num'>{'' if mean is None else f'{mean:.3f}'}</td>"
                f"<td class='num'>{'' if threshold is None else f'{threshold:.3f}'}</td>"
                f"<td>{_e(s.get('threshold_source') or '')}</td>"
                f"<td class='num'>{'' if conf is None else f'{conf:.2f}'}</td>"
                f"<td class='num'>{_near_cut(s, bins)}</td></tr>"
            )
        table = (
            '<table class="glance"><thead><tr><th>nearest label</th><th class="num">given it'
            '</th><th class="num">unmatched</th><th class="num">mean score</th>'
            '<th class="num">threshold</th><th>set by</th><th class="num">mean confidence</th>'
            f'<th class="num">within ±{BORDERLINE:g} of the threshold</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
        )
        folder = _common_folder(
            [
                str(row["url"])
                for s in labels.values()
                for key in ("examples", "borderline", "near_misses")
                for row in s.get(key, [])
            ]
        )
        cards = [
            _label_card(index, label, s, colours[label], bins, folder)
            for label, s in labels.items()
        ]
        cards.append(_unmatched_card(index, labels, folder))
        where = (
            f"<p class='meta'>Example addresses are shown relative to {_e(folder)}</p>"
            if folder and len(folder) > 12
            else ""
        )
        legend = "".join(
            f'<span class="swatch" style="background:{colour}"></span>{_e(label)} {count} '
            for label, count, colour in comp
        )
        sections.append(
            f'<section class="site" id="{anchor}" data-site="{index}">'
            f"<h2>{_e(name)} <span class='meta'>{site['pages']} pages</span></h2>"
            f'<div class="fig">{_composition_svg(comp, site["pages"])}'
            f'<p class="legend-line">{legend}</p>{table}{where}</div>'
            f'<div class="grid label-grid">{"".join(cards)}</div></section>'
        )
    intro = (
        '<p class="legend">Per site and per label: the scores of the pages nearest that label — '
        '<span class="sw" style="background:#4e79a7"></span> given the label (in its colour), '
        '<span class="sw h-other"></span> left unmatched — with '
        '<span class="sw th-key"></span> the threshold (dashed; a shaded band when it moved '
        "during the crawl). Templates that work show two humps with the threshold in the gap "
        "between them; many pages near the threshold, or unmatched pages piled just below it, "
        "call for another template or a set threshold.</p>"
    )
    body = _stats(stats) + intro
    if len(sites) > 1:
        body += f'<p class="toc">Sites: {" · ".join(toc)}</p>'
    body += "".join(sections) or "<p>No page was classified.</p>"
    generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    subtitle = f"{pages} pages on {len(sites)} site(s) · generated {generated}"
    return _page(title, subtitle, body)


def write_report(path: str | Path, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
