"""Fetching sitemaps politely: Nutch 1.x ``SitemapMapper``, with robots.txt obeyed.

:class:`SitemapWalker` fetches a sitemap (following up to
``sitemap.redir.max`` redirects, each target normalized and filtered),
parses it (:mod:`crawllib.sitemaps.formats`) and yields each listed URL that
passes the normalizers and filters, or walks the sitemaps an index lists,
down to ``sitemap.index.max.depth``. :meth:`SitemapWalker.from_root` does
``generateSitemapsFromHostname``: the ``Sitemap:`` lines of a host's
robots.txt, or its ``/sitemap.xml`` when there are none. A sitemap's own
URL is filtered as if it were not gzipped (``sitemap.xml.gz`` as
``sitemap.xml``, :mod:`crawllib.sitemaps.sitemapurls`): unlike Nutch,
whose default rules drop every ``.gz`` URL.

beamcrawl adds what the fetcher does and Nutch's sitemap job does not: a
sitemap robots.txt disallows is not fetched, and requests to one host are
spaced by ``fetcher.server.delay`` (or the host's ``Crawl-delay`` if it is
not above ``fetcher.max.crawl.delay``). And zones (:mod:`crawllib.urls.zone`):
each sitemap is fetched under the address policy for the zone it came
with (the operator's for a listed one; the class of the address of the
robots.txt, index or redirect that named it otherwise), and each URL found
is in the zone of the sitemap's address: a sitemap on the web cannot list
internal addresses or local files into the crawldb. Every outcome is a
:class:`Tally` (a counter name of group ``Sitemap``) or a :class:`Found`
URL; nothing raises.
"""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass

from crawllib.config.sitemap import SitemapConfig
from crawllib.fetch.protocol import FetchResult, Protocol
from crawllib.fetch.protocol.robots import (
    RobotRules,
    RobotsCache,
    Unreachable,
    robots_key,
)
from crawllib.logonce import warn_first
from crawllib.sitemaps.formats import (
    Kind,
    SitemapEntry,
    SitemapFormatError,
    TooLargeError,
    parse_sitemap,
)
from crawllib.sitemaps.sitemapurls import SitemapUrlCleaner
from crawllib.status import ProtocolStatus
from crawllib.urls.cleaner import Rejection, UrlCleaner
from crawllib.urls.zone import OPERATOR, Zone

_LOG = logging.getLogger(__name__)


class Count(enum.Enum):
    """What the walker counts besides the parser's drops; values are counter names."""

    FROM_HOSTNAME = "sitemaps_from_hostname"
    FILTERED_FROM_HOSTNAME = "filtered_sitemaps_from_hostname"
    FILTERED_FROM_INDEX = "filtered_sitemaps_from_index"
    FAILED = "failed_fetches"
    ADDRESS_DENIED = "sitemaps_address_denied"
    ROBOTS_DENIED = "sitemaps_robots_denied"
    UNPARSABLE = "sitemaps_unparsable"
    TOO_LARGE = "sitemaps_too_large"
    TOO_DEEP = "sitemaps_too_deep"
    SEEN = "sitemaps_already_seen"
    PROCESSED = "sitemaps_processed"
    INDEXES = "sitemap_indexes_processed"
    URLS_FOUND = "urls_from_sitemaps"
    URLS_FILTERED = "urls_filtered"
    URLS_MALFORMED = "urls_malformed"


@dataclass(frozen=True, slots=True)
class Tally:
    """``count`` more of the counter ``name`` (group ``Sitemap``)."""

    name: str
    count: int = 1


@dataclass(frozen=True, slots=True)
class Found:
    """A listed URL, normalized and filtered, with its sitemap entry and zone."""

    url: str
    entry: SitemapEntry
    zone: Zone = Zone.PUBLIC


Outcome = Found | Tally
_Walk = Generator[Outcome, None, None]


