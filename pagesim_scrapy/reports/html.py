"""The pieces every pagesim HTML report shares: colours, escaping, the page frame (inline
CSS and JavaScript, no network) and writing the file."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    pass

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


def write_report(path: str | Path, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
