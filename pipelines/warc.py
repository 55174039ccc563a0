"""``beamcrawl warc OUT_DIR (SEGMENT... | --dir SEGMENTS)``: segments to WARC files.

:class:`WarcRecords` turns fetched WebPages into their WARC records
(:mod:`crawllib.index.warc`); :class:`WriteWarc` writes them into gzipped WARC/1.1
files, each opened by a ``warcinfo`` record and rolled at a size limit.
Both can be applied in a user's own pipeline::

    pages | WarcRecords(config) | ...            # records as bytes, per fetch
    pages | WriteWarc(out_dir, config, now_ms)    # file paths

``run`` writes the files into a staging directory ``OUT_DIR/.warc-*.tmp``
and moves the ones the successful job listed into ``OUT_DIR`` afterwards, so
a killed job leaves no file that looks complete, and files of a failed
attempt are never published. Names are
``beamcrawl-<yyyyMMddHHmmss>-<shard>-<serial>-<token>.warc.gz``: the token is
new for every shard written, so no two workers, attempts or runs collide.
"""

from __future__ import annotations

import posixpath
import secrets
import sys
import time
import zlib
from collections.abc import Iterable, Iterator, Sequence
from typing import BinaryIO

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection

from crawllib.config import CrawlConfig, step_config
from crawllib.config.warc import WarcConfig
from crawllib.index import warc
from crawllib.index.warc import FetchRecords, NoRecord
from crawllib.terminal import printable
from crawllib.webpage import WebPage
from pipelines.cli.warc import WarcRequest as WarcRequest
from pipelines.cli.warc import parser, request
from pipelines.runtime.options import (
    Job,
    counters,
    describe,
    now_ms,
    parse_job_args,
)
from pipelines.storage import fs, io, partfiles, paths
from pipelines.storage.segments import FETCH, part_dirs

NAMESPACE = "WARC"
RECORD_TYPES = ("warcinfo", "request", "response", "revisit", "resource")
FILES = "files"
SUFFIX = ".warc.gz"


class WarcRecords(beam.PTransform[PCollection[WebPage], PCollection[FetchRecords]]):
    """Fetched WebPages to their WARC records, one :class:`FetchRecords` per fetch.

    Counters, namespace ``WARC``: one per record type written (``request``,
    ``response``, ``revisit``, ``resource``) and one per reason a page gives
    none (:class:`~crawllib.index.warc.NoRecord`: ``skipped_not_fetched``,
    ``skipped_not_http``, ``skipped_no_response``,
    ``skipped_no_stored_headers``).
    """

    def __init__(self, config: WarcConfig | CrawlConfig) -> None:
        super().__init__()
        self._config = step_config(config, WarcConfig)

    def expand(self, pages: PCollection[WebPage]) -> PCollection[FetchRecords]:
        return pages | "ToRecords" >> beam.ParDo(_RecordsFn(self._config))


class WriteWarc(beam.PTransform[PCollection[WebPage], PCollection[str]]):
    """Fetched WebPages into ``.warc.gz`` files in ``directory``; their paths.

    The records go to ``shards`` groups by URL; each group is written to
    files of about ``config.max_size`` bytes, each starting with a
    ``warcinfo`` record dated ``date_ms`` (default: when the transform is
    made). A fetch's records stay together
    in one file. Counters as :class:`WarcRecords`, plus ``warcinfo`` and
    ``files``.
    """

    def __init__(
        self,
        directory: str,
        config: WarcConfig | CrawlConfig,
        date_ms: int | None = None,
        shards: int = 1,
    ) -> None:
        super().__init__()
        self._directory = directory
        self._config = step_config(config, WarcConfig)
        self._date_ms = now_ms() if date_ms is None else date_ms
        self._shards = shards

    def expand(self, pages: PCollection[WebPage]) -> PCollection[str]:
        shards = self._shards
        return (
            pages
            | "Records" >> WarcRecords(self._config)
            | "KeyByShard" >> beam.Map(lambda r: (_shard(r.url, shards), r))
            | "GroupByShard" >> beam.GroupByKey()
            | "WriteFiles"
            >> beam.ParDo(_WriteFilesFn(self._directory, self._config, self._date_ms))
        )


def _shard(url: str, shards: int) -> int:
    return zlib.crc32(url.encode("utf-8")) % shards


