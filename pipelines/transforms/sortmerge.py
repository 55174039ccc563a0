"""Sort-merge by bucket: bring records into a bucketed crawldb's order, bounded.

:class:`SortIntoBuckets` is the shuffle a bucketed updatedb or invertlinks
needs, without a ``GroupByKey`` over the records: each worker gathers
items ``(url, ...)`` in a buffer (sized to spill about ``RUN_BYTES``, at
most ``buffer_items`` items and ``BUFFER_BYTES`` pickled), and spills it as one
sorted run file (:mod:`crawllib.db.sortedruns`) under ``runs_dir``; only
the runs' byte ranges, a few per bucket, are grouped by bucket. A bucket's
merge then reads its ranges from every run (:func:`bucket_items`), in URL
order, a chunk and a frame of each at a time. Memory is the buffer plus
a chunk and a frame per run, whatever the number of records; the runs are
the job's scratch files (delete ``runs_dir`` when it ends).

The idea is Spotify Scio's sort-merge-bucket joins, and Hadoop's map-side
spills: the crawldb's own buckets are already sorted, so only the round's
records are sorted, and nothing is held whole.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection
from apache_beam.transforms.window import GlobalWindows
from apache_beam.utils.windowed_value import WindowedValue

from crawllib.db import sortedruns
from crawllib.db.buckets import Bucketing
from crawllib.db.sortedruns import Item
from crawllib.webpage import WebPage
from pipelines.runtime.hints import NoExpandHints
from pipelines.storage import bucketfiles, fs

NAMESPACE = "SortMerge"

RunRange = tuple[str, int, int]
"""Where one run holds one bucket: (run file, start byte, end byte)."""

BUFFER_ITEMS = 200_000
"""At most the items a worker gathers before it spills them as a sorted run."""
RUN_BYTES = 16 * 1024 * 1024
"""About the size of one run file: a worker sizes its buffer from its last run
(a crawldb record with its outlinks takes a hundred times a link's bytes)."""
BUFFER_BYTES = 32 * 1024 * 1024
"""At most the bytes a worker's buffered items take pickled (about a third to an
eighth of what they hold in memory): records that compress well (a segment's
fetch records: 19 bytes compressed, ~300 pickled, over 1 KB in memory) would
otherwise fill 200,000 items of buffer for one 16 MiB run."""
FIRST_RUN_ITEMS = 10_000
"""The items of a worker's first run, before it knows their size."""


class SortIntoBuckets(
    NoExpandHints, beam.PTransform[Any, PCollection[tuple[int, list[RunRange]]]]
):
    """Items ``(url, ...)`` to ``(bucket, its run ranges)`` for every bucket.

    Apply it to one PCollection of items or to a tuple of several:
    each is spilled where it is made, never gathered first (a ``Flatten``
    of several stages would be held whole by the DirectRunner). Every bucket
    of ``layout`` appears once, with no ranges when no item fell in it, so
    that a merge writes every bucket file. Counters (``SortMerge``):
    ``items_spilled``, ``runs_written``.
    """

    def __init__(
        self,
        layout: Bucketing,
        runs_dir: str,
        buffer_items: int = BUFFER_ITEMS,
        buffer_bytes: int = BUFFER_BYTES,
    ) -> None:
        super().__init__()
        self._layout = layout
        self._runs_dir = runs_dir
        self._buffer_items = buffer_items
        self._buffer_bytes = buffer_bytes

    def expand(
        self, items: PCollection[Item] | Sequence[PCollection[Item]]
    ) -> PCollection[tuple[int, list[RunRange]]]:
        inputs = [items] if isinstance(items, PCollection) else list(items)
        spill = _SpillFn(
            self._layout, self._runs_dir, self._buffer_items, self._buffer_bytes
        )
        ranges = [
            found | f"SpillRuns{n}" >> beam.ParDo(spill)
            for n, found in enumerate(inputs)
        ]
        every = (
            inputs[0].pipeline
            | "EveryBucket" >> beam.Create(range(self._layout.count))
            | "NoRanges" >> beam.Map(lambda bucket: (bucket, None))
        )
        return (
            [*ranges, every]
            | "RangesAndBuckets" >> beam.Flatten()
            | "GroupByBucket" >> beam.GroupByKey()
            | "SortRanges" >> beam.MapTuple(_ranges_of)
        )


def _ranges_of(
    bucket: int, found: Iterable[RunRange | None]
) -> tuple[int, list[RunRange]]:
    return bucket, sorted(found_range for found_range in found if found_range)


MERGE_READ_BYTES = 32 * 1024 * 1024
"""About what a bucket's merge holds of its run ranges at once, shared among them."""
MIN_READ_BYTES = 256 * 1024
"""The least a merge fetches of a range at once (a range this size or smaller:
whole), so a merge of very many ranges does not read them in tiny pieces."""


def bucket_items(
    ranges: Iterable[RunRange], read_bytes: int = MERGE_READ_BYTES
) -> Iterator[Item]:
    """The items of one bucket, from all its run ranges, sorted by URL.

    Equal URLs come in the order of ``ranges`` (run file name, then offset).
    Each range is read lazily, a chunk at a time (``read_bytes`` shared
    among the ranges, at least ``MIN_READ_BYTES``), each chunk one
    exact range request to an object store: a merge holds a chunk of each
    range, not the bucket's items, however many they are.
    """
    ranges = list(ranges)
    chunk_bytes = max(MIN_READ_BYTES, read_bytes // max(len(ranges), 1))
    streams = [
        sortedruns.read_range(
            fs.RangeReader(path, start, end, chunk_bytes), 0, end - start
        )
        for path, start, end in ranges
    ]
    yield from sortedruns.merge_runs(streams)


class _SpillFn(beam.DoFn):
    """Buffer items by bucket; spill each full buffer as one sorted run."""

    spilled = Metrics.counter(NAMESPACE, "items_spilled")
    runs = Metrics.counter(NAMESPACE, "runs_written")

    def __init__(
        self, layout: Bucketing, runs_dir: str, buffer_items: int, buffer_bytes: int
    ) -> None:
        self._layout = layout
        self._runs_dir = runs_dir
        self._buffer_items = buffer_items
        self._buffer_bytes = buffer_bytes

    def setup(self) -> None:
        self._limit = min(FIRST_RUN_ITEMS, self._buffer_items)

    def start_bundle(self) -> None:
        self._buffer: dict[int, list[Item]] = {}
        self._count = 0

    def process(self, item: Item) -> Iterator[tuple[int, RunRange]]:
        # one bucket: any sortable first part (a rank), not only a URL
        bucket = self._layout.bucket_of(item[0]) if self._layout.count > 1 else 0
        self._buffer.setdefault(bucket, []).append(item)
        self._count += 1
        if self._count >= self._limit:
            yield from self._spill()

    def finish_bundle(self) -> Iterator[WindowedValue]:
        for spilled in self._spill():
            yield GlobalWindows.windowed_value(spilled)

    def _spill(self) -> Iterator[tuple[int, RunRange]]:
        buffer, count = self._buffer, self._count
        self._buffer, self._count = {}, 0
        if not count:
            return
        path = FileSystems.join(self._runs_dir, f"run-{secrets.token_hex(8)}")
        with FileSystems.create(
            path, compression_type=CompressionTypes.UNCOMPRESSED
        ) as handle:
            ranges, pickled_bytes = sortedruns.spill(handle, buffer)
        run_bytes = max(end for _, end in ranges.values())
        fitting = min(
            RUN_BYTES * count // run_bytes,
            self._buffer_bytes * count // max(pickled_bytes, 1),
        )
        self._limit = min(self._buffer_items, max(100, fitting))
        self.spilled.inc(count)
        self.runs.inc()
        for bucket, (start, end) in ranges.items():
            yield bucket, (path, start, end)


def joined_bucket(
    bucket: int,
    ranges: Iterable[RunRange],
    layout: Bucketing,
    current: tuple[str, Bucketing] | None,
) -> Iterator[tuple[str, WebPage | None, list[Item]]]:
    """Bucket ``bucket``'s items merge-joined with its records, URL by URL.

    ``current`` is a bucketed version (its directory and layout, which may
    have another bucket count: :func:`~pipelines.storage.bucketfiles.read_bucket`).
    Yields ``(url, its record there or None, its items)`` for every URL of
    either side, in URL order; ``current`` None (a version not bucketed,
    its records sorted in as items): the items alone.
    """
    pages: Iterable[WebPage] = ()
    if current is not None:
        directory, stored = current
        pages = bucketfiles.read_bucket(directory, stored, bucket, layout)
    items = sortedruns.grouped(bucket_items(ranges))
    return sortedruns.join_sorted(pages, _page_url, items)


def _page_url(page: WebPage) -> str:
    return page["url"]
