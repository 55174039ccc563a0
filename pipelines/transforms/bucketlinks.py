"""invertlinks bucket by bucket: the linkdb as sorted hash buckets.

The inlinks of the segments' parsed pages are keyed by their target, spilled
in sorted runs by bucket (:class:`~pipelines.transforms.sortmerge.SortIntoBuckets`)
and merged, one bucket at a time, with the current linkdb's records of
that bucket (its bucket file, or those of another bucket count that hold
them): a merge join of two sorted streams, so the linkdb is never shuffled
and a worker holds one target's inlinks at a time. A current linkdb not
bucketed is read and sorted in with the new inlinks instead.

Existing targets are normalized again, as Nutch's LinkDbFilter does; one
the normalizers now rename may belong in another bucket. So, when
normalizing, a first pass reads each current bucket, normalizes its targets
only and sorts the records of renamed ones in with the new inlinks (almost
always none); the merge then leaves those records out.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PBegin, PCollection

from crawllib.config import LinkDbConfig
from crawllib.db import invertlinks as linkdb
from crawllib.db.buckets import Bucketing
from crawllib.db.invertlinks import Inlink, InlinkSet, LinkInverter, LinkSkip
from crawllib.db.sortedruns import Item
from crawllib.webpage import WebPage
from pipelines.runtime.hints import NoExpandHints
from pipelines.storage import bucketfiles, io, partfiles
from pipelines.transforms.sortmerge import (
    RunRange,
    SortIntoBuckets,
    joined_bucket,
)

NAMESPACE = "LinkDb"
INVERTED = "inlinks_inverted"
WRITTEN = "urls_written"


class BucketedInvertLinks(
    NoExpandHints, beam.PTransform[tuple[PCollection[WebPage], ...], PCollection[int]]
):
    """Parsed pages to the new linkdb's bucket files (``InvertLinks``'s records).

    Apply it to a tuple of PCollections of parsed pages (each segment as
    read: each is inverted and sorted where it is read). ``current_dir`` is
    the current linkdb version's directory, or None; ``runs_dir`` a scratch
    directory for the sorted runs. The output is the number of records
    written per bucket; write the layout file
    (:func:`~pipelines.storage.bucketfiles.write_layout`) once the pipeline
    is done. Counters (``LinkDb``): those of ``InvertLinks``.
    """

    def __init__(
        self,
        config: LinkDbConfig,
        current_dir: str | None,
        new_dir: str,
        layout: Bucketing,
        runs_dir: str,
    ) -> None:
        super().__init__()
        self._config = config
        self._current_dir = current_dir
        self._new_dir = new_dir
        self._layout = layout
        self._runs_dir = runs_dir

    def expand(self, parsed: tuple[PCollection[WebPage], ...]) -> PCollection[int]:
        config, current, layout = self._config, self._current_dir, self._layout
        sorted_in = tuple(
            pages
            | f"Invert{n}" >> beam.ParDo(InvertFn(config))
            | f"AsItems{n}" >> beam.Map(inlink_item)
            for n, pages in enumerate(parsed)
        )
        stored = bucketfiles.read_layout(current) if current is not None else None
        merged = None
        if current is not None and stored and bucketfiles.readable_by(stored, layout):
            merged = (current, stored)
        pipeline = parsed[0].pipeline
        if current is not None and merged is None:
            sorted_in += (pipeline | "ReadLinkDb" >> _ReadCurrent(current, config),)
        elif merged is not None and config.normalize:
            sorted_in += (
                pipeline
                | "EveryCurrentBucket" >> beam.Create(range(layout.count))
                | "FindRenamed" >> beam.ParDo(_RenamedFn(config, merged, layout)),
            )
        return (
            sorted_in
            | "SortByTarget"
            >> SortIntoBuckets(layout, FileSystems.join(self._runs_dir, "links"))
            | "MergeBuckets"
            >> beam.ParDo(_MergeFn(config, merged, self._new_dir, layout))
        )


def inlink_item(target_inlink: tuple[str, Inlink]) -> Item:
    """``(target, (source, anchor, time))`` as a flat item to sort."""
    target, (source, anchor, time_ms) = target_inlink
    return target, source, anchor, time_ms


class _ReadCurrent(beam.PTransform[PBegin, PCollection[Item]]):
    """A linkdb version's records, checked again, as inlink items."""

    def __init__(self, current_dir: str, config: LinkDbConfig) -> None:
        super().__init__()
        self._current_dir = current_dir
        self._config = config

    def expand(self, begin: PBegin) -> PCollection[Item]:
        return (
            begin
            | "Read" >> io.ReadWebPages(partfiles.parts_pattern(self._current_dir))
            | "Recheck" >> beam.ParDo(RecheckFn(self._config))
            | "AsItems" >> beam.Map(inlink_item)
        )


