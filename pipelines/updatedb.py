"""``beamcrawl updatedb CRAWLDB SEGMENT...``: fold fetched segments into the crawldb.

:class:`UpdateDb` joins the crawldb with the segments by URL: each segment
URL's record (its parse record when it has one), and the links of all
segment records with their OPIC shares (``CoGroupByKey``); then
``crawllib.db.updatedb.update_page`` applies Nutch's state transitions, fetch
schedule and scoring. The command itself runs the same update bucket by
bucket (:class:`~pipelines.transforms.bucketupdate.BucketedUpdate`): the new
version is written as sorted hash buckets and the crawldb is never shuffled.
The run holds the crawldb lock and installs the new version atomically.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection, TaggedOutput
from apache_beam.runners.runner import PipelineResult
from apache_beam.transforms.window import GlobalWindows

from crawllib.config import CrawlConfig, UpdateConfig, step_config
from crawllib.db.updatedb import (
    Inlink,
    choose_and_link,
    link_cleaner,
    update_page,
)
from crawllib.errors import CrawlError
from crawllib.status import crawl_status_label
from crawllib.urls.cleaner import UrlCleaner
from crawllib.webpage import WebPage, latest
from pipelines.cli.updatedb import UpdateRequest as UpdateRequest
from pipelines.cli.updatedb import parser, request
from pipelines.runtime import options, progress
from pipelines.runtime.options import (
    Job,
    counters,
    describe,
    now_ms,
    parse_job_args,
)
from pipelines.runtime.tagged import Tagged
from pipelines.storage import bucketfiles, io, partfiles, versions
from pipelines.storage.segments import FETCH, PARSE, list_segments
from pipelines.transforms.bucketupdate import BucketedUpdate

NAMESPACE = "CrawlDB"
STATUS_NAMESPACE = "CrawlDBStatus"


class UpdateDb(
    beam.PTransform[
        tuple[PCollection[WebPage], PCollection[WebPage]], PCollection[WebPage]
    ]
):
    """``(crawldb pages, segment records)`` to the new crawldb pages.

    Segment records are the fetch and parse records of one or more segments.
    Counters: ``CrawlDBStatus`` by resulting status name; ``CrawlDB``:
    ``urls_added`` (new URLs), ``links_rejected`` (targets the normalizers
    or filters drop), ``urls_dropped`` (purged, or additions not allowed).
    """

    def __init__(
        self, config: UpdateConfig | CrawlConfig, now_ms: int | None = None
    ) -> None:
        super().__init__()
        self._config = step_config(config, UpdateConfig)
        self._now_ms = options.now_ms() if now_ms is None else now_ms

    def expand(
        self, inputs: tuple[PCollection[WebPage], PCollection[WebPage]]
    ) -> PCollection[WebPage]:
        current, records = inputs
        config = self._config
        chosen = (
            records
            | "KeyRecords" >> beam.Map(_keyed_without_bulk)
            | "GroupRecords" >> beam.GroupByKey()
            | "ChooseAndLink"
            >> beam.ParDo(_ChooseAndLinkFn(config)).with_outputs(
                "links", main="fetched"
            )
        )
        return (
            {
                "old": current
                | "KeyCurrent" >> beam.Map(lambda page: (page["url"], page)),
                "fetched": chosen.fetched,
                "links": chosen.links,
            }
            | "JoinByUrl" >> beam.CoGroupByKey()
            | "Update" >> beam.ParDo(_UpdateFn(config, self._now_ms))
        )


def _keyed_without_bulk(page: WebPage) -> tuple[str, WebPage]:
    """``(url, page)`` without the content and text the crawldb never keeps.

    A fetched page's content is most of its size; the shuffle need not carry it.
    """
    return page["url"], {**page, "content": None, "text": None}


_Link = tuple[str, str, float, int, int]
"""An :class:`Inlink` as a plain tuple (Beam encodes it faster)."""


class _ChooseAndLinkFn(beam.DoFn):
    """One record per URL from the segments; its outlinks as OPIC-scored links.

    The links are gathered by target over the bundle and given out as one
    ``(target, links)`` element per target: a page's ~30 outlinks point
    mostly to pages other pages link to too, and Beam's cost is per element.
    """

    rejected = Metrics.counter(NAMESPACE, "links_rejected")
    MAX_GATHERED = 200_000
    """Links held before the gathered ones are given out (memory bound)."""

    def __init__(self, config: UpdateConfig) -> None:
        self._config = config

    def setup(self) -> None:
        self._cleaner = link_cleaner(self._config)

    def start_bundle(self) -> None:
        self._gathered: dict[str, list[_Link]] = {}
        self._count = 0

    def process(
        self, grouped: tuple[str, Iterable[WebPage]]
    ) -> Iterator[tuple[str, WebPage] | Tagged]:
        url, records = grouped
        chosen = choose_and_link(records, self._config, self._cleaner)
        if chosen is None:
            return
        yield url, chosen.record
        gathered = self._gathered
        for target, inlink in chosen.links:
            link = (
                inlink.source,
                inlink.anchor,
                inlink.score,
                inlink.distance,
                inlink.zone,
            )
            gathered.setdefault(target, []).append(link)
        if chosen.rejected:
            self.rejected.inc(chosen.rejected)
        self._count += len(chosen.links) + chosen.rejected
        if self._count >= self.MAX_GATHERED:
            for target_links in self._given_out():
                yield TaggedOutput("links", target_links)

    def finish_bundle(self) -> Iterator[Tagged]:
        for target_links in self._given_out():
            yield TaggedOutput("links", GlobalWindows.windowed_value(target_links))

    def _given_out(self) -> Iterator[tuple[str, list[_Link]]]:
        gathered, self._gathered, self._count = self._gathered, {}, 0
        yield from gathered.items()


class _UpdateFn(beam.DoFn):
    added = Metrics.counter(NAMESPACE, "urls_added")
    dropped = Metrics.counter(NAMESPACE, "urls_dropped")

    def __init__(self, config: UpdateConfig, now_ms: int) -> None:
        self._config = config
        self._now_ms = now_ms

    def process(
        self, joined: tuple[str, dict[str, Iterable[object]]]
    ) -> Iterator[WebPage]:
        url, groups = joined
        old = latest(groups["old"])  # type: ignore[arg-type]
        fetched = latest(groups["fetched"])  # type: ignore[arg-type]
        inlinks = [
            Inlink._make(link)
            for gathered in groups["links"]
            for link in gathered  # type: ignore[attr-defined]
        ]
        page = update_page(url, old, fetched, inlinks, self._config, self._now_ms)
        if page is None:
            self.dropped.inc()
            return
        if old is None:
            self.added.inc()
        Metrics.counter(STATUS_NAMESPACE, crawl_status_label(page["status"])).inc()
        yield page


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl updatedb CRAWLDB SEGMENT...``: install the updated crawldb."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: UpdateRequest, job: Job) -> int:
    """The checked request (``pipelines.cli``): install the updated crawldb."""
    values = execute(request, job)
    print(f"CrawlDb update: {describe(values)}", file=sys.stderr)
    return 0


def execute(request: UpdateRequest, job: Job) -> dict[str, int]:
    """Fold the request's segments into its crawldb; returns the counters."""
    config, crawldb = request.config, request.crawldb
    UrlCleaner(config.urls, "crawldb")  # a bad rule file fails here
    segments = _segments(request.segments, request.segment_dirs)
    with versions.replacing(
        crawldb, keep_backup=config.keep_backup, force=request.force
    ) as db:
        result = _update(job, config, db, segments)
    return {**counters(result, NAMESPACE), **counters(result, STATUS_NAMESPACE)}


