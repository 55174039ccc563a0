"""Fetch benchmark: ``beamcrawl fetch`` of a multi-host site vs plain requests GETs.

Usage: python bench/fetch_bench.py [--hosts 40] [--pages 250] [--threads 64]
       [--repeat 3] [beam flags...]

A site of ``hosts`` x ``pages`` small HTML pages is served on 127.0.0.1..N by
a separate process (so the servers do not share the fetcher's GIL). Both
sides fetch the same URLs with the same number of threads, in the same run:

- beamcrawl: ``beamcrawl fetch`` of one segment (one fetch list, so one
  fetcher), fetcher.server.delay 0, one connection per host, robots.txt
  checked (404 here), results written as Avro;
- the same fetcher without Beam (``crawllib.fetch.fetch.Fetcher``);
- a tight loop of ``requests.Session.get`` calls, one session per thread,
  no politeness, no robots.txt, nothing written.

Prints medians (pages/s) and the ratios.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import logging
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

from crawllib.config import FetcherConfig, load_properties
from crawllib.fetch.fetch import Fetcher
from crawllib.fetch.protocol.registry import Protocols
from crawllib.fetch.protocol.robots import RobotsCache
from crawllib.urls.zone import OPERATOR, with_zone
from crawllib.webpage import new_page
from pipelines import fetch, generate, inject

PAGE = (
    "<html><head><title>p</title></head><body>" + "text " * 400 + "</body></html>"
).encode()
PORT = 18700


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        # headers and body go out in two writes: without this, Nagle plus the
        # client's delayed ACK add 40 ms to every response
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            self.send_response(404)
            body = b"none"
        else:
            self.send_response(200)
            body = PAGE
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(hosts: int) -> None:
    """Run ``hosts`` servers on 127.0.0.1..N:PORT until killed."""
    for n in range(1, hosts + 1):
        server = ThreadingHTTPServer((f"127.0.0.{n}", PORT), _Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print("ready", flush=True)
    threading.Event().wait()


def _urls(hosts: int, pages: int) -> list[str]:
    return [
        f"http://127.0.0.{h}:{PORT}/page/{p}.html"
        for p in range(pages)
        for h in range(1, hosts + 1)
    ]


def _defines(threads: int) -> list[str]:
    return [
        "http.agent.name=beamcrawl-bench",
        "fetcher.server.delay=0",
        f"fetcher.threads.fetch={threads}",
        "fetcher.threads.per.queue=1",
    ]


def _time_beam(work: str, urls: list[str], threads: int, flags: list[str]) -> float:
    seeds = os.path.join(work, "seeds.txt")
    with open(seeds, "w") as handle:
        handle.write("\n".join(urls) + "\n")
    crawldb, segments = os.path.join(work, "crawldb"), os.path.join(work, "segments")
    shutil.rmtree(crawldb, ignore_errors=True)
    shutil.rmtree(segments, ignore_errors=True)
    inject.run([crawldb, seeds])
    generate.run([crawldb, segments])
    (segment,) = os.listdir(segments)
    args = [os.path.join(segments, segment), *[f"-D{d}" for d in _defines(threads)]]
    started = time.perf_counter()
    if fetch.run([*args, *flags]) != 0:
        raise SystemExit("fetch failed")
    return time.perf_counter() - started


def _time_fetcher(urls: list[str], threads: int) -> float:
    config = FetcherConfig.from_properties(load_properties(defines=_defines(threads)))
    protocols = Protocols(config.http)
    fetcher = Fetcher(
        config, protocols.for_url, RobotsCache(config.robots, protocols.for_url)
    )
    started = time.perf_counter()
    pages = (with_zone(new_page(u), OPERATOR) for u in urls)  # seeds: loopback ok
    fetched = sum(1 for _ in fetcher.run(pages))
    elapsed = time.perf_counter() - started
    protocols.close()
    if fetched != len(urls):
        raise SystemExit(f"fetcher returned {fetched} of {len(urls)}")
    return elapsed


def _time_requests(urls: list[str], threads: int) -> float:
    local = threading.local()

    def get(url: str) -> int:
        if not hasattr(local, "session"):
            local.session = requests.Session()
        return len(local.session.get(url, timeout=10).content)

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        sizes = list(pool.map(get, urls))
    elapsed = time.perf_counter() - started
    if len(sizes) != len(urls):
        raise SystemExit("requests loop lost pages")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hosts", type=int, default=40)
    parser.add_argument("--pages", type=int, default=250)
    parser.add_argument("--threads", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args, flags = parser.parse_known_args()
    if args.serve:
        serve(args.serve)
        return
    logging.basicConfig(level=logging.WARNING)
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(args.hosts)],
        stdout=subprocess.PIPE,
        text=True,
    )
    work = tempfile.mkdtemp(prefix="beamcrawl-bench-")
    try:
        assert server.stdout is not None
        server.stdout.readline()
        urls = _urls(args.hosts, args.pages)
        beam_s, fetcher_s, plain_s = [], [], []
        for _ in range(args.repeat):
            beam_s.append(_time_beam(work, urls, args.threads, flags))
            fetcher_s.append(_time_fetcher(urls, args.threads))
            plain_s.append(_time_requests(urls, args.threads))
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)
    pages = len(urls)
    print(
        f"site: {args.hosts} hosts x {args.pages} pages = {pages:,} pages, "
        f"{args.threads} threads, delay 0, 1 connection per host"
    )
    results = [
        ("beamcrawl fetch job", beam_s),
        ("Fetcher (no Beam)", fetcher_s),
        ("plain requests loop", plain_s),
    ]
    medians = [statistics.median(runs) for _, runs in results]
    for (name, runs), med in zip(results, medians, strict=True):
        print(
            f"{name:22} median {med:6.2f} s = {pages / med:7,.0f} pages/s  runs {runs}"
        )
    beam, alone, plain = medians
    print(f"time ratio beamcrawl/requests: {beam / plain:.2f}x", end=" ")
    print(f"(Fetcher alone {alone / plain:.2f}x)")


if __name__ == "__main__":
    main()
