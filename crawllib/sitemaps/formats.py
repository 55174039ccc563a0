"""Sitemap files to entries: crawler-commons' ``SiteMapParser`` as Nutch uses it.

Formats: XML ``<urlset>``, ``<sitemapindex>``, RSS (``<channel>``) and Atom
(``<feed>``) read as sitemaps (:mod:`crawllib.sitemaps.handlers`), plain
text (one URL a line), each of them gzipped. What a file is, as
``parseSiteMap(contentType, ...)`` decides: an XML type or ``text/plain`` is
trusted; any other Content-Type (``text/html``, ``application/octet-stream``,
a gzip type, none) gives way to what the first bytes say after byte order
marks and white space (``<?xml``, ``<urlset``, ``<rss``, ... is XML;
``http://`` or ``https://`` is text; ``MimeTypeDetector``). gzip is told by
its magic bytes and unpacked once; its content is sniffed the same way.

As ``new SiteMapParser(strict)`` in Nutch (``allowPartial`` false):

- XML that does not parse, a ``DOCTYPE`` (crawler-commons disallows DTDs, so
  entity expansion and external entities never happen: a billion-laughs file
  costs nothing), an unknown root element, broken gzip and bytes that are no
  sitemap make the whole file :class:`SitemapFormatError`; nothing is kept.
- Strict mode keeps only URLs under the sitemap's base URL (:func:`base_url`;
  a ``/`` in the query does not count). Index entries are not checked
  (crawler-commons' index handler does not).
- ``<loc>`` values lose white space at both ends, Unicode spaces included
  (``stripAllBlank``), a text line Java's ``trim()``; a URL ``java.net.URL``
  rejects is dropped; ``priority`` outside [0, 1] or unparsable is 0.5;
  ``changefreq`` matches by substring, case ignored; a ``lastmod`` that is
  no W3C date is no date.
- At most ``max_urls`` entries are kept (the rest counted), and no more than
  ``max_bytes`` are read, gzipped or not (``setMaxUrls`` / ``setMaxBytes``).

Where beamcrawl departs (each pinned by a ``test_beamcrawl_*`` test): gzip
bytes are unpacked whatever the Content-Type says, and plain bytes under a
gzip type are read as they are (crawler-commons trusts the type and fails);
UTF-16 XML is read; and the XML details in :mod:`crawllib.sitemaps.handlers`.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib

from crawllib.java import java_trim
from crawllib.sitemaps.entries import (
    DEFAULT_PRIORITY,
    ChangeFreq,
    Collector,
    Kind,
    ParsedSitemap,
    SitemapEntry,
    SitemapFormatError,
    TooLargeError,
    UrlDrop,
    base_url,
    parse_changefreq,
    parse_priority,
    strip_blank,
)
from crawllib.sitemaps.handlers import UTF16_BOMS, read_xml, skip_leading

__all__ = [
    "DEFAULT_PRIORITY",
    "ChangeFreq",
    "Kind",
    "ParsedSitemap",
    "SitemapEntry",
    "SitemapFormatError",
    "TooLargeError",
    "UrlDrop",
    "base_url",
    "parse_changefreq",
    "parse_priority",
    "parse_sitemap",
    "strip_blank",
]

_GZIP_MAGIC = b"\x1f\x8b"
_XML_TYPES = frozenset(
    {"application/xml", "application/x-xml", "text/xml", "application/atom+xml",
     "application/rss+xml", "text/rss", "application/rdf+xml"}
)  # fmt: skip
_GZIP_TYPES = frozenset(
    {"application/gzip", "application/gzip-compressed", "application/gzipped",
     "application/x-gzip", "application/x-gzip-compressed",
     "application/x-gunzip", "gzip/document"}
)  # fmt: skip
_XML_STARTS = (b"<?xml", b"<?XML", b"<!--", b"<urlset", b"<sitemapindex", b"<rss",
               b"<feed", b"<rdf")  # fmt: skip
_TEXT_STARTS = (b"http://", b"https://")
_TEXT_LINES = re.compile("\r\n|\r|\n")  # BufferedReader.readLine


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
        SitemapFormatError: broken or unknown XML, a DTD, bytes that are no
            sitemap, broken gzip.
        TooLargeError: content over ``max_bytes``, gunzipped or not.
    """
    if len(content) > max_bytes:
        raise TooLargeError(f"more than {max_bytes} bytes")
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if content.startswith(_GZIP_MAGIC):
        content = _gunzip(content, max_bytes)
        media = ""  # what the gzip holds is told by its bytes
    elif media in _GZIP_TYPES:
        media = ""  # a gzip type, unpacked already (Content-Encoding): sniff
    collector = Collector(base_url(url), strict, max_urls)
    if _is_xml(content, media):
        kind = read_xml(content, url, collector)
    else:
        kind = Kind.TEXT
        _read_text(content, collector)
    return ParsedSitemap(kind, tuple(collector.entries), collector.drops)


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


def _is_xml(content: bytes, media: str) -> bool:
    """XML or text: a type crawler-commons trusts, else ``MimeTypeDetector.detect``.

    Raises:
        SitemapFormatError: neither a known type nor known first bytes.
    """
    if media in _XML_TYPES or media == "text/plain":
        return media != "text/plain"
    start = skip_leading(content)
    head = content[start : start + 16]
    encoding = UTF16_BOMS.get(content[:2])
    if encoding:  # beamcrawl reads UTF-16 too
        head = content[2:64].decode(encoding, "replace").lstrip().encode()
    if head.startswith(_XML_STARTS):
        return True
    if head.startswith(_TEXT_STARTS):
        return False
    shown = media or "unknown"
    raise SitemapFormatError(
        f"cannot parse a sitemap of type {shown!r}: no XML nor URL"
    )


def _read_text(content: bytes, collector: Collector) -> None:
    """``processText``: UTF-8 lines, Java-trimmed, each a URL."""
    text = content.decode("utf-8", errors="replace").removeprefix("\ufeff")
    for line in _TEXT_LINES.split(text):
        collector.add(SitemapEntry(java_trim(line)))