def _update(
    job: Job, config: UpdateConfig, db: versions.Replacement, segments: list[str]
) -> PipelineResult:
    """The new crawldb, merged bucket by bucket (``BucketedUpdate``)."""
    old_dir = db.current_dir
    if old_dir is None:
        raise CrawlError("no published crawldb version to update")
    layout = bucketfiles.next_layout(config.buckets, old_dir)
    with (
        bucketfiles.sorted_runs(db.new_dir) as runs,
        progress.shown(),
        job.pipeline() as pipeline,
    ):
        parts = [
            pipeline
            | f"Read{part.title()}{n}" >> io.ReadWebPages(partfiles.parts_pattern(path))
            | f"ShowProgress{part.title()}{n}" >> progress.ShowProgress("updatedb")
            for n, segment in enumerate(segments)
            for part in (FETCH, PARSE)
            if partfiles.has_parts(path := FileSystems.join(segment, part))
        ]
        _ = tuple(parts) | "UpdateDb" >> BucketedUpdate(
            config, now_ms(), old_dir, db.new_dir, layout, runs
        )
    bucketfiles.write_layout(
        db.new_dir, layout, bucketfiles.records_written(pipeline.result)
    )
    return pipeline.result


def _segments(segments: Sequence[str], segment_dirs: Sequence[str]) -> list[str]:
    found = list(segments)
    for segments_dir in segment_dirs:
        found += list_segments(segments_dir, (FETCH,))
    fetched = [s for s in found if partfiles.has_parts(FileSystems.join(s, FETCH))]
    missing = sorted(set(found) - set(fetched))
    if missing:
        raise CrawlError(f"segment {missing[0]} is not fetched (no {FETCH}/ in it)")
    if not fetched:
        raise CrawlError("no segments given: name them, or --dir SEGMENTS_DIR")
    return fetched


if __name__ == "__main__":  # as `beamcrawl updatedb`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["updatedb", *sys.argv[1:]]))
