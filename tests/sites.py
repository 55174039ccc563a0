"""Real HTTP servers on 127.0.0.x for the tests, whose paths say how they behave.

``start_site(host)`` serves on ``host`` (any 127.0.0.x) and a free port and
returns a :class:`Site`; ``site.stop()`` shuts it down. Every request is
logged (path, headers, start and end times, how many requests to this server
were in flight), so politeness can be checked from the server's own view.

Paths:
    /ok, /page/<anything>     200 text/html naming the path
    /status/<code>            that status (300-308 with ``Location: /ok``)
    /redirect/<code>?to=<u>   that redirect status to ``u`` (a path or URL)
    /loop/<n>                 302 to /loop/<n+1>, for ever
    /gzip, /deflate           200 html, compressed that way
    /chunked                  200 html in three chunks, no Content-Length
    /big/<n>                  200 text/plain of n bytes
    /gzipbomb/<n>             200 gzip of n zero bytes (a few KiB on the wire)
    /slow/<seconds>           sleeps, then 200
    /drop                     closes the connection without a response
    /modified                 304 if If-Modified-Since is sent, else 200 with
                              Last-Modified
    /headers                  200 text/plain echoing the request headers
    /robots.txt               ``site.robots`` with ``site.robots_status``
                              (404 when ``site.robots`` is None)
    /bytes/<name>             ``site.files[name]`` = (content type, bytes)
"""

from __future__ import annotations

import gzip
import socket
import threading
import time
import zlib
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LAST_MODIFIED = formatdate(1_600_000_000, usegmt=True)


@dataclass
class Request:
    """One request as the server saw it."""

    path: str
    headers: dict[str, str]
    started: float
    ended: float = 0.0
    in_flight: int = 1  # requests to this server running when it started


@dataclass
class Site:
    """A running test server and its request log."""

    host: str
    port: int
    server: ThreadingHTTPServer
    robots: str | None = None
    robots_status: int = 200
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    log: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    active: int = 0

    @property
    def base(self) -> str:
        """``http://host:port``."""
        return f"http://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        """An absolute URL on this site."""
        return self.base + path

    def requests_for(self, prefix: str = "/") -> list[Request]:
        """The logged requests whose path starts with ``prefix``, in order."""
        with self.lock:
            return [r for r in self.log if r.path.startswith(prefix)]

    def stop(self) -> None:
        """Shut the server down and close its socket."""
        self.server.shutdown()
        self.server.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "beamcrawl-test"

    def log_message(self, format: str, *args: object) -> None:
        pass  # the Site keeps its own log

    @property
    def site(self) -> Site:
        return self.server.site  # type: ignore[attr-defined]

    def do_GET(self) -> None:
        site = self.site
        with site.lock:
            site.active += 1
            entry = Request(
                self.path, dict(self.headers), time.monotonic(), 0.0, site.active
            )
            site.log.append(entry)
        try:
            self._route()
        finally:
            with site.lock:
                site.active -= 1
                entry.ended = time.monotonic()

    def _route(self) -> None:
        parts = urlsplit(self.path)
        path = parts.path
        head, _, rest = path.strip("/").partition("/")
        handler = getattr(self, f"_r_{head or 'root'}", None)
        if handler is None:
            self._send(404, b"<html><body>not found</body></html>")
        else:
            handler(rest, parse_qs(parts.query))

    def _send(
        self,
        code: int,
        body: bytes,
        content_type: str = "text/html; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _page(self, title: str) -> bytes:
        html = f"<html><head><title>{title}</title></head><body>{title}</body></html>"
        return html.encode()

    def _r_root(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(200, self._page("home"))

    def _r_ok(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(200, self._page("ok"))

    def _r_page(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(200, self._page(f"page {rest}"))

    def _r_status(self, rest: str, query: dict[str, list[str]]) -> None:
        code = int(rest)
        headers = {"Location": "/ok"} if 300 <= code < 400 else {}
        self._send(
            code, b"" if code == 304 else self._page(f"status {code}"), headers=headers
        )

    def _r_redirect(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(
            int(rest), b"moved", headers={"Location": query.get("to", ["/ok"])[0]}
        )

    def _r_loop(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(302, b"again", headers={"Location": f"/loop/{int(rest or 0) + 1}"})

    def _r_gzip(self, rest: str, query: dict[str, list[str]]) -> None:
        body = gzip.compress(self._page("gzipped"))
        self._send(200, body, headers={"Content-Encoding": "gzip"})

    def _r_deflate(self, rest: str, query: dict[str, list[str]]) -> None:
        body = zlib.compress(self._page("deflated"))
        self._send(200, body, headers={"Content-Encoding": "deflate"})

    def _r_chunked(self, rest: str, query: dict[str, list[str]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for chunk in (b"<html><body>", b"chunked body", b"</body></html>"):
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")

    def _r_big(self, rest: str, query: dict[str, list[str]]) -> None:
        size = int(rest)
        self._send(200, (b"0123456789" * (size // 10 + 1))[:size], "text/plain")

    def _r_gzipbomb(self, rest: str, query: dict[str, list[str]]) -> None:
        body = gzip.compress(bytes(int(rest)), compresslevel=9)
        self._send(200, body, "text/html", headers={"Content-Encoding": "gzip"})

    def _r_slow(self, rest: str, query: dict[str, list[str]]) -> None:
        time.sleep(float(rest))
        self._send(200, self._page("slow"))

    def _r_drop(self, rest: str, query: dict[str, list[str]]) -> None:
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)

    def _r_modified(self, rest: str, query: dict[str, list[str]]) -> None:
        if self.headers.get("If-Modified-Since"):
            self._send(304, b"", headers={"Last-Modified": LAST_MODIFIED})
        else:
            self._send(
                200, self._page("modified"), headers={"Last-Modified": LAST_MODIFIED}
            )

    def _r_headers(self, rest: str, query: dict[str, list[str]]) -> None:
        lines = "".join(f"{name}: {value}\n" for name, value in self.headers.items())
        self._send(200, lines.encode(), "text/plain")

    def _r_robots(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(404, b"no such path")

    def _r_bytes(self, rest: str, query: dict[str, list[str]]) -> None:
        content_type, body = self.site.files[rest]
        self._send(200, body, content_type)


class _RobotsAwareHandler(_Handler):
    def _route(self) -> None:
        if urlsplit(self.path).path == "/robots.txt":
            site = self.site
            if site.robots is None:
                self._send(404, b"none", "text/plain")
            else:
                self._send(site.robots_status, site.robots.encode(), "text/plain")
            return
        super()._route()


def start_site(host: str = "127.0.0.1", robots: str | None = None) -> Site:
    """Serve on ``host`` and a free port, in a daemon thread."""
    server = ThreadingHTTPServer((host, 0), _RobotsAwareHandler)
    server.daemon_threads = True
    site = Site(host=host, port=server.server_address[1], server=server, robots=robots)
    server.site = site  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return site


def refused_url(host: str = "127.0.0.1") -> str:
    """A URL on a port nothing listens on (connection refused)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        port = sock.getsockname()[1]
    return f"http://{host}:{port}/nothing"
