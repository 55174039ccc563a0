"""``beamcrawl inject CRAWLDB SEEDS``: seed URLs into a crawldb (Nutch's Injector).

Seed lines are parsed, normalized (scope ``inject``), filtered and reduced to
one page per URL (:class:`Inject`), then merged with the crawldb's current
records if it has any and installed as its new version under the crawldb
lock. The command merges bucket by bucket
(:class:`~pipelines.transforms.bucketmerge.MergeIntoBuckets`, the new
version bucketed); :class:`MergeIntoCrawlDb` is the same merge for any
PCollection of crawldb pages.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterable, Iterator, Sequence

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection, TaggedOutput
from apache_beam.runners.runner import PipelineResult

from crawllib.config import CrawlConfig, InjectConfig, step_config
from crawllib.db import inject as seeds
from crawllib.db import seedlines
from crawllib.db.buckets import Bucketing
from crawllib.db.seedlines import RejectedLine, SeedLine
from crawllib.errors import SeedError
from crawllib.logonce import warn_first
from crawllib.urls.cleaner import Rejection, UrlCleaner
from crawllib.webpage import WebPage, latest
from pipelines.cli.inject import InjectRequest as InjectRequest
from pipelines.cli.inject import parser, request
from pipelines.runtime.options import (
    Job,
    clock_ms,
    counters,
    describe,
    now_ms,
    parse_job_args,
)
from pipelines.runtime.tagged import Tagged
from pipelines.storage import bucketfiles, io, paths, versions
from pipelines.transforms.bucketmerge import MergeIntoBuckets
from pipelines.transforms.seedfiles import (
    REJECTED,
    ReadSeedLines,
    ReportRejected,
)

_LOG = logging.getLogger(__name__)
NAMESPACE = "injector"


class Inject(beam.PTransform[PCollection[str | SeedLine], PCollection[WebPage]]):
    """Seed lines (strings, or :class:`SeedLine` s) to UNFETCHED WebPages, one per URL.

    Several lines for one URL: Nutch keeps whichever its reducer meets last,
    which varies from run to run; beamcrawl keeps the lexicographically
    smallest line, so every runner writes the same crawldb.

    Counters, namespace ``injector``: ``urls_injected`` (lines accepted),
    ``urls_injected_unique`` (distinct URLs out), ``urls_rejected``
    (malformed URL or line), ``urls_filtered`` (dropped by the URL filters),
    ``fields_invalid`` (a bad ``nutch.score`` or ``nutch.fetchInterval``
    value, ignored as Nutch does). The first five rejected lines are logged
    in full (with file and line for a :class:`SeedLine`), then how many more.
    """

    def __init__(
        self, config: InjectConfig | CrawlConfig, now_ms: int | None = None
    ) -> None:
        super().__init__()
        self._config = step_config(config, InjectConfig)
        self._now_ms = clock_ms(self._config.fixed_time_ms, now_ms)

    def expand(self, lines: PCollection[str | SeedLine]) -> PCollection[WebPage]:
        parsed = lines | "ParseSeeds" >> beam.ParDo(
            _ParseSeedFn(self._config)
        ).with_outputs(REJECTED, main="seeds")
        _ = parsed[REJECTED] | "ReportRejected" >> ReportRejected()
        return (
            parsed.seeds
            | "OnePerUrl" >> beam.CombinePerKey(beam.CombineFn.from_callable(min))
            | "ToWebPage" >> beam.ParDo(_ToPageFn(self._config, self._now_ms))
        )


class MergeIntoCrawlDb(
    beam.PTransform[
        tuple[PCollection[WebPage], PCollection[WebPage]], PCollection[WebPage]
    ]
):
    """Merge injected pages into the crawldb's pages: ``(injected, current)``.

    Follows 1.x ``InjectMapper`` / ``InjectReducer`` (``seeds.merge_injected``).
    Counters, namespace ``injector``: ``urls_merged`` (injected URLs
    already in the crawldb),
    ``urls_purged_404`` (GONE records dropped with ``db.update.purge.404``)
    and ``urls_purged_filter`` (records dropped by the filters with
    ``crawldb.inject.filter.normalize.all``).
    """

    def __init__(self, config: InjectConfig | CrawlConfig) -> None:
        super().__init__()
        self._config = step_config(config, InjectConfig)

    def expand(
        self, inputs: tuple[PCollection[WebPage], PCollection[WebPage]]
    ) -> PCollection[WebPage]:
        injected, current = inputs
        return (
            {
                "injected": injected | "KeyInjected" >> beam.Map(_keyed),
                "current": current
                | "KeyCurrent" >> beam.ParDo(_KeyCurrentFn(self._config)),
            }
            | "JoinByUrl" >> beam.CoGroupByKey()
            | "Merge" >> beam.ParDo(_MergeFn(self._config))
        )


class _ParseSeedFn(beam.DoFn):
    injected = Metrics.counter(NAMESPACE, "urls_injected")
    rejected = Metrics.counter(NAMESPACE, "urls_rejected")
    filtered = Metrics.counter(NAMESPACE, "urls_filtered")
    invalid = Metrics.counter(NAMESPACE, "fields_invalid")

    def __init__(self, config: InjectConfig) -> None:
        self._config = config

    def setup(self) -> None:
        self._cleaner = UrlCleaner(
            self._config.urls,
            "inject",
            normalize=self._config.normalize,
            filter_urls=self._config.filter_urls,
        )

    def process(self, element: str | SeedLine) -> Iterator[tuple[str, str] | Tagged]:
        """Yield (normalized URL, seed line): strings shuffle cheaply."""
        line = seedlines.as_seed_line(element)
        seed = seeds.parse_seed_line(line.text)
        if seed is None:
            return
        if seed.invalid_fields:
            self.invalid.inc(len(seed.invalid_fields))
            self._warn_invalid(line, seed.invalid_fields)
        url = self._cleaner.clean(seed.url)
        if url is Rejection.MALFORMED:
            self.rejected.inc()
            reason = seedlines.malformed_reason(seed.url)
            yield TaggedOutput(REJECTED, RejectedLine(line, reason))
        elif url is Rejection.FILTERED:
            self.filtered.inc()
        else:
            self.injected.inc()
            yield url, seed.line

    @staticmethod
    def _warn_invalid(line: SeedLine, fields: tuple[str, ...]) -> None:
        where = f"{line.where()}: " if line.where() else ""
        warn_first(
            _LOG,
            "fields_invalid",
            "%sseed field ignored, not a valid number: %s",
            where,
            ", ".join(repr(field[:100]) for field in fields),
            counter=f"{NAMESPACE}/fields_invalid",
        )


class _ToPageFn(beam.DoFn):
    unique = Metrics.counter(NAMESPACE, "urls_injected_unique")

    def __init__(self, config: InjectConfig, now_ms: int) -> None:
        self._config = config
        self._now_ms = now_ms

    def process(self, keyed: tuple[str, str]) -> Iterator[WebPage]:
        url, line = keyed
        seed = seeds.parse_seed_line(line)
        if seed is not None:
            self.unique.inc()
            yield seeds.seed_page(seed, url, self._config, self._now_ms)


def _keyed(page: WebPage) -> tuple[str, WebPage]:
    return page["url"], page


class _KeyCurrentFn(beam.DoFn):
    """Key crawldb pages by URL, purging what Nutch's InjectMapper purges."""

    purged_404 = Metrics.counter(NAMESPACE, "urls_purged_404")
    purged_filter = Metrics.counter(NAMESPACE, "urls_purged_filter")

    def __init__(self, config: InjectConfig) -> None:
        self._config = config

    def setup(self) -> None:
        self._cleaner = (
            UrlCleaner(self._config.urls, "crawldb")
            if self._config.filter_normalize_all
            else None
        )

    def process(self, page: WebPage) -> Iterator[tuple[str, WebPage]]:
        if seeds.is_purged(page, self._config):
            self.purged_404.inc()
            return
        if self._cleaner is None:
            yield page["url"], page
            return
        url = self._cleaner.clean(page["url"])
        if isinstance(url, Rejection):
            self.purged_filter.inc()
        else:
            yield url, {**page, "url": url}


