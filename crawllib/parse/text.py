"""Plain-text parsing (``text/*`` other than HTML and XML), as Nutch's parse-tika.

Nutch sends ``text/plain`` to parse-tika (the old parse-text plugin is gone).
Tika's TXTParser wraps the decoded text in one ``<p>``, and Nutch's
DOMContentUtils then turns every run of whitespace into one space and trims
the result; the title is "". With no anchors in the DOM, TikaParser falls
back to ``OutlinkExtractor``, which finds URLs in the text by regex: so do we
(anchor "", absolute only by the regex: later filters drop what is junk).

Decoding, shared with the feed parser (:func:`decode_content`): a byte order
mark, else the ``charset`` of the Content-Type, else an encoding the document
declares, else UTF-8 if the bytes are valid UTF-8, else the default encoding
for plain ASCII, else charset-normalizer's guess, else
``parser.character.encoding.default``. Bad bytes become U+FFFD. Charset labels
are read as parse-html reads them (``htmlcharset.resolve_charset``: Nutch's
aliases such as ISO-8859-1 as windows-1252 and GBK as GB18030, browsers'
supersets) and recorded, under the lowercased Java name Nutch records, as
``OriginalCharEncoding`` and ``CharEncodingForConversion``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping
from dataclasses import dataclass

import charset_normalizer

from crawllib.parse import Outlink, ParseResult
from crawllib.parse.htmlcharset import resolve_charset
from crawllib.status import ParseMajor
from crawllib.urls.javaurl import java_trim

ENCODING_KEYS = ("OriginalCharEncoding", "CharEncodingForConversion")
"""The parse metadata keys that record the encoding used (as parse-html)."""

DETECT_LIMIT = 65536
"""Bytes given to charset-normalizer: enough to guess, cheap on large files."""

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts the same
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_FALLBACK = ("windows-1252", "cp1252")
_CHARSET = re.compile(r"""charset\s*=\s*["']?([^"';,\s]+)""", re.IGNORECASE)
_JAVA_SPACE = re.compile(r"[ \t\n\x0b\f\r]+")  # Java's \s
_URL = re.compile(  # OutlinkExtractor.URL_PATTERN
    r"([A-Za-z][A-Za-z0-9+.-]{1,120}:[A-Za-z0-9/](([A-Za-z0-9$_.+!*,;/?:@&~=-])"
    r"|%[A-Fa-f0-9]{2}){1,333}(#([a-zA-Z0-9][a-zA-Z0-9$_.+!*,;/?:@&~=%-]{0,1000}))?)"
)


@dataclass(frozen=True, slots=True)
class Decoded:
    """Content decoded to text, with the encoding used (lowercased Java name)."""

    text: str
    encoding: str

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        """The encoding as parse metadata (``OriginalCharEncoding`` ...)."""
        return tuple((key, self.encoding) for key in ENCODING_KEYS)


def parse_text(
    url: str,
    content: bytes,
    content_type: str | None,
    headers: Mapping[str, str | None],
    default_encoding: str,
) -> ParseResult:
    """Parse a plain-text document like Nutch's parse-tika; never raises.

    Args:
        url: the page URL (the text has no relative links to resolve).
        content: the raw bytes.
        content_type: the page's content type; a ``charset`` in it counts.
        headers: the response headers; ``Content-Type`` gives the charset.
        default_encoding: ``parser.character.encoding.default``.
    """
    decoded = decode_content(content, content_type, headers, default_encoding)
    text = collapse_whitespace(decoded.text)
    return ParseResult(
        ParseMajor.SUCCESS,
        text=text,
        outlinks=text_outlinks(text),
        metadata=decoded.metadata,
    )


def decode_content(
    content: bytes,
    content_type: str | None,
    headers: Mapping[str, str | None],
    default_encoding: str,
    declared: str | None = None,
) -> Decoded:
    """Decode ``content`` by BOM, header, ``declared``, UTF-8, guess or default.

    ``declared`` is a charset the document names itself (an XML declaration,
    say); an unknown name anywhere is passed over. Never raises.
    """
    for bom, bom_label in _BOMS:
        if content.startswith(bom):
            return _decode(content[len(bom) :], _charset(bom_label) or _FALLBACK)
    for label in (header_charset(content_type, headers), declared):
        found = _charset(label)
        if found is not None:
            return _decode(content, found)
    if not content.isascii():
        try:
            return Decoded(content.decode("utf-8"), "utf-8")
        except UnicodeDecodeError:
            pass
    default = _charset(default_encoding) or _FALLBACK
    if content.isascii() and b"\x00" not in content:
        return _decode(content, default)
    best = charset_normalizer.from_bytes(content[:DETECT_LIMIT]).best()
    guessed = _charset(best.encoding) if best is not None else None
    return _decode(content, guessed or default)


def header_charset(
    content_type: str | None, headers: Mapping[str, str | None]
) -> str | None:
    """The ``charset`` of the Content-Type header, else of ``content_type``."""
    for name, value in headers.items():
        if name.lower() == "content-type" and value:
            match = _CHARSET.search(value)
            if match:
                return match.group(1)
    match = _CHARSET.search(content_type or "")
    return match.group(1) if match else None


def collapse_whitespace(text: str) -> str:
    """DOMContentUtils on one text node: ASCII whitespace runs to a space, trimmed."""
    return java_trim(_JAVA_SPACE.sub(" ", text))


def text_outlinks(text: str) -> tuple[Outlink, ...]:
    """Nutch's ``OutlinkExtractor.getOutlinks``: URL-like strings, anchor ""."""
    return tuple(Outlink(match.group()) for match in _URL.finditer(text))


def _charset(label: str | None) -> tuple[str, str] | None:
    """The recorded name and Python codec for a label, as parse-html reads it."""
    if not label:
        return None
    try:
        return resolve_charset(label)
    except ValueError:  # a NUL in the label
        return None


def _decode(content: bytes, charset: tuple[str, str]) -> Decoded:
    name, codec = charset
    return Decoded(content.decode(codec, "replace"), name)
