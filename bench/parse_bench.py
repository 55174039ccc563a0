"""Parse benchmark: beamcrawl's parse of real HTML pages vs plain lxml parsing.

Usage: python bench/parse_bench.py [--dir DIR | --synthweb N] [--limit N] [--repeat 3]
       [beam flags...]

Pages: every ``*.html`` under DIR (default: the Python docs of
``apt-get install python3-doc``, /usr/share/doc/python3-dev/html). Three
measurements on the same pages in the same run:

- the ``beamcrawl parse`` command on a segment holding them (read Avro,
  ParserJob rules, parse, outlinks normalized and filtered, signature, write
  Avro), as a user runs it: its wall time includes starting Python, Beam
  and the parse worker processes;
- the same parse without Beam (``crawllib.parse.parse.PageParser.parse_page``),
  with ``parser.timeout`` on a helper thread as in a job's own process, and
  as a parse worker process runs it (the timeout by alarm);
- a tight loop of ``lxml.html.fromstring`` + ``make_links_absolute`` +
  ``iterlinks()`` (parse and link extraction only: no decoding rules, text,
  title, filtering or signature), and the same without making the links
  absolute (the loop issue 10 quotes).
"""

from __future__ import annotations

import argparse
import glob
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import fastavro
import lxml.html

from crawllib.config import ParseConfig, load_properties
from crawllib.parse.parse import PageParser
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page, schema

DEFAULT_DIR = "/usr/share/doc/python3-dev/html"


def _pages(directory: str, limit: int) -> list[dict]:
    paths = sorted(glob.glob(os.path.join(directory, "**", "*.html"), recursive=True))[
        :limit
    ]
    if not paths:
        raise SystemExit(
            f"no HTML under {directory}: apt-get install python3-doc, or --dir"
        )
    pages = []
    for path in paths:
        with open(path, "rb") as handle:
            content = handle.read()
        url = "http://docs.example.org/" + os.path.relpath(path, directory)
        pages.append(
            new_page(
                url,
                status=int(CrawlStatus.FETCHED),
                content=content,
                contentType="text/html",
                headers={"Content-Type": "text/html; charset=utf-8"},
                markers={"_gnmrk_": "b", "_ftcmrk_": "b"},
            )
        )
    return pages


def _time_pipeline(work: str, pages: list[dict], flags: list[str]) -> float:
    segment = os.path.join(work, "segment")
    shutil.rmtree(segment, ignore_errors=True)
    os.makedirs(os.path.join(segment, "fetch"))
    with open(
        os.path.join(segment, "fetch", "part-00000-of-00001.avro"), "wb"
    ) as handle:
        fastavro.writer(  # as the fetch job writes its part: deflate level 1
            handle,
            fastavro.parse_schema(schema()),
            pages,
            codec="deflate",
            codec_compression_level=1,
            sync_interval=256 * 1024,
        )
    command = [os.path.join(os.path.dirname(sys.executable), "beamcrawl"), "parse"]
    started = time.perf_counter()
    if subprocess.run([*command, segment, *flags], check=False).returncode != 0:
        raise SystemExit("parse failed")
    return time.perf_counter() - started


def _synthweb_pages(count: int) -> list[dict]:
    """The first ``count`` pages of the crawl benchmark's web (40 hosts x 250)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from synthweb import page_html, page_url

    return [
        new_page(
            page_url(n % 40, n // 40),
            status=int(CrawlStatus.FETCHED),
            content=page_html(n % 40, n // 40, 40, 250),
            contentType="text/html",
            headers={"Content-Type": "text/html; charset=utf-8"},
            markers={"_gnmrk_": "b", "_ftcmrk_": "b"},
        )
        for n in range(min(count, 10_000))
    ]


def _time_parser(pages: list[dict], in_worker: bool = False) -> float:
    """PageParser in this thread; ``in_worker``: as a parse worker process runs it."""
    config = ParseConfig.from_properties(load_properties())
    parser = PageParser(config, use_alarm=in_worker)
    started = time.perf_counter()
    for page in pages:
        parser.parse_page(page)  # type: ignore[arg-type]
    elapsed = time.perf_counter() - started
    parser.close()
    return elapsed


def _time_lxml(pages: list[dict], absolute: bool = True) -> float:
    started = time.perf_counter()
    for page in pages:
        document = lxml.html.fromstring(page["content"], base_url=page["url"])
        if absolute:
            document.make_links_absolute(page["url"], resolve_base_href=True)
        sum(1 for _ in document.iterlinks())
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", default=DEFAULT_DIR)
    parser.add_argument("--limit", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--synthweb", type=int, metavar="N", help="the crawl benchmark's first N pages"
    )
    args, flags = parser.parse_known_args()
    logging.basicConfig(level=logging.WARNING)
    pages = (
        _synthweb_pages(args.synthweb)
        if args.synthweb
        else _pages(args.dir, args.limit)
    )
    megabytes = sum(len(p["content"]) for p in pages) / 1e6
    work = tempfile.mkdtemp(prefix="beamcrawl-bench-")
    try:
        runs: dict[str, list[float]] = {
            "beamcrawl parse job": [],
            "PageParser (no Beam)": [],
            "PageParser in a worker": [],
            "lxml parse+links": [],
            "lxml parse+iterlinks": [],
        }
        for _ in range(args.repeat):
            runs["beamcrawl parse job"].append(_time_pipeline(work, pages, flags))
            runs["PageParser (no Beam)"].append(_time_parser(pages))
            runs["PageParser in a worker"].append(_time_parser(pages, in_worker=True))
            runs["lxml parse+links"].append(_time_lxml(pages))
            runs["lxml parse+iterlinks"].append(_time_lxml(pages, absolute=False))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    source = "the crawl benchmark's web" if args.synthweb else args.dir
    print(f"pages: {len(pages):,} ({megabytes:.1f} MB) from {source}")
    medians = {name: statistics.median(times) for name, times in runs.items()}
    for name, times in runs.items():
        med = medians[name]
        print(f"{name:22} median {med:6.2f} s = {len(pages) / med:7,.0f} pages/s "
              f"runs {[round(t, 2) for t in times]}")  # fmt: skip
    ours = ("beamcrawl parse job", "PageParser (no Beam)", "PageParser in a worker")
    for loop in ("lxml parse+links", "lxml parse+iterlinks"):
        shares = ", ".join(f"{n} {medians[loop] / medians[n]:.2f}x" for n in ours)
        print(f"speed as a share of {loop}'s: {shares}")


if __name__ == "__main__":
    sys.exit(main())
