"""What a sitemap lists, and the checks each listed URL passes.

crawler-commons ``SiteMapURL`` and ``SiteMap``: a :class:`SitemapEntry` is a
URL with its ``lastmod``, ``changefreq`` and ``priority`` as ``SiteMapURL``
reads them; a :class:`Collector` keeps the entries of one file as
crawler-commons' handlers do. A URL ``java.net.URL`` rejects is dropped; in
strict mode, so is one that does not start with the sitemap's base URL (its
scheme, host and port and its path up to the last ``/``, the query left out:
``SiteMap.setBaseUrl``, ``SiteMapParser.urlIsValid``); past ``max_urls`` the
rest is counted. Reading the files is in :mod:`crawllib.sitemaps.formats`
and :mod:`crawllib.sitemaps.handlers`.
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from dataclasses import dataclass

from crawllib.java import NO_BREAK_SPACES, WHITESPACE
from crawllib.urls.javaurl import MalformedUrlError, parse_url

DEFAULT_PRIORITY = 0.5
"""crawler-commons ``SiteMapURL.DEFAULT_PRIORITY``."""

# DelegatorHandler.isWhitespace: Character.isWhitespace and the no-break spaces
_BLANK = WHITESPACE + NO_BREAK_SPACES


class SitemapFormatError(ValueError):
    """The file is no sitemap crawler-commons would parse (UnknownFormatException)."""


class TooLargeError(SitemapFormatError):
    """The file, gunzipped or not, is larger than ``sitemap.size.max``."""


class Kind(enum.Enum):
    """What a sitemap file turned out to be (crawler-commons ``SitemapType``)."""

    XML = "xml"
    INDEX = "index"
    RSS = "rss"
    ATOM = "atom"
    TEXT = "text"


class ChangeFreq(enum.IntEnum):
    """``<changefreq>`` values, each the fetch interval Nutch maps it to (s)."""

    ALWAYS = 1
    HOURLY = 3600
    DAILY = 86400
    WEEKLY = 604800
    MONTHLY = 2592000
    YEARLY = 31536000
    NEVER = 2147483647  # Integer.MAX_VALUE: Nutch's "loose NEVER contract"


class UrlDrop(enum.Enum):
    """Why the parser left a listed URL out; values are counter names."""

    MALFORMED = "urls_malformed"
    NOT_UNDER_PATH = "urls_not_under_sitemap_path"
    OVER_LIMIT = "urls_over_limit"


@dataclass(frozen=True, slots=True)
class SitemapEntry:
    """One URL listed in a sitemap (crawler-commons ``SiteMapURL``).

    For an index, the entries are the listed sitemaps (``url`` and
    ``lastmod_ms`` count).
    """

    url: str
    lastmod_ms: int | None = None
    changefreq: ChangeFreq | None = None
    priority: float = DEFAULT_PRIORITY


@dataclass(frozen=True, slots=True)
class ParsedSitemap:
    """A parsed file: its kind, the entries kept and the drops by reason."""

    kind: Kind
    entries: tuple[SitemapEntry, ...]
    drops: Counter[UrlDrop]


def base_url(url: str) -> str:
    """The URL a listed URL must start with (crawler-commons ``SiteMap.setBaseUrl``).

    Scheme, host and port of ``url`` and its path up to the last ``/``; the
    query and user-info are left out, so a ``/`` in the query does not count.
    """
    try:
        parts = parse_url(url, any_scheme=True)
    except MalformedUrlError:
        return re.sub(r"/[^/]*$", "/", re.split(r"[?#]", url, maxsplit=1)[0])
    path = parts.file.split("?", 1)[0]
    path = path[: path.rfind("/") + 1] or "/"
    authority = parts.host if parts.port == -1 else f"{parts.host}:{parts.port}"
    return f"{parts.scheme}:{'//' if authority else ''}{authority}{path}"


def strip_blank(text: str) -> str:
    """Trim Unicode white space too (crawler-commons ``stripAllBlank``)."""
    return text.strip(_BLANK)


def parse_priority(text: str | None) -> float:
    """``SiteMapURL.setPriority``: a number in [0, 1], else 0.5."""
    if text is None or not text.strip():
        return DEFAULT_PRIORITY
    try:
        value = float(text.strip())
    except ValueError:
        return DEFAULT_PRIORITY
    return value if 0.0 <= value <= 1.0 else DEFAULT_PRIORITY  # NaN fails both


def parse_changefreq(text: str | None) -> ChangeFreq | None:
    """``SiteMapURL.setChangeFrequency``: the first name the text contains."""
    if text is None:
        return None
    upper = text.upper()
    return next((freq for freq in ChangeFreq if freq.name in upper), None)


class Collector:
    """Checks and counts the URLs of one file, as crawler-commons' handlers do.

    Attributes:
        base: the sitemap's base URL (:func:`base_url`).
        strict: whether a URL must start with ``base``.
        entries: the entries kept, in file order.
        drops: the URLs left out, by reason.
    """

    def __init__(self, base: str, strict: bool, max_urls: int) -> None:
        self.base = base
        self.strict = strict
        self._max_urls = max_urls
        self.entries: list[SitemapEntry] = []
        self.drops: Counter[UrlDrop] = Counter()

    def add(self, entry: SitemapEntry, check_path: bool = True) -> None:
        """Keep ``entry`` (its URL already trimmed) if it passes, else count it."""
        if not entry.url:
            return
        if not is_java_url(entry.url):
            self.drops[UrlDrop.MALFORMED] += 1
            return
        if check_path and self.strict and not entry.url.startswith(self.base):
            self.drops[UrlDrop.NOT_UNDER_PATH] += 1
        elif len(self.entries) >= self._max_urls:
            self.drops[UrlDrop.OVER_LIMIT] += 1
        else:
            self.entries.append(entry)


def is_java_url(url: str) -> bool:
    """Whether ``new java.net.URL(url)`` accepts ``url``."""
    try:
        parse_url(url)
    except MalformedUrlError:
        return False
    return True
