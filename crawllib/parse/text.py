"""Plain-text parsing (``text/*`` other than HTML and XML), as Nutch's parse-tika.

Nutch sends ``text/plain`` to parse-tika (the old parse-text plugin is gone).
Tika's TXTParser wraps the decoded text in one ``<p>``, and Nutch's
DOMContentUtils then turns every run of whitespace into one space and trims
the result; the title is "". With no anchors in the DOM, TikaParser falls
back to ``OutlinkExtractor``, which finds URLs in the text by regex: so do we
(anchor "", absolute only by the regex: later filters drop what is junk).

Decoding is :func:`crawllib.parse.charset.decode_document` (a byte order
mark, the Content-Type charset, the content type's; undeclared: valid UTF-8,
else the default, or the detector's confident guess when
``encodingdetector.charset.min.confidence`` >= 0), recorded under the
lowercased Java name as ``OriginalCharEncoding`` and
``CharEncodingForConversion``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from crawllib.java import java_trim
from crawllib.parse import Outlink, ParseResult
from crawllib.parse.charset import decode_document, encoding_metadata
from crawllib.status import ParseMajor

_JAVA_SPACE = re.compile(r"[ \t\n\x0b\f\r]+")  # Java's \s
_URL = re.compile(  # OutlinkExtractor.URL_PATTERN
    r"([A-Za-z][A-Za-z0-9+.-]{1,120}:[A-Za-z0-9/](([A-Za-z0-9$_.+!*,;/?:@&~=-])"
    r"|%[A-Fa-f0-9]{2}){1,333}(#([a-zA-Z0-9][a-zA-Z0-9$_.+!*,;/?:@&~=%-]{0,1000}))?)"
)


def parse_text(
    url: str,
    content: bytes,
    content_type: str | None,
    headers: Mapping[str, str | None],
    default_encoding: str,
    min_confidence: int = -1,
) -> ParseResult:
    """Parse a plain-text document like Nutch's parse-tika; never raises.

    Args:
        url: the page URL (the text has no relative links to resolve).
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
        content_type=content_type,
        min_confidence=min_confidence,
    )
    text = collapse_whitespace(decoded)
    return ParseResult(
        ParseMajor.SUCCESS,
        text=text,
        outlinks=text_outlinks(text),
        metadata=encoding_metadata(encoding),
    )


def collapse_whitespace(text: str) -> str:
    """DOMContentUtils on one text node: ASCII whitespace runs to a space, trimmed."""
    return java_trim(_JAVA_SPACE.sub(" ", text))


def text_outlinks(text: str) -> tuple[Outlink, ...]:
    """Nutch's ``OutlinkExtractor.getOutlinks``: URL-like strings, anchor ""."""
    return tuple(Outlink(match.group()) for match in _URL.finditer(text))
