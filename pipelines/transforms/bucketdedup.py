"""dedup bucket by bucket: a bucketed crawldb marked without a shuffle of it.

Three sorted passes, none holding more than a bucket: each crawldb bucket
gives the light ``(group, url, score, fetchTime)`` entries of its pages that
take part; they are sorted by group (into buckets by the group's hash) and
each group's duplicates chosen (:func:`crawllib.db.dedup.duplicates`); the
duplicate URLs are sorted into the crawldb's buckets and each bucket file
is rewritten with them marked, in the same layout.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PBegin, PCollection
from apache_beam.transforms.combiners import Count

from crawllib.db import dedup, sortedruns
from crawllib.db.buckets import Bucketing
from crawllib.db.dedup import DedupConfig
from crawllib.db.sortedruns import Item
from crawllib.status import CrawlStatus
from crawllib.webpage import WebPage
from pipelines.runtime.hints import NoExpandHints
from pipelines.storage import bucketfiles
from pipelines.transforms.sortmerge import (
    RunRange,
    SortIntoBuckets,
    bucket_items,
    joined_bucket,
)

NAMESPACE = "Dedup"
MARKED = "documents_marked_duplicate"


class BucketedDedup(
    NoExpandHints, beam.PTransform[PBegin | PCollection[Any], PCollection[int]]
):
    """A bucketed crawldb version to a new one with its duplicates marked.

    Apply it to the pipeline, or to a PCollection that is complete once
    ``current_dir``'s bucket files are (what
    :class:`~pipelines.transforms.bucketupdate.BucketedUpdate` outputs, for
    one pipeline that updates and deduplicates). ``current_dir`` holds the
    version (of ``layout``); the new bucket files go to ``new_dir`` (write
    the layout file there once the pipeline is done); ``runs_dir`` is
    scratch. ``each_page``, if given, is called with every page written.
    The records are :class:`~pipelines.dedup.Dedup`'s. The output is the
    number of records written per bucket. Counter (``Dedup``):
    ``documents_marked_duplicate``.
    """

    def __init__(
        self,
        config: DedupConfig,
        current_dir: str,
        new_dir: str,
        layout: Bucketing,
        runs_dir: str,
        each_page: Callable[[WebPage], object] | None = None,
    ) -> None:
        super().__init__()
        self._config = config
        self._current_dir = current_dir
        self._new_dir = new_dir
        self._layout = layout
        self._runs_dir = runs_dir
        self._each_page = each_page

    def expand(self, after: PBegin | PCollection[Any]) -> PCollection[int]:
        layout, runs = self._layout, self._runs_dir
        current, new_dir = self._current_dir, self._new_dir
        if isinstance(after, PBegin):
            buckets = after | "EveryBucket" >> beam.Create(range(layout.count))
        else:  # only once all of ``after`` is there
            buckets = (
                after
                | "WhenWritten" >> Count.Globally()
                | "EveryBucket" >> beam.FlatMap(lambda _: range(layout.count))
            )
        return (
            buckets
            | "ReadEntries" >> beam.ParDo(_EntriesFn(self._config, current, layout))
            | "SortByGroup" >> SortIntoBuckets(layout, FileSystems.join(runs, "groups"))
            | "ChooseDuplicates"
            >> beam.ParDo(_DuplicatesFn(self._config.compare_order))
            | "SortByUrl" >> SortIntoBuckets(layout, FileSystems.join(runs, "marks"))
            | "MarkBuckets"
            >> beam.ParDo(_MarkFn(current, new_dir, layout, self._each_page))
        )


class _EntriesFn(beam.DoFn):
    """One bucket: ``(group, url, score, fetchTime)`` of its pages taking part."""

    def __init__(
        self, config: DedupConfig, current_dir: str, layout: Bucketing
    ) -> None:
        self._group = config.group
        self._current_dir = current_dir
        self._layout = layout

    def process(self, bucket: int) -> Iterator[Item]:
        path = bucketfiles.bucket_path(self._current_dir, bucket, self._layout.count)
        for page in bucketfiles.read_pages(path):
            key = dedup.group_key(page, self._group)
            if key is not None:
                yield (key, *dedup.entry(page))


class _DuplicatesFn(beam.DoFn):
    """One bucket of groups: the URL of each page to mark, as ``(url,)``."""

    def __init__(self, order: tuple[dedup.Criterion, ...]) -> None:
        self._order = order

    def process(self, bucket_ranges: tuple[int, list[RunRange]]) -> Iterator[Item]:
        _, ranges = bucket_ranges
        for _, entries in sortedruns.grouped(bucket_items(ranges)):
            for url in dedup.duplicates((entry[1:] for entry in entries), self._order):
                yield (url,)


class _MarkFn(beam.DoFn):
    """One bucket: its file rewritten with the duplicates marked."""

    marked = Metrics.counter(NAMESPACE, MARKED)

    def __init__(
        self,
        current_dir: str,
        new_dir: str,
        layout: Bucketing,
        each_page: Callable[[WebPage], object] | None,
    ) -> None:
        self._current_dir = current_dir
        self._new_dir = new_dir
        self._layout = layout
        self._each_page = each_page

    def process(self, bucket_ranges: tuple[int, list[RunRange]]) -> Iterator[int]:
        bucket, ranges = bucket_ranges
        current = (self._current_dir, self._layout)  # dedup keeps the layout
        joined = joined_bucket(bucket, ranges, self._layout, current)
        yield bucketfiles.write_bucket(
            self._new_dir, bucket, self._layout, self._marked(joined)
        )

    def _marked(
        self, joined: Iterable[tuple[str, WebPage | None, list[Item]]]
    ) -> Iterator[WebPage]:
        for _, page, marks in joined:
            if page is None:  # a mark for a URL the bucket lacks: cannot happen
                continue
            if marks:
                self.marked.inc()
                page = {**page, "status": int(CrawlStatus.DUPLICATE)}
            if self._each_page is not None:
                self._each_page(page)
            yield page
