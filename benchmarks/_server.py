"""The page server of the crawl benchmarks, run in a subprocess so that its CPU is not the
crawl's: ``script --serve PLAN`` prints its port and serves the pages of the plan."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def page_server(
    script: str, folder: Path, plan: dict[str, Any], extra: Sequence[str] = ()
) -> Iterator[tuple[int, Path]]:
    """Write ``plan`` into ``folder`` and run ``script --serve`` on it: yields (port, the
    plan's file), and stops the server after."""
    pages_file = folder / "plan.json"
    pages_file.write_text(json.dumps(plan))
    server = subprocess.Popen(
        [sys.executable, script, "--serve", str(pages_file), *extra],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield int(server.stdout.readline()), pages_file
    finally:
        server.terminate()
        server.wait(10)
