"""A real HTTP server for sitemap tests: paths answer with set bodies and headers.

``SitemapSite(host)`` serves ``routes[path] = Route(...)`` on ``host`` and a
free port; unknown paths are 404. The ``tests/data/sitemaps`` files are read
with ``{BASE}`` (this site's URL) and ``{OTHER}`` put in. Every request's
path and arrival time (``time.monotonic()``) is logged, so a test can check
from the server's side which sitemaps were fetched, and how far apart.
"""

from __future__ import annotations

import gzip
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DATA = Path(__file__).parent / "data" / "sitemaps"


@dataclass(frozen=True)
class Route:
    """One path's answer."""

    body: bytes = b""
    content_type: str = "application/xml"
    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()


@dataclass
class SitemapSite:
    """A running server; ``url`` is ``http://host:port``."""

    host: str
    routes: dict[str, Route] = field(default_factory=dict)
    log: list[tuple[str, float]] = field(default_factory=list)

    def __post_init__(self) -> None:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.log.append((self.path, time.monotonic()))
                route = site.routes.get(
                    self.path, Route(b"not found", "text/plain", 404)
                )
                self.send_response(route.status)
                self.send_header("Content-Type", route.content_type)
                self.send_header("Content-Length", str(len(route.body)))
                for name, value in route.headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(route.body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer((self.host, 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.url = f"http://{self.host}:{self._server.server_port}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def data(self, name: str, other: str = "http://other.invalid") -> bytes:
        """A sample file with ``{BASE}`` and ``{OTHER}`` filled in."""
        text = (DATA / name).read_bytes()
        return text.replace(b"{BASE}", self.url.encode()).replace(
            b"{OTHER}", other.encode()
        )

    def serve(self, path: str, name: str, content_type: str = "application/xml",
              other: str = "http://other.invalid") -> None:  # fmt: skip
        """Serve sample file ``name`` at ``path``."""
        self.routes[path] = Route(self.data(name, other), content_type)

    def serve_gzip(self, path: str, body: bytes, *, encoded: bool) -> None:
        """Serve ``body`` gzipped: as ``Content-Encoding`` or as a .gz file."""
        packed = gzip.compress(body)
        if encoded:
            self.routes[path] = Route(
                packed, "application/xml", headers=(("Content-Encoding", "gzip"),)
            )
        else:
            self.routes[path] = Route(packed, "application/x-gzip")

    @staticmethod
    def text_route(text: str) -> Route:
        """A plain-text answer (a robots.txt)."""
        return Route(text.encode(), "text/plain")

    def requested(self) -> list[str]:
        """The paths requested, in order."""
        return [path for path, _ in self.log]