class SitemapWalker:
    """Fetches and reads the sitemaps of one group of hosts, one request at a time.

    Build one per worker call (it remembers the sitemaps it has fetched and
    when each host was last visited). Not thread-safe.

    Args:
        config: the sitemap settings.
        protocol_for: the protocol for a URL's scheme, None if none.
        robots: the robots.txt cache.
        sleep: waits that many seconds (politeness).
        clock: monotonic seconds.
    """

    def __init__(
        self,
        config: SitemapConfig,
        protocol_for: Callable[[str], Protocol | None],
        robots: RobotsCache,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._protocol_for = protocol_for
        self._robots = robots
        self._sleep = sleep
        self._clock = clock
        self._cleaner = UrlCleaner(
            config.urls,
            "default",
            normalize=config.normalize,
            filter_urls=config.filter_urls,
        )
        self._sitemap_cleaner = SitemapUrlCleaner(
            config.urls, config.normalize, config.filter_urls
        )
        self._next_visit: dict[str, float] = {}
        self._seen: set[str] = set()

    def clean(self, url: str) -> str | Rejection:
        """Nutch's ``filterNormalize`` (scope ``default``), as configured."""
        return self._cleaner.clean(url)

    def clean_sitemap(self, url: str) -> str | Rejection:
        """A sitemap's own URL, normalized and filtered as if not gzipped.

        See :mod:`crawllib.sitemaps.sitemapurls`.
        """
        return self._sitemap_cleaner.clean(url)

    def from_root(self, root: str, zone: Zone = OPERATOR) -> Iterator[Outcome]:
        """The sitemaps a host's robots.txt lists (or ``/sitemap.xml``), walked.

        ``zone`` is the host's; the listed sitemaps get the zone of the
        address the robots.txt came from.
        """
        verdict = self._robots.rules_for(root, zone)
        listed: list[tuple[str, Zone]] = []
        if isinstance(verdict, RobotRules):
            listed_zone = self._robots.found_zone(root)
            listed = [(sitemap, listed_zone) for sitemap in verdict.sitemaps]
        if not listed and self._config.default_sitemap_xml:
            listed = [(root + "sitemap.xml", zone)]
        for sitemap, sitemap_zone in listed:
            yield Tally(Count.FROM_HOSTNAME.value)
            url = self.clean_sitemap(sitemap)
            if isinstance(url, Rejection):
                yield Tally(Count.FILTERED_FROM_HOSTNAME.value)
            else:
                yield from self.walk(url, zone=sitemap_zone)

    def walk(
        self, url: str, depth: int = 0, zone: Zone = OPERATOR
    ) -> Iterator[Outcome]:
        """Fetch and read the sitemap at ``url``, ``depth`` indexes down."""
        if depth > self._config.index_max_depth:
            yield self._count(Count.TOO_DEEP, url)
            return
        if url in self._seen:
            yield Tally(Count.SEEN.value)
            return
        self._seen.add(url)
        result = yield from self._fetch(url, zone)
        if result is None:
            return
        if result.truncated:
            yield self._count(Count.TOO_LARGE, result.url)
            return
        try:
            parsed = parse_sitemap(
                result.content or b"",
                result.content_type,
                result.url,
                strict=self._config.strict,
                max_urls=self._config.urls_max,
                max_bytes=self._config.size_max,
            )
        except TooLargeError:
            yield self._count(Count.TOO_LARGE, result.url)
            return
        except SitemapFormatError as exc:
            yield self._count(Count.UNPARSABLE, f"{result.url}: {exc}")
            return
        for drop, count in sorted(parsed.drops.items(), key=lambda i: i[0].value):
            yield Tally(drop.value, count)
        if parsed.kind is Kind.INDEX:
            yield Tally(Count.INDEXES.value)
            yield from self._walk_index(parsed.entries, depth, result.found_zone)
        else:
            yield Tally(Count.PROCESSED.value)
            yield from self._listed(parsed.entries, result.found_zone)

    def _walk_index(
        self, entries: tuple[SitemapEntry, ...], depth: int, zone: Zone
    ) -> _Walk:
        for entry in entries:
            url = self.clean_sitemap(entry.url)
            if isinstance(url, Rejection):
                yield Tally(Count.FILTERED_FROM_INDEX.value)
            else:
                yield from self.walk(url, depth + 1, zone)

    def _listed(self, entries: tuple[SitemapEntry, ...], zone: Zone) -> _Walk:
        for entry in entries:
            url = self.clean(entry.url)
            if url is Rejection.FILTERED:
                yield Tally(Count.URLS_FILTERED.value)
            elif url is Rejection.MALFORMED:
                yield Tally(Count.URLS_MALFORMED.value)
            else:
                yield Tally(Count.URLS_FOUND.value)
                yield Found(str(url), entry, zone)

    def _fetch(
        self, url: str, zone: Zone
    ) -> Generator[Outcome, None, FetchResult | None]:
        """GET ``url`` politely, following redirects; None (counted) on failure."""
        hops = 0
        while True:
            result = yield from self._fetch_once(url, zone)
            if result is None:
                return None
            target = result.redirect_target
            if target is None or hops >= self._config.redirect_max:
                break
            cleaned = self.clean_sitemap(target)
            if isinstance(cleaned, Rejection):
                break  # Nutch: "get out!", and the fetch counts as failed
            url, hops, zone = cleaned, hops + 1, result.found_zone
        if result.status == ProtocolStatus.ADDRESS_DENIED:
            yield self._count(Count.ADDRESS_DENIED, f"{url}: {result.args[0]}")
            return None
        if result.status != ProtocolStatus.SUCCESS:
            yield self._count(Count.FAILED, f"{url}: {_failure(result)}")
            return None
        return result

    def _fetch_once(
        self, url: str, zone: Zone
    ) -> Generator[Outcome, None, FetchResult | None]:
        verdict = self._robots.rules_for(url, zone)
        protocol = self._protocol_for(url)
        if protocol is None:
            yield self._count(Count.FAILED, f"{url}: no protocol for its scheme")
            return None
        if not isinstance(verdict, RobotRules):
            yield self._count(
                Count.FAILED, f"{url}: robots.txt {_robots_failure(verdict)}"
            )
            return None
        if not verdict.allowed(url):
            yield self._count(Count.ROBOTS_DENIED, url)
            return None
        try:
            host = robots_key(url)
        except ValueError:
            host = ""
        delay_s = self._delay_s(verdict.crawl_delay_s)
        wait_s = self._next_visit.get(host, 0.0) - self._clock()
        if wait_s > 0:
            self._sleep(wait_s)
        try:
            return protocol.fetch(url, zone=zone)
        finally:
            self._next_visit[host] = self._clock() + delay_s

    def _delay_s(self, crawl_delay_s: float | None) -> float:
        """The host's Crawl-delay, unless above ``fetcher.max.crawl.delay``."""
        limit = self._config.max_crawl_delay_s
        if (
            crawl_delay_s is not None
            and crawl_delay_s > 0
            and (limit < 0 or crawl_delay_s <= limit)
        ):
            return crawl_delay_s
        return self._config.server_delay_s

    def _count(self, count: Count, detail: str) -> Tally:
        """The tally of ``count``; the first of each in the process is logged."""
        warn_first(
            _LOG,
            count.value,
            "sitemap %s: %s",
            count.value,
            detail,
            counter=f"Sitemap/{count.value}",
        )
        return Tally(count.value)


def _failure(result: FetchResult) -> str:
    """A failed fetch's status and its reason, for the log line."""
    return (
        f"{result.status.name} {result.args[0]}" if result.args else result.status.name
    )


def _robots_failure(verdict: object) -> str:
    if isinstance(verdict, Unreachable):
        return f"unreachable: {verdict.message}"
    return "deferred (5xx or 429)"
