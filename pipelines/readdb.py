"""``beamcrawl readdb CRAWLDB (--stats [--json] | --dump OUT_DIR | --url URL | ...)``.

Nutch's CrawlDbReader as Beam transforms: :class:`CrawlDbStats` computes the
statistics (and the URL states, :mod:`pipelines.transforms.urlstates`), ``--dump``
writes every record as a line of JSON, ``--url`` prints one record. Beyond
Nutch, ``--path`` prints the directory of the current version (where other
tools read the records), ``--verify`` reads every part file and says which
are damaged, and ``--salvage OUT_CRAWLDB`` copies the readable records of a
damaged crawldb into a new one (:mod:`pipelines.storage.damaged`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import GoogleCloudOptions
from apache_beam.pvalue import AsSingleton, PCollection
from apache_beam.transforms.stats import ApproximateQuantiles

from crawllib.config import CrawlConfig, StatsConfig, step_config
from crawllib.db import readdb as dbstats
from crawllib.db.pagetext import render_page
from crawllib.db.readdb import DbStats
from crawllib.errors import ConfigError, CrawlDbMissingError
from crawllib.terminal import printable
from crawllib.urls.normalize import UrlNormalizers
from crawllib.webpage import WebPage, to_json_line
from pipelines.cli.readdb import MODES as MODES
from pipelines.cli.readdb import ReadDbRequest as ReadDbRequest
from pipelines.cli.readdb import parser, request
from pipelines.runtime.options import (
    Job,
    clock_ms,
    parse_job_args,
)
from pipelines.storage import damaged, fs, io, paths, versions

_QUANTILE_STEPS = 1001  # 0.1% resolution for db.stats.score.quantiles


class CrawlDbStats(beam.PTransform[PCollection[WebPage], PCollection[dict[str, Any]]]):
    """Crawldb statistics: one dict with ``json`` (figures) and ``text`` (report).

    The figures are those of Nutch's ``readdb -stats`` (see ``dbstats``) and
    the URL states as at ``now_ms`` (default: ``generate.curTime`` if set,
    else when the transform is built); the score quantiles are approximate,
    within 0.1% of rank.
    """

    def __init__(
        self,
        crawldb: str,
        config: StatsConfig | CrawlConfig,
        now_ms: int | None = None,
    ) -> None:
        super().__init__()
        self._crawldb = crawldb
        self._config = step_config(config, StatsConfig)
        self._now_ms = clock_ms(self._config.fixed_time_ms, now_ms)

    def expand(self, pages: PCollection[WebPage]) -> PCollection[dict[str, Any]]:
        quantiles = (
            pages
            | "Scores" >> beam.Map(lambda page: page["score"])
            | "DropNaN" >> beam.Filter(lambda score: score == score)
            | "Quantiles" >> ApproximateQuantiles.Globally(_QUANTILE_STEPS)
        )
        return (
            pages
            | "Count"
            >> beam.CombineGlobally(_DbStatsFn(self._now_ms, self._config.gen_delay_ms))
            | "Report"
            >> beam.Map(
                _report,
                crawldb=self._crawldb,
                wanted=self._config.quantiles,
                steps=AsSingleton(quantiles),
            )
        )


class _DbStatsFn(beam.CombineFn):
    def __init__(self, now_ms: int, gen_delay_ms: int) -> None:
        self._now_ms = now_ms
        self._gen_delay_ms = gen_delay_ms

    def create_accumulator(self) -> DbStats:
        return DbStats()

    def add_input(self, stats: DbStats, page: WebPage) -> DbStats:
        stats.add(page, self._now_ms, self._gen_delay_ms)
        return stats

    def merge_accumulators(self, accumulators: Iterable[DbStats]) -> DbStats:
        return dbstats.merge_all(accumulators)

    def extract_output(self, stats: DbStats) -> DbStats:
        return stats


def _report(
    stats: DbStats, crawldb: str, wanted: Sequence[float], steps: list[float]
) -> dict[str, Any]:
    quantiles = {}
    if steps:
        last = len(steps) - 1
        quantiles = {q: steps[round(q * last)] for q in wanted}
    return {
        "json": dbstats.to_json(stats, quantiles),
        "text": dbstats.render_text(crawldb, stats, quantiles),
    }


def run(argv: Sequence[str] | None = None) -> int:
    """Run ``readdb``; prints to stdout. ``--url`` exits 1 when the URL is absent."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: ReadDbRequest, job: Job) -> int:
    """Run a request the command line built and checked (``pipelines.cli``)."""
    return execute(request, job)


