"""Sitemap XML to entries: crawler-commons' SAX handlers, over lxml.

:func:`read_xml` reads an XML sitemap as ``SiteMapParser.processXml`` does:
libxml2 without DTDs (a ``DOCTYPE`` is refused before any entity is seen),
network or XInclude, the root told by the first known element (``urlset``,
``sitemapindex``, ``channel`` for RSS 1.0 and 2.0, ``feed`` for Atom), each
item read when it closes; then it is freed, as is every other element once
it closes outside an item, so memory stays flat whatever the file holds.
Each item is read with the rules of its handler:

- ``XMLHandler``: every ``<loc>`` of a ``<url>`` lists an entry, the
  ``lastmod``, ``changefreq`` and ``priority`` after it going with it;
  elements of the image, video, news, mobile, xhtml-link and PageMap
  extensions are no part of it (crawler-commons with its extensions on:
  an ``<image:loc>`` is no page).
- ``XMLIndexHandler``: every ``<loc>`` of a ``<sitemap>``, or the text of a
  ``<sitemap>`` without one, lists a sitemap with the ``lastmod`` after it.
- ``RSSHandler``: an ``<item>``'s last ``<link>``, else its ``<guid>``,
  resolved against the feed's URL, and its ``pubDate``.
- ``AtomHandler``: of an ``<entry>``'s links the first, unless a later one
  is valid where it is not, or has no ``rel`` where it has; ``<updated>``.

Where beamcrawl departs: the bytes keep their declared encoding or UTF-16
byte order mark (crawler-commons reads them as UTF-8); an item is read from
its own elements only (crawler-commons lets the channel's ``<link>`` or
``<pubDate>`` stand in for an item's, and state run over from one item to
the next); a ``<guid>`` counts only as an absolute URL (crawler-commons
resolves a UUID against the feed's URL); an Atom ``href`` is resolved against
the feed's URL (crawler-commons drops a relative one); a ``<url>`` whose URL
is bare text is kept when it closes (crawler-commons adds it when the next
``<url>`` opens, and so loses the last).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin

from lxml import etree

from crawllib.sitemaps.dates import parse_rfc822_ms, parse_w3c_ms
from crawllib.sitemaps.entries import (
    Collector,
    Kind,
    SitemapEntry,
    SitemapFormatError,
    is_java_url,
    parse_changefreq,
    parse_priority,
    strip_blank,
)

UTF8_BOM = b"\xef\xbb\xbf"
UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}
_LEADING = re.compile(rb"(?:\xef\xbb\xbf)*[ \t\n\r\x0b\x0c]*")  # MimeTypeDetector


def skip_leading(content: bytes) -> int:
    """How many bytes of byte order marks and white space ``content`` starts with."""
    match = _LEADING.match(content)
    return match.end() if match else 0


def read_xml(content: bytes, url: str, collector: Collector) -> Kind:
    """Read the XML sitemap ``content`` fetched from ``url`` into ``collector``.

    Raises:
        SitemapFormatError: not well-formed, a DTD, no known root element.
    """
    body = _xml_body(content)
    if _has_doctype(body):
        raise SitemapFormatError("DOCTYPE is not allowed in a sitemap")
    events = etree.iterparse(
        io.BytesIO(body),
        events=("start", "end"),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )
    kind: Kind | None = None
    item = ""  # the local name of the kind's items
    open_items = 0  # elements named so that are open
    try:
        for event, element in events:
            name = _name(element)
            if event == "start":
                if kind is None:
                    kind = _detect(element)
                    item = _ITEMS[kind] if kind else ""
                elif name == item:
                    open_items += 1
                continue
            if name == item:
                open_items -= 1
                if _is_item(kind, element, open_items):
                    _READERS[kind](element, url, collector)  # type: ignore[index]
                    _release(element)
                    continue
            if not open_items:
                _release(element)  # no open item will read it
    except etree.XMLSyntaxError as exc:
        raise SitemapFormatError(f"not well-formed XML: {exc}") from exc
    if kind is None:
        raise SitemapFormatError("unknown XML format: no urlset, index or feed")
    return kind


_FIRST_ELEMENT = re.compile(rb"<[A-Za-z_:]")


def _has_doctype(content: bytes) -> bool:
    """A ``<!DOCTYPE`` before the first element: refused before libxml2 sees it.

    libxml2 would otherwise meet the entities first (lxml 6.2 stops a billion
    laughs only as an amplification error); ``docinfo.doctype`` below stays
    the check for what this scan cannot see (a UTF-16 file).
    """
    first = _FIRST_ELEMENT.search(content)
    return b"<!DOCTYPE" in (content[: first.start()] if first else content)


def _xml_body(content: bytes) -> bytes:
    """The content without white space before ``<?xml`` (``processXml``).

    crawler-commons skips a byte order mark and then white space; libxml2
    refuses anything before the declaration, so the mark is put back after.
    """
    if content[:2] in UTF16_BOMS:
        return content
    start = skip_leading(content)
    if not start:
        return content
    return (UTF8_BOM if content.startswith(UTF8_BOM) else b"") + content[start:]


_KINDS = {
    "urlset": Kind.XML,
    "sitemapindex": Kind.INDEX,
    "channel": Kind.RSS,
    "feed": Kind.ATOM,
}
_ITEMS = {Kind.XML: "url", Kind.INDEX: "sitemap", Kind.RSS: "item", Kind.ATOM: "entry"}


def _name(element: etree._Element) -> str:
    """The local name, as crawler-commons' namespace-aware SAX handlers see it."""
    tag = element.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _namespace(element: etree._Element) -> str:
    tag = element.tag
    return tag[1:].partition("}")[0] if isinstance(tag, str) and tag[:1] == "{" else ""


