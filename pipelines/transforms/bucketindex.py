"""index by sort-merge-bucket: the segments joined with the crawldb bucket by bucket.

:class:`BucketedIndexPages` gives the actions :class:`pipelines.index.IndexPages`
gives, without a ``CoGroupByKey`` over the crawldb and the linkdb: only the
segments' records are sorted, into the crawldb's buckets; each bucket is
then merged with the crawldb's bucket and the linkdb's records of it
(:func:`~pipelines.storage.bucketfiles.read_bucket`: the linkdb may have
another bucket count), all sorted by URL. A crawldb or linkdb not bucketed
yet is sorted in with the segments' records: memory is a sort buffer still.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator

import apache_beam as beam
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection

from crawllib.config import IndexConfig
from crawllib.db import sortedruns
from crawllib.db.buckets import Bucketing
from crawllib.db.sortedruns import Item
from crawllib.index import index as indexing
from crawllib.index.index import IndexDocument, Outcome
from crawllib.webpage import WebPage
from pipelines.storage import bucketfiles, io, partfiles
from pipelines.transforms.sortmerge import RunRange, SortIntoBuckets, bucket_items

NAMESPACE = "IndexerStatus"

Action = tuple[str, IndexDocument | None]
"""``(url, document)`` to add or replace a document, ``(url, None)`` to delete it."""

_DB, _FETCH, _LINKS = 0, 1, 2
"""Kinds of the merged items: ``(url, kind, value)``."""


class BucketedIndexPages(beam.PTransform[PCollection[WebPage], PCollection[Action]]):
    """Parsed segment pages to index actions, joined with the crawldb bucket by bucket.

    ``crawldb_dir`` and ``linkdb_dir`` (None: no linkdb) are the versions'
    directories; ``runs_dir`` a scratch directory for the sorted runs.
    Counters are ``IndexPages``'s.
    """

    def __init__(
        self,
        config: IndexConfig,
        crawldb_dir: str,
        linkdb_dir: str | None,
        runs_dir: str,
    ) -> None:
        super().__init__()
        self._config = config
        self._crawldb_dir = crawldb_dir
        self._linkdb_dir = linkdb_dir
        self._runs_dir = runs_dir

    def expand(self, parsed: PCollection[WebPage]) -> PCollection[Action]:
        pipeline = parsed.pipeline
        crawl_layout = bucketfiles.read_layout(self._crawldb_dir)
        layout = crawl_layout or bucketfiles.next_layout(0, self._crawldb_dir)
        linkdb = self._linkdb_dir
        link_layout = bucketfiles.read_layout(linkdb) if linkdb is not None else None
        if not bucketfiles.readable_by(link_layout, layout):
            link_layout = None  # sorted in instead
        sorted_in = [parsed | "FetchItems" >> beam.Map(fetch_item)]
        if crawl_layout is None:
            sorted_in.append(
                pipeline
                | "ReadCrawlDb" >> _read(self._crawldb_dir)
                | "DbItems" >> beam.Map(db_item)
            )
        if linkdb is not None and link_layout is None:
            sorted_in.append(
                pipeline
                | "ReadLinkDb" >> _read(linkdb)
                | "LinkItems" >> beam.Map(links_item)
            )
        decide = _DecideFn(
            self._config,
            layout,
            self._crawldb_dir if crawl_layout else None,
            (linkdb, link_layout) if linkdb is not None and link_layout else None,
        )
        return (
            tuple(sorted_in)
            | "SortByUrl" >> SortIntoBuckets(layout, self._runs_dir)
            | "Decide" >> beam.ParDo(decide)
        )


def _read(directory: str) -> io.ReadWebPages:
    return io.ReadWebPages(partfiles.parts_pattern(directory))


def db_item(page: WebPage) -> Item:
    """A crawldb record without what the indexer does not read."""
    return page["url"], _DB, {**page, "text": None, "outlinks": {}, "inlinks": {}}


def fetch_item(page: WebPage) -> Item:
    """A segment record without what the indexer does not read."""
    return page["url"], _FETCH, {**page, "content": None, "outlinks": {}, "inlinks": {}}


def links_item(page: WebPage) -> Item:
    """A linkdb record's inlinks."""
    return page["url"], _LINKS, page["inlinks"]


class _DecideFn(beam.DoFn):
    """One bucket: each URL's records from all three sides, decided."""

    def __init__(
        self,
        config: IndexConfig,
        layout: Bucketing,
        crawldb_dir: str | None,
        linkdb: tuple[str, Bucketing] | None,
    ) -> None:
        self._config = config
        self._layout = layout
        self._crawldb_dir = crawldb_dir
        self._linkdb = linkdb

    def setup(self) -> None:
        self._decider = Decider(self._config)

    def process(self, bucket_ranges: tuple[int, list[RunRange]]) -> Iterator[Action]:
        bucket, ranges = bucket_ranges
        streams: list[Iterable[Item]] = [bucket_items(ranges)]
        layout = self._layout
        if self._crawldb_dir is not None:
            pages = bucketfiles.read_bucket(self._crawldb_dir, layout, bucket, layout)
            streams.append(map(db_item, pages))
        if self._linkdb is not None:
            directory, stored = self._linkdb
            pages = bucketfiles.read_bucket(directory, stored, bucket, layout)
            streams.append(map(links_item, pages))
        merged = heapq.merge(*streams, key=lambda item: item[0])
        for url, items in sortedruns.grouped(merged):
            db = next((value for _, kind, value in items if kind == _DB), None)
            inlinks: dict[str, str | None] = next(
                (value for _, kind, value in items if kind == _LINKS), {}
            )
            fetches = [value for _, kind, value in items if kind == _FETCH]
            yield from self._decider.actions(url, db, fetches, inlinks)


class Decider:
    """One URL's index action from its records, counted (make it on the worker)."""

    def __init__(self, config: IndexConfig) -> None:
        self._config = config
        self._counters = {o: Metrics.counter(NAMESPACE, o.value) for o in Outcome}

    def actions(
        self,
        url: str,
        db: WebPage | None,
        fetches: Iterable[WebPage],
        inlinks: dict[str, str | None],
    ) -> Iterator[Action]:
        """The URL's action (none for a skip), its outcome counted."""
        fetched = indexing.latest_fetch(fetches)
        verdict = indexing.decide(url, db, fetched, inlinks, self._config)
        self._counters[verdict.outcome].inc()
        if verdict.document is not None:
            yield url, verdict.document
        elif verdict.outcome.deletes:
            yield url, None
