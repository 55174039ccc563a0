"""Page signatures: Nutch's MD5Signature, TextMD5Signature and TextProfileSignature.

``db.signature.class`` picks one (``ParseConfig.signature``). All three give
16 bytes and fall back to the MD5 of the raw content, or of the URL's UTF-8
bytes when there is no content (1.x ``MD5Signature``; 2.x hashes ``baseUrl``).

Strings are hashed as Hadoop's ``MD5Hash.digest(String)`` does: each UTF-16
unit on its own (``UTF8.getBytes``), so a character outside the Basic
Multilingual Plane becomes two 3-byte surrogates rather than one 4-byte
sequence; other text is plain UTF-8.

TextProfileSignature copies the Java loop character for character: a token
is a maximal run of UTF-16 units for which ``Character.isLetterOrDigit``
holds (general categories L* and Nd only: not ``²`` or ``Ⅻ``, which Python's
``str.isalnum`` accepts, and never a surrogate), lowercased one unit at a time
by ``Character.toLowerCase`` (so ``İ`` gives ``i``, and a word-final capital
sigma the medial small sigma, not Python's final form). Categories come from
Python's Unicode tables (14.0 for Python 3.11; OpenJDK 17 has 13.0), so only
characters new in between can differ. ``QUANT`` is computed in single
precision, as Java's float arithmetic.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

from crawllib.config import ParseConfig
from crawllib.javanum import f32, round_int
from crawllib.urls.partition import java_string_hash

_LETTER_OR_DIGIT = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"})
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def md5_signature(content: bytes | None, url: str) -> bytes:
    """Nutch's MD5Signature: MD5 of the content, else of the URL's UTF-8 bytes."""
    data = content if content else url.encode("utf-8", "replace")
    return hashlib.md5(data).digest()


def text_md5_signature(text: str | None, content: bytes | None, url: str) -> bytes:
    """Nutch's TextMD5Signature: MD5 of the parse text; MD5Signature if empty."""
    if not text:
        return md5_signature(content, url)
    return hashlib.md5(_hadoop_utf8(text)).digest()


def text_profile_signature(
    text: str | None,
    content: bytes | None,
    url: str,
    min_token_len: int = 2,
    quant_rate: float = 0.01,
    sort_lex: bool = True,
) -> bytes:
    """Nutch's TextProfileSignature: MD5 of :func:`text_profile`.

    An empty or missing text falls back to MD5Signature. The arguments are
    ``db.signature.text_profile.min_token_len``, ``.quant_rate`` and
    ``.sec_sort_lex``.
    """
    if not text:
        return md5_signature(content, url)
    profile = text_profile(text, min_token_len, quant_rate, sort_lex)
    return hashlib.md5(_hadoop_utf8(profile)).digest()


