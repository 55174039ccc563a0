"""A news search engine on beamcrawl: crawl a news site, index it, answer a query.

The search engine of the seed article, whose spider keeps internal links only
and removes query strings, as a Beam program on the beamcrawl library:

1. inject the start page into a new crawldb (``bc.Inject``);
2. run ``--rounds`` rounds of generate, fetch, parse and updatedb
   (``bc.CrawlRound``), each reading the current crawldb (``bc.ReadCrawlDb``)
   and writing a new version (``bc.new_crawldb_version``) and a segment;
3. index the parsed pages with the index command's transforms into an
   embedded search index (tantivy);
4. print the best hits for ``--query``.

Without ``--site`` it serves the local news site (examples/newssite.py) itself.
Other ``--flags`` are Beam pipeline options (``--runner`` ...).
"""

# Beam's transforms are untyped: let mypy --strict call them
# mypy: disallow-untyped-calls=False

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import beamcrawl as bc  # before Beam: Beam is then imported without notices

import apache_beam as beam
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.options.pipeline_options import PipelineOptions
from apache_beam.runners.runner import PipelineResult

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # newssite.py
import newssite


class InternalLinksOnly(bc.LinkPolicy):
    """The seed's spider: follow links within the site, without query strings."""

    remove_query = True

    def external(self, link: bc.Link) -> bool:
        return False

    def other(self, link: bc.Link) -> bool:
        return False


class Scanned(bc.PageProcessor):
    """The seed's ``completePage``: one line per page of the round, and its error."""

    def complete_page(self, page: bc.WebPage, error: str | None) -> str:
        return f"{page['url']}\t{error or 'ok'}"


def inject(
    crawldb: str, start_url: str, config: bc.CrawlConfig, beam_args: list[str]
) -> None:
    """A new crawldb holding the start page."""
    with (
        bc.new_crawldb_version(crawldb) as version,
        beam.Pipeline(options=PipelineOptions(beam_args)) as pipeline,
    ):
        _ = (
            pipeline
            | "Seeds" >> beam.Create([start_url])
            | "Inject" >> bc.Inject(config)
            | "WriteCrawlDb" >> bc.WriteWebPages(version)
        )


def crawl_round(
    work_dir: str, number: int, config: bc.CrawlConfig, beam_args: list[str]
) -> dict[str, int]:
    """One round into a new crawldb version and segment; its fetch counts."""
    crawldb = os.path.join(work_dir, "crawldb")
    segment = new_segment(os.path.join(work_dir, "segments"))
    with (
        bc.new_crawldb_version(crawldb) as version,
        beam.Pipeline(options=PipelineOptions(beam_args)) as pipeline,
    ):
        result = (
            pipeline
            | "ReadCrawlDb" >> bc.ReadCrawlDb(crawldb)
            | "CrawlRound" >> bc.CrawlRound(config, processor=Scanned())
        )
        _ = result.crawldb | "WriteCrawlDb" >> bc.WriteWebPages(version)
        _ = result.fetched | "WriteFetch" >> bc.WriteWebPages(f"{segment}/fetch")
        _ = result.parsed | "WriteParse" >> bc.WriteWebPages(f"{segment}/parse")
        assert result.processed is not None  # CrawlRound was given a processor
        _ = result.processed | "WriteScanned" >> beam.io.WriteToText(
            os.path.join(work_dir, "scanned", f"round-{number}"),
            file_name_suffix=".txt",
        )
    return counters(pipeline.result, "FetcherStatus")


def new_segment(segments_dir: str) -> str:
    """A new segment directory named by the time, ``yyyyMMddHHmmss`` as Nutch's."""
    seconds = int(time.time())
    while True:
        name = time.strftime("%Y%m%d%H%M%S", time.localtime(seconds))
        path = os.path.join(segments_dir, name)
        if not os.path.exists(path):
            return path
        seconds += 1


def index(work_dir: str, config: bc.CrawlConfig, beam_args: list[str]) -> int:
    """Index every segment's parsed pages into ``work_dir/index``; its size."""
    segments = sorted(Path(work_dir, "segments").iterdir())
    staging = os.path.join(work_dir, "index-actions")
    with beam.Pipeline(options=PipelineOptions(beam_args)) as pipeline:
        crawldb = pipeline | "ReadCrawlDb" >> bc.ReadCrawlDb(
            os.path.join(work_dir, "crawldb")
        )
        parsed = [
            pipeline | f"ReadParse{n}" >> bc.ReadSegment(str(segment), part="parse")
            for n, segment in enumerate(segments)
        ]
        _ = (
            (crawldb, parsed | "AllParsed" >> beam.Flatten())
            | "IndexPages" >> bc.IndexPages(config)
            | "WriteActions" >> bc.WriteIndexFiles(staging, "tantivy")
        )
    index_dir = os.path.join(work_dir, "index")
    added, _deleted = bc.apply_index_actions(staging, index_dir)
    return added


def counters(result: PipelineResult, namespace: str) -> dict[str, int]:
    """The job's counters of ``namespace``, by name."""
    found = result.metrics().query(MetricsFilter().with_namespace(namespace))
    return {c.key.metric.name: c.committed for c in found["counters"] if c.committed}


def search(work_dir: str, query: str, limit: int) -> Iterator[str]:
    """``rank. URL  title`` of the best hits."""
    for hit in bc.search_index(os.path.join(work_dir, "index"), query, limit):
        yield f"{hit.rank}. {hit.url}  {hit.title}"


def main(argv: Sequence[str] | None = None) -> int:
    """Crawl, index, search; print a line per round and the hits."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--site", help="the start URL (default: serve the news site)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--query", default="lighthouse keepers")
    parser.add_argument("--limit", type=int, default=5, help="hits to print")
    parser.add_argument("--dir", help="a new directory for the crawl (default: temp)")
    parser.add_argument("--delay", default="0.1", help="fetcher.server.delay, s")
    args, beam_args = parser.parse_known_args(argv)
    work_dir = args.dir or tempfile.mkdtemp(prefix="news-search-")
    if os.path.exists(os.path.join(work_dir, "crawldb")):
        print(f"news_search: {work_dir} holds a crawl already", file=sys.stderr)
        return 2
    site = None
    start_url = args.site
    if start_url is None:
        site, base = newssite.start("127.0.0.1")
        start_url = f"{base}/"
    config = bc.CrawlConfig.from_dict(
        {"http.agent.name": "newsbot", "fetcher.server.delay": args.delay},
        link_policy=InternalLinksOnly(),
    )
    try:
        inject(os.path.join(work_dir, "crawldb"), start_url, config, beam_args)
        for number in range(1, args.rounds + 1):
            fetched = crawl_round(work_dir, number, config, beam_args)
            statuses = ", ".join(f"{k}={v}" for k, v in sorted(fetched.items()))
            print(f"round {number}: fetched {statuses or 'nothing'}", file=sys.stderr)
            if not fetched:
                break
        documents = index(work_dir, config, beam_args)
    finally:
        if site is not None:
            site.stop()
    print(f"indexed {documents} pages in {work_dir}/index", file=sys.stderr)
    for line in search(work_dir, args.query, args.limit):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
