"""The page server of the crawl benchmarks, run in a subprocess so that its CPU is not the
crawl's: ``script --serve PLAN`` prints its port and serves the pages of the plan."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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


def serve_forever(body_of: Callable[[str], bytes], latency: float = 0.0) -> None:
    """Serve GET requests until killed: ``body_of(path)`` is the page (ValueError or
    IndexError: a 404), sent ``latency`` seconds late; the port is printed on stdout first."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            try:
                body, status = body_of(self.path), 200
            except (ValueError, IndexError):
                body, status = b"not found", 404
            if latency:
                time.sleep(latency)
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.request_queue_size = 128
    print(server.server_address[1], flush=True)
    server.serve_forever()


def crawl_result(out: subprocess.CompletedProcess[str], mode: str, count: int) -> dict[str, Any]:
    """The JSON result a benchmark's crawl subprocess printed last; exits with the reason when
    the crawl failed or did not get a response for each of its ``count`` pages."""
    if out.returncode != 0 or not out.stdout.strip():
        shown = out.stderr[-3000:] if out.stderr else "its output is above"
        sys.exit(f"crawl {mode} failed (exit status {out.returncode}):\n{shown}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    if result.get("responses") != count:
        sys.exit(f"crawl {mode} got {result.get('responses')} responses, expected {count}")
    return result
