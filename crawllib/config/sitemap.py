"""Sitemap settings: Nutch 1.x ``SitemapProcessor`` and crawler-commons' limits.

Nutch's properties and defaults (``SitemapProcessor``): ``sitemap.strict.parsing``
(true), ``sitemap.url.filter`` (true), ``sitemap.url.normalize`` (true),
``sitemap.url.default.sitemap.xml`` (true), ``sitemap.url.overwrite.existing``
(false), ``sitemap.redir.max`` (3) and ``sitemap.size.max`` (52428800, which
Nutch sets as ``http.content.limit`` for the sitemap fetches).

beamcrawl's own: ``sitemap.urls.max`` (50000, crawler-commons'
``SiteMapParser.MAX_URLS``, fixed there) and ``sitemap.index.max.depth`` (3;
Nutch follows nested indexes without a limit, and a self-referencing index
never ends).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from crawllib.config.fetch import HttpConfig, RobotsConfig
from crawllib.config.properties import Properties, bad_value, optional_int
from crawllib.config.registry import DEFAULTS
from crawllib.config.schema import BucketCount
from crawllib.config.urls import UrlConfig

SITEMAP_DEFAULTS: dict[str, str] = {
    name: default for name, default in DEFAULTS.items() if name.startswith("sitemap.")
}
"""Defaults of the sitemap properties (the registry's; Nutch's are in its code)."""


@dataclass(frozen=True, slots=True)
class SitemapConfig:
    """What ``beamcrawl sitemap`` reads from the properties and its flags.

    Attributes:
        http: protocol settings; the content limit is ``sitemap.size.max``.
        robots: robots.txt settings, for the sitemaps' hosts.
        urls: normalizer and filter settings (scope ``default``, as Nutch).
        strict: ``sitemap.strict.parsing`` (``--noStrict`` turns it off):
            keep only URLs under the sitemap's own directory.
        filter_urls: ``sitemap.url.filter`` (``--noFilter``).
        normalize: ``sitemap.url.normalize`` (``--noNormalize``).
        default_sitemap_xml: ``sitemap.url.default.sitemap.xml``: a host whose
            robots.txt lists no sitemap gets ``/sitemap.xml`` tried.
        overwrite_existing: ``sitemap.url.overwrite.existing``.
        redirect_max: ``sitemap.redir.max``: redirects followed per sitemap.
        size_max: ``sitemap.size.max``: bytes read of a sitemap (decoded).
        urls_max: ``sitemap.urls.max``: URLs kept of one sitemap file.
        index_max_depth: ``sitemap.index.max.depth``: nesting of indexes
            followed (a sitemap listed directly is at depth 0).
        server_delay_s: ``fetcher.server.delay`` between requests to a host.
        max_crawl_delay_s: ``fetcher.max.crawl.delay``: a robots.txt
            ``Crawl-delay`` above it is not waited (the server delay is).
        fetch_interval_s: ``db.fetch.interval.default``, for entries without
            ``changefreq``.
        keep_backup: ``db.preserve.backup``.
        fixed_time_ms: ``injector.current.time``: the job's clock if set.
        buckets: ``db.buckets``: the bucket count of an existing crawldb's
            new version (0: from its size).
    """

    http: HttpConfig
    robots: RobotsConfig
    urls: UrlConfig
    strict: bool = True
    filter_urls: bool = True
    normalize: bool = True
    default_sitemap_xml: bool = True
    overwrite_existing: bool = False
    redirect_max: int = 3
    size_max: int = 52_428_800
    urls_max: int = 50_000
    index_max_depth: int = 3
    server_delay_s: float = 5.0
    max_crawl_delay_s: float = 30.0
    fetch_interval_s: int = 2_592_000
    keep_backup: bool = True
    fixed_time_ms: int | None = None
    buckets: int = 0

    @classmethod
    def from_properties(cls, props: Properties) -> SitemapConfig:
        """Read and check the ``sitemap.*`` properties and their companions.

        Raises:
            ConfigError: no ``http.agent.name``, or a bad value (named).
        """
        missing = {k: v for k, v in SITEMAP_DEFAULTS.items() if k not in props}
        props = props.with_values(missing) if missing else props
        size_max = _at_least(props, "sitemap.size.max", 1)
        http = HttpConfig.from_properties(props)
        return cls(
            http=dataclasses.replace(
                http, content_limit=size_max, file_content_limit=size_max
            ),
            robots=RobotsConfig.from_properties(props),
            urls=UrlConfig.from_properties(props),
            strict=props.get_bool("sitemap.strict.parsing"),
            filter_urls=props.get_bool("sitemap.url.filter"),
            normalize=props.get_bool("sitemap.url.normalize"),
            default_sitemap_xml=props.get_bool("sitemap.url.default.sitemap.xml"),
            overwrite_existing=props.get_bool("sitemap.url.overwrite.existing"),
            redirect_max=_at_least(props, "sitemap.redir.max", 0),
            size_max=size_max,
            urls_max=_at_least(props, "sitemap.urls.max", 1),
            index_max_depth=_at_least(props, "sitemap.index.max.depth", 0),
            server_delay_s=props.get_float("fetcher.server.delay"),
            max_crawl_delay_s=props.get_float("fetcher.max.crawl.delay"),
            fetch_interval_s=_at_least(props, "db.fetch.interval.default", 1),
            keep_backup=props.get_bool("db.preserve.backup"),
            fixed_time_ms=optional_int(props, "injector.current.time"),
            buckets=props.parse("db.buckets", BucketCount()),
        )


def _at_least(props: Properties, name: str, low: int) -> int:
    value = props.get_int(name)
    if value < low:
        raise bad_value(name, str(value), f"an integer >= {low}")
    return value
