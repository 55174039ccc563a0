"""``beamcrawl generate CRAWLDB SEGMENTS``: fetch lists (Nutch's Generator).

:class:`Generate` selects the URLs due for fetching (``Select``), ranks them
and assigns segments under ``--topN``, ``generate.max.count`` and
``--maxNumSegments`` (``Rank``), and writes each selected page with its
generate mark and fetch-list partition (``Emit``). Only light
``(sort, url, host)`` tuples are shuffled; the pages themselves are matched
against the ranking through a side input, or, from a bucketed crawldb,
bucket by bucket in a merge join with the sorted assignments.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterator, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.options.pipeline_options import GoogleCloudOptions
from apache_beam.pvalue import AsDict, PCollection, TaggedOutput
from apache_beam.runners.runner import PipelineResult

from crawllib.config import CrawlConfig, GenerateConfig, step_config
from crawllib.db.buckets import Bucketing
from crawllib.db.generate import (
    GenerateSkip,
    Selector,
    generated_page,
    rank_key,
    with_generate_time,
)
from crawllib.urls.normalize import UrlNormalizers
from crawllib.urls.partition import UrlPartitioner
from crawllib.webpage import WebPage
from pipelines.cli.generate import GenerateRequest as GenerateRequest
from pipelines.cli.generate import generate_config as generate_config
from pipelines.cli.generate import parser, request
from pipelines.runtime import progress
from pipelines.runtime.hints import NoExpandHints
from pipelines.runtime.options import (
    Job,
    clock_ms,
    counters,
    describe,
    now_ms,
    parse_job_args,
)
from pipelines.runtime.tagged import Tagged
from pipelines.storage import bucketfiles, fs, io, versions
from pipelines.storage.segments import (
    GENERATE,
    install_segment,
    segment_names,
    staging_dir,
)
from pipelines.transforms.ranking import NAMESPACE, Candidate, RankCandidates
from pipelines.transforms.sortmerge import RunRange, SortIntoBuckets, joined_bucket

_LOG = logging.getLogger(__name__)
SEGMENT_NAMESPACE = "GeneratorSegments"
CRAWLDB_TAG = "crawldb"


def segment_tag(number: int) -> str:
    """The output tag of segment ``number`` (1-based) in :class:`Generate`'s result."""
    return f"segment{number}"


