"""Fetch to update as one pipeline: fetch, parse, updatedb and dedup after generate.

``beamcrawl crawl`` runs this on a local runner (``--separateJobs`` runs the
four jobs instead, as it does on other runners). The pipeline writes what
the jobs write — each segment's ``fetch/`` and ``parse/`` parts, and a new
crawldb version with dedup's marks — from one read of the fetch lists and
the crawldb: the fetched and parsed records go on to the update in memory
instead of through Avro files (each page's parse, or the fetched page when
it is not parsed: updatedb would choose it), and one pipeline starts
instead of four. The update and dedup run bucket by bucket as their
commands do (``BucketedUpdate`` into a scratch version, then
``BucketedDedup`` into the new one once every bucket is written). When the
new crawldb holds no URL a generate could select within the hour, the round
says so (:attr:`FetchUpdateCounts.may_be_due`) and the crawl stops without
running that generate.
The segment parts and the crawldb version are installed only when the whole
pipeline succeeded; the crawldb is locked from the first fetch to the
install. The records are the same as the four jobs write (a test compares
them), but for two clocks: new URLs are due from the round's start rather
than from its updatedb, and the crawldb's ``old`` backup is the version
before the round rather than the one between updatedb and dedup.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection
from apache_beam.runners.runner import PipelineResult

from crawllib.config import FetcherConfig, ParseConfig, UpdateConfig
from crawllib.db.buckets import Bucketing
from crawllib.db.dedup import DedupConfig
from crawllib.db.schedule import may_be_due
from crawllib.errors import CrawlError
from crawllib.webpage import WebPage
from pipelines import dedup, fetch, parse, updatedb
from pipelines.runtime import progress
from pipelines.runtime.options import Job, counters, now_ms
from pipelines.storage import bucketfiles, fs, io, partfiles, versions
from pipelines.storage.segments import (
    FETCH,
    GENERATE,
    PARSE,
    install_parts,
    remove_staged,
    staged_parts,
)
from pipelines.transforms.bucketdedup import BucketedDedup
from pipelines.transforms.bucketupdate import BucketedUpdate

DUE_NAMESPACE = "CrawlRoundDue"
DUE_WINDOW_MS = 3_600_000
"""How long after a round its count of due URLs tells what generate would find."""


@dataclass
class FetchUpdateCounts:
    """The counters of the round, as the separate jobs report them."""

    fetched: dict[str, int]
    updated: dict[str, int]
    duplicates: int
    due_by_ms: int
    """No URL of the new crawldb is due before this time, unless ``may_be_due``."""
    may_be_due: bool


@dataclass(frozen=True)
class FetchUpdateRequest:
    """A round after generate: which segments into which crawldb, with what."""

    crawldb: str
    segments: tuple[str, ...]
    fetch: FetcherConfig
    """The fetcher's settings; the round parses whatever ``fetch.parse`` says."""
    parse: ParseConfig
    update: UpdateConfig
    max_interval_s: int
    """``db.fetch.interval.max``: no URL waits longer to be due."""
    force: bool = False
    """Remove a lock a killed job left on the crawldb."""


def execute(request: FetchUpdateRequest, job: Job) -> FetchUpdateCounts:
    """Fetch, parse and update the segments into the crawldb, then mark duplicates.

    Raises:
        CrawlError: a segment has no fetch list or is already fetched.
        CrawlDbLockedError: another job holds the crawldb.
    """
    crawldb, segments = request.crawldb, request.segments
    versions.require(crawldb)  # no crawldb: one line before anything is staged
    stages = {segment: staged_parts(segment, (FETCH, PARSE)) for segment in segments}
    started_ms = now_ms()
    due_window = (started_ms, started_ms + DUE_WINDOW_MS)
    try:
        with (
            versions.replacing(
                crawldb, keep_backup=request.update.keep_backup, force=request.force
            ) as db,
        ):
            result = _run(job, db, request, stages, due_window)
            for segment, staged in stages.items():
                install_parts(segment, staged)
    finally:
        for staged in stages.values():
            remove_staged(staged)
    return _counts(result, due_window[1])


