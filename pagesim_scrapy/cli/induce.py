"""``induce PATH... --output wrapper.json``: learn a page type's wrapper from saved pages."""

from __future__ import annotations

import argparse
import logging
import sys

from pagesim_scrapy.cli._common import CommandError, page_paths
from pagesim_scrapy.cli._progress import add_progress_argument, track
from pagesim_scrapy.core.induce import DEFAULT_LAMBDA, DEFAULT_MIN_FIT, Wrapper, parse_html
from pagesim_scrapy.core.induce.dom import PageParseError
from pagesim_scrapy.core.pageio import PageReadError, read_page_bytes

logger = logging.getLogger(__name__)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "induce",
        help="learn a wrapper (template with data fields) from pages of one type",
        description=(
            "Learn a page type's template from saved pages of that type (largest page first): "
            "which nodes are fixed, which optional, which hold data, and which sibling groups "
            "repeat. Writes the wrapper as JSON for `extract` and `wrapper show`."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="saved pages or folders")
    parser.add_argument(
        "-o", "--output", metavar="WRAPPER.json", help="write the wrapper here (default: stdout)"
    )
    parser.add_argument("--label", help="the page type's label, stored in the wrapper")
    parser.add_argument(
        "--lambda",
        dest="lam",
        type=float,
        default=DEFAULT_LAMBDA,
        metavar="X",
        help="drop nodes found on fewer than ceil((n+1)*X) of n pages (default: %(default)s)",
    )
    parser.add_argument(
        "--min-fit",
        type=float,
        default=DEFAULT_MIN_FIT,
        metavar="F",
        help="share of required nodes a page must show to fit (default: %(default)s)",
    )
    parser.add_argument(
        "--no-jsonld",
        action="store_true",
        help="ignore the pages' embedded JSON-LD (by default its values are fields too)",
    )
    add_progress_argument(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if not 0.0 <= args.lam <= 1.0:
        raise CommandError(f"--lambda must be within [0, 1], got {args.lam}")
    if not 0.0 <= args.min_fit <= 1.0:
        raise CommandError(f"--min-fit must be within [0, 1], got {args.min_fit}")
    paths = page_paths(args.paths)
    wrapper = Wrapper(
        label=args.label, lam=args.lam, min_fit=args.min_fit, structured=not args.no_jsonld
    )
    roots = []
    for path in track(paths, args, "reading"):
        try:
            roots.append(parse_html(read_page_bytes(path), structured=wrapper.structured))
        except (PageReadError, PageParseError) as exc:
            logger.warning("skipping %s: %s", path, exc)
    if not roots:
        raise CommandError("no page could be read")
    wrapper.add_pages(roots)
    if wrapper.tree.duplicates:
        logger.warning(
            "%d page(s) skipped: the same document as another page", wrapper.tree.duplicates
        )
    if wrapper.pages == 1:
        logger.warning(
            "one page only: template text and data cannot be told apart, "
            "only repeated regions and the page's name become fields"
        )
    if args.output and args.output != "-":
        try:
            wrapper.save(args.output)
        except OSError as exc:
            raise CommandError(f"cannot write {args.output}: {exc}") from exc
    else:
        sys.stdout.write(wrapper.to_json() + "\n")
    print(
        f"learned from {wrapper.pages} page(s): {len(wrapper.fields)} fields, "
        f"page kind {wrapper.kind}, main region {wrapper.main_region}",
        file=sys.stderr,
    )
    return 0