class Generate(
    NoExpandHints,
    beam.PTransform[PCollection[WebPage], dict[str, PCollection[WebPage]]],
):
    """Crawldb pages to fetch lists: ``{"segment1": pages, ...}``.

    One output per segment (``segment_tag(1)`` .. ``--maxNumSegments``), and
    with ``generate.update.crawldb`` a ``"crawldb"`` output: every page, the
    selected ones with their generate time. ``batch_ids`` names the segments.
    Apply it to the crawldb's pages, or to ``(pages, the same pages read
    again)``: ``Emit`` then takes the second read, so no runner has to hold
    the pages until the ranking is done (the command reads the crawldb's
    files twice).

    With ``--topN`` the candidates are ranked through sorted run files in
    ``runs_dir``, a directory every worker can reach (default: a new local
    temporary directory); the ranking deletes them once it has read them.

    ``bucketed``: the directory and layout of the crawldb version the pages
    are read from, when it is bucketed (``beamcrawl bucketdb``). ``Emit``
    then sorts the assignments into its buckets (runs in ``runs_dir``,
    needed; delete it after the job) and merge-joins each with the bucket's
    file, which it reads itself: no side input, and no stream of every
    crawldb record from one stage to the next (a side input starts a new
    stage on a portable runner, and on Flink a read that outruns it is held
    in the Python worker's memory). Apply it to the pages alone.

    The clocks default to ``generate.curTime``, else the time the transform
    is made; ``generate_time_ms`` to ``cur_time_ms``; ``batch_ids`` to
    segment names (``yyyyMMddHHmmss``) from ``generate_time_ms``.

    Counters, namespace ``Generator``: one per
    :class:`~crawllib.db.generate.GenerateSkip`
    reason (``URL_FILTERS_REJECTED``, ``SCHEDULE_REJECTED``, ``WAIT_FOR_UPDATE``
    ...), ``URLS_SKIPPED_PER_HOST_OVERFLOW``,
    ``HOSTS_AFFECTED_PER_HOST_OVERFLOW`` (every URL over its host's limit,
    also below the topN cut, where Nutch's reducer has stopped counting),
    ``CANDIDATES`` (due and eligible) and ``GENERATED``; namespace
    ``GeneratorSegments``: URLs per segment.
    """

    def __init__(
        self,
        config: GenerateConfig | CrawlConfig,
        cur_time_ms: int | None = None,
        generate_time_ms: int | None = None,
        batch_ids: Sequence[str] | None = None,
        runs_dir: str | None = None,
        bucketed: tuple[str, Bucketing] | None = None,
    ) -> None:
        super().__init__()
        if bucketed is not None and runs_dir is None:
            raise ValueError("a bucketed crawldb's Emit needs a runs_dir")
        config = step_config(config, GenerateConfig)
        cur_time_ms = clock_ms(config.fixed_time_ms, cur_time_ms)
        if generate_time_ms is None:
            generate_time_ms = cur_time_ms
        if batch_ids is None:
            batch_ids = default_batch_ids(generate_time_ms, config.max_num_segments)
        if len(batch_ids) != config.max_num_segments:
            raise ValueError("one batch id per segment is needed")
        self._config = config
        self._cur_time_ms = cur_time_ms
        self._generate_time_ms = generate_time_ms
        self._batch_ids = list(batch_ids)
        self._runs_dir = runs_dir
        self._bucketed = bucketed

    def expand(
        self,
        pages: PCollection[WebPage] | tuple[PCollection[WebPage], PCollection[WebPage]],
    ) -> dict[str, PCollection[WebPage]]:
        config = self._config
        pages, pages_again = pages if isinstance(pages, tuple) else (pages, pages)
        assignments = (
            pages
            | "Select" >> beam.ParDo(_SelectFn(config, self._cur_time_ms))
            | "Rank" >> RankCandidates(config, self._runs_dir)
        )
        emitter_args = (
            config,
            self._cur_time_ms,
            self._generate_time_ms,
            self._batch_ids,
        )
        tags = [segment_tag(n) for n in range(1, config.max_num_segments + 1)]
        if config.update_crawldb:
            tags.append(CRAWLDB_TAG)
        if self._bucketed is not None and self._runs_dir is not None:
            outputs = (
                assignments
                | "SortForEmit" >> SortIntoBuckets(self._bucketed[1], self._runs_dir)
                | "Emit"
                >> beam.ParDo(
                    _EmitBucketFn(self._bucketed, *emitter_args)
                ).with_outputs(*tags)
            )
        else:
            outputs = pages_again | "Emit" >> beam.ParDo(
                _EmitFn(*emitter_args), AsDict(assignments)
            ).with_outputs(*tags)
        return {tag: outputs[tag] for tag in tags}


def default_batch_ids(time_ms: int, count: int) -> list[str]:
    """Segment names from ``time_ms``, one second apart (as generate names them)."""
    seconds = time_ms // 1000
    return [
        time.strftime("%Y%m%d%H%M%S", time.localtime(seconds + n)) for n in range(count)
    ]


class _SelectFn(beam.DoFn):
    """The Selector's map side: (count key, candidate) for each eligible page."""

    candidates = Metrics.counter(NAMESPACE, "CANDIDATES")

    def __init__(self, config: GenerateConfig, cur_time_ms: int) -> None:
        self._config = config
        self._cur_time_ms = cur_time_ms

    def setup(self) -> None:
        self._selector = Selector(self._config, self._cur_time_ms)
        self._skips = {
            skip: Metrics.counter(NAMESPACE, skip.value) for skip in GenerateSkip
        }
        self._counts_hosts = self._config.max_count > 0

    def process(self, page: WebPage) -> Iterator[tuple[str, Candidate]]:
        sort = self._selector.select(page)
        if isinstance(sort, GenerateSkip):
            self._skips[sort].inc()
            return
        url = page["url"]
        key = self._selector.count_key(url) if self._counts_hosts else ""
        if key is None:
            self._skips[GenerateSkip.MALFORMED].inc()
            return
        self.candidates.inc()
        neg_sort, _ = rank_key(sort, url)
        yield key, (neg_sort, url, key)


