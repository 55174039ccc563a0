"""Sitemap files to entries: crawler-commons' ``SiteMapParser`` as Nutch uses it.

Formats: XML ``<urlset>``, ``<sitemapindex>``, RSS (``<channel>``) and Atom
(``<feed>``) read as sitemaps, plain text (one URL a line), each of them
gzipped (detected by its magic bytes, as crawler-commons does, so both a
``.gz`` file and a gzip body decoded by the protocol work).

As ``new SiteMapParser(strict)`` in Nutch (``allowPartial`` false):

- XML that does not parse, a ``DOCTYPE`` (crawler-commons disallows DTDs, so
  entity expansion and external entities never happen: a billion-laughs file
  costs nothing) and an unknown root element make the whole file
  :class:`SitemapFormatError`; nothing of it is kept.
- Strict mode keeps only URLs that start with the sitemap's base URL (its
  URL up to the last ``/``: ``SiteMapParser.urlIsValid``). Index entries are
  not checked (crawler-commons' index handler does not).
- A ``loc`` that ``java.net.URL`` rejects is dropped; ``priority`` outside
  [0, 1] or unparsable is 0.5; ``changefreq`` matches by substring, case
  ignored; a ``lastmod`` that is no W3C date is no date.

beamcrawl departs in one place: past ``max_urls`` entries crawler-commons
throws for XML (and Nutch loses the whole file) but stops for text; here
every format keeps the first ``max_urls`` and counts the rest.
"""

from __future__ import annotations

import enum
import gzip
import io
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urljoin

from lxml import etree

from crawllib.sitemaps.dates import parse_rfc822_ms, parse_w3c_ms
from crawllib.urls.javaurl import MalformedUrlError, parse_url

DEFAULT_PRIORITY = 0.5
"""crawler-commons ``SiteMapURL.DEFAULT_PRIORITY``."""

_GZIP_MAGIC = b"\x1f\x8b"
_XML_TYPES = re.compile(r"(^|[/+])(xml|rss|atom)\b|^text/xml", re.IGNORECASE)
_BLANK = " \t\n\r\f\v\u00a0\u2007\u202f\u0085\u2028\u2029\u1680\u3000"


class SitemapFormatError(ValueError):
    """The file is no sitemap crawler-commons would parse (UnknownFormatException)."""


class TooLargeError(SitemapFormatError):
    """The file, once gunzipped, is larger than ``sitemap.size.max``."""


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

    For an index, the entries are the listed sitemaps (only ``url`` counts).
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


def parse_sitemap(
    content: bytes,
    content_type: str | None,
    url: str,
    *,
    strict: bool = True,
    max_urls: int = 50_000,
    max_bytes: int = 52_428_800,
) -> ParsedSitemap:
    """Parse one sitemap file fetched from ``url``.

    Raises:
        SitemapFormatError: broken or unknown XML, a DTD, an unknown type.
        TooLargeError: gzipped content over ``max_bytes`` once decompressed.
    """
    if content.startswith(_GZIP_MAGIC):
        return parse_sitemap(
            _gunzip(content, max_bytes),
            None,
            url,
            strict=strict,
            max_urls=max_urls,
            max_bytes=max_bytes,
        )
    collector = _Collector(base_url(url), strict, max_urls)
    if _is_xml(content, content_type):
        kind = _read_xml(content, url, collector)
    elif _is_text(content_type):
        kind = Kind.TEXT
        _read_text(content, collector)
    else:
        raise SitemapFormatError(f"cannot parse a sitemap of type {content_type!r}")
    return ParsedSitemap(kind, tuple(collector.entries), collector.drops)


def base_url(url: str) -> str:
    """The sitemap's base: its URL up to the last ``/`` (``AbstractSiteMap``)."""
    return re.sub(r"/[^/]*$", "/", url, count=1)


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


class _Collector:
    """Checks and counts the URLs of one file, as crawler-commons' handlers."""

    def __init__(self, base: str, strict: bool, max_urls: int) -> None:
        self._base = base
        self._strict = strict
        self._max_urls = max_urls
        self.entries: list[SitemapEntry] = []
        self.drops: Counter[UrlDrop] = Counter()

    def add(self, entry: SitemapEntry, check_path: bool = True) -> None:
        url = strip_blank(entry.url)
        if not url:
            return
        try:
            parse_url(url)
        except MalformedUrlError:
            self.drops[UrlDrop.MALFORMED] += 1
            return
        if check_path and self._strict and not url.startswith(self._base):
            self.drops[UrlDrop.NOT_UNDER_PATH] += 1
        elif len(self.entries) >= self._max_urls:
            self.drops[UrlDrop.OVER_LIMIT] += 1
        else:
            self.entries.append(
                entry if url == entry.url else SitemapEntry(url, *_rest(entry))
            )


