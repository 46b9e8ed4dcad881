"""``compare A B``: print the similarity of two pages."""

from __future__ import annotations

import argparse

from pagesim_scrapy.cli._common import CommandError
from pagesim_scrapy.cli._method import add_method_arguments, method_params, methods_help
from pagesim_scrapy.core.pageio import PageReadError
from pagesim_scrapy.core.similarity import similarity
from pagesim_scrapy.core.summary import PageParseError, summarize


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="print the structural similarity of two pages",
        description="Print the similarity (0..1) of two saved pages under one measure.",
        epilog=methods_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("page_a", metavar="A", help="a saved page (.html, .htm, .html.gz)")
    parser.add_argument("page_b", metavar="B", help="another saved page")
    add_method_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    params = method_params(args)
    try:
        a = summarize(Path(args.page_a))
        b = summarize(Path(args.page_b))
        score = similarity(a, b, args.method, **params)
    except (PageReadError, PageParseError, ValueError) as exc:
        raise CommandError(str(exc)) from exc
    print(f"{score:.4f}")
    return 0