class _Emitter(beam.DoFn):
    """Selected pages to their segment's output, with marks and partition."""

    generated = Metrics.counter(NAMESPACE, "GENERATED")

    def __init__(
        self,
        config: GenerateConfig,
        cur_time_ms: int,
        generate_time_ms: int,
        batch_ids: list[str],
    ) -> None:
        self._config = config
        self._cur_time_ms = cur_time_ms
        self._generate_time_ms = generate_time_ms
        self._batch_ids = batch_ids

    def setup(self) -> None:
        config = self._config
        self._partitioner = UrlPartitioner(config.partition)
        self._normalizers = UrlNormalizers(config.urls, "partition")
        self._per_segment = [
            Metrics.counter(SEGMENT_NAMESPACE, str(n))
            for n in range(1, config.max_num_segments + 1)
        ]

    def _emit(self, page: WebPage, segment: int | None) -> Iterator[Tagged]:
        """``page`` to its outputs; ``segment`` None: not selected."""
        if self._config.update_crawldb:
            updated = (
                page
                if segment is None
                else with_generate_time(page, self._generate_time_ms)
            )
            yield TaggedOutput(CRAWLDB_TAG, updated)
        if segment is None:
            return
        url = self._normalizers.normalize(page["url"]) or page["url"]
        partition = self._partitioner.partition(url, self._config.num_fetchers)
        self.generated.inc()
        self._per_segment[segment - 1].inc()
        yield TaggedOutput(
            segment_tag(segment),
            generated_page(
                page,
                self._config,
                self._cur_time_ms,
                self._generate_time_ms,
                self._batch_ids[segment - 1],
                partition,
            ),
        )


class _EmitFn(_Emitter):
    """Each crawldb page, matched with the assignments (a side input)."""

    def process(self, page: WebPage, assignments: dict[str, int]) -> Iterator[Tagged]:
        yield from self._emit(page, assignments.get(page["url"]))


class _EmitBucketFn(_Emitter):
    """One bucket of a bucketed crawldb, merge-joined with its sorted assignments."""

    def __init__(self, crawldb: tuple[str, Bucketing], *emitter_args: Any) -> None:
        super().__init__(*emitter_args)
        self._crawldb = crawldb

    def process(self, bucket_ranges: tuple[int, list[RunRange]]) -> Iterator[Tagged]:
        bucket, ranges = bucket_ranges
        layout = self._crawldb[1]
        for _, page, items in joined_bucket(bucket, ranges, layout, self._crawldb):
            if page is not None:  # an assignment is always of a crawldb URL
                yield from self._emit(page, items[0][1] if items else None)


NOTHING_SELECTED = 1
"""Exit status when nothing was selected (Nutch's generate returns 1 too)."""


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl generate``: print the new segment paths; exit 1 if none."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: GenerateRequest, job: Job) -> int:
    """The checked request (``pipelines.cli``): print the segments; exit 1 if none."""
    written, values = execute(request, job)
    print(f"Generator: {describe(values)}", file=sys.stderr)
    if not written:
        print(
            "Generator: 0 records selected for fetching, exiting ...", file=sys.stderr
        )
        return NOTHING_SELECTED
    for segment in written:
        print(segment)
    return 0


