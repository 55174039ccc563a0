"""``beamcrawl bucketdb DB [--buckets N]``: a crawldb or linkdb as sorted buckets.

Rewrites the current version of ``DB`` into ``N`` hash buckets, each one
part file sorted by URL (:mod:`pipelines.storage.bucketfiles`), and
publishes it as a new version. An unbucketed crawldb or linkdb is converted
by its next updatedb or invertlinks anyway; this converts it now, or moves
a bucketed one to another bucket count. The records do not change.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.pvalue import PCollection
from apache_beam.runners.runner import PipelineResult

from crawllib.db import sortedruns
from crawllib.db.buckets import Bucketing, bucket_count
from crawllib.db.sortedruns import Item
from crawllib.errors import CrawlError
from crawllib.webpage import WebPage
from pipelines.cli.bucketdb import BucketDbRequest as BucketDbRequest
from pipelines.cli.bucketdb import parser, request
from pipelines.runtime.options import Job, parse_job_args
from pipelines.storage import bucketfiles, fs, io, partfiles, versions
from pipelines.transforms.sortmerge import RunRange, SortIntoBuckets, bucket_items


class WriteBuckets(beam.PTransform[PCollection[WebPage], PCollection[int]]):
    """Pages, one per URL, to the bucket files of ``layout`` in ``new_dir``.

    ``runs_dir`` is scratch for the sorted runs. The output is the number
    of pages written per bucket; write the layout file once the pipeline is
    done.
    """

    def __init__(self, layout: Bucketing, new_dir: str, runs_dir: str) -> None:
        super().__init__()
        self._layout = layout
        self._new_dir = new_dir
        self._runs_dir = runs_dir

    def expand(self, pages: PCollection[WebPage]) -> PCollection[int]:
        return (
            pages
            | "AsItems" >> beam.Map(lambda page: (page["url"], page))
            | "SortByUrl" >> SortIntoBuckets(self._layout, self._runs_dir)
            | "WriteBuckets" >> beam.ParDo(_WriteFn(self._layout, self._new_dir))
        )


class _WriteFn(beam.DoFn):
    def __init__(self, layout: Bucketing, new_dir: str) -> None:
        self._layout = layout
        self._new_dir = new_dir

    def process(self, bucket_ranges: tuple[int, list[RunRange]]) -> Iterator[int]:
        bucket, ranges = bucket_ranges
        pages = _first_of_each(bucket_items(ranges))
        yield bucketfiles.write_bucket(self._new_dir, bucket, self._layout, pages)


def _first_of_each(items: Iterator[Item]) -> Iterator[WebPage]:
    for _, same_url in sortedruns.grouped(items):
        yield same_url[0][1]


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl bucketdb``: rewrite the database as buckets; print what it did."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: BucketDbRequest, job: Job) -> int:
    """The checked request (``pipelines.cli``): rewrite, or say it is done already."""
    print(f"bucketdb: {execute(request, job)}", file=sys.stderr)
    return 0


def execute(request: BucketDbRequest, job: Job) -> str:
    """Rewrite the request's database as buckets; returns a one-line summary.

    A database in the wanted layout already is left as it is.
    """
    try:
        with versions.replacing(
            request.db, keep_backup=request.keep_backup, force=request.force
        ) as db:
            current = db.current_dir
            if current is None:  # replacing requires a published version
                raise CrawlError(f"no published version in {request.db}")
            now = bucketfiles.read_layout(current)
            wanted = request.buckets or bucket_count(
                bucketfiles.estimated_records(current)
            )
            if now == Bucketing(wanted):
                raise _AlreadyBucketed(f"{request.db} has {wanted} buckets already")
            _rewrite(job, current, db.new_dir, Bucketing(wanted))
    except _AlreadyBucketed as done:
        return str(done)
    was = "unbucketed" if now is None else f"{now.count} buckets"
    return f"{request.db}: {was} -> {wanted} buckets"


class _AlreadyBucketed(Exception):
    """Nothing to do: the new version is dropped, the current one stays."""


def _rewrite(job: Job, current: str, new_dir: str, layout: Bucketing) -> PipelineResult:
    partfiles.check_parts(partfiles.parts_pattern(current))
    runs = FileSystems.join(new_dir, bucketfiles.RUNS_DIR)
    try:
        with job.pipeline() as pipeline:
            _ = (
                pipeline
                | "ReadDb" >> io.ReadWebPages(partfiles.parts_pattern(current))
                | "Buckets" >> WriteBuckets(layout, new_dir, runs)
            )
    finally:
        fs.remove_dir(runs)
    bucketfiles.write_layout(
        new_dir, layout, bucketfiles.records_written(pipeline.result)
    )
    return pipeline.result


if __name__ == "__main__":  # as `beamcrawl bucketdb`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["bucketdb", *sys.argv[1:]]))