class _MergeFn(beam.DoFn):
    def __init__(self, config: InjectConfig) -> None:
        self._merger = _InjectMerger(config)

    def setup(self) -> None:
        self._merger.setup()

    def process(
        self, joined: tuple[str, dict[str, Iterable[WebPage]]]
    ) -> Iterator[WebPage]:
        _, groups = joined
        page = self._merger.merge(list(groups["injected"]), latest(groups["current"]))
        if page is not None:
            yield page


def merge_into_buckets(
    config: InjectConfig,
    current_dir: str,
    new_dir: str,
    layout: Bucketing,
    runs_dir: str,
) -> MergeIntoBuckets:
    """:class:`MergeIntoCrawlDb`'s merge, bucket by bucket, into ``new_dir``.

    Apply it to the injected pages; ``current_dir`` is the crawldb's current
    version (see :class:`~pipelines.transforms.bucketmerge.MergeIntoBuckets`).
    """
    key_current = _KeyCurrentFn(config) if config.filter_normalize_all else None
    return MergeIntoBuckets(
        _InjectMerger(config), current_dir, new_dir, layout, runs_dir, key_current
    )


class _InjectMerger:
    """A URL's injected page merged with its record (``PageMerger``).

    A record read from its bucket as it is gets ``_KeyCurrentFn``'s purge
    here (one already keyed by ``_KeyCurrentFn`` is never purged twice).
    """

    def __init__(self, config: InjectConfig) -> None:
        self._config = config

    def setup(self) -> None:
        self._merged = Metrics.counter(NAMESPACE, "urls_merged")
        self._purged_404 = Metrics.counter(NAMESPACE, "urls_purged_404")

    def merge(self, new: list[WebPage], current: WebPage | None) -> WebPage | None:
        if current is not None and seeds.is_purged(current, self._config):
            self._purged_404.inc()
            current = None
        injected = latest(new)
        if injected is not None and current is not None:
            self._merged.inc()
        return seeds.merge_injected(injected, current, self._config)


