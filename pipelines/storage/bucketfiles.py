"""Bucketed versions on disk: one sorted WebPage Avro file per hash bucket.

A bucketed crawldb (or linkdb) version is an ordinary version directory
(:mod:`pipelines.storage.versions`) whose part files are its buckets::

    <db>/versions/<id>/part-BBBBB-of-NNNNN.avro   bucket B of N, sorted by URL
    <db>/versions/<id>/buckets.json               {"buckets": N, "hash": "crc32-utf8"}

Every file is still plain WebPage Avro that any reader takes as before; each
also names its bucket in its Avro header (``beamcrawl.bucket`` = ``B/N``,
``beamcrawl.bucket.hash``). ``buckets.json`` is written after every bucket
file and before the version is published: a version without it is read as
unbucketed (:mod:`crawllib.db.buckets` has the layout itself).
"""

from __future__ import annotations

import contextlib
import heapq
import json
from collections.abc import Iterable, Iterator
from typing import Any

import fastavro.write
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.runners.runner import PipelineResult

from crawllib.avro import blocks as avroblocks
from crawllib.avro import deflate as avrodeflate
from crawllib.avro import encode as avroencode
from crawllib.db.buckets import Bucketing, choose_layout
from crawllib.webpage import WebPage, schema
from pipelines.runtime.options import counters
from pipelines.storage import fs, partfiles

LAYOUT_FILE = "buckets.json"
RUNS_DIR = "_runs"
"""A new version's scratch directory for sorted runs, removed before it is published."""
BYTES_PER_RECORD = 128
"""A low guess of a crawldb record's size in a part file, to estimate counts."""
BUCKET_KEY = "beamcrawl.bucket"
HASH_KEY = "beamcrawl.bucket.hash"
NAMESPACE = "Buckets"
WRITTEN = "records_written"
"""The counter of records written to bucket files (:func:`write_bucket`)."""
_WRITTEN = Metrics.counter(NAMESPACE, WRITTEN)
_SYNC_INTERVAL = 256 * 1024
_DEFLATE_LEVEL = 1


def bucket_path(directory: str, bucket: int, count: int) -> str:
    """The part file of ``bucket`` of ``count`` in a version directory."""
    name = f"{partfiles.PART_PREFIX}-{bucket:05d}-of-{count:05d}{partfiles.PART_SUFFIX}"
    return FileSystems.join(directory, name)


