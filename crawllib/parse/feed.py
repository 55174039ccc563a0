"""RSS 0.9x/1.0/2.0 and Atom feeds, as Nutch's parse-tika (Tika's FeedParser).

Tika turns a feed into ``<h1>title</h1><p>description</p>`` and one
``<li><a href=link>item title</a> item description</li>`` per entry, with
HTML stripped from titles and descriptions; Nutch's DOMContentUtils then
gives the text (one line per block) and the outlinks (entry links, anchor =
entry title). So here:

- title = the feed title; text = the feed title, the feed description and
  each item's title and description, one per line, each with its whitespace
  collapsed (Tika's page carries the title twice, in ``<title>`` and
  ``<h1>``: we keep one);
- outlinks = the channel / feed link (anchor: the feed title; Tika has no
  such link, we add it so a crawl finds the site), then each item link in
  order, resolved against ``xml:base`` and the feed URL. RSS items without
  a ``<link>`` use a permalink ``<guid>`` (as ROME does); Atom takes the
  first ``link`` whose ``rel`` is ``alternate`` or absent;
- a description falls back to ``content:encoded`` (RSS) or ``content``
  (Atom) when absent, as Nutch's parse-feed plugin does (Tika leaves it out).

XML that is no feed gets what Tika's XMLParser gives: all its text, with a
space between elements, no title and no outlinks. Content with no XML
element at all is ``failed/exception``, as a Tika parse error is in Nutch.

The XML parser is locked down: no external entities, DTDs or network, no
entity expansion at all (so no billion laughs; entity references defined
in a DTD are dropped), libxml2's size and depth limits kept (no huge
trees), and recovery from broken markup.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from lxml import etree

from crawllib.java import java_trim
from crawllib.parse import Outlink, ParseResult, failed
from crawllib.parse.charset import decode_document, encoding_metadata, xml_encoding
from crawllib.parse.htmlurl import parse_java_url, resolve_url
from crawllib.parse.text import collapse_whitespace
from crawllib.status import ParseMajor, ParseMinor

FEED_TYPES = frozenset(
    {"application/rss+xml", "application/atom+xml", "application/rdf+xml"}
)
"""Content types that always go to the feed parser."""
XML_TYPES = frozenset({"text/xml", "application/xml"})
"""Generic XML types: a feed only when the root element says so."""
SNIFF_LIMIT = 4096
"""Bytes read to find the root element of a generic XML document."""

_ATOM_NS = ("http://www.w3.org/2005/Atom", "http://purl.org/atom/ns#")
_ATOM_FEEDS = frozenset(f"{{{ns}}}feed" for ns in _ATOM_NS)
_ALTERNATE = frozenset(
    {"alternate", "http://www.iana.org/assignments/relation/alternate"}
)
_RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}RDF"
_RSS1_NS = ("http://purl.org/rss/1.0/", "http://my.netscape.com/rdf/simple/0.9/")
_ENCODED = "{http://purl.org/rss/1.0/modules/content/}encoded"
_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt",
    "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "td", "th",
    "tr", "ul",
})  # fmt: skip
_SKIPPED = frozenset({"script", "style"})
_CHARACTER_REFERENCE = re.compile(r"&#(?:[xX]([0-9a-fA-F]+)|([0-9]+));")
_SURROGATES = range(0xD800, 0xE000)


def looks_like_feed(content: bytes, content_type: str | None) -> bool:
    """Whether the feed parser should take this document.

    True for the feed types; for ``text/xml`` and ``application/xml`` when the
    root element is ``rss``, ``rdf:RDF`` or an Atom ``feed``.
    """
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media in FEED_TYPES:
        return True
    return media in XML_TYPES and _is_feed_root(_sniff_root(content[:SNIFF_LIMIT]))


def parse_feed(
    url: str,
    content: bytes,
    content_type: str | None,
    headers: Mapping[str, str | None],
    default_encoding: str,
    min_confidence: int = -1,
) -> ParseResult:
    """Parse an RSS or Atom feed (or other XML) as parse-tika; never raises.

    Decoded by :func:`crawllib.parse.charset.decode_document`, with the XML
    declaration's encoding after the header's charset.

    Args:
        url: the feed URL, the base for relative links.
        content: the raw bytes.
        content_type: the page's content type; a ``charset`` in it counts.
        headers: the response headers; ``Content-Type`` gives the charset.
        default_encoding: ``parser.character.encoding.default``.
        min_confidence: ``encodingdetector.charset.min.confidence``.
    """
    decoded, encoding = decode_document(
        content,
        headers,
        default_encoding,
        xml_encoding,
        content_type=content_type,
        min_confidence=min_confidence,
    )
    metadata = encoding_metadata(encoding)
    parser = etree.XMLParser(
        encoding="utf-8",
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        recover=True,
        remove_comments=True,
        remove_pis=True,
    )
    try:
        root = etree.fromstring(
            _without_surrogate_references(decoded).encode("utf-8", "replace"),
            parser,
            base_url=url,
        )
    except etree.XMLSyntaxError as exc:
        return failed(ParseMinor.EXCEPTION, f"not XML: {exc}")
    if root is None:
        return failed(ParseMinor.EXCEPTION, "not XML: no element found")
    etree.strip_elements(root, etree.Entity, with_tail=False)
    feed = _read(root)
    if feed is None:
        text = collapse_whitespace(" ".join(_texts(root)))
        return ParseResult(ParseMajor.SUCCESS, text=text, metadata=metadata)
    channel, items = feed
    entries = [channel, *items]
    pieces = (piece for entry in entries for piece in (entry.title, entry.description))
    return ParseResult(
        ParseMajor.SUCCESS,
        title=channel.title,
        text="\n".join(piece for piece in pieces if piece),
        outlinks=tuple(_outlinks(channel, items)),
        metadata=metadata,
    )


@dataclass(frozen=True, slots=True)
class _Entry:
    """A feed (its channel) or one of its items, reduced to what we keep."""

    title: str
    description: str
    link: str | None


def _without_surrogate_references(text: str) -> str:
    """``text`` with each character reference to a surrogate made ``&#xFFFD;``.

    libxml2's recovering parser keeps ``&#xD800;`` as the invalid UTF-8 of a
    lone surrogate, which lxml cannot read back (Xerces, under Tika, rejects
    the document). U+FFFD stands for it, as for any undecodable character.
    """
    if "&#" not in text:
        return text

    def replace(reference: re.Match[str]) -> str:
        hexadecimal, decimal = reference.groups()
        digits = (hexadecimal or decimal).lstrip("0")
        if len(digits) > 5:  # past any surrogate (and int()'s digit limit)
            return reference[0]
        code = int(digits or "0", 16 if hexadecimal else 10)
        return "&#xFFFD;" if code in _SURROGATES else reference[0]

    return _CHARACTER_REFERENCE.sub(replace, text)


def _sniff_root(head: bytes) -> str | None:
    """The root element's ``{namespace}name`` in the first bytes, or None."""
    parser = etree.XMLPullParser(
        events=("start",),
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=False,
        recover=True,
    )
    try:
        parser.feed(head)
        for _event, element in parser.read_events():
            if isinstance(element, etree._Element):
                return str(element.tag)
    except etree.XMLSyntaxError:
        return None
    return None


