"""The crawl report (``PAGESIM_REPORT``): per site and label, the score distributions with
their thresholds, counts and example URLs, from ``CrawlReportCollector.as_dict()``."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass
from pagesim_scrapy.reports.html import _binned_svg, _e, _page, _stats, cluster_colour

#: How a verdict's threshold was set, in words (``threshold_source``).
THRESHOLD_SOURCES = {
    "given": "set in PAGESIM_THRESHOLD",
    "prior": "prior, from the templates' similarity to each other; no cut from the site's "
    "own scores",
    "distribution": "from the site's own score distribution",
}

#: Pages within this distance of their threshold count as borderline.
BORDERLINE = 0.05


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
    sections = []
    toc = []
    for index, site in enumerate(sites):
        name = site["site"] or "(local files)"
        toc.append(f'<a href="#site-{index + 1}">{_e(name)}</a> ({site["pages"]})')
        sections.append(_site_section(index, site, colours, bins))
    body = _stats(_crawl_stats(data, sites, pages)) + _drift_section(data.get("drift") or [])
    body += _examples_section(data.get("examples") or [])
    body += _INTRO
    if len(sites) > 1:
        body += f'<p class="toc">Sites: {" · ".join(toc)}</p>'
    body += "".join(sections) or "<p>No page was classified.</p>"
    generated = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    subtitle = f"{pages} pages on {len(sites)} site(s) · generated {generated}"
    return _page(title, subtitle, body)


_INTRO = (
    '<p class="legend">Per site and per label: the scores of the pages nearest that label — '
    '<span class="sw" style="background:#4e79a7"></span> given the label (in its colour), '
    '<span class="sw h-other"></span> left unmatched — with '
    '<span class="sw th-key"></span> the threshold (dashed; a shaded band when it moved '
    "during the crawl). Templates that work show two humps with the threshold in the gap "
    "between them; many pages near the threshold, or unmatched pages piled just below it, "
    "call for another template or a set threshold.</p>"
)


def _percent(count: int, pages: int) -> object:
    return f"{count} ({100.0 * count / pages:.0f} %)" if pages else 0


def _crawl_stats(
    data: Mapping[str, Any], sites: Sequence[Mapping[str, Any]], pages: int
) -> list[tuple[str, object]]:
    """The figures at the top of the crawl report."""
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
        ("given a label", _percent(given, pages)),
        ("unmatched", _percent(pages - given, pages)),
    ]
    if weight:
        stats.append(("mean confidence", f"{sum(c * n for c, n in confidences) / weight:.2f}"))
    methods = data.get("methods") or {}
    if methods:
        stats.append(("method", ", ".join(sorted(str(m) for m in methods))))
    return stats


def _number(value: float | None, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _label_row(label: str, s: Mapping[str, Any], colour: str, bins: int) -> str:
    """One label's row in a site's table."""
    return (
        f'<tr><td><span class="swatch" style="background:{colour}"></span>'
        f"{_e(label)}</td><td class='num'>{s['given']}</td>"
        f"<td class='num'>{s['unmatched']}</td>"
        f"<td class='num'>{_number(s.get('mean_score'), 3)}</td>"
        f"<td class='num'>{_number(s.get('threshold'), 3)}</td>"
        f"<td>{_e(s.get('threshold_source') or '')}</td>"
        f"<td class='num'>{_number(s.get('mean_confidence'), 2)}</td>"
        f"<td class='num'>{_near_cut(s, bins)}</td></tr>"
    )


def _site_table(
    labels: Mapping[str, Mapping[str, Any]], colours: Mapping[str, str], bins: int
) -> str:
    rows = [_label_row(label, s, colours[label], bins) for label, s in labels.items()]
    return (
        '<table class="glance"><thead><tr><th>nearest label</th><th class="num">given it'
        '</th><th class="num">unmatched</th><th class="num">mean score</th>'
        '<th class="num">threshold</th><th>set by</th><th class="num">mean confidence</th>'
        f'<th class="num">within ±{BORDERLINE:g} of the threshold</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _site_section(
    index: int, site: Mapping[str, Any], colours: Mapping[str, str], bins: int
) -> str:
    """One site's section: its composition bar, its table and a card per label."""
    name = site["site"] or "(local files)"
    labels = site["labels"]
    site_given = sum(int(s["given"]) for s in labels.values())
    comp = [(label, int(s["given"]), colours[label]) for label, s in labels.items() if s["given"]]
    comp.append(("unmatched", site["pages"] - site_given, "#c7ccd6"))
    folder = _common_folder(
        [
            str(row["url"])
            for s in labels.values()
            for key in ("examples", "borderline", "near_misses")
            for row in s.get(key, [])
        ]
    )
    cards = [
        _label_card(index, label, s, colours[label], bins, folder) for label, s in labels.items()
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
    return (
        f'<section class="site" id="site-{index + 1}" data-site="{index}">'
        f"<h2>{_e(name)} <span class='meta'>{site['pages']} pages</span></h2>"
        f'<div class="fig">{_composition_svg(comp, site["pages"])}'
        f'<p class="legend-line">{legend}</p>{_site_table(labels, colours, bins)}{where}</div>'
        f'<div class="grid label-grid">{"".join(cards)}</div></section>'
    )


def _examples_section(entries: Sequence[Mapping[str, Any]]) -> str:
    """Labels whose examples are weak on a site, why, and what to do (``ExampleAdvice.as_dict()``
    each; a proposed page only where the advice's policy asks for one)."""
    if not entries:
        return ""
    rows = "".join(
        f"<tr><td>{_e(str(entry.get('site') or ''))}</td><td>{_e(str(entry.get('label')))}</td>"
        f"<td>{_e(', '.join(entry.get('reasons') or []))}</td>"
        f"<td>{_e(str(entry.get('proposed') or '-'))}</td>"
        f"<td>{_e(str(entry.get('message') or ''))}</td></tr>"
        for entry in entries
    )
    return (
        '<section class="examples"><h2>Weak examples</h2>'
        "<p>Labels whose example pages teach little about their type on a site, and what "
        "would make them stronger.</p><table><tr><th>site</th><th>label</th>"
        f"<th>why</th><th>proposed example</th><th>advice</th></tr>{rows}</table></section>"
    )


def _drift_section(entries: Sequence[Mapping[str, Any]]) -> str:
    """The layout-change alarm's drifted (site, label)s: verdict, confidence, evidence,
    example pages of both looks, and proposed example pages as a settings snippet."""
    if not entries:
        return ""
    cards = "".join(_drift_card(entry) for entry in entries)
    return (
        '<section class="drift"><h2>Layout changes</h2>'
        "<p>Page types whose pages on a site no longer look as in the last crawl "
        "(PAGESIM_DRIFT_ENABLED): check the items of these labels, and update their example "
        f"pages if the new look is here to stay.</p>{cards}</section>"
    )


def _drift_card(entry: Mapping[str, Any]) -> str:
    share, score = entry.get("site_share") or {}, entry.get("score") or {}
    confidence = entry.get("confidence")
    rows = [
        ("verdict", f"{entry.get('verdict')} (confidence {_number(confidence, 2)})"),
        ("why", str(entry.get("reason") or "")),
        (
            "share of the site's pages",
            f"{_number(share.get('before'), 2)} before, {_number(share.get('now'), 2)} now",
        ),
        (
            "score against the old look",
            f"{_number(score.get('before'), 2)} before, {_number(score.get('now'), 2)} now",
        ),
    ]
    table = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in rows)
    evidence = "".join(
        f"<h4>{title}</h4><ul>{_moves(entry.get(key) or [])}</ul>"
        for title, key in (("Structure gone", "disappeared"), ("Structure new", "appeared"))
        if entry.get(key)
    )
    examples = entry.get("examples") or {}
    pages = "".join(
        f"<h4>Example pages {title}</h4>{_links(examples.get(key) or [])}"
        for title, key in (("before", "before"), ("now", "now"))
        if examples.get(key)
    )
    return (
        f'<div class="card"><h3>{_e(entry.get("label"))} on {_e(entry.get("site"))}</h3>'
        f'<table class="kv">{table}</table>{evidence}{pages}'
        f"{_template_snippet(entry)}</div>"
    )


def _moves(moves: Sequence[Mapping[str, Any]]) -> str:
    return "".join(
        f"<li><code>{_e(move.get('pair') or '(not named: seen with the last pages)')}</code> "
        f"on {_number(move.get('before'), 2)} of the pages before, "
        f"{_number(move.get('now'), 2)} now</li>"
        for move in moves
    )


def _links(urls: Sequence[str]) -> str:
    items = "".join(f'<li><a href="{_e(url)}">{_e(url)}</a></li>' for url in urls)
    return f"<ul>{items}</ul>"


def _template_snippet(entry: Mapping[str, Any]) -> str:
    """``PAGESIM_TEMPLATES`` for the label from the crawl's pages nearest its new look."""
    proposed = list(entry.get("proposed_templates") or [])
    if not proposed:
        return ""
    urls = "".join(f"\n        {url!r}," for url in proposed)
    snippet = (
        "PAGESIM_TEMPLATES = {\n    # the other labels as before\n"
        f"    {entry.get('label')!r}: [{urls}\n    ],\n}}"
    )
    return (
        "<h4>Proposed example pages (the crawl's pages nearest the new look)</h4>"
        f"<pre>{_e(snippet)}</pre>"
    )