class _RecordsFn(beam.DoFn):
    def __init__(self, config: WarcConfig) -> None:
        self._config = config

    def setup(self) -> None:
        self._counters = {
            name: Metrics.counter(NAMESPACE, name)
            for name in (*RECORD_TYPES, *(reason.value for reason in NoRecord))
        }

    def process(self, page: WebPage) -> Iterator[FetchRecords]:
        records = warc.fetch_records(page, self._config)
        if isinstance(records, NoRecord):
            self._counters[records.value].inc()
            return
        for record_type in records.types:
            self._counters[record_type].inc()
        yield records


class _WriteFilesFn(beam.DoFn):
    warcinfos = Metrics.counter(NAMESPACE, "warcinfo")
    files = Metrics.counter(NAMESPACE, FILES)

    def __init__(self, directory: str, config: WarcConfig, date_ms: int) -> None:
        self._directory = directory
        self._config = config
        self._date_ms = date_ms

    def process(
        self, shard_records: tuple[int, Iterable[FetchRecords]]
    ) -> Iterator[str]:
        shard, records = shard_records
        token = secrets.token_hex(4)
        stamp = time.strftime("%Y%m%d%H%M%S", time.gmtime(self._date_ms // 1000))
        serial, size, path = 0, 0, ""
        out: BinaryIO | None = None
        for fetch in records:
            if out is None:
                name = f"beamcrawl-{stamp}-{shard:05d}-{serial:05d}-{token}{SUFFIX}"
                path = FileSystems.join(self._directory, name)
                out = self._open(path)
                size = _write(
                    out, warc.warcinfo_record(name, self._config, self._date_ms)
                )
                self.warcinfos.inc()
            size += _write(out, fetch.data)
            if size >= self._config.max_size:
                out.close()
                out, serial = None, serial + 1
                yield path
        if out is not None:
            out.close()
            yield path

    def _open(self, path: str) -> BinaryIO:
        self.files.inc()
        return FileSystems.create(
            path,
            mime_type="application/warc",
            compression_type=CompressionTypes.UNCOMPRESSED,  # already gzip members
        )


def _write(out: BinaryIO, data: bytes) -> int:
    out.write(data)
    return len(data)


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl warc``: write the segments' fetches as WARC; print a summary."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: WarcRequest, job: Job) -> int:
    """Run a request the command line built and checked (``pipelines.cli``)."""
    summary = execute(request, job)
    files, size = summary.pop("files_written"), summary.pop("bytes_written")
    records = sum(summary.get(name, 0) for name in RECORD_TYPES)
    print(
        f"WARC: {files} files, {records} records, {size} bytes in "
        f"{printable(request.out_dir)} ({describe(summary)})",
        file=sys.stderr,
    )
    return 0


def execute(request: WarcRequest, job: Job) -> dict[str, int]:
    """Export the request's segments; its counters and what it wrote.

    Besides the ``WARC`` counters: ``files_written`` and ``bytes_written``,
    the files moved into ``OUT_DIR`` and their total size.
    """
    sources = part_dirs(
        list(request.segments), list(request.segment_dirs), FETCH, "warc"
    )
    for source in sources:
        partfiles.check_parts(partfiles.parts_pattern(source))
    out_dir = request.out_dir
    staging = FileSystems.join(out_dir, f".warc-{secrets.token_hex(4)}.tmp")
    listing = FileSystems.join(staging, "_files")
    try:
        with job.pipeline() as pipeline:
            _ = (
                pipeline
                | "ListFetches"
                >> beam.Create([partfiles.parts_pattern(s) for s in sources])
                | "ReadFetches" >> io.read_all_avro()
                | "WriteWarc"
                >> WriteWarc(staging, request.config, now_ms(), request.num_shards)
                | "ListFiles" >> io.WriteText(listing, shard_name_template="")
            )
        written = _publish(fs.read_lines(paths.escape(listing)), out_dir)
    finally:
        fs.remove_dir(staging)
    values = counters(pipeline.result, NAMESPACE)
    values["files_written"] = len(written)
    values["bytes_written"] = sum(written.values())
    return values


def _publish(files: list[str], out_dir: str) -> dict[str, int]:
    """Move the listed files from staging into ``out_dir``; their sizes by path."""
    if not files:
        return {}
    if fs.is_local(out_dir) and not fs.dir_exists(out_dir):
        FileSystems.mkdirs(out_dir)
    targets = [FileSystems.join(out_dir, posixpath.basename(path)) for path in files]
    FileSystems.rename(files, targets)
    found = [paths.match(paths.escape(target), limit=1)[0] for target in targets]
    return {meta.path: meta.size_in_bytes for meta in found}


if __name__ == "__main__":  # as `beamcrawl warc`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["warc", *sys.argv[1:]]))