def list_seed_files(path: str) -> list[str]:
    """The seed files at ``path``: the file itself, or every plain file in it.

    As Nutch (and Hadoop's input formats) do, sub-directories and names
    starting with ``.`` or ``_`` are skipped.

    Raises:
        SeedError: nothing at ``path``, or no seed files in the directory.
    """
    if os.path.isfile(path):
        return [path]
    if os.path.isdir(path):
        files = sorted(
            os.path.join(path, name)
            for name in os.listdir(path)
            if not name.startswith((".", "_"))
            and os.path.isfile(os.path.join(path, name))
        )
    else:
        matches = paths.match(paths.under(path, "*"))
        files = sorted(
            m.path
            for m in matches
            if not os.path.basename(m.path).startswith((".", "_"))
        )
        if not files and FileSystems.exists(path):
            files = [path]
    if not files:
        raise SeedError(f"no seed files found at {path}")
    return files


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl inject CRAWLDB SEEDS``: inject, then print a one-line summary."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: InjectRequest, job: Job) -> int:
    """The checked request (``pipelines.cli``): inject, print a one-line summary."""
    values = execute(request, job)
    new_urls = values.get("urls_injected_unique", 0) - values.get("urls_merged", 0)
    print(f"Injector: {describe(values)}; new urls: {new_urls}", file=sys.stderr)
    return 0


def execute(request: InjectRequest, job: Job) -> dict[str, int]:
    """Inject the request's seeds into its crawldb; returns the job's counters."""
    config = request.config
    files = list_seed_files(request.seeds)
    UrlCleaner(config.urls, "inject")  # a bad rule file fails here, not on a worker
    started_ms = config.fixed_time_ms or now_ms()
    with versions.replacing(
        request.crawldb,
        keep_backup=config.keep_backup,
        force=request.force,
        create=True,
    ) as crawldb:
        result = _inject(job, config, files, crawldb, started_ms)
    return counters(result, NAMESPACE)


def _inject(
    job: Job,
    config: InjectConfig,
    files: list[str],
    crawldb: versions.Replacement,
    started_ms: int,
) -> PipelineResult:
    """Into a new crawldb: the pages as they come (its first updatedb buckets).

    Into an existing one: merged bucket by bucket (``MergeIntoBuckets``).
    """
    current_dir = crawldb.current_dir
    layout = None
    if current_dir is not None:
        layout = bucketfiles.next_layout(config.buckets, current_dir)
    with (
        bucketfiles.sorted_runs(crawldb.new_dir) as runs,
        job.pipeline() as pipeline,
    ):
        injected = (
            pipeline
            | "ReadSeeds" >> ReadSeedLines(files)
            | "Inject" >> Inject(config, started_ms)
        )
        if current_dir is None or layout is None:
            _ = injected | "WriteCrawlDb" >> io.WriteWebPages(crawldb.new_dir)
        else:
            merge = merge_into_buckets(
                config, current_dir, crawldb.new_dir, layout, runs
            )
            _ = injected | "Merge" >> merge
    if layout is not None:
        bucketfiles.write_layout(
            crawldb.new_dir, layout, bucketfiles.records_written(pipeline.result)
        )
    return pipeline.result


if __name__ == "__main__":  # as `beamcrawl inject`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["inject", *sys.argv[1:]]))