def text_profile(
    text: str, min_token_len: int = 2, quant_rate: float = 0.01, sort_lex: bool = True
) -> str:
    """The ``token count`` lines that TextProfileSignature hashes (1.x order).

    Tokens longer than ``min_token_len`` are counted; counts are rounded down
    to a multiple of QUANT (``round(maxFreq * quant_rate)``, at least 2 when
    a token occurs twice, else 1) and those below QUANT dropped; the rest are
    sorted by count, highest first, then by token when ``sort_lex`` or else in
    the order Java's HashMap would iterate them.
    """
    counts: dict[str, int] = {}
    lower = _lower_table()
    for match in _token_pattern().finditer(text):
        token = match.group()
        if len(token) > min_token_len:
            token = token.lower() if token.isascii() else token.translate(lower)
            counts[token] = counts.get(token, 0) + 1
    if not counts:
        return ""
    max_freq = max(counts.values())
    quant = round_int(f32(f32(max_freq) * f32(quant_rate)))
    if quant < 2:
        quant = 2 if max_freq > 1 else 1
    tokens = list(counts) if sort_lex else _java_hashmap_order(list(counts))
    profile = [(t, counts[t] // quant * quant) for t in tokens if counts[t] >= quant]
    if sort_lex:
        profile.sort(key=lambda item: (-item[1], item[0]))
    else:
        profile.sort(key=lambda item: -item[1])  # stable, as Collections.sort
    return "\n".join(f"{token} {count}" for token, count in profile)


def compute_signature(
    kind: str, content: bytes | None, text: str | None, url: str, config: ParseConfig
) -> bytes:
    """The signature ``db.signature.class`` asks for (Nutch's SignatureFactory).

    Args:
        kind: ``md5``, ``text_md5`` or ``text_profile`` (``config.signature``).
        content: the raw page content.
        text: the parse text.
        url: the page URL, hashed when there is no content.
        config: the text profile settings.

    Raises:
        ValueError: ``kind`` is none of the three (a bug: the config checks it).
    """
    if kind == "md5":
        return md5_signature(content, url)
    if kind == "text_md5":
        return text_md5_signature(text, content, url)
    if kind == "text_profile":
        return text_profile_signature(
            text,
            content,
            url,
            config.profile_min_token_len,
            config.profile_quant_rate,
            config.profile_sort_lex,
        )
    raise ValueError(f"unknown signature kind {kind!r}")


@functools.cache
def _token_pattern() -> re.Pattern[str]:
    """Runs of BMP characters that Java's ``isLetterOrDigit`` accepts."""
    ranges: list[str] = []
    start = -1
    for code in range(0x10001):
        inside = code < 0x10000 and unicodedata.category(chr(code)) in _LETTER_OR_DIGIT
        if inside and start < 0:
            start = code
        elif not inside and start >= 0:
            ranges.append(f"{re.escape(chr(start))}-{re.escape(chr(code - 1))}")
            start = -1
    return re.compile(f"[{''.join(ranges)}]+")


@functools.cache
def _lower_table() -> dict[int, str]:
    """``Character.toLowerCase(char)`` for the BMP characters it changes."""
    table = {
        code: chr(code).lower()
        for code in range(0x10000)
        if not 0xD800 <= code < 0xE000 and chr(code).lower() != chr(code)
    }
    table[0x130] = "i"  # Python's full mapping gives "i" + U+0307
    return table


def _hadoop_utf8(text: str) -> bytes:
    """Hadoop ``UTF8.getBytes``: UTF-8 of each UTF-16 unit (CESU-8)."""
    if _ASTRAL.search(text) is not None:
        text = _ASTRAL.sub(_surrogate_pair, text)
    return text.encode("utf-8", "surrogatepass")


def _surrogate_pair(match: re.Match[str]) -> str:
    offset = ord(match.group()) - 0x10000
    return chr(0xD800 + (offset >> 10)) + chr(0xDC00 + (offset & 0x3FF))


def _java_hashmap_order(tokens: list[str]) -> list[str]:
    """``tokens`` (in insertion order) as a Java ``HashMap`` iterates them.

    Buckets in index order, insertion order inside a bucket. The table grows
    as Java's does: doubled past 3/4 full, and when a bucket reaches nine
    entries while the table is under 64. A bucket that Java turns into a tree
    instead (nine collisions in a table of 64 or more, never seen with real
    text) keeps insertion order here.
    """
    spread = [_spread(token) for token in tokens]
    capacity = 16
    sizes: dict[int, int] = {}
    for size, hashed in enumerate(spread, start=1):
        index = hashed & (capacity - 1)
        sizes[index] = sizes.get(index, 0) + 1
        if sizes[index] >= 9 and capacity < 64:  # treeifyBin resizes instead
            capacity *= 2
            sizes = _bucket_sizes(spread[:size], capacity)
        if size > capacity * 3 // 4:
            capacity *= 2
            sizes = _bucket_sizes(spread[:size], capacity)
    order = sorted(range(len(tokens)), key=lambda i: (spread[i] & (capacity - 1), i))
    return [tokens[i] for i in order]


def _spread(token: str) -> int:
    """``HashMap.hash``: ``h ^ (h >>> 16)`` of ``String.hashCode``, unsigned."""
    code = java_string_hash(token) & 0xFFFFFFFF
    return code ^ (code >> 16)


def _bucket_sizes(spread: list[int], capacity: int) -> dict[int, int]:
    sizes: dict[int, int] = {}
    for hashed in spread:
        index = hashed & (capacity - 1)
        sizes[index] = sizes.get(index, 0) + 1
    return sizes
