"""``drift OLD NEW``: did a site's page types change their look between two sets of pages?

OLD and NEW are each a folder of labelled sub-folders (the folder name is the label, as for
``evaluate``), a folder of pages (one look, :data:`~pagesim_scrapy.core.drift.ALL_PAGES`), or
a saved state file: a drift baseline or the site models a crawl saves (``sites.json``). The
exit status says whether something changed, so a scheduler or CI job can act on it.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pagesim_scrapy.cli._common import CommandError, page_paths
from pagesim_scrapy.cli._method import parse_max_nodes, summary_options
from pagesim_scrapy.core.drift import (
    ALL_PAGES,
    DEFAULT_DRIFT_OPTIONS,
    DriftBaseline,
    DriftReport,
    baseline_from_site_models,
    compare_looks,
    parse_baseline,
    skeleton_features,
)
from pagesim_scrapy.core.evaluate import labelled_folders
from pagesim_scrapy.core.explain import readable_codes
from pagesim_scrapy.core.pageio import PageReadError, read_page_bytes
from pagesim_scrapy.core.site import structural_features
from pagesim_scrapy.core.sitefile import parse_site_models
from pagesim_scrapy.core.statefile import StateFormatError
from pagesim_scrapy.core.summary import PageParseError, SummaryOptions, parse_html, summarize
from pagesim_scrapy.settings import DEFAULT_MAX_NODES

#: Exit status when at least one (site, label) changed its look.
EXIT_CHANGED = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "drift",
        help="did a site's page types change their look between two sets of pages?",
        description="Compare each label's pages in OLD (the baseline) with those in NEW and say "
        "per (site, label) 'changed', 'unchanged' or 'two looks' (an A/B variant), with a "
        "confidence and the evidence: the structure beyond the site's chrome that disappeared "
        "or appeared, the label's share of the site's pages and its pages' score against the "
        "baseline's look. OLD and NEW: a folder of labelled sub-folders, a folder of pages, a "
        "saved drift baseline or a saved sites.json. Exit status: 0 nothing changed (unchanged, "
        f"two looks or no verdict), {EXIT_CHANGED} something changed, 2 bad arguments.",
    )
    parser.add_argument("old", metavar="OLD", help="the baseline: pages or a saved state file")
    parser.add_argument("new", metavar="NEW", help="the pages (or state) to check")
    parser.add_argument("--site", metavar="NAME", help="the site's name for folders of pages")
    parser.add_argument(
        "--max-nodes",
        type=parse_max_nodes,
        default=DEFAULT_MAX_NODES,
        metavar="N",
        help="summarise at most N elements per page, as the crawl does ('none': whole trees)",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per (site, label)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    options = summary_options(args)
    old = read_looks(args.old, args.site, options)
    new = read_looks(args.new, args.site, options)
    reports = []
    for site, looks in new.sites.items():
        for label in looks.named_labels():
            reports.append(
                compare_looks(site, label, old.sites.get(site), looks, DEFAULT_DRIFT_OPTIONS)
            )
    if not reports:
        raise CommandError(f"no labelled pages in {args.new}")
    names = example_names([page for report in reports for page in example_pages(report)], options)
    for report in reports:
        report.name_features(names)
        if args.json:
            print(json.dumps(report.as_dict(), ensure_ascii=False))
        else:
            print(report.render())
    return EXIT_CHANGED if any(report.drifted for report in reports) else 0


def read_looks(raw: str, site: str | None, options: SummaryOptions) -> DriftBaseline:
    """The looks of a folder of pages or a saved state file."""
    path = Path(raw)
    if path.is_file() and path.suffix == ".json":
        return _read_state(path, options)
    baseline = DriftBaseline(max_kept=DEFAULT_DRIFT_OPTIONS.max_kept)
    for label, paths in _labelled(path).items():
        for page in paths:
            try:
                summary = summarize(page, options)
            except (PageReadError, PageParseError) as exc:
                raise CommandError(f"{page}: {exc}") from exc
            features = structural_features(summary)
            baseline.add(site, label, features, str(page), skeleton_features(summary))
    return baseline


def _labelled(path: Path) -> dict[str, list[Path]]:
    """label -> pages: the sub-folders of a folder of labelled sub-folders, else one look."""
    if path.is_dir() and any(p.is_dir() for p in path.iterdir()):
        try:
            return labelled_folders(path)
        except ValueError:
            pass
    return {ALL_PAGES: page_paths([str(path)])}


def _read_state(path: Path, options: SummaryOptions) -> DriftBaseline:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"cannot read {path}: {exc}") from exc
    try:
        baseline = parse_baseline(text, options)
    except StateFormatError:
        try:
            sites = parse_site_models(text, options)
        except StateFormatError as exc:
            raise CommandError(f"{path}: neither a drift baseline nor site models ({exc})") from exc
        baseline = None if sites is None else baseline_from_site_models(sites)
    if baseline is None:
        raise CommandError(f"{path}: its pages were summarised with other options (--max-nodes)")
    return baseline


def example_pages(report: DriftReport) -> list[str]:
    return [*report.examples_before, *report.examples_now]


def example_names(pages: list[str], options: SummaryOptions) -> dict[str, str]:
    """Readable node labels from the example pages that are files (a state file has none)."""
    roots = []
    for page in dict.fromkeys(pages):
        try:
            roots.append(parse_html(read_page_bytes(Path(page))))
        except (OSError, PageReadError, PageParseError, ValueError):
            continue
    return readable_codes(roots, options)
