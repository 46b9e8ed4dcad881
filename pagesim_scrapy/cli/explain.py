"""``explain --template LABEL=PATH … PAGE``: why a page gets its label (or none)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pagesim_scrapy.cli._common import CommandError, page_paths
from pagesim_scrapy.cli._method import SITE_METHOD, parse_max_nodes, summary_options
from pagesim_scrapy.cli._progress import add_progress_argument
from pagesim_scrapy.cli.classify import (
    add_template_argument,
    add_threshold_argument,
    make_classifier,
    parse_templates,
    summarise_pages,
)
from pagesim_scrapy.core.decide import PageDecider, site_classifier
from pagesim_scrapy.core.explain import explain_page, readable_codes
from pagesim_scrapy.core.pageio import PageReadError, read_page_bytes
from pagesim_scrapy.core.summary import PageParseError, parse_html, summarize


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "explain",
        help="show why a page gets its label: scores, thresholds, matching structure",
        description="Classify one page as the crawl would (method 'site') and show why: the "
        "score per label, each threshold and how it was set, the verdict's confidence, and the "
        "parent > child node pairs the page shares with its nearest template, or lacks, beyond "
        "the site's chrome. Other pages of the same site (--site) let the site's weights and "
        "cuts be learned as in a crawl; without them only the templates and the page are the site.",
    )
    parser.add_argument("page", metavar="PAGE", help="the page to explain")
    add_template_argument(parser)
    parser.add_argument(
        "--site",
        action="append",
        default=[],
        metavar="PATH",
        help="other pages (or folders) of the page's site, learned first; repeatable",
    )
    parser.add_argument(
        "--max-nodes",
        type=parse_max_nodes,
        default=summary_options(argparse.Namespace()).max_nodes,
        metavar="N",
        help="summarise at most N elements per page, as the crawl does ('none': whole trees)",
    )
    add_threshold_argument(parser)
    parser.add_argument("--top", type=int, default=10, help="node pairs listed per group")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of text")
    add_progress_argument(parser)
    parser.set_defaults(handler=run, method=SITE_METHOD, param=[])


def _tree(path: Any) -> Any:
    return parse_html(read_page_bytes(path))


def run(args: argparse.Namespace) -> int:
    templates = parse_templates(args.template)
    decider = PageDecider(make_classifier(templates, args))
    classifier = site_classifier(decider.classifier)
    assert classifier is not None  # the command's method is always 'site'
    options = summary_options(args)
    page_path = page_paths([args.page])
    if len(page_path) != 1:
        raise CommandError(f"PAGE must be one page file, not {args.page!r}")
    try:
        page = summarize(page_path[0], options)
        names = readable_codes(
            [_tree(page_path[0]), *(_tree(p) for paths in templates.values() for p in paths)],
            options,
        )
    except (PageReadError, PageParseError) as exc:
        raise CommandError(f"{args.page}: {exc}") from exc
    others = [p for p in page_paths(args.site) if p.resolve() != page_path[0].resolve()]
    site_pages = [s for _, s, _ in summarise_pages(others, args) if s is not None]
    # As in ``classify``: the pages given (the site's and this one) are the site.
    decider.decide_all([*site_pages, page])
    explanation = explain_page(classifier, page, names=names, top=args.top)
    if args.json:
        json.dump({"path": str(page_path[0]), **explanation.as_dict()}, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(f"page: {page_path[0]} ({page.n_nodes} elements summarised)")
        print(explanation.render())
    return 0
