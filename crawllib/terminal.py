r"""Text from the web made safe to print on a terminal.

A page's title, text, URL, headers or metadata are whatever its server sent,
and may hold terminal control sequences: OSC 52 writes the user's clipboard,
CSI sequences move the cursor and rewrite what is on screen, a CR overprints
a line, a C1 byte (``\x9b``) is a CSI on some terminals. Every command that
prints page data (and the log) passes it through :func:`printable`: C0 and
C1 control characters, DEL and lone surrogates (which cannot be encoded at
all) become visible escapes such as ``\x1b``; newline and tab are kept only
where the output is multi-line text. JSON output goes through
:func:`printable_json`, which escapes what ``json.dumps`` leaves raw.
"""

from __future__ import annotations

import re

_ONE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_MULTI_LINE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_JSON_RAW = re.compile("[\x7f-\x9f\ud800-\udfff]")  # json.dumps escapes the C0 ones


def printable(text: str, multiline: bool = False) -> str:
    r"""``text`` with every control character written as a visible escape.

    ``\x1b`` for ESC, ``\x9b`` for a C1 CSI, ``\ud800`` for a lone
    surrogate. With ``multiline``, newlines and tabs stay as they are (page
    text printed as text); otherwise they are escaped too, so the result is
    one line whatever ``text`` holds.
    """
    pattern = _MULTI_LINE if multiline else _ONE_LINE
    return pattern.sub(_escape, text)


def printable_json(text: str) -> str:
    r"""JSON text (``json.dumps(..., ensure_ascii=False)``) safe on a terminal.

    ``json.dumps`` escapes C0 controls but writes DEL and C1 controls raw;
    they become ``\u007f``-style escapes, so the JSON means the same.
    """
    return _JSON_RAW.sub(lambda found: f"\\u{ord(found[0]):04x}", text)


def _escape(found: re.Match[str]) -> str:
    code = ord(found[0])
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
