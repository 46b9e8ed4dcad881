"""``scrapy pagesim <command> ...``: the ``python -m pagesim_scrapy`` commands inside Scrapy.

Scrapy parses a command's options with its own argparse parser before calling ``run()``.
This command declares no option of its own except taking over ``-h/--help``, so everything
else (``--method ted``, ``-p relation=rsn``, ``-v``...) reaches the pagesim parser untouched
and in order, and help is the pagesim parser's help of the sub-command named.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.commands import ScrapyCommand

if TYPE_CHECKING:
    from collections.abc import Sequence

PROG = "scrapy pagesim"


class PagesimCommand(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings: ClassVar[dict[str, Any]] = {"LOG_ENABLED": False}

    def syntax(self) -> str:
        return "<command> [options] [args]"

    def short_desc(self) -> str:
        from pagesim_scrapy.cli import summary_line

        return summary_line()

    def long_desc(self) -> str:
        return (
            "Run a pagesim command, e.g. 'scrapy pagesim compare A.html B.html --method lcs'; "
            "the commands and options are those of the 'pagesim' script. "
            "'scrapy pagesim --help' lists them."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        # No Scrapy global options (-s, -L, --logfile...): they would take the sub-command's
        # own options. Scrapy builds the parser with conflict_handler="resolve", so this
        # replaces its help action: help goes to the pagesim parser instead.
        parser.add_argument(
            "-h", "--help", dest="pagesim_help", action="store_true", help=argparse.SUPPRESS
        )
        # scrapy.cmdline reads opts.profile after parsing; there is no --profile option here.
        parser.set_defaults(profile=None)

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        """Nothing to apply: this command takes no Scrapy settings."""

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        argv = list(args)
        if getattr(opts, "pagesim_help", False):
            argv.append("--help")
        self.exitcode = run_pagesim(argv)


def run_pagesim(argv: Sequence[str]) -> int:
    """Run the pagesim command line; return its exit status (argparse exits included)."""
    from pagesim_scrapy.cli import main

    try:
        return main(list(argv), prog=PROG)
    except SystemExit as exc:  # --help, usage errors
        code = exc.code
        if code is None:
            return 0
        return code if isinstance(code, int) else 1