def _is_feed_root(tag: str | None) -> bool:
    return tag == "rss" or tag == _RDF or tag in _ATOM_FEEDS


def _read(root: etree._Element) -> tuple[_Entry, list[_Entry]] | None:
    """The feed and its items, or None when ``root`` is no feed."""
    if root.tag == "rss":
        return _read_rss(root, "")
    if root.tag == _RDF:
        for ns in _RSS1_NS:
            if root.find(f"{{{ns}}}channel") is not None:
                return _read_rss(root, ns)
        return None
    if root.tag in _ATOM_FEEDS:
        return _read_atom(root, etree.QName(root).namespace or "")
    return None


def _read_rss(root: etree._Element, ns: str) -> tuple[_Entry, list[_Entry]]:
    """RSS 0.9x/2.0 (``ns`` empty) or RSS 0.90/1.0 (items beside the channel)."""
    q = _qualifier(ns)
    channel = root.find(q("channel"))
    if channel is None:
        channel = root
    feed = _Entry(
        _html_text(_child_text(channel, q("title"))),
        _html_text(_child_text(channel, q("description"))),
        _rss_link(channel, q),
    )
    items = [
        _Entry(
            _html_text(_child_text(item, q("title"))),
            _html_text(
                _child_text(item, q("description")) or _child_text(item, _ENCODED)
            ),
            _rss_link(item, q),
        )
        for item in root.iter(q("item"))
    ]
    return feed, items


