"""Java's string semantics the Nutch ports need: trim, whitespace, parseInt.

Python's ``str.strip()``, ``str.isspace()`` and ``int()`` each take other
characters than Java's ``String.trim()``, ``Character.isWhitespace`` and
``Integer.parseInt``: a port that must give Nutch's (or crawler-commons')
results on any input uses these instead. Java's number arithmetic is in
:mod:`crawllib.javanum`.
"""

from __future__ import annotations

import re

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
"""The range of a Java ``int``."""

TRIMMED = "".join(chr(code) for code in range(0x21))
"""What ``String.trim()`` removes at both ends: every character up to U+0020
(the controls and the space; nothing beyond ASCII). ``java.net.URL`` trims
its spec the same way."""

WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2008\u2009\u200a\u2028\u2029\u205f\u3000"
)
"""``Character.isWhitespace``: the Unicode space, line and paragraph
separators except the no-break ones, and the ASCII controls \\t \\n \\v \\f \\r
and U+001C-U+001F. (``str.isspace()`` has U+0085 and the no-break spaces
besides.)"""

NO_BREAK_SPACES = "\u00a0\u2007\u202f"
"""The no-break spaces, which ``Character.isWhitespace`` leaves out and
``Character.isSpaceChar`` has (crawler-commons' sitemap parser strips them
too)."""

_INT = re.compile(r"[+-]?\d+")
"""``Integer.parseInt``'s syntax: a sign, then decimal digits of any script
(``\\d`` is Python's Unicode decimal digit, as ``Character.digit(c, 10)``)."""


def java_trim(text: str) -> str:
    """``String.trim()``: ``text`` less the characters up to U+0020 at its ends."""
    return text.strip(TRIMMED)


def is_java_whitespace(char: str) -> bool:
    """``Character.isWhitespace(char)`` for one character."""
    return len(char) == 1 and char in WHITESPACE


def is_java_blank(text: str) -> bool:
    """``String.isBlank()``: empty, or only ``Character.isWhitespace`` characters."""
    return not text.strip(WHITESPACE)


def parse_int(text: str) -> int | None:
    """``Integer.parseInt(text)``; None where Java throws NumberFormatException.

    An optional ``+`` or ``-``, then one or more decimal digits (of any
    script), the value in int range. No white space, no underscores (which
    Python's ``int()`` takes).
    """
    if not _INT.fullmatch(text):
        return None
    try:
        value = int(text)
    except ValueError:  # more digits than int() takes: out of range anyway
        return None
    return value if INT_MIN <= value <= INT_MAX else None
