"""``evaluate ROOT``: classify labelled folders and print precision / recall / F1 per label."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from pagesim_scrapy.cli._common import CommandError
from pagesim_scrapy.cli._method import add_method_arguments, method_params, summary_options
from pagesim_scrapy.cli._progress import add_progress_argument, progress_bar
from pagesim_scrapy.cli.classify import add_threshold_argument, parse_threshold
from pagesim_scrapy.core.classify import build_classifier
from pagesim_scrapy.core.evaluate import (
    accuracy,
    format_table,
    label_scores,
    labelled_folders,
    threshold_sweep,
)
from pagesim_scrapy.core.pageio import PageReadError
from pagesim_scrapy.core.summary import PageParseError, PageSummary, SummaryOptions, summarize


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "evaluate",
        help="precision/recall/F1 of classification on labelled folders",
        description="ROOT holds one folder per label (the folder name is the label). The first "
        "--templates pages of each folder (sorted by name) are its templates; every other page "
        "is classified and judged.",
    )
    parser.add_argument("root", metavar="ROOT", help="folder of labelled sub-folders")
    parser.add_argument(
        "-k", "--templates", type=int, default=2, metavar="K", help="templates per label (2)"
    )
    parser.add_argument(
        "--labels",
        metavar="A,B",
        help="only these labels get templates (the others' pages must come out unlabelled)",
    )
    add_method_arguments(parser, default="site", site=True)
    add_threshold_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    add_progress_argument(parser)
    parser.set_defaults(handler=run)


_Pages = dict[str, list[tuple[Path, PageSummary]]]
_Tests = list[tuple[Path, str, PageSummary]]

COLUMNS = [
    "label",
    "precision",
    "recall",
    "f1",
    "support",
    "predicted",
    "threshold",
    "source",
    "best_threshold",
    "best_f1",
]


def run(args: argparse.Namespace) -> int:
    if args.templates < 1:
        raise CommandError("--templates must be >= 1")
    options = summary_options(args)
    pages = _read_pages(args, options)
    templates, tests = _split_pages(args, pages)
    try:
        classifier = build_classifier(
            templates,
            method=args.method,
            params=method_params(args),
            threshold=parse_threshold(args.threshold),
            summary_options=options,
        )
    except ValueError as exc:
        raise CommandError(str(exc)) from exc
    # The test pages are the site: learned together, then each decided.
    verdicts = classifier.classify_all([summary for _, _, summary in tests])
    predicted = [verdict.label for verdict in verdicts]
    truth = [label if label in templates else None for _, label, _ in tests]
    rows = _label_rows(classifier, list(templates), truth, predicted, verdicts)
    acc = accuracy(truth, predicted)
    if args.json:
        print(json.dumps({"method": args.method, "accuracy": acc, "labels": rows}, indent=2))
        return 0
    print(
        f"method {args.method}, {sum(len(v) for v in templates.values())} templates, "
        f"{len(tests)} test pages, accuracy {acc:.3f}"
    )
    print(format_table(rows, COLUMNS))
    return 0


def _read_pages(args: argparse.Namespace, options: SummaryOptions) -> _Pages:
    """Every page of every labelled folder, summarised, in folder order."""
    try:
        folders = labelled_folders(args.root)
        pages: _Pages = {}
        total = sum(len(paths) for paths in folders.values())
        with progress_bar(args, total, "reading") as bar:
            for label, paths in folders.items():
                pages[label] = []
                for path in paths:
                    pages[label].append((path, summarize(path, options)))
                    bar.update(1)
    except (ValueError, PageReadError, PageParseError) as exc:
        raise CommandError(str(exc)) from exc
    return pages


def _split_pages(
    args: argparse.Namespace, pages: _Pages
) -> tuple[dict[str, list[PageSummary]], _Tests]:
    """The first ``--templates`` pages of each chosen label are its templates; the rest (and
    every page of the other labels) are test pages."""
    chosen = args.labels.split(",") if args.labels else list(pages)
    missing = [label for label in chosen if label not in pages]
    if missing:
        raise CommandError(f"no folder for label(s): {', '.join(missing)}")
    templates: dict[str, list[PageSummary]] = {}
    tests: _Tests = []
    for label, items in pages.items():
        k = args.templates if label in chosen else 0
        if label in chosen and len(items) <= k:
            raise CommandError(f"label {label!r} has {len(items)} pages: none left to test")
        templates_here = [summary for _, summary in items[:k]]
        if templates_here:
            templates[label] = templates_here
        tests.extend((path, label, summary) for path, summary in items[k:])
    return templates, tests


def _label_rows(
    classifier: Any,
    labels: list[str],
    truth: list[str | None],
    predicted: list[str | None],
    verdicts: list[Any],
) -> list[dict[str, Any]]:
    """Per label: precision/recall/F1, its threshold and the best threshold in hindsight."""
    all_scores = [verdict.scores for verdict in verdicts]
    rows = []
    for result in label_scores(truth, predicted, labels):
        row = result.as_dict()
        value, source = classifier.threshold_info(result.label)
        row["threshold"] = round(value, 4)
        row["source"] = source
        _, best = threshold_sweep(
            [scores[result.label] for scores in all_scores],
            [t == result.label for t in truth],
        )
        row["best_threshold"] = round(best.threshold, 3)
        row["best_f1"] = round(best.f1, 4)
        rows.append(row)
    return rows
