"""updatedb by sort-merge-bucket: the crawldb merged bucket by bucket, never shuffled.

:class:`BucketedUpdate` writes the new crawldb version as the buckets of a
:class:`~crawllib.db.buckets.Bucketing`, with the records
:class:`pipelines.updatedb.UpdateDb` gives, in two sorted passes over the
round's records only:

1. the segment records (without content) sorted by their URL: per URL the
   record updatedb chooses, and its outlinks as OPIC-scored links;
2. the chosen records sorted by URL and the links by target, merged with the
   old crawldb's bucket, which is already sorted: ``update_page`` per URL,
   the bucket written as it goes.

A crawldb bucketed by another count is read by the new buckets
(:func:`~pipelines.storage.bucketfiles.read_bucket`: two old ones merged
into one, or one split); one not bucketed yet is read whole and sorted
into the new buckets along with the round's records: its next update
converts it. Memory is a sort buffer and one URL's records;
the crawldb is never a ``GroupByKey``'s input.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PBegin, PCollection

from crawllib.config import UpdateConfig
from crawllib.db import sortedruns
from crawllib.db.buckets import Bucketing
from crawllib.db.sortedruns import Item
from crawllib.db.updatedb import (
    Inlink,
    choose_and_link,
    link_cleaner,
    update_page,
)
from crawllib.status import crawl_status_label
from crawllib.webpage import WebPage, latest
from pipelines.runtime.hints import NoExpandHints
from pipelines.storage import bucketfiles, io, partfiles
from pipelines.transforms.sortmerge import (
    RunRange,
    SortIntoBuckets,
    bucket_items,
    joined_bucket,
)

NAMESPACE = "CrawlDB"
STATUS_NAMESPACE = "CrawlDBStatus"

_FETCHED, _LINK, _OLD = 0, 1, 2
"""Kinds of the items sorted in pass 2: ``(url, kind, value)``."""


class BucketedUpdate(NoExpandHints, beam.PTransform[Any, PCollection[int]]):
    """Segment records to the new crawldb's bucket files in ``new_dir``.

    Apply it to the records, or to a tuple of PCollections of them (each
    segment part as read: they are sorted where they are read).

    ``old_dir`` is the current version's directory (bucketed or not);
    ``runs_dir`` a scratch directory for the sorted runs. The output is the
    number of records written per bucket; write the layout file
    (:func:`~pipelines.storage.bucketfiles.write_layout`) when the pipeline
    succeeded. Counters are :class:`~pipelines.updatedb.UpdateDb`'s.
    """

    def __init__(
        self,
        config: UpdateConfig,
        now_ms: int,
        old_dir: str,
        new_dir: str,
        layout: Bucketing,
        runs_dir: str,
    ) -> None:
        super().__init__()
        self._config = config
        self._now_ms = now_ms
        self._old_dir = old_dir
        self._new_dir = new_dir
        self._layout = layout
        self._runs_dir = runs_dir

    def expand(
        self, records: PCollection[WebPage] | Sequence[PCollection[WebPage]]
    ) -> PCollection[int]:
        layout, runs = self._layout, self._runs_dir
        parts = [records] if isinstance(records, PCollection) else list(records)
        keyed = tuple(
            part | f"KeyRecords{n}" >> beam.Map(_keyed_without_bulk)
            for n, part in enumerate(parts)
        )
        chosen = (
            keyed
            | "SortRecords"
            >> SortIntoBuckets(layout, FileSystems.join(runs, "records"))
            | "ChooseAndLink" >> beam.ParDo(_ChooseAndLinkFn(self._config))
        )
        stored = bucketfiles.read_layout(self._old_dir)
        if not bucketfiles.readable_by(stored, layout):
            stored = None  # sorted in instead
        sorted_in: tuple[PCollection[Item], ...] = (chosen,)
        if stored is None:
            pipeline = parts[0].pipeline
            old = pipeline | "ReadOldCrawlDb" >> _ReadOld(self._old_dir)
            sorted_in = (chosen, old)
        return (
            sorted_in
            | "SortByUrl" >> SortIntoBuckets(layout, FileSystems.join(runs, "update"))
            | "MergeBuckets"
            >> beam.ParDo(
                _MergeFn(
                    self._config,
                    self._now_ms,
                    (self._old_dir, stored) if stored else None,
                    self._new_dir,
                    layout,
                )
            )
        )


class _ReadOld(beam.PTransform[PBegin, PCollection[Item]]):
    """An unbucketed version's pages as pass-2 items."""

    def __init__(self, old_dir: str) -> None:
        super().__init__()
        self._old_dir = old_dir

    def expand(self, begin: PBegin) -> PCollection[Item]:
        return (
            begin
            | "Read" >> io.ReadWebPages(partfiles.parts_pattern(self._old_dir))
            | "AsItems" >> beam.Map(lambda page: (page["url"], _OLD, page))
        )


