"""Normalize, then filter: the URL check every Nutch job runs before use."""

from __future__ import annotations

import enum

from crawllib.config import UrlConfig
from crawllib.urls.filter import UrlFilters
from crawllib.urls.normalize import UrlNormalizers


class Rejection(enum.Enum):
    """Why :class:`UrlCleaner` dropped a URL."""

    MALFORMED = "malformed"
    """A normalizer could not parse it (Nutch: MalformedURLException)."""
    FILTERED = "filtered"
    """A URL filter rejected it."""


class UrlCleaner:
    """Nutch's ``URLNormalizers.normalize`` then ``URLFilters.filter`` for a scope.

    Build once per worker (it compiles the rules), call per URL. The outcome
    of the last ``cache_size`` distinct URLs is remembered: a crawl's pages
    link to the same targets over and over (80,930 links over 200 pages had
    21,068 distinct targets), and cleaning one costs a dozen regex searches.

    Args:
        config: normalizer and filter settings.
        scope: the normalizer scope (``inject``, ``generate_host_count`` ...).
        normalize: run the normalizers (generate's ``--noNorm`` turns this off).
        filter_urls: run the filters (generate's ``--noFilter`` turns this off).
        cache_size: how many URLs' outcomes to remember (0: none).
    """

    def __init__(
        self,
        config: UrlConfig,
        scope: str,
        normalize: bool = True,
        filter_urls: bool = True,
        cache_size: int = 1 << 16,
    ) -> None:
        self._normalizers = UrlNormalizers(config, scope) if normalize else None
        self._filters = UrlFilters(config) if filter_urls else None
        self._cache: dict[str, str | Rejection] = {}
        self._cache_size = cache_size

    def clean(self, url: str) -> str | Rejection:
        """The normalized URL if it passes the filters, else why it did not."""
        outcome = self._cache.get(url)
        if outcome is None:
            outcome = self._clean(url)
            if self._cache_size:
                if len(self._cache) >= self._cache_size:
                    self._cache.clear()  # bounded; a crawl refills it at once
                self._cache[url] = outcome
        return outcome

    def _clean(self, url: str) -> str | Rejection:
        if self._normalizers is not None:
            normalized = self._normalizers.normalize(url)
            if normalized is None:
                return Rejection.MALFORMED
            url = normalized
        if self._filters is not None and self._filters.filter(url) is None:
            return Rejection.FILTERED
        return url
