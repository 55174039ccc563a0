"""New pages merged into a crawldb bucket by bucket: inject's and sitemap's merge.

:class:`MergeIntoBuckets` writes a new crawldb version as the buckets of a
:class:`~crawllib.db.buckets.Bucketing`: per URL, a :class:`PageMerger`
turns the URL's new pages (seeds, sitemap entries) and its crawldb record
into its new record. Only the new pages are sorted (by URL, into the
buckets); each bucket of the current version, already sorted, is read as
it is merged (by the new layout's buckets, if its count is another). A
current version not bucketed (an older crawldb), or one whose URLs the
caller rewrites first
(``key_current``: a renamed URL may move to another bucket), is sorted in
as well: memory is a sort buffer still, never the crawldb.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

import apache_beam as beam
from apache_beam.pvalue import PCollection

from crawllib.db.buckets import Bucketing
from crawllib.db.sortedruns import Item
from crawllib.webpage import WebPage, latest
from pipelines.storage import bucketfiles, io, partfiles
from pipelines.transforms.sortmerge import RunRange, SortIntoBuckets, joined_bucket

_NEW, _CURRENT = 0, 1
"""Kinds of the sorted items: ``(url, kind, page)``."""


class PageMerger(Protocol):
    """A URL's new record from its new pages and its crawldb record."""

    def setup(self) -> None:
        """Made ready on the worker (counters, rules), before any merge."""

    def merge(self, new: list[WebPage], current: WebPage | None) -> WebPage | None:
        """The URL's record in the new version; None drops it."""


class MergeIntoBuckets(beam.PTransform[PCollection[WebPage], PCollection[int]]):
    """New pages merged into the crawldb version in ``current_dir``, to ``new_dir``.

    Apply it to the new pages. ``merger`` decides each URL's record; with
    ``key_current`` (a DoFn from a crawldb page to ``(url, page)`` pairs,
    none to drop it), every current record goes through it and is sorted
    in. The new version is written as the buckets of ``layout``;
    ``runs_dir`` is a scratch directory for the sorted runs. The output is
    the number of records written per bucket; write the layout file
    (:func:`~pipelines.storage.bucketfiles.write_layout`) when the pipeline
    succeeded.
    """

    def __init__(
        self,
        merger: PageMerger,
        current_dir: str,
        new_dir: str,
        layout: Bucketing,
        runs_dir: str,
        key_current: beam.DoFn | None = None,
    ) -> None:
        super().__init__()
        self._merger = merger
        self._current_dir = current_dir
        self._new_dir = new_dir
        self._layout = layout
        self._runs_dir = runs_dir
        self._key_current = key_current

    def expand(self, new: PCollection[WebPage]) -> PCollection[int]:
        stored = bucketfiles.read_layout(self._current_dir)
        merge_current = (
            bucketfiles.readable_by(stored, self._layout) and self._key_current is None
        )
        items = new | "NewItems" >> beam.Map(lambda page: (page["url"], _NEW, page))
        sorted_in: tuple[PCollection[Item], ...] = (items,)
        if not merge_current:
            current = new.pipeline | "ReadCrawlDb" >> io.ReadWebPages(
                partfiles.parts_pattern(self._current_dir)
            )
            keyed = (
                current | "KeyCurrent" >> beam.ParDo(self._key_current)
                if self._key_current is not None
                else current | "KeyCurrent" >> beam.Map(lambda p: (p["url"], p))
            )
            sorted_in = (
                items,
                keyed | "CurrentItems" >> beam.MapTuple(lambda u, p: (u, _CURRENT, p)),
            )
        return (
            sorted_in
            | "SortByUrl" >> SortIntoBuckets(self._layout, self._runs_dir)
            | "MergeBuckets"
            >> beam.ParDo(
                _MergeFn(
                    self._merger,
                    (self._current_dir, stored) if merge_current and stored else None,
                    self._new_dir,
                    self._layout,
                )
            )
        )


class _MergeFn(beam.DoFn):
    """One bucket: the current bucket merged with the new pages, written."""

    def __init__(
        self,
        merger: PageMerger,
        current: tuple[str, Bucketing] | None,
        new_dir: str,
        layout: Bucketing,
    ) -> None:
        self._merger = merger
        self._current = current
        self._new_dir = new_dir
        self._layout = layout

    def setup(self) -> None:
        self._merger.setup()

    def process(self, bucket_ranges: tuple[int, list[RunRange]]) -> Iterator[int]:
        bucket, ranges = bucket_ranges
        joined = joined_bucket(bucket, ranges, self._layout, self._current)
        pages = self._merged(joined)
        yield bucketfiles.write_bucket(self._new_dir, bucket, self._layout, pages)

    def _merged(
        self, joined: Iterator[tuple[str, WebPage | None, list[Item]]]
    ) -> Iterator[WebPage]:
        merge = self._merger.merge
        for _, record, items in joined:
            new = [page for _, kind, page in items if kind == _NEW]
            current = record or latest(p for _, kind, p in items if kind == _CURRENT)
            page = merge(new, current)
            if page is not None:
                yield page