def _keyed_without_bulk(page: WebPage) -> Item:
    """``(url, record)`` without the content and text the crawldb never keeps."""
    return page["url"], {**page, "content": None, "text": None}


class _ChooseAndLinkFn(beam.DoFn):
    """Pass 1, one bucket: each URL's chosen record and its outlinks as links."""

    def __init__(self, config: UpdateConfig) -> None:
        self._config = config

    def setup(self) -> None:
        self._cleaner = link_cleaner(self._config)
        self._rejected = Metrics.counter(NAMESPACE, "links_rejected")

    def process(self, bucket_ranges: tuple[int, list[RunRange]]) -> Iterator[Item]:
        _, ranges = bucket_ranges
        rejected = 0
        for url, items in sortedruns.grouped(bucket_items(ranges)):
            records = (record for _, record in items)
            chosen = choose_and_link(records, self._config, self._cleaner)
            if chosen is None:
                continue
            yield url, _FETCHED, chosen.record
            for target, inlink in chosen.links:
                yield target, _LINK, tuple(inlink)
            rejected += chosen.rejected
        if rejected:
            self._rejected.inc(rejected)


class _MergeFn(beam.DoFn):
    """Pass 2, one bucket: the old bucket merged with the round's, written."""

    def __init__(
        self,
        config: UpdateConfig,
        now_ms: int,
        old: tuple[str, Bucketing] | None,
        new_dir: str,
        layout: Bucketing,
    ) -> None:
        self._config = config
        self._now_ms = now_ms
        self._old = old
        self._new_dir = new_dir
        self._layout = layout

    def process(self, bucket_ranges: tuple[int, list[RunRange]]) -> Iterator[int]:
        bucket, ranges = bucket_ranges
        counts: collections.Counter[str] = collections.Counter()
        joined = joined_bucket(bucket, ranges, self._layout, self._old)
        pages = self._updated(joined, counts)
        yield bucketfiles.write_bucket(self._new_dir, bucket, self._layout, pages)
        for name, count in counts.items():
            namespace, _, counter = name.partition(":")
            Metrics.counter(namespace, counter).inc(count)

    def _updated(
        self,
        joined: Iterator[tuple[str, WebPage | None, list[Item]]],
        counts: collections.Counter[str],
    ) -> Iterator[WebPage]:
        config, now_ms = self._config, self._now_ms
        for url, old, items in joined:
            fetched_records = [value for _, kind, value in items if kind == _FETCHED]
            inlinks = sorted(
                Inlink._make(value) for _, kind, value in items if kind == _LINK
            )
            olds = [value for _, kind, value in items if kind == _OLD]
            if olds:
                old = latest(olds)
            page = update_page(
                url, old, latest(fetched_records), inlinks, config, now_ms
            )
            if page is None:
                counts[f"{NAMESPACE}:urls_dropped"] += 1
                continue
            if old is None:
                counts[f"{NAMESPACE}:urls_added"] += 1
            counts[f"{STATUS_NAMESPACE}:{crawl_status_label(page['status'])}"] += 1
            yield page
