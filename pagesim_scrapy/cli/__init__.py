"""Command line: ``python -m pagesim_scrapy <command> …`` (also ``scrapy pagesim <command> …``).

Each sub-command lives in its own module ``pagesim_scrapy.cli.<name>`` exposing
``register(subparsers)`` (adds its parser and sets ``handler=run``) and ``run(args) -> int``.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

#: Sub-command modules, in the order ``--help`` lists them.
SUBCOMMANDS: tuple[str, ...] = (
    "compare",
    "classify",
    "evaluate",
    "explain",
    "cluster",
    "induce",
    "extract",
    "wrapper",
    "content",
)


def build_parser(prog: str = "python -m pagesim_scrapy") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Page-type classification, clustering and template induction for web pages.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in SUBCOMMANDS:
        module_name = f"{__name__}.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a command not built yet is simply absent
            if exc.name == module_name:
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "python -m pagesim_scrapy") -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    from pagesim_scrapy.cli._common import CommandError

    try:
        result: int = args.handler(args)
    except CommandError as exc:
        print(f"{parser.prog} {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into `head` and closed early: not an error
        sys.stderr.close()
        return 0
    return result