def execute(request: GenerateRequest, job: Job) -> tuple[list[str], dict[str, int]]:
    """Run the generate job; returns the segments written and the counters."""
    config = request.config
    Selector(config, 0)  # a bad rule file or property fails here, not on a worker
    crawldb, segments_dir = request.crawldb, request.segments_dir
    versions.require(crawldb)  # no crawldb: one line before the lock
    generate_ms = config.fixed_time_ms or now_ms()
    cur_time_ms = generate_ms + request.add_days * 86_400_000
    with versions.locked(crawldb, force=request.force):
        pattern = versions.require(crawldb)  # read under the lock
        bucketed = _bucketed(crawldb)
        names = segment_names(segments_dir, generate_ms, config.max_num_segments)
        stages = [staging_dir(segments_dir, name) for name in names]
        new_db = versions.new_version_dir(crawldb) if config.update_crawldb else None
        try:
            values = _run_ranked(job, config, (pattern, bucketed), cur_time_ms,
                                 generate_ms, names, stages, new_db)  # fmt: skip
            written = _install(segments_dir, names, stages, values)
            if written and new_db is not None:
                versions.publish(crawldb, new_db, keep_backup=config.keep_backup)
                new_db = None
        finally:
            for path in [*stages, *([new_db] if new_db else [])]:
                fs.remove_dir(path)
    return written, values


def _bucketed(crawldb: str) -> tuple[str, Bucketing] | None:
    """The current version's directory and layout, if it is bucketed."""
    current = versions.current_version(crawldb)
    layout = bucketfiles.read_layout(current) if current else None
    return (current, layout) if current and layout else None


def _run_ranked(
    job: Job,
    config: GenerateConfig,
    source: tuple[str, tuple[str, Bucketing] | None],
    cur_time_ms: int,
    generate_ms: int,
    names: list[str],
    stages: list[str],
    new_db: str | None,
) -> dict[str, int]:
    """Run the job, its ranking's runs in a scratch directory; the counters."""
    temp = job.pipeline_options().view_as(GoogleCloudOptions).temp_location
    with fs.scratch(temp) as runs:
        result = _run_once(job, config, source, (cur_time_ms, generate_ms),
                           names, stages, (new_db, runs))  # fmt: skip
    values = counters(result, NAMESPACE)
    segment_counts = counters(result, SEGMENT_NAMESPACE)
    return {**values, **{f"segment{n}": c for n, c in segment_counts.items()}}


def _run_once(
    job: Job,
    config: GenerateConfig,
    source: tuple[str, tuple[str, Bucketing] | None],
    times: tuple[int, int],
    names: list[str],
    stages: list[str],
    dirs: tuple[str | None, str],
) -> PipelineResult:
    """One generate job; returns its result.

    ``source``: the crawldb's files and, if bucketed, its version's directory
    and layout; ``dirs``: the new crawldb version's (None: not updated), the
    runs'.
    """
    (pattern, bucketed), (new_db, runs) = source, dirs
    with progress.shown(), job.pipeline() as pipeline:
        pages = (
            pipeline
            | "ReadCrawlDb" >> io.ReadWebPages(pattern)
            | "ShowProgress" >> progress.ShowProgress("generate")
        )
        generate = Generate(config, *times, names, runs_dir=runs, bucketed=bucketed)
        if bucketed is None:  # Emit reads the crawldb again, matched to a side input
            pages_again = pipeline | "ReadCrawlDbToEmit" >> io.ReadWebPages(pattern)
            outputs = (pages, pages_again) | "Generate" >> generate
        else:
            outputs = pages | "Generate" >> generate
        for number, stage in enumerate(stages, start=1):
            _ = outputs[
                segment_tag(number)
            ] | f"WriteSegment{number}" >> io.WriteWebPages(
                FileSystems.join(stage, GENERATE)
            )
        if new_db is not None:
            _ = outputs[CRAWLDB_TAG] | "WriteCrawlDb" >> io.WriteWebPages(new_db)
    return pipeline.result


def _install(
    segments_dir: str, names: list[str], stages: list[str], values: dict[str, int]
) -> list[str]:
    """Rename the non-empty staged segments into place; return their paths."""
    written = []
    for number, (name, stage) in enumerate(zip(names, stages, strict=True), start=1):
        if values.get(f"segment{number}", 0) > 0:
            segment = FileSystems.join(segments_dir, name)
            install_segment(stage, segment)
            written.append(segment)
    return written


if __name__ == "__main__":  # as `beamcrawl generate`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["generate", *sys.argv[1:]]))
