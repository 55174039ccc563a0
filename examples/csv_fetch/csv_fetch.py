"""Fetch the URLs of a CSV file politely and write a JSON line per page.

A CSV file with a header row ``url,label`` (more columns are ignored) gives
the URLs; each label travels with its URL as page metadata. ``bc.FetchUrls``
fetches and parses them (robots.txt, ``fetcher.server.delay`` per host, each
URL once); a DoFn of ours turns every page into ``{"url", "label", "title",
"outlinks", "error"}``, written as JSON lines to ``OUT.jsonl``::

    python examples/newssite.py &      # the news site on 127.0.0.1:8000 and :8001
    python examples/csv_fetch/csv_fetch.py examples/csv_fetch/urls.csv --out pages

``-D name=value`` sets a Nutch property; other ``--flags`` are Beam pipeline
options (``--runner FlinkRunner`` ...).
"""

# Beam's transforms are untyped: let mypy --strict call them
# mypy: disallow-untyped-calls=False

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Iterator, Sequence

import beamcrawl as bc  # before Beam: Beam is then imported without notices

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

DEFAULTS = ("http.agent.name=csvbot", "fetcher.server.delay=0.1")


def read_row(line: str) -> Iterator[tuple[str, dict[str, str | bytes]]]:
    """A CSV line to ``(url, {"label": label})``; nothing for a blank line."""
    row = next(csv.reader([line]), [])
    if row and row[0].strip():
        label = row[1].strip() if len(row) > 1 else ""
        yield row[0].strip(), {"label": label}


class Summarize(beam.DoFn):
    """A page's URL, label, title, number of outlinks and error (None if fine)."""

    def process(self, page: bc.WebPage) -> Iterator[dict[str, object]]:
        label = (page["metadata"] or {}).get("label", b"")
        yield {
            "url": page["url"],
            "label": label.decode("utf-8") if label else "",
            "title": page["title"],
            "outlinks": len(page["outlinks"] or {}),
            "error": bc.page_error(page),
        }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the pipeline; the output file is ``OUT.jsonl``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "csv_file", metavar="CSV", help="url,label rows, a header first"
    )
    parser.add_argument("--out", default="pages", help="output prefix (default: pages)")
    parser.add_argument(
        "-D",
        dest="defines",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a Nutch property (repeatable)",
    )
    args, beam_args = parser.parse_known_args(argv)
    config = bc.CrawlConfig.load(defines=[*DEFAULTS, *args.defines])
    with beam.Pipeline(options=PipelineOptions(beam_args)) as pipeline:
        _ = (
            pipeline
            | "ReadCsv" >> beam.io.ReadFromText(args.csv_file, skip_header_lines=1)
            | "ParseRows" >> beam.FlatMap(read_row)
            | "FetchUrls" >> bc.FetchUrls(config)
            | "Summarize" >> beam.ParDo(Summarize())
            | "ToJson" >> beam.Map(json.dumps, sort_keys=True)
            | "WriteJson"
            >> beam.io.WriteToText(
                args.out,
                file_name_suffix=".jsonl",
                num_shards=1,
                shard_name_template="",
            )
        )
    print(f"csv_fetch: wrote {args.out}.jsonl", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
