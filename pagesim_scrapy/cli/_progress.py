"""Progress bars for the long commands: drawn on stderr when it is a terminal, silent otherwise.

The bars are tqdm's. They appear only when stderr is a terminal and ``--no-progress`` is not
given, so output redirected to a file, a pipe or a scheduler's log gets nothing extra. While a
bar is shown, log lines (``skipping PAGE: ...``) are printed above it instead of through it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, TypeVar

from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

T = TypeVar("T")


def add_progress_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (one is drawn on stderr only when stderr is a terminal)",
    )


def progress_wanted(args: argparse.Namespace) -> bool:
    """True when a bar should be drawn: stderr is a terminal and ``--no-progress`` not given."""
    if getattr(args, "no_progress", False):
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def _width() -> dict[str, Any]:
    """Follow the terminal's size; a terminal that reports none (0 x 0: some containers and CI
    terminals) gets 80 x 24, where tqdm would draw nothing."""
    try:
        columns = os.get_terminal_size(sys.stderr.fileno()).columns
    except (AttributeError, OSError, ValueError):
        columns = 0
    return {"dynamic_ncols": True} if columns > 0 else {"ncols": 80, "nrows": 24}


def _bar(enabled: bool, total: int | None, desc: str, unit: str, position: int = 0) -> Any:
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        file=sys.stderr,
        disable=not enabled,
        position=position,
        **(_width() if enabled else {}),
    )


def _redirect(enabled: bool) -> AbstractContextManager[Any]:
    return logging_redirect_tqdm() if enabled else nullcontext()


@contextmanager
def progress_bar(
    args: argparse.Namespace, total: int | None, desc: str, unit: str = "page"
) -> Iterator[Any]:
    """A tqdm bar (a no-op one when no bar is wanted): call ``update(n)`` on it."""
    enabled = progress_wanted(args)
    with _redirect(enabled), _bar(enabled, total, desc, unit) as bar:
        yield bar


def track(
    items: Iterable[T],
    args: argparse.Namespace,
    desc: str,
    total: int | None = None,
    unit: str = "page",
) -> Iterator[T]:
    """Yield ``items``, advancing a bar by one per item."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with progress_bar(args, total, desc, unit) as bar:
        for item in items:
            yield item
            bar.update(1)


class StageBars:
    """A ``progress(stage, done, total)`` callback (as ``cluster_pages`` calls it) drawing one
    bar per stage, stacked in the order the stages start. Close it with :meth:`close` or use it
    as a context manager."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.enabled = progress_wanted(args)
        self.bars: dict[str, Any] = {}
        self._redirect = _redirect(self.enabled)
        self._redirect.__enter__()

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        bar = self.bars.get(stage)
        if bar is None:
            unit = "leader" if "leader" in stage else "page"
            bar = self.bars[stage] = _bar(self.enabled, total, stage, unit, len(self.bars))
        if total is not None and bar.total != total:
            bar.total = total
        if done > bar.n:
            bar.update(done - bar.n)

    def close(self) -> None:
        """Close the bars in the order they were opened (they stay on the screen, stacked)."""
        bars, self.bars = list(self.bars.values()), {}
        try:
            for bar in bars:
                bar.close()
        finally:
            self._redirect.__exit__(None, None, None)

    def __enter__(self) -> StageBars:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
