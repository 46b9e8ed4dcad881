"""A real ``redis-server`` (the Debian package) on 127.0.0.1, for the fleet tests and benchmark.

``redis-server --port 0`` does not listen on TCP at all, so a free port is found by binding a
socket first; the server runs without persistence (``--save '' --appendonly no``) in a
temporary folder and is stopped (SIGTERM, then SIGKILL) afterwards.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass


class RedisNotAvailable(RuntimeError):
    """redis-server is not installed or would not start (the reason says which)."""


@dataclass
class RedisServer:
    port: int
    process: subprocess.Popen[bytes]

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextlib.contextmanager
def running_redis(port: int | None = None, start_timeout: float = 10.0) -> Iterator[RedisServer]:
    """Start redis-server on ``port`` (a free one if None), yield it, stop it."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise RedisNotAvailable("redis-server is not installed (apt-get install redis-server)")
    port = port or free_port()
    with tempfile.TemporaryDirectory(prefix="pagesim-redis-") as folder:
        process = subprocess.Popen(
            [
                binary,
                "--port",
                str(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                folder,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + start_timeout
            while not _answers(port):
                if process.poll() is not None:
                    error = (process.stderr.read() if process.stderr else b"").decode(
                        "utf-8", "replace"
                    )
                    raise RedisNotAvailable(
                        f"redis-server exited with {process.returncode}: {error[-500:]}"
                    )
                if time.monotonic() > deadline:
                    raise RedisNotAvailable(f"redis-server did not answer on port {port}")
                time.sleep(0.05)
            yield RedisServer(port, process)
        finally:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(5)
            if process.stderr is not None:
                process.stderr.close()


def redis_or_skip() -> Iterator[RedisServer]:
    """The body of the tests' ``redis_server`` fixtures: a running server, or the test
    skipped with the reason it could not start."""
    import pytest

    try:
        with running_redis() as server:
            yield server
    except RedisNotAvailable as exc:
        pytest.skip(f"no redis-server: {exc}")
