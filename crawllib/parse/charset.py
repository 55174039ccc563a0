"""Decode fetched content to text, one way for every parser (Nutch's EncodingDetector).

:func:`decode_document` takes the encoding from the first of these that names
one Python can decode:

1. a byte order mark (UTF-8, UTF-32 LE/BE, UTF-16 LE/BE);
2. the ``charset`` of the HTTP ``Content-Type`` header (any case), then of
   the page's content type when the caller gives it (Tika's hint);
3. the document's own declaration, read as ASCII: for HTML a
   ``<meta http-equiv=Content-Type content="...charset=...">`` or
   ``<meta charset=...>`` in the first 8192 bytes (HtmlParser's patterns,
   :func:`meta_charset`), for XML the ``<?xml ... encoding=...?>``
   declaration (:func:`xml_encoding`). A declaration that says UTF-16 or
   UTF-32 means UTF-8, since it was readable as ASCII;
4. for an undeclared document: valid UTF-8 that is not plain ASCII is read
   as UTF-8; plain ASCII without NULs with ``parser.character.encoding.default``
   (windows-1252 when that names no usable charset), the name Nutch records
   for it; anything else with the default too, unless
   ``encodingdetector.charset.min.confidence`` is 0 or more: then
   :func:`detect_charset` guesses, and its guess is used when its confidence
   reaches that value.

The detector is charset-normalizer, on the first ``DETECT_BYTES`` and only
for content longer than 4 bytes (Nutch's ``MIN_LENGTH`` for ICU). Its
confidence is put on the 0-100 scale of ICU's ``CharsetMatch.getConfidence``
as ``100 * cleanliness * evidence``, rounded down: cleanliness is
``1 - mess / MESS_CUTOFF`` (charset-normalizer's mess ratio of its best
match; 1 for clean text, 0 at the cut-off past which it drops a match) and
evidence is ``min(1, telling / EVIDENCE_BYTES)``, where ``telling`` counts
the bytes that ASCII text does not hold (0x80-0xFF and NUL): a guess resting
on a few such bytes is a guess on little. A best match that the default
decodes as cleanly (the same text, or another match with no more mess) is no
guess at all: the detector has nothing against the default, which stays.

Nutch's HtmlParser trusts the header, then the meta tag, then a BOM;
beamcrawl reads a BOM first. With detection on (a threshold of 0 or more),
Nutch lets a confident detector guess outvote the header and the meta tag;
beamcrawl believes what the page declares and detects only undeclared
pages. Nutch reads every undeclared page with the default; beamcrawl reads
undeclared valid UTF-8 as UTF-8, since text in another charset is almost
never valid UTF-8 by chance (a cheap and certain test) while UTF-8 read as
windows-1252 is mojibake. Labels are read as browsers read them, through a
wider superset: ISO-8859-1 and ASCII as windows-1252, GB2312 and GBK as
GB18030 (these two are Nutch's aliases too), EUC-KR as windows-949,
Shift_JIS as windows-31j, Big5 as Big5-HKSCS. A label Python does not know,
that is no text charset, or that holds junk (a NUL, a lone surrogate) is
passed over, never raised. The encoding is recorded under its Java name,
lowercased as Nutch records it (``windows-1252``, ``gb18030``,
``x-windows-949``, ``ibm850``), as ``OriginalCharEncoding`` and
``CharEncodingForConversion`` (:func:`encoding_metadata`). Bytes that do not
decode become U+FFFD.
"""

from __future__ import annotations

import codecs
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import charset_normalizer

SNIFF_BYTES = 8192
"""How much of the page is searched for a ``<meta>`` charset."""

DETECT_BYTES = 65536
"""How much of the page charset-normalizer reads: enough to guess, cheap."""

MESS_CUTOFF = 0.2
"""charset-normalizer's mess ratio past which it drops a match: confidence 0."""

EVIDENCE_BYTES = 100
"""Bytes outside ASCII text (0x80-0xFF, NUL) a guess needs for full confidence."""

MIN_DETECT_LENGTH = 4
"""Content no longer than this is never detected (Nutch's ``MIN_LENGTH``)."""