def _read_atom(root: etree._Element, ns: str) -> tuple[_Entry, list[_Entry]]:
    """Atom 1.0 or 0.3: title, subtitle (or tagline), entries."""
    q = _qualifier(ns)
    subtitle = root.find(q("subtitle"))
    if subtitle is None:
        subtitle = root.find(q("tagline"))
    feed = _Entry(
        _atom_text(root.find(q("title"))), _atom_text(subtitle), _atom_link(root, q)
    )
    items = []
    for entry in root.iter(q("entry")):
        summary = entry.find(q("summary"))
        if summary is None:
            summary = entry.find(q("content"))
        items.append(
            _Entry(
                _atom_text(entry.find(q("title"))),
                _atom_text(summary),
                _atom_link(entry, q),
            )
        )
    return feed, items


def _outlinks(feed: _Entry, items: Iterable[_Entry]) -> Iterator[Outlink]:
    if feed.link:
        yield Outlink(feed.link, feed.title)
    for item in items:
        if item.link:
            yield Outlink(item.link, item.title)


def _qualifier(ns: str) -> Callable[[str], str]:
    return (lambda name: f"{{{ns}}}{name}") if ns else (lambda name: name)


def _child_text(parent: etree._Element, tag: str) -> str:
    child = parent.find(tag)
    return "" if child is None else "".join(_texts(child))


def _rss_link(element: etree._Element, q: Callable[[str], str]) -> str | None:
    """``<link>``, else a ``<guid>`` that is a permalink (ROME's rule)."""
    link = element.find(q("link"))
    if link is not None and link.text and java_trim(link.text):
        return _resolve(link, link.text)
    guid = element.find(q("guid"))
    if guid is not None and guid.text and guid.get("isPermaLink", "true") != "false":
        return _resolve(guid, guid.text)
    return None


def _atom_link(element: etree._Element, q: Callable[[str], str]) -> str | None:
    """The first ``link`` with ``rel`` alternate or none, resolved."""
    for link in element.findall(q("link")):
        rel = java_trim(link.get("rel") or "alternate")
        href = link.get("href")
        if rel in _ALTERNATE and href is not None:
            return _resolve(link, href)
    return None


def _resolve(element: etree._Element, href: str) -> str | None:
    """``href`` resolved as parse-html does, against ``xml:base`` / the feed URL.

    libxml2 works out the element's base (``xml:base`` on it and its
    ancestors, over the feed URL); ``URLUtil.resolveURL`` does the rest, so
    malformed links and schemes Java has no handler for are dropped.
    """
    base = parse_java_url(element.base or "")
    return None if base is None else resolve_url(base, href)


def _atom_text(element: etree._Element | None) -> str:
    """An Atom text construct: ``type`` text, html or xhtml (0.3: ``mode``)."""
    if element is None:
        return ""
    kind = java_trim(element.get("type") or "text").lower()
    if kind in ("html", "text/html") or element.get("mode") == "escaped":
        return _html_text("".join(_texts(element)))
    if len(element):
        return _element_text(element)
    return collapse_whitespace("".join(_texts(element)))


def _html_text(markup: str) -> str:
    """Tika's ``stripTags``: the text of an HTML fragment, whitespace collapsed."""
    if "<" not in markup and "&" not in markup:
        return collapse_whitespace(markup)
    parser = etree.HTMLParser(no_network=True, remove_comments=True, remove_pis=True)
    try:
        root = etree.fromstring(markup, parser)
    except (etree.ParserError, ValueError):
        return collapse_whitespace(markup)
    return "" if root is None else _element_text(root)


def _element_text(root: etree._Element) -> str:
    """The text under ``root``, blocks apart, scripts and styles left out."""
    parts: list[str] = []
    skipping = 0
    for event, element in etree.iterwalk(root, events=("start", "end")):
        tag = element.tag
        name = tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""
        if event == "start":
            if name in _SKIPPED:
                skipping += 1
            elif not skipping:
                parts.append(" " if name in _BLOCKS else "")
                parts.append((element.text or "") if name else "")
        else:
            if name in _SKIPPED:
                skipping -= 1
            elif not skipping and name in _BLOCKS:
                parts.append(" ")
            if not skipping and element is not root:
                parts.append(element.tail or "")
    return collapse_whitespace("".join(parts))


def _texts(element: etree._Element) -> Iterator[str]:
    """``itertext()`` typed: lxml gives ``str`` for text parsed from a document."""
    for text in element.itertext():
        yield text if isinstance(text, str) else text.decode("utf-8", "replace")
