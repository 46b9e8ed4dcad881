"""Run ``scrapy`` (its command line) with the process's CPU accounted per thread and the
garbage collector's passes timed, for ``bench_induction_cpu.py --account``.

The report (JSON) goes to the file named by ``PAGESIM_ACCOUNT_OUT`` at exit: each thread's
CPU seconds by thread name (threads that ended are counted as they end), the collector's
CPU seconds per generation and per thread, the whole process's user+sys CPU, and the
CPU of the imports before the crawl starts."""

from __future__ import annotations

import atexit
import gc
import json
import os
import resource
import sys
import threading
import time
from collections import defaultdict

_threads: dict[str, float] = defaultdict(float)
_gc: dict[str, float] = defaultdict(float)
_gc_count: dict[str, int] = defaultdict(int)
_gc_started: dict[int, float] = {}
_lock = threading.Lock()


def _thread_kind(name: str) -> str:
    """Threads grouped by what runs them (a pool's threads share a name prefix)."""
    return name.rsplit("_", 1)[0] if name[-1:].isdigit() else name


def _on_gc(phase: str, info: dict[str, int]) -> None:
    ident = threading.get_ident()
    if phase == "start":
        _gc_started[ident] = time.thread_time()
        return
    started = _gc_started.pop(ident, None)
    if started is None:
        return
    seconds = time.thread_time() - started
    key = f"{_thread_kind(threading.current_thread().name)}/gen{info['generation']}"
    with _lock:
        _gc[key] += seconds
        _gc_count[key] += 1


_original_run = threading.Thread.run


def _counted_run(self: threading.Thread) -> None:
    try:
        _original_run(self)
    finally:
        with _lock:
            _threads[_thread_kind(self.name)] += time.thread_time()


def _task_stat(native_id: int | None) -> list[float]:
    """A thread's user and system CPU seconds and its voluntary and involuntary context
    switches, from /proc (Linux); empty elsewhere."""
    try:
        with open(f"/proc/self/task/{native_id}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        with open(f"/proc/self/task/{native_id}/status") as fh:
            status = dict(line.split(":", 1) for line in fh if ":" in line)
    except OSError:
        return []
    ticks = os.sysconf("SC_CLK_TCK")
    switches = [float(status[k]) for k in ("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")]
    return [int(fields[11]) / ticks, int(fields[12]) / ticks, *switches]


def _report() -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    _threads["MainThread"] += time.thread_time()
    for thread in threading.enumerate():  # daemon threads still running at exit
        if thread is not threading.main_thread() and thread.native_id is not None:
            try:
                with open(f"/proc/self/task/{thread.native_id}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                ticks = os.sysconf("SC_CLK_TCK")
                _threads[_thread_kind(thread.name)] += (int(fields[11]) + int(fields[12])) / ticks
            except OSError:
                pass
    main_stat = _task_stat(threading.main_thread().native_id)
    report = {
        "main_thread_user_sys_switches": main_stat,
        "process": usage.ru_utime + usage.ru_stime,
        "threads": dict(_threads),
        "gc": dict(_gc),
        "gc_count": dict(_gc_count),
        "startup": _startup,
        "worker": dict(_worker),
        "calls": dict(_calls),
    }
    with open(os.environ["PAGESIM_ACCOUNT_OUT"], "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=1, sort_keys=True)


_worker: dict[str, float] = defaultdict(float)


def _count_worker_jobs() -> None:
    """The induction worker's counted jobs (its ``time_ms`` stat, trims before a job
    included) by the job's function, and its memory trims apart, so that the worker
    thread's CPU outside them shows."""
    from pagesim_scrapy.pipelines.induction import worker

    timed, original_trim, count = worker._timed, worker.trim_memory, worker.InductionWorker._count

    def counted_timed(trim, func, *args):  # type: ignore[no-untyped-def]
        result = timed(trim, func, *args)
        _worker["counted_jobs"] += result[1]
        _worker[f"job/{getattr(func, '__name__', 'other')}"] += result[1]
        _worker[f"calls/{getattr(func, '__name__', 'other')}"] += 1
        return result

    def counted_trim() -> None:
        started = time.thread_time()
        original_trim()
        _worker["trim_memory"] += time.thread_time() - started

    def counted_stat(self):  # type: ignore[no-untyped-def]
        count(self)
        _worker["time_ms_stat"] = self.cpu_seconds + self.reactor_seconds

    worker._timed = counted_timed
    worker.trim_memory = counted_trim
    worker.InductionWorker._count = counted_stat


#: Functions run in the reactor thread whose CPU is summed apart (module, class or None,
#: name): the induction pipeline's steps there, the drift watch's, the feed export's.
TIMED_CALLS = [
    ("pagesim_scrapy.pipelines.induction.pipeline", "TemplateInductionPipeline", "_state_for"),
    ("pagesim_scrapy.pipelines.induction.pipeline", "TemplateInductionPipeline", "_finish"),
    ("pagesim_scrapy.pipelines.induction.pipeline", "TemplateInductionPipeline", "open_spider"),
    ("pagesim_scrapy.pipelines.induction.holding", "Holding", "new"),
    ("pagesim_scrapy.pipelines.induction.pipeline", None, "save_wrappers"),
    ("pagesim_scrapy.pipelines.induction.pipeline", None, "save_signatures"),
    ("pagesim_scrapy.middlewares.drift", "DriftWatch", "observe_record"),
    ("pagesim_scrapy.middlewares.drift", "DriftWatch", "close"),
    ("scrapy.exporters", "JsonLinesItemExporter", "export_item"),
]
_calls: dict[str, float] = defaultdict(float)


def _time_calls() -> None:
    """Wrap each of :data:`TIMED_CALLS` to sum its CPU (in the thread that calls it)."""
    import functools
    import importlib

    for module_name, owner_name, name in TIMED_CALLS:
        module = importlib.import_module(module_name)
        owner = module if owner_name is None else getattr(module, owner_name)
        original = getattr(owner, name)

        def timed(*args, _original=original, _key=f"{owner_name or module_name}.{name}", **kw):  # type: ignore[no-untyped-def]
            started = time.thread_time()
            try:
                return _original(*args, **kw)
            finally:
                _calls[_key] += time.thread_time() - started

        setattr(owner, name, functools.wraps(original)(timed))


gc.callbacks.append(_on_gc)
threading.Thread.run = _counted_run  # type: ignore[method-assign]
atexit.register(_report)
_startup = time.thread_time()

if __name__ == "__main__":
    from scrapy.cmdline import execute

    sys.argv[0] = "scrapy"
    _count_worker_jobs()
    _time_calls()
    _startup = time.thread_time()
    execute()
