"""``wrapper show|merge``: look at a learned wrapper, or pool two of one page type."""

from __future__ import annotations

import argparse
import sys

from pagesim_scrapy.cli._common import CommandError
from pagesim_scrapy.core.induce import Wrapper, WrapperError
from pagesim_scrapy.core.induce.describe import describe


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "wrapper",
        help="show a learned wrapper, or merge wrappers of one page type",
        description="Inspect or combine wrappers written by `induce` or the crawl pipeline.",
    )
    sub = parser.add_subparsers(dest="wrapper_command", metavar="ACTION")
    sub.required = True
    show = sub.add_parser(
        "show",
        help="fields, optional nodes and example values, for a person to check",
    )
    show.add_argument("wrapper", metavar="WRAPPER.json")
    show.add_argument(
        "--max-optional", type=int, default=30, metavar="N", help="optional nodes listed"
    )
    show.set_defaults(handler=run_show)
    merge = sub.add_parser(
        "merge",
        help="pool wrappers learned from different pages of the same page type",
    )
    merge.add_argument("wrappers", nargs="+", metavar="WRAPPER.json")
    merge.add_argument(
        "-o", "--output", metavar="WRAPPER.json", help="write the merged wrapper (default: stdout)"
    )
    merge.set_defaults(handler=run_merge)


def _load(path: str) -> Wrapper:
    try:
        return Wrapper.load(path)
    except WrapperError as exc:
        raise CommandError(str(exc)) from exc


def run_show(args: argparse.Namespace) -> int:
    print(describe(_load(args.wrapper), max_optional=max(0, args.max_optional)))
    return 0


def run_merge(args: argparse.Namespace) -> int:
    merged = _load(args.wrappers[0])
    for path in args.wrappers[1:]:
        try:
            merged.merge(_load(path))
        except WrapperError as exc:
            raise CommandError(f"{path}: {exc}") from exc
    if args.output and args.output != "-":
        try:
            merged.save(args.output)
        except OSError as exc:
            raise CommandError(f"cannot write {args.output}: {exc}") from exc
    else:
        sys.stdout.write(merged.to_json() + "\n")
    print(f"merged {len(args.wrappers)} wrappers: {merged.pages} pages", file=sys.stderr)
    return 0
