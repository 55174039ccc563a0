"""ETA benchmark: the fetcher's ETA against the time a polite fetch really took.

Usage: python bench/eta_bench.py [--sizes 40,15,10,5] [--delay 1.0] [--threads 10]

Four hosts (127.0.0.1..4) serve small pages; one fetch list holds ``sizes``
URLs of each (70 by default) and the fetcher waits ``delay`` seconds between
two requests to a host (``fetcher.server.delay``). Every snapshot the
fetcher shows (each 0.25 s) is kept with its time; when the fetch is done,
each is compared with the seconds that were really left then:

- old: what is left at the rate of items so far (the ETA before the polite one);
- new: the polite ETA (``crawllib.fetch.eta``): the slowest queue's delays,
  at least the work over the threads.

Prints a table at a few moments (a quarter, half way, near the end).
"""

from __future__ import annotations

import argparse
import logging
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from crawllib.config import FetcherConfig, load_properties
from crawllib.fetch.fetch import Fetcher
from crawllib.fetch.progress import FetchSnapshot, eta_s
from crawllib.fetch.protocol.registry import Protocols
from crawllib.urls.zone import OPERATOR, with_zone
from crawllib.webpage import new_page

PORT = 18710
PAGE = b"<html><head><title>p</title></head><body>" + b"text " * 400 + b"</body></html>"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


def _serve(hosts: int) -> list[ThreadingHTTPServer]:
    servers = []
    for n in range(1, hosts + 1):
        server = ThreadingHTTPServer((f"127.0.0.{n}", PORT), _Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
    return servers


def _urls(sizes: list[int]) -> list[str]:
    """The hosts' URLs interleaved, as a fetch list sorted by score would be."""
    urls = []
    for page in range(max(sizes)):
        for host, size in enumerate(sizes, start=1):
            if page < size:
                urls.append(f"http://127.0.0.{host}:{PORT}/page/{page}.html")
    return urls


def measure(sizes: list[int], delay_s: float, threads: int) -> None:
    servers = _serve(len(sizes))
    props = load_properties(
        defines=[
            "http.agent.name=beamcrawl-bench",
            f"fetcher.server.delay={delay_s}",
            f"fetcher.threads.fetch={threads}",
        ]
    )
    config = FetcherConfig.from_properties(props)
    protocols = Protocols(config.http)
    seen: list[tuple[float, FetchSnapshot]] = []
    fetcher = Fetcher(
        config,
        protocols.for_url,
        None,
        on_progress=lambda s: seen.append((time.monotonic(), s)),
    )
    urls = _urls(sizes)
    pages = [with_zone(new_page(url), OPERATOR) for url in urls]
    try:
        for _ in fetcher.run(pages, total=len(pages)):
            pass
        ended = time.monotonic()  # the servers' shutdown below takes a while
    finally:
        protocols.close()
        for server in servers:
            server.shutdown()
    took = seen[-1][1].elapsed_s
    print(
        f"{len(urls)} URLs on {len(sizes)} hosts ({', '.join(map(str, sizes))}), "
        f"delay {delay_s:g} s, {threads} threads: {took:.1f} s"
    )
    print("| elapsed | done | actual left | old ETA | new ETA |")
    print("|---|---|---|---|---|")
    for fraction in (0.1, 0.25, 0.5, 0.75, 0.9):
        at, snapshot = min(
            seen, key=lambda item: abs(item[1].elapsed_s - fraction * took)
        )
        old = eta_s(snapshot.done, snapshot.total, snapshot.elapsed_s)
        print(
            f"| {snapshot.elapsed_s:.1f} s | {snapshot.done}/{snapshot.total} | "
            f"{ended - at:.1f} s | {_s(old)} | {_s(snapshot.eta_s)} |"
        )


def _s(seconds: float | None) -> str:
    return "?" if seconds is None else f"{seconds:.1f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="40,15,10,5", help="URLs per host")
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=10)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    sizes = [int(size) for size in args.sizes.split(",")]
    measure(sizes, args.delay, args.threads)


if __name__ == "__main__":
    main()
