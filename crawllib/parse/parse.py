"""ParserJob's rules for one fetched page (Nutch 2.x ParserMapper + ParseUtil.process).

:func:`skip_reason` says whether a page is parsed at all; :func:`parse_page`
parses it and writes the result into the record: on success text, title,
signature (the old one kept as ``prevSignature``), outlinks and the parse
mark; on a meta refresh only the redirect (target in ``outlinks`` with the
redirect flag, ``reprUrl`` by chooseRepr); on failure only ``parseStatus``.
"""

from __future__ import annotations

import enum

from crawllib.config import ParseConfig
from crawllib.fetch.records import REDIRECT_DISCOVERED, TRUNCATED, UNDECODED
from crawllib.fetch.redirects import RedirectTargets, choose_repr
from crawllib.parse import ParseResult, failed
from crawllib.parse.dispatch import Parsers
from crawllib.parse.outlinks import OutlinkFilter
from crawllib.parse.signature import compute_signature
from crawllib.status import CrawlStatus, Mark, ParseMinor
from crawllib.webpage import ParseStatusRecord, WebPage

PERM_REFRESH_S = 5
"""A meta refresh shorter than this is a temporary redirect (1.x Fetcher)."""
CACHING_FORBIDDEN = "caching.forbidden"
ROBOTS_META = "robots"
"""Metadata key set to ``noindex`` when meta robots forbids indexing (read by index)."""
PAGE_METADATA = frozenset({"OriginalCharEncoding", "CharEncodingForConversion"})
"""Parse metadata that 2.x parse-html keeps in the page's metadata."""


class ParseSkip(enum.Enum):
    """Why ParserJob passed a page over without writing it."""

    NOT_FETCHED = "not fetched yet"  # no fetch mark
    ALREADY_PARSED = "already parsed"  # --resume without --force
    TRUNCATED = "truncated"  # parser.skip.truncated


def skip_reason(
    page: WebPage, config: ParseConfig, resume: bool = False, force: bool = False
) -> ParseSkip | None:
    """ParserMapper's checks, in order; None when the page goes on to be parsed."""
    if not page["markers"].get(Mark.FETCH.value):
        return ParseSkip.NOT_FETCHED
    if resume and page["markers"].get(Mark.PARSE.value) and not force:
        return ParseSkip.ALREADY_PARSED
    if config.skip_truncated and is_truncated(page):
        return ParseSkip.TRUNCATED
    return None


def is_truncated(page: WebPage) -> bool:
    """The fetcher's truncation flag, else Content-Length > the stored content (2.x)."""
    content = page["content"]
    if content is None:
        return False
    if page["metadata"].get(TRUNCATED) == b"true":
        return True
    length = next(
        (v for k, v in page["headers"].items() if k.lower() == "content-length"), None
    )
    try:
        return length is not None and int(length.strip()) > len(content)
    except ValueError:
        return False


def undecoded_failure(page: WebPage) -> ParseResult | None:
    """A failed parse for content still in codings the fetcher could not undo.

    Such content (``Content-Encoding: compress``, an unknown name) is kept as
    sent; read as text it would give garbage (beamcrawl's, not Nutch's).
    """
    codings = page["metadata"].get(UNDECODED)
    if not codings:
        return None
    return failed(
        ParseMinor.INVALID_FORMAT,
        f"content in Content-Encoding {codings.decode('latin-1')},"
        " which the fetcher cannot decode",
    )


class PageParser:
    """ParseUtil.process for records: build once per worker, call per page."""

    def __init__(self, config: ParseConfig, use_alarm: bool = False) -> None:
        self._config = config
        self._parsers = Parsers(config, use_alarm)
        self._outlinks = OutlinkFilter(config)
        self._redirects = RedirectTargets(config.urls, config.max_outlink_length)

    def parse_page(self, page: WebPage) -> WebPage:
        """The page with its parse applied; pages not FETCHED come back as they are."""
        if page["status"] != CrawlStatus.FETCHED:
            return page
        result = undecoded_failure(page)
        if result is None:
            result = self._parsers.parse(
                page["url"],
                page["content"] or b"",
                page["contentType"],
                page["headers"],
            )
        status: ParseStatusRecord = {
            "majorCode": int(result.major),
            "minorCode": int(result.minor),
            "args": list(result.args),
        }
        parsed: WebPage = {**page, "parseStatus": status}
        if not result.success:
            return parsed
        if result.minor is ParseMinor.REDIRECT:
            return self._refresh(parsed, result)
        return self._success(parsed, result)

    def _success(self, page: WebPage, result: ParseResult) -> WebPage:
        config = self._config
        metadata = dict(page["metadata"])
        for key, value in result.metadata:
            if key in PAGE_METADATA:
                metadata[key] = value.encode("utf-8")
        if result.noindex:
            metadata[ROBOTS_META] = b"noindex"
        if result.nocache:
            metadata[CACHING_FORBIDDEN] = config.html.caching_forbidden_policy.encode()
        markers = dict(page["markers"])
        markers[Mark.PARSE.value] = markers.get(Mark.FETCH.value)
        signature = compute_signature(
            config.signature, page["content"], result.text, page["url"], config
        )
        return {
            **page,
            "text": result.text,
            "title": result.title,
            "prevSignature": page["signature"] or page["prevSignature"],
            "signature": signature,
            "outlinks": self._outlinks.keep(page["url"], result.outlinks),
            "metadata": metadata,
            "markers": markers,
        }

    def _refresh(self, page: WebPage, result: ParseResult) -> WebPage:
        """A meta refresh (2.x ParseUtil.successRedirect, with 1.x's chooseRepr)."""
        target = result.args[0] if result.args else ""
        try:
            seconds = int(result.args[1]) if len(result.args) > 1 else 0
        except ValueError:
            seconds = 0
        kept = self._redirects.keep(page["url"], target)
        if kept is None:
            return page
        repr_url = choose_repr(page["url"], kept, seconds < PERM_REFRESH_S)
        return {
            **page,
            "outlinks": {**page["outlinks"], kept: ""},
            "metadata": {**page["metadata"], REDIRECT_DISCOVERED: b"y"},
            "reprUrl": repr_url,
        }

    def take_link_counts(self) -> dict[str, int]:
        """The outlink tallies since the last call (``Links`` counters), then reset."""
        return self._outlinks.take_counts()

    def close(self) -> None:
        """Release the parser's helper thread."""
        self._parsers.close()
