"""Command line: ``pagesim <command> …``, ``python -m pagesim_scrapy <command> …`` and
``scrapy pagesim <command> …``: the same commands under three names.

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
    "drift",
    "export-page-object",
)

#: Commands whose module is named otherwise (a module name cannot hold a dash).
MODULES: dict[str, str] = {"export-page-object": "export"}


#: The program name each way of running the commands shows in its help and errors.
MODULE_PROG = "python -m pagesim_scrapy"
SCRIPT_PROG = "pagesim"


def summary_line() -> str:
    """One line naming every command (``scrapy -h`` shows it beside ``pagesim``)."""
    return "pagesim commands on saved pages: " + ", ".join(SUBCOMMANDS)


def build_parser(prog: str = MODULE_PROG) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Page-type classification, clustering and template induction for web pages.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in SUBCOMMANDS:
        module_name = f"{__name__}.{MODULES.get(name, name)}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a command not built yet is simply absent
            if exc.name == module_name:
                continue
            raise
        module.register(sub)
    return parser


def script_main() -> int:
    """The ``pagesim`` console script."""
    return main(prog=SCRIPT_PROG)


def main(argv: Sequence[str] | None = None, prog: str = MODULE_PROG) -> int:
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
