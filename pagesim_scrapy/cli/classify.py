"""``classify --template LABEL=PATH … PATH…``: label pages by their nearest templates."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from pagesim_scrapy.cli._common import (
    CommandError,
    add_output_argument,
    output_stream,
    page_paths,
    write_jsonl,
)
from pagesim_scrapy.cli._method import (
    SITE_METHOD,
    add_method_arguments,
    method_params,
    summary_options,
)
from pagesim_scrapy.cli._progress import add_progress_argument, track
from pagesim_scrapy.core.classify import Verdict, build_classifier
from pagesim_scrapy.core.decide import Decision, PageDecider, site_classifier
from pagesim_scrapy.core.examples import SitePage, advise_labels
from pagesim_scrapy.core.pageio import PageReadError
from pagesim_scrapy.core.protocols import PageClassifier
from pagesim_scrapy.core.site import structural_features
from pagesim_scrapy.core.summary import PageParseError, PageSummary, summarize

logger = logging.getLogger(__name__)


def add_threshold_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-t",
        "--threshold",
        default="auto",
        help="a number in [0, 1], or 'auto' (default): derived from the templates and the "
        "score distribution of the classified pages",
    )


def add_template_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--template",
        action="append",
        default=[],
        metavar="LABEL=PATH",
        help="a template page (or folder of them) for LABEL; repeatable",
    )


def parse_threshold(text: str) -> float | str:
    if text == "auto":
        return "auto"
    try:
        return float(text)
    except ValueError:
        raise CommandError(f"--threshold must be a number or 'auto', not {text!r}") from None


def parse_templates(items: list[str]) -> dict[str, list[Path]]:
    templates: dict[str, list[Path]] = {}
    for item in items:
        label, sep, path = item.partition("=")
        if not sep or not label or not path:
            raise CommandError(f"--template wants LABEL=PATH, not {item!r}")
        templates.setdefault(label, []).extend(page_paths([path]))
    if not templates:
        raise CommandError("give at least one --template LABEL=PATH")
    return templates


def make_classifier(templates: dict[str, list[Path]], args: argparse.Namespace) -> PageClassifier:
    """The classifier the crawl would build from these settings (same summary options)."""
    options = summary_options(args)
    try:
        return build_classifier(
            {label: [summarize(p, options) for p in paths] for label, paths in templates.items()},
            method=args.method,
            params=method_params(args),
            threshold=parse_threshold(args.threshold),
            summary_options=options,
        )
    except (PageReadError, PageParseError, ValueError) as exc:
        raise CommandError(f"templates: {exc}") from exc


def summarise_pages(
    paths: list[Path], args: argparse.Namespace
) -> list[tuple[Path, PageSummary | None, str | None]]:
    """Every page's summary; a page that cannot be read gets its error instead."""
    options = summary_options(args)
    out: list[tuple[Path, PageSummary | None, str | None]] = []
    for path in track(paths, args, "reading"):
        try:
            out.append((path, summarize(path, options), None))
        except (PageReadError, PageParseError) as exc:
            logger.warning("skipping %s: %s", path, exc)
            out.append((path, None, str(exc)))
    return out


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "classify",
        help="label pages by their similarity to template pages",
        description="Label each page with its nearest template label, or null when no label's "
        "threshold is reached. Writes one JSON object per page.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="pages or folders of pages")
    add_template_argument(parser)
    add_method_arguments(parser, default=SITE_METHOD, site=True)
    add_threshold_argument(parser)
    add_output_argument(parser, "one JSON object per page")
    add_progress_argument(parser)
    parser.add_argument(
        "--suggest-examples",
        action="store_true",
        help="print on stderr, as one JSON object per label, whether its examples are weak "
        "(one only, near-copies, unlike, cut from the prior) and what to do about it "
        "(site method only)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    decider = PageDecider(make_classifier(parse_templates(args.template), args))
    pages = summarise_pages(page_paths(args.paths), args)
    # The pages given are the site: learned together, then each decided.
    decisions = iter(decider.decide_all([s for _, s, _ in pages if s is not None]))
    for label, info in decider.describe()["labels"].items():
        logger.info(
            "label %s: threshold %.3f (%s)", label, info["threshold"], info["threshold_source"]
        )
    given: list[tuple[str, PageSummary, str | None]] = []
    with output_stream(args.output) as stream:
        for path, summary, error in pages:
            decision = None if summary is None else next(decisions)
            write_jsonl(stream, verdict_record(str(path), decision, error))
            if summary is not None and decision is not None:
                given.append((str(path), summary, decision.label))
    if args.suggest_examples:
        suggest_examples(decider, given)
    return 0


def suggest_examples(
    decider: PageDecider, pages: list[tuple[str, PageSummary, str | None]]
) -> None:
    """Per label, the advice on its examples from the pages classified and the labels they
    were given (one JSON line on stderr)."""
    sites = site_classifier(decider.classifier)
    if sites is None:
        logger.warning("--suggest-examples needs the site method; nothing to suggest")
        return
    by_label: dict[str, list[SitePage]] = {label: [] for label in sites.labels}
    for path, summary, given in pages:
        features = structural_features(summary)
        for label, score in sites.scores(features).items():
            by_label[label].append(SitePage(path, features, score, given == label))
    for advice in advise_labels(sites, by_label):
        sys.stderr.write(json.dumps({"suggest_examples": advice.as_dict()}) + "\n")


def verdict_record(
    path: str, decision: Decision | Verdict | None, error: str | None
) -> dict[str, Any]:
    """One output line: the page's decision, or its error (shared with the Spark job)."""
    record: dict[str, Any] = {"path": path}
    if decision is None:
        record.update(label=None, score=None, scores={}, error=error)
    else:
        fields = decision.verdict_meta() if isinstance(decision, Decision) else decision.as_meta()
        record.update(
            label=fields["label"],
            score=fields["score"],
            scores=fields["scores"],
            threshold=fields["threshold"],
            threshold_source=fields["threshold_source"],
            confidence=fields["confidence"],
            core=fields["core"],
        )
    return record