ENCODING_KEYS = ("OriginalCharEncoding", "CharEncodingForConversion")
"""The parse metadata keys that record the encoding used (as parse-html)."""

Sniffer = Callable[[bytes], str | None]
"""Reads the charset label a document declares in its first bytes."""

_FALLBACK = ("windows-1252", "cp1252")
_ASCII_TEXT = bytes(range(1, 0x80))  # deleted, what is left tells bytes from it
_BOMS = (  # (mark, recorded name, codec)
    (codecs.BOM_UTF8, "utf-8", "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32le", "utf-32-le"),  # before UTF-16 LE: FF FE...
    (codecs.BOM_UTF32_BE, "utf-32be", "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16le", "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16be", "utf-16-be"),
)
# WHATWG labels Python does not know, to a Python codec name
_LABELS = {
    "x-gbk": "gbk",
    "csgb2312": "gb2312",
    "gb_2312-80": "gb2312",
    "x-euc-cn": "gb2312",
    "cn-big5": "big5",
    "csbig5": "big5",
    "x-x-big5": "big5",
    "big5-hkscs": "big5hkscs",
    "x-sjis": "shift_jis",
    "csshiftjis": "shift_jis",
    "windows-31j": "cp932",
    "cseuckr": "euc_kr",
    "windows-949": "cp949",
    "x-windows-949": "cp949",
    "windows-874": "cp874",
    "dos-874": "cp874",
    "iso-8859-8-i": "iso8859-8",
    "x-cp1252": "cp1252",
    "x-user-defined": "cp1252",
    "x-mac-roman": "mac-roman",
    "x-mac-cyrillic": "mac-cyrillic",
    "unicode-1-1-utf-8": "utf-8",
    "unicode11utf8": "utf-8",
    "unicode20utf8": "utf-8",
    "x-unicode20utf8": "utf-8",
}
# Python codec -> (name recorded, codec used to decode)
_READ_AS = {
    "ascii": ("windows-1252", "cp1252"),
    "iso8859-1": ("windows-1252", "cp1252"),
    "cp1252": ("windows-1252", "cp1252"),
    "iso8859-9": ("windows-1254", "cp1254"),
    "tis-620": ("tis-620", "cp874"),
    "iso8859-11": ("x-iso-8859-11", "cp874"),
    "cp874": ("x-windows-874", "cp874"),
    "gb2312": ("gb18030", "gb18030"),
    "gbk": ("gb18030", "gb18030"),
    "big5": ("big5", "big5hkscs"),
    "big5hkscs": ("big5-hkscs", "big5hkscs"),
    "cp950": ("x-windows-950", "cp950"),
    "euc_kr": ("x-windows-949", "cp949"),
    "cp949": ("x-windows-949", "cp949"),
    "shift_jis": ("shift_jis", "cp932"),
    "cp932": ("windows-31j", "cp932"),
    "utf-8-sig": ("utf-8", "utf-8"),
    "utf-16-le": ("utf-16le", "utf-16-le"),
    "utf-16-be": ("utf-16be", "utf-16-be"),
    "utf-32-le": ("utf-32le", "utf-32-le"),
    "utf-32-be": ("utf-32be", "utf-32-be"),
    "mac-roman": ("x-macroman", "mac-roman"),
    "mac-cyrillic": ("x-maccyrillic", "mac-cyrillic"),
}
# Java's canonical names (lowercased) where they are not the codec's name
# with "_" as "-"; checked with Charset.forName(codec).name() on JDK 17
_JAVA_NAMES = {
    "cp037": "ibm037", "cp273": "ibm273", "cp424": "ibm424", "cp437": "ibm437",
    "cp500": "ibm500", "cp737": "x-ibm737", "cp775": "ibm775", "cp850": "ibm850",
    "cp852": "ibm852", "cp855": "ibm855", "cp856": "x-ibm856", "cp857": "ibm857",
    "cp858": "ibm00858", "cp860": "ibm860", "cp861": "ibm861", "cp862": "ibm862",
    "cp863": "ibm863", "cp864": "ibm864", "cp865": "ibm865", "cp866": "ibm866",
    "cp869": "ibm869", "cp875": "x-ibm875", "cp1006": "x-ibm1006",
    "cp1026": "ibm1026", "cp1140": "ibm01140", "iso2022_jp": "iso-2022-jp",
    "iso2022_jp_2": "iso-2022-jp-2", "iso2022_kr": "iso-2022-kr",
    "johab": "x-johab", "mac-arabic": "x-macarabic", "mac-croatian": "x-maccroatian",
    "mac-greek": "x-macgreek", "mac-iceland": "x-maciceland",
    "mac-latin2": "x-maccentraleurope", "mac-turkish": "x-macturkish",
}  # fmt: skip
# text codecs that are no web charset (or are unsafe, like UTF-7)
_NOT_CHARSETS = frozenset(
    {"utf-7", "idna", "punycode", "unicode-escape", "raw-unicode-escape",
     "undefined", "mbcs", "oem", "charmap"}
)  # fmt: skip
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?([^"';,\s]+)""", re.IGNORECASE)
# HtmlParser's patterns, less their backtracking (one \s after "<meta", a
# maximal charset name): a page cannot make them take quadratic time
_META = re.compile(
    rb"""<meta\s([^>]*http-equiv=("|')?content-type("|')?[^>]*)>""", re.IGNORECASE
)
_META_CHARSET = re.compile(rb"charset=\s*([a-z][_\-0-9a-z]*)", re.IGNORECASE)
_META5 = re.compile(
    rb"""<meta\s+charset\s*=\s*["']?([a-z][_\-0-9a-z]*)(?![_\-0-9a-z])[^>]*>""",
    re.IGNORECASE,
)


_XML_ENCODING = re.compile(rb"""\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)""")


def decode_document(
    content: bytes,
    headers: Mapping[str, str | None],
    default: str,
    declared: str | Sniffer | None = None,
    *,
    content_type: str | None = None,
    min_confidence: int = -1,
) -> tuple[str, str]:
    """Decode ``content``; returns the text and the encoding's recorded name.

    Never raises: unusable labels are passed over, bad bytes become U+FFFD.

    Args:
        content: the raw bytes.
        headers: the HTTP response headers, names in any case.
        default: ``parser.character.encoding.default``.
        declared: the charset label the document declares, or the sniffer
            that reads it (:func:`meta_charset`, :func:`xml_encoding`),
            called only when no BOM or header decides.
        content_type: the page's content type, whose ``charset`` counts
            after the header's (Tika's hint; parse-html reads the header only).
        min_confidence: ``encodingdetector.charset.min.confidence``: the
            confidence (0-100) a guess for an undeclared page needs;
            negative runs no detector.
    """
    for bom, name, codec in _BOMS:
        if content.startswith(bom):
            return content[len(bom) :].decode(codec, "replace"), name
    found = _header_charset(headers, content_type) or _declared_charset(
        content, declared
    )
    if found is not None:
        return _decode(content, found)
    return _undeclared(content, resolve_charset(default) or _FALLBACK, min_confidence)


def encoding_metadata(name: str) -> tuple[tuple[str, str], ...]:
    """The recorded encoding as parse metadata, under each of ``ENCODING_KEYS``."""
    return tuple((key, name) for key in ENCODING_KEYS)


@dataclass(frozen=True, slots=True)
class CharsetGuess:
    """The detector's guess: recorded name, Python codec, confidence 0-100."""

    name: str
    codec: str
    confidence: int


def detect_charset(
    content: bytes, default: tuple[str, str] = _FALLBACK
) -> CharsetGuess | None:
    """Guess the charset of undeclared bytes, as Nutch's detector clue.

    None when charset-normalizer finds no usable match, when the content is
    no longer than ``MIN_DETECT_LENGTH``, or when ``default`` (a recorded
    name and codec) decodes the bytes as cleanly as the best match. The
    confidence is on ICU's 0-100 scale, as the module docstring explains.
    """
    if len(content) <= MIN_DETECT_LENGTH:
        return None
    sample = content[:DETECT_BYTES]
    matches = charset_normalizer.from_bytes(
        sample, threshold=MESS_CUTOFF, preemptive_behaviour=False
    )
    best = matches.best()
    found = None if best is None else resolve_charset(best.encoding)
    if best is None or found is None or _default_as_clean(matches, best, default):
        return None
    cleanliness = max(0.0, 1 - best.chaos / MESS_CUTOFF)
    telling = len(sample.translate(None, _ASCII_TEXT))
    evidence = min(1.0, telling / EVIDENCE_BYTES)
    return CharsetGuess(*found, confidence=int(100 * cleanliness * evidence))


def meta_charset(content: bytes) -> str | None:
    """HtmlParser.sniffCharacterEncoding: a ``<meta>`` charset, read as ASCII."""
    head = content[:SNIFF_BYTES]
    meta = _META.search(head)
    if meta is not None:
        charset = _META_CHARSET.search(meta[1])
        if charset is not None:
            return charset[1].decode("ascii")
    meta = _META5.search(head)
    return None if meta is None else meta[1].decode("ascii")


def xml_encoding(content: bytes) -> str | None:
    """The ``encoding`` of an XML declaration at the very start, read as ASCII."""
    declaration = _XML_ENCODING.match(content[:1024])
    return None if declaration is None else declaration[1].decode("ascii")


@functools.lru_cache(maxsize=256)
def resolve_charset(label: str) -> tuple[str, str] | None:
    """The recorded name and Python codec for a charset label; None if unusable."""
    label = label.strip().strip("\"'").lower()
    try:
        info = codecs.lookup(_LABELS.get(label, label))
    except (LookupError, ValueError):  # ValueError: a NUL or lone surrogate
        return None
    if info.name in _NOT_CHARSETS or not getattr(info, "_is_text_encoding", True):
        return None
    return _READ_AS.get(info.name) or (_java_name(info.name), info.name)


def _header_charset(
    headers: Mapping[str, str | None], content_type: str | None
) -> tuple[str, str] | None:
    """The first usable charset of a Content-Type header, else of ``content_type``."""
    values = [v for k, v in headers.items() if v and k.lower() == "content-type"]
    for value in (*values, content_type or ""):
        match = _HEADER_CHARSET.search(value)
        found = None if match is None else resolve_charset(match[1])
        if found is not None:
            return found
    return None


def _declared_charset(
    content: bytes, declared: str | Sniffer | None
) -> tuple[str, str] | None:
    """The document's own charset; UTF-16 or UTF-32 there means UTF-8."""
    label = declared(content) if callable(declared) else declared
    found = resolve_charset(label) if label else None
    if found is not None and found[1].startswith(("utf-16", "utf-32")):
        return "utf-8", "utf-8"  # the declaration was readable as ASCII
    return found


def _undeclared(
    content: bytes, default: tuple[str, str], min_confidence: int
) -> tuple[str, str]:
    """Valid UTF-8 (not ASCII) as UTF-8; else the default or a confident guess."""
    if not content.isascii():
        try:
            return content.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            pass
    elif b"\x00" not in content:  # ASCII: read as the default, what Nutch records
        return _decode(content, default)
    if min_confidence >= 0:
        guess = detect_charset(content, default)
        if guess is not None and guess.confidence >= min_confidence:
            return _decode(content, (guess.name, guess.codec))
    return _decode(content, default)


def _default_as_clean(
    matches: charset_normalizer.CharsetMatches,
    best: charset_normalizer.CharsetMatch,
    default: tuple[str, str],
) -> bool:
    """Whether the default decodes as one of the matches with no more mess."""
    for match in matches:
        if match.chaos <= best.chaos:
            read_as = (resolve_charset(c) for c in match.could_be_from_charset)
            if any(r is not None and r[1] == default[1] for r in read_as):
                return True
    return False


def _decode(content: bytes, charset: tuple[str, str]) -> tuple[str, str]:
    name, codec = charset
    return content.decode(codec, "replace"), name


def _java_name(codec: str) -> str:
    """Java's canonical name (lowercased) of a Python codec not in ``_READ_AS``."""
    if codec in _JAVA_NAMES:
        return _JAVA_NAMES[codec]
    if codec.startswith("iso8859-"):
        return "iso-8859-" + codec[8:]
    if codec.startswith("cp125"):
        return "windows-" + codec[2:]
    return codec.replace("_", "-")
