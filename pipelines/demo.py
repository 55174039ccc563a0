"""``beamcrawl demo [--dir DIR] [--rounds 3]``: crawl a bundled sample site on loopback.

The sample site (package data, ``pipelines/demosite``) is two hosts: the
"society" on 127.0.0.1 and its "blog" on 127.0.0.2, with robots.txt rules, a
permanent redirect, a gone page, a meta refresh, a GBK-encoded page and a
duplicate. The command serves them itself, crawls them for three rounds
into DIR (default: a new temporary directory) and prints the crawldb
statistics, like ``readdb --stats``, then a report (:func:`report`): what
was crawled (URL, Nutch's db status, title), where the files are, and the
commands to try next. Beam flags pass through; Dataflow is refused, as its
workers cannot reach this machine's loopback.
"""

from __future__ import annotations

import os
import pathlib
import socket
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TextIO, cast

import fastavro
from apache_beam.io.filesystems import FileSystems
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from crawllib.status import CrawlStatus, crawl_status_label
from crawllib.terminal import printable
from crawllib.webpage import WebPage
from pipelines import crawl, readdb
from pipelines.cli.demo import DEMO_PROPERTIES as DEMO_PROPERTIES
from pipelines.cli.demo import crawl_request, parser, request
from pipelines.runtime.options import Job, JobArgs, parse_job_args
from pipelines.runtime.summary import aligned, next_steps, round_lines
from pipelines.storage import fs, partfiles, versions
from pipelines.storage.rounds import read_rounds

REDIRECTS = {"/old-news.html": "/about.html"}
"""Paths that answer 301 (the others are files, or 404)."""


@dataclass
class DemoSite:
    """The sample site's two servers; ``{{MAIN}}``/``{{BLOG}}`` become their URLs."""

    main_host: str = "127.0.0.1"
    blog_host: str = "127.0.0.2"
    ports: tuple[int, int] = (0, 0)
    """Main's and blog's ports; 0 picks free ones."""
    servers: dict[str, ThreadingHTTPServer] = field(default_factory=dict)

    def start(self) -> DemoSite:
        """Serve both hosts on their ports, in daemon threads."""
        hosts = (("main", self.main_host), ("blog", self.blog_host))
        for (name, host), port in zip(hosts, self.ports, strict=True):
            server = ThreadingHTTPServer((host, port), _Handler)
            server.daemon_threads = True
            server.site = self  # type: ignore[attr-defined]
            server.root = name  # type: ignore[attr-defined]
            self.servers[name] = server
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def url(self, name: str) -> str:
        """``http://host:port`` of ``main`` or ``blog``."""
        address = self.servers[name].server_address
        host = address[0] if isinstance(address[0], str) else address[0].decode()
        return f"http://{host}:{address[1]}"

    def stop(self) -> None:
        """Shut both servers down."""
        for server in self.servers.values():
            server.shutdown()
            server.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        site: DemoSite = self.server.site  # type: ignore[attr-defined]
        root: str = self.server.root  # type: ignore[attr-defined]
        path = self.path.split("?", 1)[0]
        if root == "main" and path in REDIRECTS:
            self._reply(301, b"moved", "text/plain", {"Location": REDIRECTS[path]})
            return
        body = _file(root, path)
        if body is None:
            self._reply(404, b"<html><body>Not found</body></html>", "text/html")
            return
        body = body.replace(b"{{MAIN}}", site.url("main").encode())
        body = body.replace(b"{{BLOG}}", site.url("blog").encode())
        content_type = "text/plain" if path.endswith(".txt") else "text/html"
        self._reply(200, body, content_type)

    def _reply(
        self,
        code: int,
        body: bytes,
        content_type: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


SITE_DIR = pathlib.Path(__file__).with_name("demosite")


def _file(root: str, path: str) -> bytes | None:
    if ".." in path:
        return None
    if path.endswith("/"):
        path += "index.html"
    resource = SITE_DIR / root / path.lstrip("/")
    return resource.read_bytes() if resource.is_file() else None


def run(argv: Sequence[str] | None = None) -> int:
    """Serve the sample site, crawl it, print the crawldb statistics."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(cli: JobArgs, job: Job) -> int:
    """The checked command line (``pipelines.cli``): serve, crawl, report.

    The demo's request is its command line (``cli``: ``--dir``, ``--rounds``,
    the properties); ``job`` runs the pipelines.
    """
    crawl_dir = cli.args.dir or tempfile.mkdtemp(prefix="beamcrawl-demo-")
    os.makedirs(crawl_dir, exist_ok=True)
    site = DemoSite().start()
    try:
        seeds = f"{crawl_dir}/seeds.txt"
        with open(seeds, "w", encoding="utf-8") as handle:
            handle.write(site.url("main") + "/\n")
        print(
            f"demo: serving {site.url('main')} and {site.url('blog')}", file=sys.stderr
        )
        request = crawl_request(cli, crawl_dir, seeds)
        crawl.execute(request, job, summary=False)
    finally:
        site.stop()
    print(f"demo: crawl directory {printable(crawl_dir)}", file=sys.stderr)
    stats = readdb.ReadDbRequest(f"{crawl_dir}/crawldb", "stats", config=request.config)
    code = readdb.execute(stats, job.step("readdb"))
    report(crawl_dir, sys.stdout)
    return code


SEARCH_WORD = "lighthouse"
"""A word of the sample site's pages, for the search command the report shows."""

SAFETY = (
    "",
    "Crawling safely: a page on the web never leads beamcrawl to an internal",
    "address or a local file; file: URLs are off unless protocol-file is in",
    "plugin.includes (docs/safety.md, 'Local files', says how to turn them on).",
)


def report(crawl_dir: str, out: TextIO) -> None:
    """Print the rounds, what was crawled, where the files are, the next commands.

    A rich table on a terminal; elsewhere plain aligned columns, no escapes.
    URLs and titles are the pages' own: control characters in them are
    escaped (:func:`~crawllib.terminal.printable`), and rich reads no
    markup in them.
    """
    rows = crawled(FileSystems.join(crawl_dir, "crawldb"))
    console = Console(file=out, highlight=False)
    print("", *round_lines(read_rounds(crawl_dir)), sep="\n", file=out)
    print(f"\nCrawled {len(rows)} URLs:", file=out)
    if console.is_terminal:
        table = Table(box=box.SIMPLE_HEAD)
        table.add_column("URL", overflow="fold")  # a narrow terminal folds, not cuts
        table.add_column("Status", no_wrap=True)
        table.add_column("Title")
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        console.print(table)
    else:
        print(aligned([("URL", "STATUS", "TITLE"), *rows]), file=out)
    print("", *next_steps(crawl_dir, SEARCH_WORD), *SAFETY, sep="\n", file=out)


def crawled(crawldb: str) -> list[tuple[str, str, str]]:
    """(URL, db status name, title) of each crawldb record, by URL."""
    rows = []
    for path, _ in partfiles.part_paths(versions.require(crawldb)):
        with fs.open_raw(path) as stream:
            for record in fastavro.reader(stream):
                page = cast(WebPage, record)
                status = _db_status(page["status"])
                title = printable(page["title"] or "")
                rows.append((printable(page["url"]), status, title))
    return sorted(rows)


def _db_status(code: int) -> str:
    """Nutch 1.x's name of a status (``db_fetched``); readdb's for unknown codes."""
    try:
        return CrawlStatus(code).db_label
    except ValueError:
        return crawl_status_label(code)


if __name__ == "__main__":  # as `beamcrawl demo`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["demo", *sys.argv[1:]]))
