"""HTML parsing, as Nutch's parse-html plugin (HtmlParser, HTMLMetaProcessor).

:func:`parse_html` decodes the page (:mod:`crawllib.parse.charset`),
builds a tree with libxml2's HTML parser through lxml (in place of NekoHTML),
reads the meta tags, and extracts text, title and outlinks by
DOMContentUtils' rules (:mod:`crawllib.parse.htmldom`; the text and the
links by the C walk of :mod:`crawllib.parse.fastdom` where it is built),
resolving links as
``URLUtil.resolveURL`` does (:mod:`crawllib.parse.htmlurl`).

As HtmlParser (1.x):

- Meta tags are read before ``<body>`` only. Every ``<meta name content>``
  goes into the metadata under its lowercased name. ``robots`` content is
  searched, lowercased, for ``none`` (noindex and nofollow), ``noindex``,
  ``nofollow`` and ``noarchive`` (nocache); ``http-equiv="pragma"`` with
  ``no-cache`` also means nocache.
- ``http-equiv="refresh"`` with content ``T[;[url=]U]``: T must be a Java int
  exactly (``"5 "`` is not), else there is no refresh; U is read as an
  absolute URL, else resolved against the page URL; without U, the target is
  the page URL. The parse is then success/redirect with args ``(U, T)``.
- noindex leaves text and title empty; nofollow, the outlinks; nocache sets
  ``caching.forbidden`` to ``parser.caching.forbidden.policy``.
- Outlinks resolve against the first ``<base href>`` before ``<body>``
  (itself resolved against the page URL), else the page URL.
- Empty content, or content without an element, is an empty success (Neko
  builds an empty document); binary junk is parsed like any page. Only a
  malformed page URL fails the parse (``failed/exception``).
- ``parser.html.outlinks.htmlnode_metadata_name`` is ignored: an
  :class:`~crawllib.parse.Outlink` has no metadata.

Where beamcrawl differs:

- A refresh URL in quotes (``url='x'``) loses them, as in browsers; Nutch
  would resolve ``'x'`` with the quotes as a relative path.
- libxml2 stops at 2048 open elements; such a page is parsed again with
  the elements past depth 512 flattened (:mod:`~crawllib.parse.htmltree`).
- The DOM is libxml2's, not Neko's: where they fix broken markup
  differently, text and links follow libxml2's tree.
- An anchor's img-alt fallback looks at 1000 elements at most
  (:data:`~crawllib.parse.htmldom.ALT_WALK_LIMIT`).
- The page is decoded as :mod:`~crawllib.parse.charset` explains (a BOM
  first; undeclared valid UTF-8 as UTF-8; the detector only when
  ``encodingdetector.charset.min.confidence`` >= 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lxml import etree

from crawllib.config.parse import HtmlConfig
from crawllib.java import java_trim, parse_int
from crawllib.parse import Outlink, ParseResult, failed, fastdom
from crawllib.parse.charset import decode_document, encoding_metadata, meta_charset
from crawllib.parse.htmldom import (
    element_text,
    holds_marks,
    link_anchors,
    link_table,
    page_text,
)
from crawllib.parse.htmltree import parse_tree
from crawllib.parse.htmlurl import JavaUrl, join_url, parse_java_url, resolve_url
from crawllib.status import ParseMajor, ParseMinor

CACHING_FORBIDDEN = "caching.forbidden"
"""Nutch.CACHING_FORBIDDEN_KEY: set when the page forbids caching."""


@dataclass(frozen=True, slots=True)
class _Head:
    """What HTMLMetaProcessor and getTitle/getBase read before ``<body>``."""

    title: etree._Element | None
    base_href: str | None
    metas: tuple[etree._Element, ...]


@dataclass(slots=True)
class _Directives:
    """HTMLMetaTags: the robots, no-cache and refresh verdicts, built tag by tag."""

    noindex: bool = False
    nofollow: bool = False
    nocache: bool = False
    refresh: bool = False
    refresh_s: int = 0
    refresh_url: str = ""


def parse_html(
    url: str,
    content: bytes,
    content_type: str | None,
    headers: Mapping[str, str | None],
    config: HtmlConfig,
) -> ParseResult:
    """Parse an HTML page as Nutch's HtmlParser.getParse; never raises for bad input.

    Args:
        url: the page URL (Nutch's ``Content.baseUrl``); links resolve
            against it. A malformed URL fails the parse, as in Nutch.
        content: the raw bytes.
        content_type: the media type; every HTML type is parsed alike.
        headers: the HTTP response headers, names in any case (for the
            ``Content-Type`` charset).
        config: the parse-html settings.
    """
    del content_type  # parse-html reads text/html and XHTML the same way
    page = parse_java_url(url)
    if page is None:
        return failed(ParseMinor.EXCEPTION, f"malformed URL: {url}")
    text, encoding = decode_document(
        content,
        headers,
        config.default_encoding,
        meta_charset,
        min_confidence=config.charset_min_confidence,
    )
    metadata = list(encoding_metadata(encoding))
    try:
        root = None if not text or text.isspace() else parse_tree(text)
    except etree.LxmlError as exc:
        return failed(ParseMinor.EXCEPTION, f"{type(exc).__name__}: {exc}")
    if root is None:
        return ParseResult(ParseMajor.SUCCESS, metadata=tuple(metadata))
    return _extract(root, page, metadata, config, holds_marks(text))


def _extract(
    root: etree._Element,
    page: JavaUrl,
    metadata: list[tuple[str, str]],
    config: HtmlConfig,
    own_marks: bool,
) -> ParseResult:
    """HtmlParser.getParse once the DOM is built: meta tags, then text and links."""
    head = _read_head(root)
    meta = _Directives()
    for element in head.metas:
        _read_meta(element, page, meta, metadata)
    if meta.nocache:
        metadata.append((CACHING_FORBIDDEN, config.caching_forbidden_policy))
    breaks = config.line_separators
    text = "" if meta.noindex else _page_text(root, breaks, own_marks)
    links = [] if meta.nofollow else _links(root, config, own_marks)
    return ParseResult(
        ParseMajor.SUCCESS,
        ParseMinor.REDIRECT if meta.refresh else ParseMinor.OK,
        (meta.refresh_url, str(meta.refresh_s)) if meta.refresh else (),
        title=""
        if meta.noindex or head.title is None
        else element_text(head.title, breaks),
        text=text,
        outlinks=tuple(_outlinks(page, head.base_href, links)),
        metadata=tuple(metadata),
        noindex=meta.noindex,
        nofollow=meta.nofollow,
        nocache=meta.nocache,
    )


def _page_text(root: etree._Element, breaks: frozenset[str], own_marks: bool) -> str:
    """The page text by the C walk where it is built, else by htmldom's rules."""
    text = None if own_marks else fastdom.page_text(root, breaks)
    return page_text(root, breaks, own_marks) if text is None else text


def _links(
    root: etree._Element, config: HtmlConfig, own_marks: bool
) -> list[tuple[str, str]]:
    """Link targets and anchors by the C walk where it is built, else htmldom's."""
    breaks = config.line_separators
    links = None if own_marks else fastdom.links(root, config, breaks)
    return link_anchors(root, link_table(config), breaks) if links is None else links


def _read_head(root: etree._Element) -> _Head:
    """The first title, the first base href and the meta tags before body."""
    title = base_href = None
    metas = []
    # the head is a few elements: a walk of all of them costs less than
    # setting up lxml's search by tag names (~12 us)
    for element in root.iter():
        tag = element.tag
        if tag == "body":
            break
        if tag == "meta":
            metas.append(element)
        elif tag == "title":
            title = element if title is None else title
        elif tag == "base" and base_href is None:
            base_href = element.get("href")
    return _Head(title, base_href, tuple(metas))


def _read_meta(
    element: etree._Element,
    page: JavaUrl,
    meta: _Directives,
    metadata: list[tuple[str, str]],
) -> None:
    """HTMLMetaProcessor for one ``<meta>``: name, robots, pragma, refresh."""
    content = element.get("content")
    if content is None:
        return
    name = element.get("name")
    if name is not None:
        name = name.lower()
        metadata.append((name, content))
        if name == "robots":
            _read_robots(content.lower(), meta)
    equiv = element.get("http-equiv")
    if equiv is not None:
        equiv = equiv.lower()
        if equiv == "pragma":
            meta.nocache = meta.nocache or "no-cache" in content.lower()
        elif equiv == "refresh":
            _read_refresh(content, page, meta)


def _read_robots(directives: str, meta: _Directives) -> None:
    """Substring tests, as Nutch: ``none`` is noindex and nofollow."""
    none = "none" in directives
    meta.noindex = meta.noindex or none or "noindex" in directives
    meta.nofollow = meta.nofollow or none or "nofollow" in directives
    meta.nocache = meta.nocache or "noarchive" in directives


def _read_refresh(content: str, page: JavaUrl, meta: _Directives) -> None:
    """A refresh tag updates the verdict of the ones before, as in Nutch."""
    semicolon = content.find(";")
    seconds = parse_int(content if semicolon < 0 else content[:semicolon])
    if seconds is not None:
        meta.refresh = True
        meta.refresh_s = seconds
    if not meta.refresh:
        return
    target = None
    if semicolon >= 0:
        at = content.lower().find("url=")
        spec = _unquote(content[semicolon + 1 if at < 0 else at + 4 :])
        target = parse_java_url(spec) or join_url(page, spec)
    meta.refresh_url = str(page if target is None else target)


def _unquote(spec: str) -> str:
    """Drop quotes around a refresh URL (WHATWG's declarative refresh steps)."""
    spec = java_trim(spec)
    if spec[:1] in ("'", '"'):
        spec = spec[1:].split(spec[0], 1)[0]
    return spec


def _outlinks(
    page: JavaUrl, base_href: str | None, links: list[tuple[str, str]]
) -> list[Outlink]:
    """Resolve the link targets against the base URL; malformed ones are skipped."""
    if not links:
        return []
    base = page if base_href is None else join_url(page, base_href) or page
    resolved: dict[str, str | None] = {}  # pages repeat their links
    outlinks = []
    for target, anchor in links:
        if target in resolved:
            absolute = resolved[target]
        else:
            absolute = resolved[target] = resolve_url(base, target)
        if absolute is not None:
            outlinks.append(Outlink(absolute, anchor))
    return outlinks
