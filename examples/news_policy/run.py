"""The NewsOnly link policy in a Python pipeline: which outlinks a page keeps.

Fetches and parses the given pages with ``bc.FetchUrls`` under the policy and
prints each page's kept outlinks, then the ``Links`` counters::

    python examples/newssite.py &          # the news site on 127.0.0.1:8000
    python examples/news_policy/run.py --url http://127.0.0.1:8000/

Without ``--url`` it starts the news site itself and looks at its home page and
archive. Other ``--flags`` are Beam pipeline options.
"""

# Beam's transforms are untyped: let mypy --strict call them
# mypy: disallow-untyped-calls=False

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import beamcrawl as bc  # before Beam: Beam is then imported without notices

import apache_beam as beam
from apache_beam.metrics.metric import MetricsFilter
from apache_beam.options.pipeline_options import PipelineOptions

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # policy.py, newssite.py
from policy import NewsOnly  # noqa: E402

import newssite  # noqa: E402

PROPERTIES = {
    "http.agent.name": "newsbot",
    "fetcher.server.delay": "0.05",
    # Nutch's default URL filter drops every URL with a query; this one keeps them
    "urlfilter.regex.file": str(HERE / "regex-urlfilter.txt"),
}


def outlinks(page: bc.WebPage) -> str:
    """``URL`` then its kept outlinks, sorted, one per indented line."""
    links = sorted(page["outlinks"] or {})
    return "\n".join([page["url"], *(f"  {link}" for link in links)]) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Fetch, parse, print the outlinks and the ``Links`` counters."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--url", dest="urls", action="append", default=[], help="a page to fetch"
    )
    args, beam_args = parser.parse_known_args(argv)
    site = None
    urls = args.urls
    if not urls:
        site, base = newssite.start("127.0.0.1")
        urls = [f"{base}/", f"{base}{newssite.ARCHIVE}"]
    try:
        config = bc.CrawlConfig.from_dict(PROPERTIES).with_link_policy(NewsOnly())
        out = os.path.join(tempfile.mkdtemp(prefix="news-policy-"), "outlinks")
        with beam.Pipeline(options=PipelineOptions(beam_args)) as pipeline:
            _ = (
                pipeline
                | "Urls" >> beam.Create(urls)
                | "FetchUrls" >> bc.FetchUrls(config)
                | "Outlinks" >> beam.Map(outlinks)
                | "Write"
                >> beam.io.WriteToText(out, num_shards=1, shard_name_template="")
            )
        with open(out, encoding="utf-8") as lines:
            blocks = [block.strip() for block in lines.read().split("\n\n")]
        print("\n".join(sorted(block for block in blocks if block)))
        links = pipeline.result.metrics().query(MetricsFilter().with_namespace("Links"))
        for counter in sorted(links["counters"], key=lambda c: c.key.metric.name):
            print(f"Links/{counter.key.metric.name}={counter.committed}")
    finally:
        if site is not None:
            site.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
