"""Decode an HTML page: parse-html's EncodingDetector, with a byte order mark first.

The encoding comes from the first of these that names one Python can decode:

1. a byte order mark (UTF-8, UTF-16 LE/BE);
2. the ``charset`` of the HTTP ``Content-Type`` header;
3. a ``<meta http-equiv=Content-Type content="...charset=...">`` or
   ``<meta charset=...>`` in the first 8192 bytes (HtmlParser's patterns); a
   meta that says UTF-16 or UTF-32 means UTF-8, since it was read as ASCII;
4. statistics, when nothing is declared: pure ASCII is read with the
   default (what Nutch records for it), valid UTF-8 as UTF-8, anything else
   as charset-normalizer guesses;
5. ``parser.character.encoding.default``.

Nutch trusts the header, then the meta tag, then a BOM, and (with
``encodingdetector.charset.min.confidence`` at its default -1) never runs its
detector; a BOM first, and the detector as a fallback, are beamcrawl's
choices. Labels are read as browsers read them, through a wider superset:
ISO-8859-1 and ASCII as windows-1252, GB2312 and GBK as GB18030 (these two are
Nutch's aliases too), EUC-KR as windows-949, Shift_JIS as windows-31j, Big5 as
Big5-HKSCS. The encoding is recorded under its Java name, lowercased as Nutch
records it (``windows-1252``, ``gb18030``, ``x-windows-949``). Bytes that do
not decode become U+FFFD.
"""

from __future__ import annotations

import codecs
import functools
import re
from collections.abc import Mapping

import charset_normalizer

SNIFF_BYTES = 8192
"""How much of the page is searched for a ``<meta>`` charset."""

DETECT_BYTES = 65536
"""How much of the page charset-normalizer reads: enough to guess, cheap."""

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
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


def decode_html(
    content: bytes, headers: Mapping[str, str | None], default: str
) -> tuple[str, str]:
    """Decode ``content``; returns the text and the encoding's recorded name.

    Args:
        content: the page bytes.
        headers: the HTTP response headers, names in any case.
        default: ``parser.character.encoding.default``.
    """
    for bom, codec in _BOMS:
        if content.startswith(bom):
            return content[len(bom) :].decode(codec, "replace"), _READ_AS.get(
                codec, (codec, codec)
            )[0]
    found = charset_from_header(headers) or _charset_from_meta(content)
    if found is not None:
        name, codec = found
        return content.decode(codec, "replace"), name
    if content.isascii():
        name, codec = resolve_charset(default) or ("windows-1252", "cp1252")
        return content.decode(codec, "replace"), name
    try:
        return content.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    best = charset_normalizer.from_bytes(content[:DETECT_BYTES]).best()
    found = None if best is None else resolve_charset(best.encoding)
    name, codec = found or resolve_charset(default) or ("windows-1252", "cp1252")
    return content.decode(codec, "replace"), name


def charset_from_header(headers: Mapping[str, str | None]) -> tuple[str, str] | None:
    """The usable charset of the ``Content-Type`` header, as ``resolve_charset``."""
    value = headers.get("Content-Type") or headers.get("content-type")
    if value is None:
        value = next(
            (v for k, v in headers.items() if k.lower() == "content-type" and v), None
        )
    if not value:
        return None
    match = _HEADER_CHARSET.search(value)
    return None if match is None else resolve_charset(match[1])


def _charset_from_meta(content: bytes) -> tuple[str, str] | None:
    """HtmlParser.sniffCharacterEncoding's meta tags, read as ASCII."""
    head = content[:SNIFF_BYTES]
    label = None
    meta = _META.search(head)
    if meta is not None:
        charset = _META_CHARSET.search(meta[1])
        label = None if charset is None else charset[1]
    if label is None:
        meta = _META5.search(head)
        label = None if meta is None else meta[1]
    if label is None:
        return None
    found = resolve_charset(label.decode("ascii"))
    if found is not None and found[1].startswith(("utf-16", "utf-32")):
        return "utf-8", "utf-8"  # the meta tag was readable as ASCII
    return found


@functools.lru_cache(maxsize=256)
def resolve_charset(label: str) -> tuple[str, str] | None:
    """The recorded name and Python codec for a charset label; None if unusable."""
    label = label.strip().strip("\"'").lower()
    try:
        info = codecs.lookup(_LABELS.get(label, label))
    except (LookupError, ValueError):  # ValueError: a NUL in the label
        return None
    if info.name in _NOT_CHARSETS or not getattr(info, "_is_text_encoding", True):
        return None
    return _READ_AS.get(info.name) or (_java_name(info.name), info.name)


def _java_name(codec: str) -> str:
    """Java's canonical name (lowercased) of a Python codec not in the table."""
    if codec.startswith("iso8859-"):
        return "iso-8859-" + codec[8:]
    if codec.startswith("cp125"):
        return "windows-" + codec[2:]
    return codec.replace("_", "-")