def next_layout_for_new(configured: int, sources: list[str]) -> Bucketing:
    """The layout of a new linkdb inverted from ``sources`` (parse directories).

    Its records are guessed from the sources' part files: one a
    :data:`BYTES_PER_RECORD` bytes (the benchmark's segments, 30 outlinks a
    page, make one a 106 bytes; pages with their text make fewer).
    """
    size = sum(
        size
        for source in sources
        for _, size in partfiles.part_paths(partfiles.parts_pattern(source))
    )
    return choose_layout(configured, size // BYTES_PER_RECORD, None)


def records_written(result: PipelineResult) -> int | None:
    """The records a pipeline wrote to bucket files; None if its runner cannot say."""
    return counters(result, NAMESPACE).get(WRITTEN)


def estimated_records(directory: str) -> int:
    """How many records the version in ``directory`` holds.

    As its ``buckets.json`` says, else guessed from the part files' size.
    """
    recorded = _layout_values(directory).get("records")
    if isinstance(recorded, int) and not isinstance(recorded, bool):
        return recorded
    sizes = partfiles.part_paths(partfiles.parts_pattern(directory))
    return sum(size for _, size in sizes) // BYTES_PER_RECORD


@contextlib.contextmanager
def sorted_runs(new_dir: str) -> Iterator[str]:
    """The scratch directory for a new version's sorted runs, removed at the end."""
    path = FileSystems.join(new_dir, RUNS_DIR)
    try:
        yield path
    finally:
        fs.remove_dir(path)


def next_layout(configured: int, current_dir: str | None) -> Bucketing:
    """The layout of the version that replaces ``current_dir`` (None: none yet).

    ``configured`` is ``db.buckets`` / ``linkdb.buckets`` (0: from the size);
    see :func:`crawllib.db.buckets.choose_layout`.
    """
    if current_dir is None:
        return choose_layout(configured, 0, None)
    return choose_layout(
        configured, estimated_records(current_dir), read_layout(current_dir)
    )


def read_layout(directory: str) -> Bucketing | None:
    """The layout of the version in ``directory``; None if it is not bucketed.

    Raises:
        ValueError: a ``buckets.json`` this beamcrawl cannot read.
    """
    values = _layout_values(directory)
    return Bucketing.from_json(values) if values else None


def _layout_values(directory: str) -> dict[str, Any]:
    path = FileSystems.join(directory, LAYOUT_FILE)
    if not FileSystems.exists(path):
        return {}
    with fs.open_raw(path) as handle:
        values = json.loads(bytes(handle.read()).decode("utf-8"))
    if not isinstance(values, dict):
        raise ValueError(f"{path}: not a layout")
    return values


def write_layout(directory: str, layout: Bucketing, records: int | None = None) -> None:
    """Record ``layout`` in ``directory``: after its bucket files, before publishing.

    ``records``, the number of records written (:func:`records_written`),
    is recorded too when known, for the next job's :func:`estimated_records`.
    """
    values: dict[str, object] = dict(layout.as_json())
    if records is not None:
        values["records"] = records
    path = FileSystems.join(directory, LAYOUT_FILE)
    with FileSystems.create(
        path, compression_type=CompressionTypes.UNCOMPRESSED
    ) as handle:
        handle.write(json.dumps(values, sort_keys=True).encode("utf-8"))


def read_pages(path: str) -> Iterator[WebPage]:
    """The records of one Avro part file, in file order."""
    with fs.open_raw(path) as handle:
        yield from avroblocks.records(handle)


MAX_SPLIT = 4
"""At most how many new buckets :func:`readable_by` lets read one stored bucket."""


def readable_by(stored: Bucketing | None, layout: Bucketing) -> bool:
    """Whether merges into ``layout`` read a version bucketed by ``stored``.

    With :func:`read_bucket`: the same count or fewer new buckets (each
    stored file read once), or up to :data:`MAX_SPLIT` times more (each read
    that many times). Else, and when the version is not bucketed, the merge
    sorts its records in instead.
    """
    return stored is not None and layout.count <= stored.count * MAX_SPLIT


def read_bucket(
    directory: str, stored: Bucketing, bucket: int, layout: Bucketing
) -> Iterator[WebPage]:
    """Bucket ``bucket`` of ``layout``, sorted, from a version bucketed by ``stored``.

    ``stored`` may have another count (a power of two, the same hash).
    Fewer stored buckets: the one that holds the bucket, its other URLs
    skipped; more: the ``stored.count / layout.count`` that split it, merged.
    """
    sources = layout.sources(bucket, stored)
    streams = [read_pages(bucket_path(directory, s, stored.count)) for s in sources]
    if stored.count < layout.count:
        return (page for page in streams[0] if layout.bucket_of(page["url"]) == bucket)
    if len(streams) == 1:
        return streams[0]
    return heapq.merge(*streams, key=lambda page: page["url"])


def write_bucket(
    directory: str, bucket: int, layout: Bucketing, pages: Iterable[WebPage]
) -> int:
    """Write bucket ``bucket`` of ``layout`` (pages sorted by URL); the count.

    The file replaces any earlier attempt at the same bucket whole.
    """
    path = bucket_path(directory, bucket, layout.count)
    written = 0
    with FileSystems.create(
        path, compression_type=CompressionTypes.UNCOMPRESSED
    ) as handle:
        writer = fastavro.write.Writer(
            handle,
            schema(),
            "deflate",
            sync_interval=_SYNC_INTERVAL,
            metadata={
                BUCKET_KEY: f"{bucket}/{layout.count}",
                HASH_KEY: layout.hash,
            },
            compression_level=_DEFLATE_LEVEL,
        )
        writer.block_writer = avrodeflate.block_writer()
        blocks = avroencode.EncodedBlocks(writer, avroencode.encode_webpage)
        for page in pages:
            blocks.write(page)
            written += 1
        blocks.end_block()
        writer.flush()
    _WRITTEN.inc(written)
    return written
