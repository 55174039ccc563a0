"""Parsers: content bytes in, text, title, outlinks and a ParseStatus out.

Each parser (``html``, ``text``, ``feed``) returns a :class:`ParseResult`:
the raw material of Nutch's Parse. Outlinks come out absolute but otherwise
as found (not normalized, filtered or de-duplicated: that is
``crawllib.parse.outlinks``' job); a parse never raises for bad content.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from crawllib.status import ParseMajor, ParseMinor


class Outlink(NamedTuple):
    """A link found in a page: absolute target URL and anchor text.

    A named tuple: pages hold dozens, and a frozen dataclass costs five times
    as much to build.
    """

    url: str
    anchor: str = ""


@dataclass(frozen=True, slots=True)
class ParseResult:
    """What a parser made of a page (Nutch's Parse plus its ParseStatus).

    Attributes:
        major, minor, args: the ParseStatus; a meta refresh is SUCCESS /
            REDIRECT with ``args = (target URL, refresh seconds)``.
        title: the title ("" without one, or with meta robots noindex).
        text: the plain text, title included (as DOMContentUtils.getText).
        outlinks: links in document order, absolute, duplicates kept.
        metadata: parse metadata (meta tags by lowercased name, the encoding
            used as ``OriginalCharEncoding`` / ``CharEncodingForConversion``,
            ``caching.forbidden``), in order.
        noindex, nofollow, nocache: the page's meta robots / pragma verdict.
    """

    major: ParseMajor
    minor: ParseMinor = ParseMinor.OK
    args: tuple[str, ...] = ()
    title: str = ""
    text: str = ""
    outlinks: tuple[Outlink, ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()
    noindex: bool = False
    nofollow: bool = False
    nocache: bool = False

    @property
    def success(self) -> bool:
        """Whether the major code is success (also for a meta refresh)."""
        return self.major is ParseMajor.SUCCESS


def failed(minor: ParseMinor, message: str) -> ParseResult:
    """A failed parse with its reason (Nutch's ParseStatus failed/<minor>)."""
    return ParseResult(ParseMajor.FAILED, minor, (message,))
