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
import math
import operator
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pagesim_scrapy.core.summary import PageSummary

if TYPE_CHECKING:
    from pagesim_scrapy.core.cluster.pipeline import Clustering
from pagesim_scrapy.reports.html import _binned_svg, _e, _link, _page, _stats, cluster_colour


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
        axes.append(_leading_axis(b, axes, axis, iterations))
    xs = [math.sqrt(max(axes[0][0], 0.0)) * v for v in axes[0][1]]
    ys = [math.sqrt(max(axes[1][0], 0.0)) * v for v in axes[1][1]]
    return list(zip(xs, ys))


def _leading_axis(
    b: Sequence[Sequence[float]],
    axes: Sequence[tuple[float, list[float]]],
    axis: int,
    iterations: int,
) -> tuple[float, list[float]]:
    """The eigenvalue and eigenvector of ``b`` after ``axes``, by power iteration."""
    m = len(b)
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
    return value, vector


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
    cards = _cluster_cards(clustering, truth, examples)
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
    map_svg, shown = _map_figure(clustering, rep_sim, max_map_clusters, max_map_points)
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
        _stats(_clustering_stats(clustering, truth))
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


def _clustering_stats(
    clustering: Clustering, truth: Sequence[Hashable] | None
) -> list[tuple[str, object]]:
    """The figures at the top of the clustering report."""
    from pagesim_scrapy.core.cluster.metrics import adjusted_rand_index

    options = clustering.options
    clusters = clustering.clusters
    stats: list[tuple[str, object]] = [
        ("pages", len(clustering.assignments)),
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
    return stats


def _cluster_cards(
    clustering: Clustering, truth: Sequence[Hashable] | None, examples: int
) -> list[str]:
    """A card per cluster: size, representative page, known labels, structure outline."""
    composition: dict[int, Counter[Hashable]] = {}
    if truth is not None:
        for page, c in enumerate(clustering.assignments):
            composition.setdefault(c, Counter())[truth[page]] += 1
    n_pages = len(clustering.assignments)
    representatives = clustering.representatives(examples)
    cards = []
    for index, (cluster, rep) in enumerate(zip(clustering.clusters, representatives)):
        share = 100.0 * cluster.size / n_pages if n_pages else 0.0
        extra = [s for s in rep.examples if s != rep.source]
        examples_html = (
            "<div class='meta'>also: " + ", ".join(_link(s) for s in extra) + "</div>"
            if extra
            else ""
        )
        comp = _composition_line(composition[index]) if index in composition else ""
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
    return cards


def _composition_line(counts: Counter[Hashable]) -> str:
    """The known labels of a cluster's pages, the three commonest first."""
    top = counts.most_common(3)
    rest = sum(counts.values()) - sum(c for _, c in top)
    return (
        "<div class='composition'>known labels: "
        + ", ".join(f"{_e(label)} {count}" for label, count in top)
        + (f", others {rest}" if rest else "")
        + "</div>"
    )


def _map_figure(
    clustering: Clustering,
    rep_sim: Sequence[Sequence[float]],
    max_map_clusters: int,
    max_map_points: int,
) -> tuple[str, str]:
    """The map of the leaders (SVG) and which leaders it shows, in words."""
    leaders = _map_leaders(
        clustering, min(len(clustering.clusters), max_map_clusters), max_map_points
    )
    distances = _map_distances(clustering, leaders, rep_sim)
    points = classical_mds(distances)
    biggest = max((clustering.leaders[i].weight for i in leaders), default=1)
    radii = [3.0 + 9.0 * math.sqrt(clustering.leaders[i].weight / biggest) for i in leaders]
    labels = [c.label for c in clustering.clusters]
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
    return map_svg, shown


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
