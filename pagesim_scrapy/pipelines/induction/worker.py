"""The induction pipeline's one worker thread: learning and extracting run there, so the
reactor stays free.

One thread, not more: the work is pure Python under the GIL, so more threads would not run it
faster, and each more thread would take a larger share of the interpreter away from the
reactor that downloads.
"""

from __future__ import annotations

import asyncio
import ctypes
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy.utils.asyncio import is_asyncio_available
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from pagesim_scrapy.core.induce.structured import recording_skips

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector

#: The prefix of the stats this module counts (written out here: the docs scan each file).
STATS_PREFIX = "pagesim/induction"

_T = TypeVar("_T")

#: Worker jobs between two :func:`trim_memory` calls.
TRIM_EVERY = 100


class InductionWorker:
    """Runs jobs in one thread of its own and counts induction's CPU (``time_ms`` stat): all
    of that thread's work, its memory trims included, and what the pipeline reports of its
    own work in the reactor thread (:meth:`counting`), so that one stat holds the whole."""

    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats
        self._executor: ThreadPoolExecutor | None = None
        #: CPU seconds of the worker thread's learning, extracting and trims
        self.cpu_seconds = 0.0
        #: CPU seconds of the pipeline's per-item work in the reactor thread
        self.reactor_seconds = 0.0
        #: jobs given to the thread (every TRIM_EVERY-th is followed by a memory trim)
        self.jobs = 0

    async def run(self, func: Callable[..., _T], *args: Any) -> _T:
        """Run ``func(*args)`` in the worker thread and wait for it without blocking the
        reactor."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="pagesim-induction")
        self.jobs += 1
        trim = self.jobs % TRIM_EVERY == 0
        future: Future[tuple[_T, float, Counter[str]]] = self._executor.submit(
            _timed, trim, func, *args
        )
        if is_asyncio_available():
            result, seconds, skipped = await asyncio.wrap_future(future)
        else:
            result, seconds, skipped = await _wait_in_twisted(future)
        self.cpu_seconds += seconds
        for reason, count in skipped.items():
            self.stats.inc_value(f"{STATS_PREFIX}/parts_skipped/{reason}", count)
        self._count()
        return result

    @contextmanager
    def counting(self) -> Iterator[None]:
        """Count the reactor thread's CPU inside the block into the ``time_ms`` stat."""
        started = time.thread_time()
        try:
            yield
        finally:
            self.reactor_seconds += time.thread_time() - started
            self._count()

    def _count(self) -> None:
        total = self.cpu_seconds + self.reactor_seconds
        self.stats.set_value(f"{STATS_PREFIX}/time_ms", round(total * 1000))

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False)
            self._executor = None


async def _wait_in_twisted(future: Future[_T]) -> _T:
    """The future's result, handed to the reactor thread (Twisted's reactor, no asyncio)."""
    from twisted.internet import reactor

    waiter: Deferred[_T] = Deferred()

    def done(_: Future[_T]) -> None:
        # Future.result() re-raises the worker's exception, into the Deferred's errback
        reactor.callFromThread(_settle, waiter, future)

    future.add_done_callback(done)
    return await maybe_deferred_to_future(waiter)


def _settle(waiter: Deferred[Any], future: Future[Any]) -> None:
    try:
        result = future.result()
    except BaseException as exc:
        waiter.errback(exc)
    else:
        waiter.callback(result)


def _timed(trim: bool, func: Callable[..., _T], *args: Any) -> tuple[_T, float, Counter[str]]:
    """Worker thread: ``func(*args)`` (after a memory trim if ``trim``), the thread's CPU
    seconds both took, and the parts of the page the core skipped (a context variable, so it
    is read in this thread)."""
    started = time.thread_time()
    if trim:
        trim_memory()
    with recording_skips() as skipped:
        result = func(*args)
    return result, time.thread_time() - started, skipped


def _load_malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None (another C library, another system)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_MALLOC_TRIM = _load_malloc_trim()


def trim_memory() -> None:
    """Hand the memory that freed parsed pages leave in the C allocator back to the system.
    Parsing a page takes many MB in small blocks that glibc keeps, per thread arena, once
    they are freed: without this the crawl's RSS grows far past what it uses."""
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)