def _rest(entry: SitemapEntry) -> tuple[int | None, ChangeFreq | None, float]:
    return entry.lastmod_ms, entry.changefreq, entry.priority


def _gunzip(content: bytes, max_bytes: int) -> bytes:
    """Decompress at most ``max_bytes`` (+1, to know it is more)."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(content)) as stream:
            data = stream.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as exc:
        raise SitemapFormatError(f"broken gzip: {exc}") from exc
    if len(data) > max_bytes:
        raise TooLargeError(f"more than {max_bytes} bytes once gunzipped")
    return data


def _is_xml(content: bytes, content_type: str | None) -> bool:
    head = content[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    if head.startswith((b"<", b"\xff\xfe", b"\xfe\xff")):
        return True
    media = (content_type or "").split(";", 1)[0].strip()
    return bool(_XML_TYPES.search(media))


def _is_text(content_type: str | None) -> bool:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return media in ("", "text/plain", "application/octet-stream")


def _read_text(content: bytes, collector: _Collector) -> None:
    text = content.decode("utf-8", errors="replace").lstrip("\ufeff")
    for line in text.splitlines():
        if line.strip():
            collector.add(SitemapEntry(line.strip()))


_FIRST_ELEMENT = re.compile(rb"<[A-Za-z_:]")


def _has_doctype(content: bytes) -> bool:
    """A ``<!DOCTYPE`` before the first element: refused before libxml2 sees it.

    libxml2 would otherwise meet the entities first (lxml 6.2 stops a billion
    laughs only as an amplification error); ``docinfo.doctype`` below stays
    the check for what this scan cannot see (a UTF-16 file).
    """
    first = _FIRST_ELEMENT.search(content)
    return b"<!DOCTYPE" in (content[: first.start()] if first else content)


def _read_xml(content: bytes, url: str, collector: _Collector) -> Kind:
    if _has_doctype(content):
        raise SitemapFormatError("DOCTYPE is not allowed in a sitemap")
    events = etree.iterparse(
        io.BytesIO(content),
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    kind: Kind | None = None
    try:
        for event, element in events:
            if kind is None and event == "start":
                if element.getroottree().docinfo.doctype:
                    raise SitemapFormatError("DOCTYPE is not allowed in a sitemap")
                kind = _KINDS.get(etree.QName(element).localname)
            elif kind is not None and event == "end":
                _read_element(kind, element, url, collector)
    except etree.XMLSyntaxError as exc:
        raise SitemapFormatError(f"not well-formed XML: {exc}") from exc
    if kind is None:
        raise SitemapFormatError("unknown XML format: no urlset, index or feed")
    return kind


_KINDS = {
    "urlset": Kind.XML,
    "sitemapindex": Kind.INDEX,
    "channel": Kind.RSS,
    "feed": Kind.ATOM,
}
_ITEMS = {Kind.XML: "url", Kind.INDEX: "sitemap", Kind.RSS: "item", Kind.ATOM: "entry"}


def _read_element(
    kind: Kind, element: etree._Element, url: str, collector: _Collector
) -> None:
    name = etree.QName(element).localname
    if name != _ITEMS[kind]:
        return
    fields = dict(_children(element))
    if kind is Kind.XML:
        collector.add(
            SitemapEntry(
                fields.get("loc", ""),
                parse_w3c_ms(fields.get("lastmod")),
                parse_changefreq(fields.get("changefreq")),
                parse_priority(fields.get("priority")),
            )
        )
    elif kind is Kind.INDEX:
        collector.add(SitemapEntry(fields.get("loc", "")), check_path=False)
    elif kind is Kind.RSS:
        link = _resolve(url, fields.get("link", ""))
        collector.add(SitemapEntry(link, parse_rfc822_ms(fields.get("pubDate"))))
    else:
        link = _resolve(url, _atom_link(element))
        collector.add(SitemapEntry(link, parse_w3c_ms(fields.get("updated"))))
    element.clear()


def _children(element: etree._Element) -> Iterator[tuple[str, str]]:
    for child in element:
        if isinstance(child.tag, str):
            yield (
                etree.QName(child).localname,
                "".join(str(text) for text in child.itertext()),
            )


def _atom_link(entry: etree._Element) -> str:
    for child in entry:
        if (
            isinstance(child.tag, str)
            and etree.QName(child).localname == "link"
            and child.get("rel", "alternate") == "alternate"
        ):
            return child.get("href", "")
    return ""


def _resolve(base: str, link: str) -> str:
    """A feed link, resolved against the feed's URL (crawler-commons does)."""
    link = strip_blank(link)
    if not link or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", link):
        return link
    return urljoin(base, link)