def execute(request: ReadDbRequest, job: Job) -> int:
    """Read the crawldb as the request says; prints to stdout; the exit code."""
    crawldb, mode = request.crawldb, request.mode
    if mode in ("verify", "salvage"):
        if not fs.dir_exists(crawldb):
            raise CrawlDbMissingError(f"no crawldb at {crawldb}")
        if mode == "verify":
            return damaged.verify(crawldb)
        return damaged.salvage(crawldb, _target(request))
    if mode == "rollback":
        with versions.locked(crawldb, force=request.force):
            current = versions.roll_back(crawldb)
        print(
            f"readdb: {printable(current)} is the current version again",
            file=sys.stderr,
        )
        return 0
    pattern = versions.require(crawldb)
    if mode == "path":
        print(printable(versions.current_version(crawldb) or ""))
        return 0
    if mode == "stats":
        return _print_stats(request, job, pattern)
    if mode == "dump":
        return _dump(job, pattern, _target(request))
    return _print_url(request, job, pattern)


def _target(request: ReadDbRequest) -> str:
    if request.target is None:
        raise ConfigError(f"beamcrawl readdb: --{request.mode} needs a value")
    return request.target


def _print_stats(request: ReadDbRequest, job: Job, pattern: str) -> int:
    config = request.config.stats
    with fs.scratch(_temp_location(job)) as scratch:
        with job.pipeline() as pipeline:
            _ = (
                pipeline
                | "ReadCrawlDb" >> io.ReadWebPages(pattern)
                | "Stats" >> CrawlDbStats(request.crawldb, config)
                | "ToJson" >> beam.Map(json.dumps)
                | "WriteReport" >> io.WriteText(FileSystems.join(scratch, "stats"))
            )
        report = json.loads(fs.read_lines(paths.under(scratch, "stats*"))[0])
    if request.as_json:
        print(json.dumps(report["json"], indent=2))  # ASCII: controls escaped
    else:
        print(printable(report["text"], multiline=True))
    return 0


def _dump(job: Job, pattern: str, out_dir: str) -> int:
    if FileSystems.exists(out_dir) and paths.match(paths.under(out_dir, "*"), limit=1):
        raise ConfigError(f"beamcrawl readdb: output directory {out_dir} is not empty")
    with fs.new_output(out_dir), job.pipeline() as pipeline:
        _ = (
            pipeline
            | "ReadCrawlDb" >> io.ReadWebPages(pattern)
            | "ToJson" >> beam.Map(to_json_line)
            | "WriteDump"
            >> io.WriteText(
                FileSystems.join(out_dir, "part"),
                suffix=".jsonl",
                shard_name_template="-SSSSS-of-NNNNN",
            )
        )
    print(f"CrawlDb dump: records written to {printable(out_dir)}", file=sys.stderr)
    return 0


def _print_url(request: ReadDbRequest, job: Job, pattern: str) -> int:
    url = _target(request)
    wanted = {url}
    normalized = UrlNormalizers(request.config.urls).normalize(url)
    if normalized:
        wanted.add(normalized)
    with fs.scratch(_temp_location(job)) as scratch:
        with job.pipeline() as pipeline:
            _ = (
                pipeline
                | "ReadCrawlDb" >> io.ReadWebPages(pattern)
                | "FindUrl"
                >> beam.Filter(lambda page, urls: page["url"] in urls, wanted)
                | "Render" >> beam.Map(render_page)
                | "WritePage" >> io.WriteText(FileSystems.join(scratch, "page"))
            )
        lines = fs.read_lines(paths.under(scratch, "page*"))
    if not lines:
        print(f"not found: {printable(url)}")
        return 1
    print("\n".join(lines))
    return 0


def _temp_location(job: Job) -> str | None:
    temp: str | None = job.pipeline_options().view_as(GoogleCloudOptions).temp_location
    return temp


if __name__ == "__main__":  # as `beamcrawl readdb`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["readdb", *sys.argv[1:]]))
