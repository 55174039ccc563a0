"""A crawl of real pages: Python's HTML documentation served on loopback.

The pages come from Debian's ``python3-doc`` (``.ci/run`` installs it when
missing): some 530 pages of real Sphinx HTML, served as they are on disk by a
plain HTTP server on 127.0.0.5, crawled by ``beamcrawl crawl`` with external
links ignored. The WARC, index and search tests read the same crawl.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Generator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from pipelines.cli import main

DOCS_DIR = Path("/usr/share/doc/python3-dev/html")
HOST = "127.0.0.5"
ROUNDS = 4
PROPERTIES = [
    "http.agent.name=beamcrawl-test",
    "fetcher.server.delay=0",
    "fetcher.threads.fetch=8",
    "fetcher.threads.per.queue=4",
    "db.ignore.external.links=true",
]


@dataclass(frozen=True)
class DocsCrawl:
    """A finished crawl of the docs: its directory and the site it crawled."""

    crawl_dir: Path
    base: str
    """``http://127.0.0.5:PORT``"""
    docs_dir: Path = DOCS_DIR

    @property
    def crawldb(self) -> Path:
        return self.crawl_dir / "crawldb"

    @property
    def linkdb(self) -> Path:
        return self.crawl_dir / "linkdb"

    @property
    def segments(self) -> list[Path]:
        return sorted(p for p in (self.crawl_dir / "segments").iterdir()
                      if not p.name.startswith("."))  # fmt: skip


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@functools.lru_cache(maxsize=1)
def _docs_present() -> bool:
    return (DOCS_DIR / "index.html").is_file()


def serve_docs() -> Generator[str, None, None]:
    """Serve the docs directory on 127.0.0.5 until the generator is closed."""
    if not _docs_present():
        raise RuntimeError(
            f"{DOCS_DIR} is missing: apt-get install python3-doc (.ci/run does)"
        )
    handler = functools.partial(_QuietHandler, directory=str(DOCS_DIR))
    server = ThreadingHTTPServer((HOST, 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{HOST}:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()


def crawl_docs(base: str, crawl_dir: Path, rounds: int = ROUNDS) -> DocsCrawl:
    """Crawl the served docs from their index page for ``rounds`` rounds."""
    seeds = crawl_dir.parent / f"{crawl_dir.name}-seeds.txt"
    seeds.write_text(f"{base}/index.html\n")
    flags = [f"-D{p}" for p in PROPERTIES]
    code = main(["crawl", "--seeds", str(seeds), str(crawl_dir), str(rounds),
                 "--topN", "100000", *flags])  # fmt: skip
    if code != 0:
        raise RuntimeError(f"the docs crawl failed with exit code {code}")
    return DocsCrawl(crawl_dir, base)
