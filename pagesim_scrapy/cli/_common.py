"""Small helpers the sub-commands share: page arguments, JSON lines output, errors."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from pagesim_scrapy.core.pageio import PAGE_SUFFIXES, PageReadError, iter_page_paths


class CommandError(Exception):
    """A user error the command reports on stderr with exit status 2."""


def page_paths(raw: Iterable[str]) -> list[Path]:
    try:
        paths = list(iter_page_paths(raw))
    except PageReadError as exc:
        raise CommandError(str(exc)) from exc
    if not paths:
        endings = ", ".join(PAGE_SUFFIXES)
        raise CommandError(f"no pages found ({endings}) in the given paths")
    return paths


@contextmanager
def output_stream(path: str | None) -> Iterator[TextIO]:
    """Yield a text stream: the file at ``path``, or stdout for None or ``-``."""
    if path is None or path == "-":
        yield sys.stdout
        return
    with open(path, "w", encoding="utf-8") as fh:
        yield fh


def jsonl_line(obj: dict[str, Any]) -> str:
    """One output object as the commands write it (without the newline)."""
    return json.dumps(obj, ensure_ascii=False, sort_keys=False)


def write_jsonl(stream: TextIO, obj: dict[str, Any]) -> None:
    stream.write(jsonl_line(obj) + "\n")


def add_output_argument(parser: argparse.ArgumentParser, what: str = "results") -> None:
    parser.add_argument(
        "-o", "--output", metavar="FILE.jsonl", help=f"write {what} here (default: stdout)"
    )
