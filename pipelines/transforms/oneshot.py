"""FetchUrls: fetch and parse a PCollection of URLs politely, without a crawldb.

For a user's pipeline that produced URLs and wants their pages: each URL is
normalized and filtered as inject would, made into a fetch-list record as
generate would write it (one batch, partitioned by host), fetched by
:class:`~pipelines.fetch.Fetch` (one polite fetcher per partition:
``fetcher.server.delay``, robots.txt) and parsed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from typing import Any

import apache_beam as beam
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection

from crawllib.config import (
    CrawlConfig,
    FetcherConfig,
    GenerateConfig,
    InjectConfig,
    ParseConfig,
)
from crawllib.fetch import oneshot
from crawllib.logonce import warn_first
from crawllib.urls.cleaner import Rejection, UrlCleaner
from crawllib.urls.normalize import UrlNormalizers
from crawllib.urls.partition import UrlPartitioner
from crawllib.webpage import WebPage
from pipelines import parse
from pipelines.fetch import Fetch
from pipelines.runtime.options import now_ms

_LOG = logging.getLogger(__name__)
NAMESPACE = "FetchUrls"
DEFAULT_FETCHERS = 4
"""Fetch lists (one polite fetcher each) when the caller does not say."""


class FetchUrls(beam.PTransform[PCollection[Any], PCollection[WebPage]]):
    """URLs, or ``(URL, metadata)`` pairs, to fetched and parsed WebPages.

    One WebPage per distinct URL (after normalization): its parse record
    when it was fetched and parsed, else the fetched page with its
    ``protocolStatus`` and ``status`` (404, robots-denied, unreachable ...).
    Metadata values (str as UTF-8, or bytes) go into the page's
    ``metadata``; requests for one URL are merged into one fetch (each key
    keeps its smallest value). Pages carry no raw content unless
    ``keep_content`` (then parsing runs in the runner's threads even when
    ``parser.processes`` asks for worker processes).

    URLs are normalized (scope ``inject``) and filtered as inject does, and
    spread over ``num_fetchers`` fetch lists by ``partition.url.mode``
    (byHost: a host is fetched by one fetcher, which keeps its delay).

    Counters, namespace ``FetchUrls``: ``urls_in``, ``urls_rejected``
    (malformed, filtered, or not a URL: one log line each) and
    ``duplicates``; then those of Fetch and Parse.
    """

    def __init__(
        self,
        config: CrawlConfig,
        keep_content: bool = False,
        num_fetchers: int = DEFAULT_FETCHERS,
    ) -> None:
        super().__init__()
        if num_fetchers < 1:
            raise ValueError(f"num_fetchers must be at least 1: {num_fetchers}")
        self._configs = (config.get(InjectConfig), config.get(GenerateConfig))
        self._fetch = config.get(FetcherConfig)
        self._parse = config.get(ParseConfig)
        self._keep_content = keep_content
        self._num_fetchers = num_fetchers
        self._now_ms = now_ms()

    def expand(self, requests: PCollection[Any]) -> PCollection[WebPage]:
        batch_id = time.strftime("%Y%m%d%H%M%S", time.localtime(self._now_ms // 1000))
        to_page = _ToFetchListFn(self._configs, self._now_ms, batch_id)
        fetched = (
            requests
            | "CleanUrls" >> beam.ParDo(_CleanFn(self._configs[0]))
            | "GroupByUrl" >> beam.GroupByKey()
            | "ToFetchList" >> beam.ParDo(to_page, self._num_fetchers)
            | "Fetch" >> Fetch(self._fetch)
        )
        _, for_update = fetched | "Parse" >> parse.ParseForUpdate(
            self._parse, keep_content=self._keep_content
        )
        if self._keep_content:
            return for_update
        return for_update | "DropContent" >> beam.Map(_without_content)


def _without_content(page: WebPage) -> WebPage:
    return page if page["content"] is None else {**page, "content": None}


class _CleanFn(beam.DoFn):
    """Requests to (normalized URL, metadata); rejected ones counted and logged."""

    urls_in = Metrics.counter(NAMESPACE, "urls_in")
    rejected = Metrics.counter(NAMESPACE, "urls_rejected")

    def __init__(self, config: InjectConfig) -> None:
        self._config = config

    def setup(self) -> None:
        config = self._config
        self._cleaner = UrlCleaner(
            config.urls, "inject", config.normalize, config.filter_urls
        )

    def process(self, element: Any) -> Iterator[tuple[str, oneshot.Metadata]]:
        self.urls_in.inc()
        try:
            url, metadata = oneshot.as_request(element)
        except ValueError as exc:
            self._reject(repr(element)[:200], str(exc))
            return
        cleaned = self._cleaner.clean(url)
        if isinstance(cleaned, Rejection):
            self._reject(url, cleaned.value)
            return
        yield cleaned, metadata

    def _reject(self, what: str, why: str) -> None:
        self.rejected.inc()
        warn_first(
            _LOG,
            "urls_rejected",
            "FetchUrls: %s dropped",
            what,
            cause=why,
            counter=f"{NAMESPACE}/urls_rejected",
            limit=5,
        )


class _ToFetchListFn(beam.DoFn):
    """(URL, [metadata]) to its fetch-list record, with its fetch list."""

    duplicates = Metrics.counter(NAMESPACE, "duplicates")

    def __init__(
        self,
        configs: tuple[InjectConfig, GenerateConfig],
        now_ms: int,
        batch_id: str,
    ) -> None:
        self._configs = configs
        self._now_ms = now_ms
        self._batch_id = batch_id

    def setup(self) -> None:
        generate = self._configs[1]
        self._partitioner = UrlPartitioner(generate.partition)
        self._normalizers = UrlNormalizers(generate.urls, "partition")

    def process(
        self, grouped: tuple[str, Iterable[oneshot.Metadata]], num_fetchers: int
    ) -> Iterator[WebPage]:
        url, requests = grouped
        given = list(requests)
        self.duplicates.inc(len(given) - 1)
        key_url = self._normalizers.normalize(url) or url
        partition = self._partitioner.partition(key_url, num_fetchers)
        metadata = oneshot.merge_metadata(given)
        yield oneshot.fetch_list_page(
            url, metadata, self._configs, self._now_ms, self._batch_id, partition
        )