class InvertFn(beam.DoFn):
    """A parsed page's outlinks as ``(target, inlink)`` (Nutch's LinkDbMapper)."""

    inverted = Metrics.counter(NAMESPACE, INVERTED)

    def __init__(self, config: LinkDbConfig) -> None:
        self._config = config

    def setup(self) -> None:
        self._inverter = LinkInverter(self._config)
        self._skips = {
            skip: Metrics.counter(NAMESPACE, skip.value) for skip in LinkSkip
        }

    def process(self, page: WebPage) -> Iterator[tuple[str, Inlink]]:
        if not linkdb.is_link_source(page):
            return
        for found in self._inverter.invert(
            page["url"], page["outlinks"], page["fetchTime"]
        ):
            if isinstance(found, LinkSkip):
                self._skips[found].inc()
            else:
                self.inverted.inc()
                yield found


class RecheckFn(beam.DoFn):
    """A linkdb record's inlinks checked again, as ``(target, inlink)``."""

    rejected = Metrics.counter(NAMESPACE, LinkSkip.EXISTING_REJECTED.value)

    def __init__(self, config: LinkDbConfig) -> None:
        self._config = config

    def setup(self) -> None:
        self._inverter = LinkInverter(self._config)

    def process(self, record: WebPage) -> Iterator[tuple[str, Inlink]]:
        for found in self._inverter.recheck(record["url"], record["inlinks"]):
            if isinstance(found, LinkSkip):
                self.rejected.inc()
            else:
                yield found


class _RenamedFn(beam.DoFn):
    """One current bucket: the inlinks of the targets the normalizers rename."""

    def __init__(
        self, config: LinkDbConfig, current: tuple[str, Bucketing], layout: Bucketing
    ) -> None:
        self._config = config
        self._current = current
        self._layout = layout

    def setup(self) -> None:
        self._inverter = LinkInverter(self._config)

    def process(self, bucket: int) -> Iterator[Item]:
        directory, stored = self._current
        for record in bucketfiles.read_bucket(directory, stored, bucket, self._layout):
            target = record["url"]
            renamed = self._inverter.clean(target)
            if renamed is not None and renamed != target:
                for found in self._inverter.recheck(target, record["inlinks"]):
                    if not isinstance(found, LinkSkip):  # counted by the merge
                        yield inlink_item(found)


class _MergeFn(beam.DoFn):
    """One bucket: the current linkdb's bucket merged with the new inlinks, written."""

    def __init__(
        self,
        config: LinkDbConfig,
        current: tuple[str, Bucketing] | None,
        new_dir: str,
        layout: Bucketing,
    ) -> None:
        self._config = config
        self._current = current
        self._new_dir = new_dir
        self._layout = layout

    def setup(self) -> None:
        self._inverter = LinkInverter(self._config)

    def process(self, bucket_ranges: tuple[int, list[RunRange]]) -> Iterator[int]:
        bucket, ranges = bucket_ranges
        counts: collections.Counter[str] = collections.Counter()
        joined = joined_bucket(bucket, ranges, self._layout, self._current)
        records = self._merged(joined, counts)
        yield bucketfiles.write_bucket(self._new_dir, bucket, self._layout, records)
        for name, count in counts.items():
            Metrics.counter(NAMESPACE, name).inc(count)

    def _merged(
        self,
        joined: Iterator[tuple[str, WebPage | None, list[Item]]],
        counts: collections.Counter[str],
    ) -> Iterator[WebPage]:
        max_inlinks = self._config.max_inlinks
        for target, record, items in joined:
            inlinks = InlinkSet(max_inlinks)
            if record is not None:
                for found in self._inverter.recheck(target, record["inlinks"]):
                    if isinstance(found, LinkSkip):
                        counts[LinkSkip.EXISTING_REJECTED.value] += 1
                    elif found[0] == target:  # else sorted in by _RenamedFn
                        inlinks.add(found[1])
            for _, source, anchor, time_ms in items:
                inlinks.add((source, anchor, time_ms))
            kept = inlinks.inlinks()
            if kept:
                counts[WRITTEN] += 1
                yield linkdb.linkdb_page(target, kept)
