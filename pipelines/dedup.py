"""``beamcrawl dedup CRAWLDB``: mark duplicates by signature (1.x DeduplicationJob).

:class:`Dedup` keys the pages that take part by their group (signature,
plus host or domain with ``--group``), shuffles only light ``(url, score,
fetchTime)`` tuples to choose the duplicates of each group
(:func:`crawllib.db.dedup.duplicates`), then joins the duplicate URLs back
with those pages to mark them. Pages that do not take part never go
through a shuffle. The job writes a new crawldb version and installs it
under the crawldb lock.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection, TaggedOutput
from apache_beam.runners.runner import PipelineResult

from crawllib.config import CrawlConfig, step_config
from crawllib.db import dedup
from crawllib.db.dedup import DedupConfig, Entry
from crawllib.status import CrawlStatus
from crawllib.webpage import WebPage
from pipelines.cli.dedup import DedupRequest as DedupRequest
from pipelines.cli.dedup import parser, request
from pipelines.runtime.options import (
    Job,
    counters,
    parse_job_args,
)
from pipelines.runtime.tagged import Tagged
from pipelines.storage import bucketfiles, io, partfiles, versions
from pipelines.transforms.bucketdedup import MARKED as MARKED
from pipelines.transforms.bucketdedup import NAMESPACE as NAMESPACE
from pipelines.transforms.bucketdedup import BucketedDedup

_ENTRIES = "entries"
_CANDIDATES = "candidates"


class Dedup(beam.PTransform[PCollection[WebPage], PCollection[WebPage]]):
    """Crawldb pages to the same pages, duplicates with status DUPLICATE (7).

    One page per group survives (see :mod:`crawllib.db.dedup` for how it is
    chosen, and why beamcrawl, unlike Nutch, never leaves a full tie
    unmarked). Counter, namespace ``Dedup``: ``documents_marked_duplicate``
    (Nutch's ``DeduplicationJobStatus`` / "Documents marked as duplicate").
    Without a DedupConfig (none, or a CrawlConfig) it runs as the command
    does without ``--group`` / ``--compareOrder``.
    """

    def __init__(self, config: DedupConfig | CrawlConfig | None = None) -> None:
        super().__init__()
        self._config = step_config(
            DedupConfig() if config is None else config, DedupConfig
        )

    def expand(self, pages: PCollection[WebPage]) -> PCollection[WebPage]:
        routed = pages | "Route" >> beam.ParDo(_RouteFn(self._config)).with_outputs(
            _ENTRIES, _CANDIDATES, main="others"
        )
        doomed = (
            routed[_ENTRIES]
            | "GroupBySignature" >> beam.GroupByKey()
            | "ChooseDuplicates"
            >> beam.FlatMap(_choose, order=self._config.compare_order)
        )
        marked = (
            {"page": routed[_CANDIDATES], "duplicate": doomed}
            | "JoinByUrl" >> beam.CoGroupByKey()
            | "Mark" >> beam.ParDo(_MarkFn())
        )
        return (routed.others, marked) | "Together" >> beam.Flatten()


class _RouteFn(beam.DoFn):
    """Pages that take part go to the shuffle, keyed; the others pass by."""

    def __init__(self, config: DedupConfig) -> None:
        self._group = config.group

    def process(self, page: WebPage) -> Iterator[WebPage | Tagged]:
        key = dedup.group_key(page, self._group)
        if key is None:
            yield page
            return
        yield TaggedOutput(_ENTRIES, (key, dedup.entry(page)))
        yield TaggedOutput(_CANDIDATES, (page["url"], page))


def _choose(
    group: tuple[str, Iterable[Entry]], order: tuple[dedup.Criterion, ...]
) -> Iterator[tuple[str, bool]]:
    _, entries = group
    for url in dedup.duplicates(entries, order):
        yield url, True


class _MarkFn(beam.DoFn):
    marked = Metrics.counter(NAMESPACE, MARKED)

    def process(
        self, joined: tuple[str, dict[str, Iterable[Any]]]
    ) -> Iterator[WebPage]:
        _, groups = joined
        duplicate = next(iter(groups["duplicate"]), False)
        page: WebPage
        for page in groups["page"]:
            if duplicate:
                self.marked.inc()
                yield {**page, "status": int(CrawlStatus.DUPLICATE)}
            else:
                yield page


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl dedup CRAWLDB``: mark duplicates, print how many."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: DedupRequest, job: Job) -> int:
    """The checked request (``pipelines.cli``): mark duplicates, print how many."""
    marked = execute(request, job).get(MARKED, 0)
    print(f"Deduplication: {marked} documents marked as duplicates", file=sys.stderr)
    return 0


def execute(request: DedupRequest, job: Job) -> dict[str, int]:
    """Mark the duplicates in the request's crawldb; returns the counters."""
    crawldb = request.crawldb
    with versions.replacing(
        crawldb, keep_backup=request.keep_backup, force=request.force
    ) as db:
        result = _dedup(job, request.config, db)
    return counters(result, NAMESPACE)


def _dedup(job: Job, config: DedupConfig, db: versions.Replacement) -> PipelineResult:
    """A bucketed crawldb stays bucketed (``BucketedDedup``); others as before."""
    current = db.current_dir
    layout = bucketfiles.read_layout(current) if current else None
    if current is None or layout is None:
        with job.pipeline() as pipeline:
            _ = (
                pipeline
                | "ReadCrawlDb" >> io.ReadWebPages(db.parts)
                | "Dedup" >> Dedup(config)
                | "WriteCrawlDb" >> io.WriteWebPages(db.new_dir)
            )
        return pipeline.result
    partfiles.check_parts(db.parts)
    with bucketfiles.sorted_runs(db.new_dir) as runs, job.pipeline() as pipeline:
        _ = pipeline | "Dedup" >> BucketedDedup(
            config, current, db.new_dir, layout, runs
        )
    bucketfiles.write_layout(
        db.new_dir, layout, bucketfiles.records_written(pipeline.result)
    )
    return pipeline.result


if __name__ == "__main__":  # as `beamcrawl dedup`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["dedup", *sys.argv[1:]]))