def _run(
    job: Job,
    db: versions.Replacement,
    request: FetchUpdateRequest,
    stages: dict[str, dict[str, str]],
    due_window: tuple[int, int],
) -> PipelineResult:
    """The round's pipeline: the staged segment parts and the new crawldb version."""
    lists = [
        partfiles.parts_pattern(FileSystems.join(segment, GENERATE))
        for segment in request.segments
    ]
    try:
        with progress.shown() as board, job.pipeline() as pipeline:
            if board.live:
                board.expect("fetch", sum(map(progress.count_records, lists)))
            records = [
                _fetch_and_parse(pipeline, n, fetch_list, request, stages[segment])
                for n, (segment, fetch_list) in enumerate(
                    zip(request.segments, lists, strict=True)
                )
            ]
            layout = _update_and_dedup(pipeline, db, records, request, due_window)
    finally:
        fs.remove_dir(FileSystems.join(db.new_dir, bucketfiles.RUNS_DIR))
        fs.remove_dir(updated_dir(db))
    # the update and dedup both write buckets: the pages counted are dedup's
    pages = counters(pipeline.result, DUE_NAMESPACE).get("pages")
    bucketfiles.write_layout(db.new_dir, layout, pages)
    return pipeline.result


def _fetch_and_parse(
    pipeline: beam.Pipeline,
    n: int,
    fetch_list: str,
    request: FetchUpdateRequest,
    staged: dict[str, str],
) -> PCollection[WebPage]:
    """Segment ``n``'s fetch list fetched and parsed: the records for the update.

    The fetched and the parsed pages are written to the ``staged`` parts.
    """
    fetched = (
        pipeline
        | f"ReadFetchList{n}" >> io.ReadWebPages(fetch_list)
        | f"Fetch{n}" >> fetch.Fetch(dataclasses.replace(request.fetch, parse=True))
    )
    parsed, for_update = fetched | f"Parse{n}" >> parse.ParseForUpdate(request.parse)
    _ = fetched | f"WriteFetched{n}" >> io.WriteWebPages(staged[FETCH])
    _ = parsed | f"WriteParsed{n}" >> io.WriteWebPages(staged[PARSE])
    return for_update


def _update_and_dedup(
    pipeline: beam.Pipeline,
    db: versions.Replacement,
    records: list[PCollection[WebPage]],
    request: FetchUpdateRequest,
    due_window: tuple[int, int],
) -> Bucketing:
    """The crawldb updated with ``records``, deduplicated, counted: its layout.

    Bucket by bucket: updated into ``updated_dir(db)``, then marked into the
    new version (write the layout there once the pipeline is done).
    """
    old_dir = db.current_dir
    if old_dir is None:
        raise CrawlError("no published crawldb version to update")
    layout = bucketfiles.next_layout(request.update.buckets, old_dir)
    runs = FileSystems.join(db.new_dir, bucketfiles.RUNS_DIR)
    updated = updated_dir(db)
    count_due = functools.partial(
        _count_due, window=due_window, max_interval_s=request.max_interval_s
    )
    _ = (
        tuple(records)
        | "UpdateDb"
        >> BucketedUpdate(request.update, now_ms(), old_dir, updated, layout, runs)
        | "Dedup"
        >> BucketedDedup(
            DedupConfig.from_args(),
            updated,
            db.new_dir,
            layout,
            FileSystems.join(runs, "dedup"),
            each_page=count_due,
        )
    )
    return layout


def updated_dir(db: versions.Replacement) -> str:
    """Where the round's update goes before dedup: scratch in the new version."""
    return FileSystems.join(db.new_dir, "_updated")


def _counts(result: PipelineResult, due_by_ms: int) -> FetchUpdateCounts:
    """The round's counters, named as the separate jobs name theirs."""
    due = counters(result, DUE_NAMESPACE)
    return FetchUpdateCounts(
        fetched={
            **counters(result, fetch.STATUS_NAMESPACE),
            **counters(result, fetch.NAMESPACE),
            **counters(result, parse.NAMESPACE),
            **parse.link_counters(result),
        },
        updated={
            **counters(result, updatedb.NAMESPACE),
            **counters(result, updatedb.STATUS_NAMESPACE),
        },
        duplicates=counters(result, dedup.NAMESPACE).get(dedup.MARKED, 0),
        due_by_ms=due_by_ms,
        # no counters (a runner that cannot report them): assume some are due
        may_be_due=due.get("pages", 0) == 0 or due.get("may_be_due", 0) > 0,
    )


_PAGES = Metrics.counter(DUE_NAMESPACE, "pages")
_MAY_BE_DUE = Metrics.counter(DUE_NAMESPACE, "may_be_due")


def _count_due(page: WebPage, window: tuple[int, int], max_interval_s: int) -> WebPage:
    """Count the page, and whether a generate in ``window`` might select it."""
    _PAGES.inc()
    if may_be_due(page, *window, max_interval_s):
        _MAY_BE_DUE.inc()
    return page
