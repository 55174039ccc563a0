"""Checking a sitemap's own URL: the URL filters judge what it holds, not its packing.

Nutch normalizes and filters the URL of every sitemap (listed with
``-sitemapUrls``, in a robots.txt, in a sitemap index, or a redirect's
target) with the same rules as a page's, and its default rules drop URLs
ending in ``.gz`` (``regex-urlfilter.txt``'s suffix rule, and
``suffix-urlfilter.txt``): a gzipped sitemap, which the sitemaps protocol
allows and large sites use, is skipped, counted but never said.

beamcrawl normalizes a sitemap's URL as Nutch does, then filters it as the
URL it would be unpacked: when its path ends in ``.gz`` (any case), the
filters see the URL with that ``.gz`` taken off the path (query and
fragment kept): ``http://h/sitemap.xml.gz`` is filtered as
``http://h/sitemap.xml``. Every rule still applies to that URL (a user's
deny rules, host and domain rules, prefixes, the validator), and the
address policy to the fetch; only a rule that looks at the ``.gz`` itself
cannot drop a sitemap. The URL kept, fetched and counted is the real one.
Page URLs a sitemap lists are filtered as they are.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from crawllib.config import UrlConfig
from crawllib.urls.cleaner import Rejection, UrlCleaner

_PACKED = ".gz"
SCOPE = "default"
"""The normalizer scope of sitemap URLs (Nutch's SitemapProcessor: default)."""


def unpacked(url: str) -> str:
    """``url`` with a ``.gz`` at the end of its path taken off; else ``url``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if not parts.path.lower().endswith(_PACKED):
        return url
    return urlunsplit(parts._replace(path=parts.path[: -len(_PACKED)]))


class SitemapUrlCleaner:
    """Normalize a sitemap's URL, then filter it :func:`unpacked`.

    Build once per worker (it compiles the rules), call per URL.

    Args:
        config: normalizer and filter settings.
        normalize: run the normalizers (``sitemap.url.normalize``).
        filter_urls: run the filters (``sitemap.url.filter``).
    """

    def __init__(
        self, config: UrlConfig, normalize: bool = True, filter_urls: bool = True
    ) -> None:
        self._normalizer = UrlCleaner(config, SCOPE, normalize, filter_urls=False)
        self._filter = (
            UrlCleaner(config, SCOPE, normalize=False) if filter_urls else None
        )

    def clean(self, url: str) -> str | Rejection:
        """The normalized URL if its unpacked form passes the filters, else why not."""
        normalized = self._normalizer.clean(url)
        if isinstance(normalized, Rejection) or self._filter is None:
            return normalized
        filtered = self._filter.clean(unpacked(normalized))
        return filtered if isinstance(filtered, Rejection) else normalized
