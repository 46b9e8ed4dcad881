"""A local HTTP server on 127.0.0.1 (an ephemeral port) serving fixed HTML pages by path, for
the crawl tests: a path not in the routes is a 404 page."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

NOT_FOUND = b"<html><body>404</body></html>"


def _handler(routes: Mapping[str, bytes]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            body = routes.get(self.path)
            self.send_response(200 if body is not None else 404)
            body = body if body is not None else NOT_FOUND
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@contextlib.contextmanager
def serve_routes(routes: Mapping[str, bytes]) -> Iterator[str]:
    """Serve ``routes`` (path -> HTML body) while in the block; yields the base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(routes))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