def _detect(element: etree._Element) -> Kind | None:
    """The kind a start tag tells, as ``DelegatorHandler.startRootElement``."""
    docinfo: Any = element.getroottree().docinfo  # lxml-stubs lack .doctype
    if docinfo.doctype:
        raise SitemapFormatError("DOCTYPE is not allowed in a sitemap")
    return _KINDS.get(_name(element))


def _is_item(kind: Kind | None, element: etree._Element, open_items: int) -> bool:
    """Whether the handler of ``kind`` reads the item-named ``element`` closing.

    A ``<url>`` only right under ``<urlset>``; the others at any depth but
    not inside one of their own (``open_items``: that one reads it whole).
    """
    if kind is Kind.XML:
        parent = element.getparent()
        return parent is not None and _name(parent) == "urlset"
    return not open_items


def _release(element: etree._Element) -> None:
    """Free a closed element and the ones before it: memory stays flat."""
    element.clear()
    parent = element.getparent()
    if parent is not None:
        while element.getprevious() is not None:
            del parent[0]


_START, _TEXT, _END = range(3)
_Event = tuple[int, str, str]


def _events(
    element: etree._Element, skip: frozenset[str] = frozenset()
) -> Iterator[_Event]:
    """SAX events of ``element``'s content: (what, element name, text).

    Elements of a namespace in ``skip`` are left out with what follows them
    up to the next element (crawler-commons hands it to their extension).
    """
    name = _name(element)
    if element.text:
        yield _TEXT, name, element.text
    for child in element:
        if _namespace(child) in skip:
            continue
        child_name = _name(child)
        yield _START, child_name, ""
        yield from _events(child, skip)
        yield _END, child_name, ""
        if child.tail:
            yield _TEXT, name, child.tail


def _own_text(element: etree._Element) -> str:
    """The text crawler-commons buffers for an element: not its children's."""
    return (element.text or "") + "".join(child.tail or "" for child in element)


_URL_TEXT = frozenset({"loc", "url", "changefreq", "lastmod", "priority"})
_EXTENSIONS = frozenset(  # crawler-commons Namespace: image, video, news, ...
    f"http{s}://www.google.com/schemas/sitemap-{name}"
    for s in ("", "s")
    for name in ("image/1.1", "video/1.1", "news/0.9", "mobile/1.0", "pagemap/1.0")
) | {"http://www.google.com/schemas/sitemap-news/0.84", "http://www.w3.org/1999/xhtml"}


def _read_url(element: etree._Element, url: str, collector: Collector) -> None:
    """``XMLHandler`` over one ``<url>``: every ``<loc>`` lists an entry."""
    loc: str | None = None
    fields: dict[str, str] = {}
    buffer = ""
    for what, name, text in _events(element, _EXTENSIONS):
        if what == _TEXT:
            buffer += text if name in _URL_TEXT else ""
        elif what == _END:
            if name == "loc":
                loc, buffer = buffer, ""
            elif name in _URL_TEXT and name != "url":
                fields[name], buffer = buffer, ""
        elif name in ("loc", "url"):
            value = buffer if loc is None else loc
            loc, buffer = None, ""
            if strip_blank(value):  # a second <loc> or <url>: the first is done
                _add_url(collector, value, fields)
                fields = {}
            elif name == "url":
                fields = {}
        else:
            buffer = ""
    if loc is not None:
        _add_url(collector, loc, fields)
    elif strip_blank(buffer):  # the URL as bare text in <url>
        _add_url(collector, buffer, {})


