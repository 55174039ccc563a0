"""A synthetic multi-host web for crawl benchmarks, served by another process.

``hosts`` hosts of ``pages`` pages each: host ``h`` is 127.0.0.<h+1>, page
``p`` is ``/p<p>.html``. Each page is about 15 KB of HTML with about 30
links: the next page of its host (so every page can be reached from the
host's first), mostly random pages of the same host, and a few pages of
other hosts. Everything is drawn from a seeded generator, so a page is the
same on every run; robots.txt answers 404.

Usage from a benchmark::

    with SyntheticWeb(hosts=8, pages=50) as web:
        web.seeds  # the hosts' first pages
        web.size   # hosts x pages

``python bench/synthweb.py --hosts 8 --pages 50`` serves it until killed.
"""

from __future__ import annotations

import argparse
import random
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

PORT = 18800
LINKS = 30
CROSS_HOST_LINKS = 3
_WORDS = [
    "harbour",
    "lighthouse",
    "keeper",
    "storm",
    "beacon",
    "tide",
    "rope",
    "anchor",
    "gull",
    "lantern",
    "fog",
    "cliff",
    "chart",
    "compass",
    "vessel",
    "crew",
    "shore",
    "signal",
    "night",
    "watch",
]


def host_address(host: int) -> str:
    """The loopback address serving host ``host`` (0-based)."""
    return f"127.0.0.{host + 1}"


def page_url(host: int, page: int, port: int = PORT) -> str:
    """The URL of page ``page`` of host ``host``."""
    return f"http://{host_address(host)}:{port}/p{page}.html"


def page_html(
    host: int, page: int, hosts: int, pages: int, seed: int = 1, port: int = PORT
) -> bytes:
    """Page ``page`` of host ``host``: ~15 KB of HTML, ~30 links."""
    rng = random.Random(f"{seed}/{host}/{page}")
    links = [page_url(host, (page + 1) % pages, port)]
    links += [
        page_url(host, rng.randrange(pages), port)
        for _ in range(LINKS - 1 - CROSS_HOST_LINKS)
    ]
    if hosts > 1:
        others = [h for h in range(hosts) if h != host]
        links += [
            page_url(rng.choice(others), rng.randrange(pages), port)
            for _ in range(CROSS_HOST_LINKS)
        ]
    paragraphs = []
    for n, link in enumerate(links):
        words = " ".join(rng.choice(_WORDS) for _ in range(75))
        paragraphs.append(f'<p>{words} <a href="{link}">link {n}</a></p>')
    return (
        f"<!DOCTYPE html><html><head><title>Host {host} page {page}</title>"
        f"</head><body><h1>Host {host} page {page}</h1>{''.join(paragraphs)}"
        "</body></html>"
    ).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        server = self.server
        body = server.pages.get(self.path)  # type: ignore[attr-defined]
        self.send_response(200 if body is not None else 404)
        body = body if body is not None else b"not found"
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(hosts: int, pages: int, port: int = PORT) -> None:
    """Serve every host on its address until killed; print ``ready``."""
    for host in range(hosts):
        server = ThreadingHTTPServer((host_address(host), port), _Handler)
        server.daemon_threads = True
        server.pages = {  # type: ignore[attr-defined]
            f"/p{page}.html": page_html(host, page, hosts, pages, port=port)
            for page in range(pages)
        }
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print("ready", flush=True)
    threading.Event().wait()


class SyntheticWeb:
    """The web served by a child process (not sharing the crawler's GIL)."""

    def __init__(self, hosts: int, pages: int, port: int = PORT) -> None:
        self.hosts = hosts
        self.pages = pages
        self.port = port
        self._process: subprocess.Popen[str] | None = None

    @property
    def seeds(self) -> list[str]:
        """Each host's first page."""
        return [page_url(host, 0, self.port) for host in range(self.hosts)]

    @property
    def size(self) -> int:
        """How many pages the web has."""
        return self.hosts * self.pages

    def __enter__(self) -> SyntheticWeb:
        command = [sys.executable, __file__, "--hosts", str(self.hosts)]
        command += ["--pages", str(self.pages), "--port", str(self.port)]
        self._process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self._process.stdout is not None
        if self._process.stdout.readline().strip() != "ready":
            raise SystemExit("the synthetic web did not start")
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._process is not None:
            self._process.kill()  # by its pid
            self._process.wait()
            if self._process.stdout is not None:
                self._process.stdout.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="serve the synthetic web")
    parser.add_argument("--hosts", type=int, default=40)
    parser.add_argument("--pages", type=int, default=250)
    parser.add_argument("--port", type=int, default=PORT)
    args = parser.parse_args()
    serve(args.hosts, args.pages, args.port)
