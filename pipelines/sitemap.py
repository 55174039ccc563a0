"""``beamcrawl sitemap CRAWLDB``: sitemaps into a crawldb (Nutch's SitemapProcessor).

Sitemap URLs (or host names) come from a seed-style directory and, with
``--fromRobots``, from the ``Sitemap:`` lines of the robots.txt of every host
in the crawldb (beamcrawl has no HostDb: the hosts are the crawldb URLs').
They are grouped by host and fetched one at a time per host
(:class:`~crawllib.sitemaps.SitemapWalker`: robots.txt, politeness,
redirects, nested indexes); the URLs they list become crawldb records
(:class:`ReadSitemaps`), merged into the crawldb by Nutch's rules
(:class:`Sitemap`) and installed as its new version under the crawldb lock.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Iterator, Sequence
from urllib.parse import urlsplit

import apache_beam as beam
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection
from apache_beam.runners.runner import PipelineResult

from crawllib.config import CrawlConfig, SitemapConfig, step_config
from crawllib.db import inject as seeds
from crawllib.fetch.protocol.registry import Protocols
from crawllib.fetch.protocol.robots import RobotsCache
from crawllib.sitemaps import Found, Merge, SitemapWalker, merge, preferred
from crawllib.sitemaps.records import sitemap_page
from crawllib.sitemaps.sitemapurls import SCOPE, SitemapUrlCleaner
from crawllib.urls.cleaner import Rejection, UrlCleaner
from crawllib.urls.zone import OPERATOR, ZONE_KEY, Zone, zone_of
from crawllib.webpage import WebPage, latest
from pipelines.cli.sitemap import SitemapRequest as SitemapRequest
from pipelines.cli.sitemap import parser, request
from pipelines.inject import list_seed_files
from pipelines.runtime.options import (
    Job,
    clock_ms,
    counters,
    describe,
    now_ms,
    parse_job_args,
)
from pipelines.storage import bucketfiles, io, versions
from pipelines.transforms.bucketmerge import MergeIntoBuckets
from pipelines.transforms.seedfiles import ReadSeeds

_LOG = logging.getLogger(__name__)
NAMESPACE = "Sitemap"
_URL_PREFIXES = ("http://", "https://", "ftp://", "file:/")
_SITEMAP, _HOST = "sitemap", "host"

Work = tuple[str, tuple[str, str, int]]
"""(host, (kind, URL, zone)): a sitemap to read, or a host root whose robots.txt
to read, with the zone it came with (:mod:`crawllib.urls.zone`)."""


class ReadSitemaps(beam.PTransform[PCollection[str], PCollection[WebPage]]):
    """Sitemap URLs or host names (seed lines) to the records of the URLs listed.

    A line starting ``http://``, ``https://``, ``ftp://`` or ``file:/`` is a
    sitemap; any other is a host name (``host`` or ``host:port``) whose
    robots.txt ``Sitemap:`` lines are read, as Nutch's ``-sitemapUrls``
    input. One record per listed URL (see :mod:`crawllib.sitemaps.records`).
    A line is the operator's (zone ``local``) unless it sets ``_zone_``.

    Counters, namespace ``Sitemap``: Nutch's ``sitemap_seeds``,
    ``filtered_records``, ``sitemaps_from_hostname``,
    ``filtered_sitemaps_from_hostname``, ``failed_fetches``; and one per
    other reason a sitemap or URL is dropped
    (:class:`~crawllib.sitemaps.Count`, :class:`~crawllib.sitemaps.UrlDrop`).
    """

    def __init__(
        self, config: SitemapConfig | CrawlConfig, now_ms: int | None = None
    ) -> None:
        super().__init__()
        self._config = step_config(config, SitemapConfig)
        self._now_ms = clock_ms(self._config.fixed_time_ms, now_ms)

    def expand(self, lines: PCollection[str]) -> PCollection[WebPage]:
        return (
            lines
            | "ToWork" >> beam.ParDo(_WorkFn(self._config))
            | "GroupByHost" >> beam.GroupByKey()
            | "FetchSitemaps" >> beam.ParDo(_WalkFn(self._config, self._now_ms))
            | "OnePerUrl"
            >> beam.CombinePerKey(beam.CombineFn.from_callable(_preferred))
            | "DropKeys" >> beam.Values()
        )


class Sitemap(
    beam.PTransform[tuple[PCollection[str], PCollection[WebPage]], PCollection[WebPage]]
):
    """``(sitemap lines, current crawldb)`` to the new crawldb (Nutch's reducer).

    Counters, namespace ``Sitemap``: those of :class:`ReadSitemaps`, and
    ``new_sitemap_entries`` / ``existing_sitemap_entries``.
    """

    def __init__(
        self, config: SitemapConfig | CrawlConfig, now_ms: int | None = None
    ) -> None:
        super().__init__()
        self._config = step_config(config, SitemapConfig)
        self._now_ms = clock_ms(self._config.fixed_time_ms, now_ms)

    def expand(
        self, inputs: tuple[PCollection[str], PCollection[WebPage]]
    ) -> PCollection[WebPage]:
        lines, current = inputs
        listed = lines | "ReadSitemaps" >> ReadSitemaps(self._config, self._now_ms)
        return (
            {
                "listed": listed | "KeyListed" >> beam.Map(_keyed),
                "current": current | "KeyCurrent" >> beam.Map(_keyed),
            }
            | "JoinByUrl" >> beam.CoGroupByKey()
            | "Merge" >> beam.ParDo(_MergeFn(self._config.overwrite_existing))
        )


class _WorkFn(beam.DoFn):
    seeds_ = Metrics.counter(NAMESPACE, "sitemap_seeds")
    filtered = Metrics.counter(NAMESPACE, "filtered_records")

    def __init__(self, config: SitemapConfig) -> None:
        self._config = config

    def setup(self) -> None:
        config = self._config
        self._roots = UrlCleaner(
            config.urls, SCOPE, config.normalize, config.filter_urls
        )
        self._sitemaps = SitemapUrlCleaner(
            config.urls, config.normalize, config.filter_urls
        )

    def process(self, line: str) -> Iterator[Work]:
        seed = seeds.parse_seed_line(line)
        if seed is None:
            return
        zone = int(Zone.from_label(dict(seed.metadata).get(ZONE_KEY, OPERATOR.label)))
        if seed.url.startswith(_URL_PREFIXES):
            kind, candidates, cleaner = _SITEMAP, [seed.url], self._sitemaps.clean
        else:  # Nutch's generateSitemapsFromHostname: the first scheme accepted
            kind, candidates = _HOST, [p + seed.url + "/" for p in _URL_PREFIXES]
            cleaner = self._roots.clean
        for candidate in candidates:
            url = cleaner(candidate)
            if not isinstance(url, Rejection):
                if kind == _SITEMAP:
                    self.seeds_.inc()
                yield _host_of(url), (kind, url, zone)
                return
        self.filtered.inc()


class _WalkFn(beam.DoFn):
    """One host's sitemaps, fetched one after another (politeness)."""

    def __init__(self, config: SitemapConfig, now_ms: int) -> None:
        self._config = config
        self._now_ms = now_ms

    def setup(self) -> None:
        self._protocols = Protocols(self._config.http)
        self._robots = RobotsCache(self._config.robots, self._protocols.for_url)

    def process(
        self, grouped: tuple[str, Iterable[tuple[str, str, int]]]
    ) -> Iterator[tuple[str, WebPage]]:
        walker = SitemapWalker(self._config, self._protocols.for_url, self._robots)
        for kind, url, zone in _innermost_first(grouped[1]):
            outcomes = (
                walker.walk(url, zone=Zone(zone))
                if kind == _SITEMAP
                else walker.from_root(url, Zone(zone))
            )
            for outcome in outcomes:
                if isinstance(outcome, Found):
                    yield outcome.url, self._page(outcome)
                else:
                    Metrics.counter(NAMESPACE, outcome.name).inc(outcome.count)

    def _page(self, found: Found) -> WebPage:
        interval = self._config.fetch_interval_s
        return sitemap_page(found.entry, found.url, interval, self._now_ms, found.zone)

    def teardown(self) -> None:
        self._protocols.close()


def _innermost_first(
    work: Iterable[tuple[str, str, int]],
) -> list[tuple[str, str, int]]:
    """Each sitemap or root once, in its innermost zone, in a fixed order."""
    zones: dict[tuple[str, str], int] = {}
    for kind, url, zone in work:
        zones[kind, url] = max(zone, zones.get((kind, url), zone))
    return [(kind, url, zone) for (kind, url), zone in sorted(zones.items())]


class _MergeFn(beam.DoFn):
    def __init__(self, overwrite: bool) -> None:
        self._merger = _SitemapMerger(overwrite)

    def setup(self) -> None:
        self._merger.setup()

    def process(
        self, joined: tuple[str, dict[str, Iterable[WebPage]]]
    ) -> Iterator[WebPage]:
        groups = joined[1]
        page = self._merger.merge(list(groups["listed"]), latest(groups["current"]))
        if page is not None:
            yield page


class _SitemapMerger:
    """A URL's sitemap entries merged with its record (``PageMerger``)."""

    def __init__(self, overwrite: bool) -> None:
        self._overwrite = overwrite

    def setup(self) -> None:
        self._counters = {
            what: Metrics.counter(NAMESPACE, what.value) for what in Merge if what.value
        }

    def merge(self, new: list[WebPage], current: WebPage | None) -> WebPage | None:
        page, what = merge(preferred(new), current, self._overwrite)
        if what in self._counters:
            self._counters[what].inc()
        return page


def _preferred(pages: Iterable[WebPage]) -> WebPage:
    page = preferred(pages)
    assert page is not None  # a key only comes with a page
    return page


def _keyed(page: WebPage) -> tuple[str, WebPage]:
    return page["url"], page


def _host_of(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


class _HostsFn(beam.DoFn):
    """A crawldb page's host (``host[:port]``) and zone, for ``--fromRobots``."""

    def process(self, page: WebPage) -> Iterator[tuple[str, int]]:
        parts = urlsplit(page["url"])
        if parts.scheme.lower() in ("http", "https") and parts.hostname:
            port = f":{parts.port}" if parts.port is not None else ""
            yield parts.hostname.lower() + port, int(zone_of(page))


def _innermost(zones: Iterable[int]) -> int:
    return max(zones, default=int(Zone.PUBLIC))


def _host_line(host_zone: tuple[str, int]) -> str:
    """A host with the innermost zone of its URLs, as a sitemap input line."""
    host, zone = host_zone
    return f"{host}\t{ZONE_KEY}={Zone(zone).label}"


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl sitemap``: update the crawldb; print a one-line summary."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: SitemapRequest, job: Job) -> int:
    """Run a request the command line built and checked (``pipelines.cli``)."""
    values = execute(request, job)
    print(f"SitemapProcessor: {describe(values)}", file=sys.stderr)
    return 0


def execute(request: SitemapRequest, job: Job) -> dict[str, int]:
    """Read the request's sitemaps into its crawldb; returns the counters.

    Raises:
        ConfigError: a bad property or rule file.
        SeedError: no files in the ``--sitemapUrls`` directory.
        CrawlDbLockedError: another job holds the crawldb.
    """
    config = request.config
    files = list_seed_files(request.sitemap_urls) if request.sitemap_urls else []
    UrlCleaner(config.urls, SCOPE)  # a bad rule file fails here, not on a worker
    started_ms = config.fixed_time_ms or now_ms()
    with versions.replacing(
        request.crawldb,
        keep_backup=config.keep_backup,
        force=request.force,
        create=True,
    ) as crawldb:
        result = _update(request, crawldb, job, files, started_ms)
    return counters(result, NAMESPACE)


def _update(
    request: SitemapRequest,
    crawldb: versions.Replacement,
    job: Job,
    files: list[str],
    started_ms: int,
) -> PipelineResult:
    """The new crawldb: merged bucket by bucket if there is one already."""
    config = request.config
    current_dir = crawldb.current_dir
    layout = bucketfiles.next_layout(config.buckets, current_dir)
    with (
        bucketfiles.sorted_runs(crawldb.new_dir) as runs,
        job.pipeline() as pipeline,
    ):
        current = (
            pipeline | "ReadCrawlDb" >> io.ReadWebPages(crawldb.current)
            if crawldb.current
            else pipeline | "NoCrawlDb" >> beam.Create([])
        )
        sources = [pipeline | "ReadSitemapUrls" >> ReadSeeds(files)] if files else []
        if request.from_robots:
            hosts = (
                current
                | "Hosts" >> beam.ParDo(_HostsFn())
                | "InnermostZone"
                >> beam.CombinePerKey(beam.CombineFn.from_callable(_innermost))
                | "ToLines" >> beam.Map(_host_line)
            )
            sources.append(hosts)
        lines = sources | "AllSources" >> beam.Flatten(pipeline=pipeline)
        if current_dir is None:  # a new crawldb: written as it comes
            _ = (
                (lines, current)
                | "Sitemap" >> Sitemap(config, started_ms)
                | "WriteCrawlDb" >> io.WriteWebPages(crawldb.new_dir)
            )
        else:
            merger = _SitemapMerger(config.overwrite_existing)
            _ = (
                lines
                | "ReadSitemaps" >> ReadSitemaps(config, started_ms)
                | "Merge"
                >> MergeIntoBuckets(merger, current_dir, crawldb.new_dir, layout, runs)
            )
    if current_dir is not None:
        bucketfiles.write_layout(
            crawldb.new_dir, layout, bucketfiles.records_written(pipeline.result)
        )
    return pipeline.result


if __name__ == "__main__":  # as `beamcrawl sitemap`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["sitemap", *sys.argv[1:]]))