def _add_url(collector: Collector, loc: str, fields: dict[str, str]) -> None:
    collector.add(
        SitemapEntry(
            strip_blank(loc),
            parse_w3c_ms(fields.get("lastmod")),
            parse_changefreq(fields.get("changefreq")),
            parse_priority(fields.get("priority")),
        )
    )


def _read_index(element: etree._Element, url: str, collector: Collector) -> None:
    """``XMLIndexHandler`` over one ``<sitemap>``: each ``<loc>``, or its text."""
    loc: str | None = None
    closed = False  # a </loc> was seen
    lastmod: int | None = None
    buffer = ""
    for what, name, text in [*_events(element), (_END, "sitemap", "")]:
        if what == _TEXT:
            if name in ("loc", "lastmod"):
                buffer += text
            elif not closed:  # no <loc> (yet): the text may be the URL
                buffer += strip_blank(text)
        elif what == _START:
            if loc and name in ("loc", "sitemap"):
                if strip_blank(loc):
                    _add_index_entry(collector, loc, lastmod)
                    loc, closed, lastmod = None, False, None
                    continue
                loc = None
                if name == "sitemap":
                    closed, lastmod = False, None
        elif name == "loc":
            loc, buffer, closed = buffer, "", True
        elif name == "lastmod":
            lastmod, buffer = parse_w3c_ms(buffer), ""
        elif name == "sitemap":
            if not closed:
                loc, buffer = buffer, ""
            if loc is not None:
                _add_index_entry(collector, loc, lastmod)
                loc, closed, lastmod = None, False, None


def _add_index_entry(collector: Collector, loc: str, lastmod: int | None) -> None:
    collector.add(SitemapEntry(strip_blank(loc), lastmod), check_path=False)


def _read_item(element: etree._Element, url: str, collector: Collector) -> None:
    """``RSSHandler`` over one ``<item>``: the last ``<link>``, else a ``<guid>``."""
    link: str | None = None
    guid: str | None = None
    lastmod: int | None = None
    for child in element.iterdescendants():
        name = _name(child)
        text = strip_blank(_own_text(child)) if name in _RSS_TEXT else ""
        if name == "link" and text:
            link = _resolve(url, text)
        elif name == "guid" and text and guid is None and _ABSOLUTE.match(text):
            guid = text
        elif name == "pubDate":
            lastmod = parse_rfc822_ms(text)
    found = link or guid
    if found:
        collector.add(SitemapEntry(found, lastmod))


_RSS_TEXT = frozenset({"link", "guid", "pubDate"})
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def _read_entry(element: etree._Element, url: str, collector: Collector) -> None:
    """``AtomHandler`` over one ``<entry>``: the link it picks, ``<updated>``."""
    href: str | None = None
    rel: str | None = None
    valid = False
    lastmod: int | None = None
    for child in element.iterdescendants():
        name = _name(child)
        if name == "link":
            candidate = _resolve(url, strip_blank(child.get("href") or ""))
            if not is_java_url(candidate):
                continue  # no href, or one java.net.URL rejects
            ok = not collector.strict or candidate.startswith(collector.base)
            new_rel = child.get("rel")
            if (
                href is None
                or (ok and not valid)
                or (rel is not None and new_rel is None)
            ):
                href, rel, valid = candidate, new_rel, ok
        elif name == "updated":
            lastmod = parse_w3c_ms(_own_text(child))
    if href:
        collector.add(SitemapEntry(href, lastmod))


def _resolve(base: str, link: str) -> str:
    """A feed link, resolved against the feed's URL (``new URL(context, spec)``)."""
    if not link or _ABSOLUTE.match(link):
        return link
    return urljoin(base, link)


_READERS = {
    Kind.XML: _read_url,
    Kind.INDEX: _read_index,
    Kind.RSS: _read_item,
    Kind.ATOM: _read_entry,
}
