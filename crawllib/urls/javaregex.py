r"""Java regexes for Python's ``re``: the rules of Nutch's filter and normalizer files.

``regex-urlfilter.txt`` and ``regex-normalize.xml`` hold ``java.util.regex``
patterns. :func:`compile_java_regex` rewrites the syntax that differs, where
the rewrite is exact (checked against OpenJDK 17):

- Inline flags in mid-pattern (``a(?i)b|c``, an error in Python) hold to the
  end of their group, as in Java: they become scoped groups ``a(?i:b)|(?i:c)``.
- ``\Q...\E`` quoting, ``\z``, ``\Z``, ``\e``, ``\x{...}``, octal ``\0nnn``,
  ``\v`` (vertical whitespace), named groups ``(?<name>...)`` and
  ``\k<name>``, and back references past ``\9`` (Java reads as many digits as
  name a group opened so far).
- Matching is ASCII-only by default, as in Java: ``(?i)`` folds ASCII letters
  only and ``\w``, ``\d``, ``\s``, ``\b`` are ASCII. ``(?u)`` makes case
  folding Unicode but keeps those classes ASCII; ``(?U)`` makes both
  Unicode. The flag ``d`` is dropped.
- Possessive quantifiers and atomic groups need no rewrite (Python 3.11).

Known differences: Python knows only ``\n`` as a line terminator, which is
Java's ``(?d)`` (UNIX_LINES) behaviour, so ``.``, ``$`` and ``\Z`` differ from
Java's defaults only around ``\r``, U+0085, U+2028 and U+2029, which URLs do
not hold; Java 11 and 17 (not 19 and later) count non-ASCII letters as word
characters for ``\b``; under ``(?x)`` Java also ignores whitespace inside a
character class. Java syntax with no exact equivalent (``\p{...}`` and other
escapes ``re`` lacks, nested or intersected classes ``[a-z&&[^b]]``,
variable-length lookbehind) is a :class:`~crawllib.errors.ConfigError`.

:func:`java_replacement` translates a ``Matcher.replaceAll`` replacement
(``$1``, ``${name}``, ``\$``) into a ``re.sub`` template.
"""

from __future__ import annotations

import re
import warnings

from crawllib.errors import ConfigError

_FLAG_SWITCH = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)")
_GROUP_OPENER = re.compile(
    r"\((?:\?(?:[:=!>]|<[=!]|<[A-Za-z][A-Za-z0-9]*>|[a-zA-Z]*(?:-[a-zA-Z]*)?:))?"
)
_CODE_POINT = re.compile(r"\\x\{([0-9a-fA-F]+)\}")
_NAMED_REFERENCE = re.compile(r"\\k<([A-Za-z][A-Za-z0-9]*)>")
_OCTAL = re.compile(r"\\0([0-3][0-7]{2}|[0-7]{1,2})")
_DIGITS = "0123456789"
_PLAIN_FLAGS = {"i": "i", "m": "m", "s": "s", "x": "x", "d": ""}
_VERTICAL = r"\n\x0b\f\r\x85\u2028\u2029"  # Java's \v
_ESCAPES = {
    "z": r"\Z",
    "Z": r"(?=\n?\Z)",
    "e": r"\x1b",
    "v": f"[{_VERTICAL}]",
    "V": f"[^{_VERTICAL}]",
}
_CLASS_ESCAPES = {"e": r"\x1b", "v": _VERTICAL}
_ASCII_IN_CLASS = {"w": "a-zA-Z0-9_", "d": "0-9", "s": r" \t\n\x0b\f\r"}
_COMPILE_ERRORS = (re.error, FutureWarning, ValueError, OverflowError)


def compile_java_regex(regex: str, *, where: str) -> re.Pattern[str]:
    """Compile the Java regex ``regex`` for ``re``, with Java's ASCII defaults.

    The pattern is compiled with ``re.ASCII``; Java's ``(?u)``/``(?U)``
    become ``(?u:...)`` groups.

    Args:
        regex: the Java regex.
        where: what names the regex in an error, e.g. ``rules, line 3``.

    Raises:
        ConfigError: the regex does not compile or has no exact translation:
            ``<where>: cannot compile regex <regex>: <problem>``.
    """
    try:
        translator = _Translator(regex)
        source = translator.translate()
        if translator.unicode_used:
            # re computes the classes of its search prefix with the global
            # flags (CPython 3.11): "(?u:\w)" first would skip "é". "(?=)"
            # leaves no prefix.
            source = "(?=)" + source
        with warnings.catch_warnings():
            # re warns on "[[" and "&&" in a class: Java nests or intersects
            # classes there, which re cannot express.
            warnings.simplefilter("error", FutureWarning)
            return re.compile(source, re.ASCII)
    except _COMPILE_ERRORS as exc:
        raise ConfigError(f"{where}: cannot compile regex {regex!r}: {exc}") from exc


def java_replacement(replacement: str, pattern: re.Pattern[str], *, where: str) -> str:
    r"""Translate a ``Matcher.replaceAll`` replacement into a ``re.sub`` template.

    ``$n`` is group ``n``, read as the longest number that names a group of
    ``pattern``; ``${name}`` is a named group; ``\x`` is a literal ``x``.

    Raises:
        ConfigError: a bad reference or a trailing ``\``:
            ``<where>: replacement <replacement>: <problem>``.
    """
    out: list[str] = []
    index = 0
    while index < len(replacement):
        char = replacement[index]
        if char == "\\":
            if index + 1 == len(replacement):
                raise _bad_replacement(
                    where, replacement, "character to be escaped is missing"
                )
            literal = replacement[index + 1]
            out.append("\\\\" if literal == "\\" else literal)
            index += 2
        elif char == "$":
            group, index = _group_reference(replacement, index + 1, pattern, where)
            out.append(f"\\g<{group}>")
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _group_reference(
    text: str, index: int, pattern: re.Pattern[str], where: str
) -> tuple[str, int]:
    """The group a ``$`` reference names, and the index after the reference."""
    if text.startswith("{", index):
        close = text.find("}", index)
        name = text[index + 1 : close] if close > 0 else ""
        if name not in pattern.groupindex:
            raise _bad_replacement(where, text, f"no group named {name!r}")
        return name, close + 1
    if index == len(text) or text[index] not in _DIGITS:
        raise _bad_replacement(where, text, "illegal group reference")
    number, index = _group_number(text, index, pattern.groups)
    if number > pattern.groups:
        raise _bad_replacement(where, text, f"no group {number}")
    return str(number), index


def _group_number(text: str, index: int, groups: int) -> tuple[int, int]:
    """The group number at ``text[index]``, a digit, and the index after it.

    Java's rule, in regexes and replacements alike: further digits count only
    while the number stays within ``groups``.
    """
    number, index = int(text[index]), index + 1
    while index < len(text) and text[index] in _DIGITS:
        longer = number * 10 + int(text[index])
        if longer > groups:
            break
        number, index = longer, index + 1
    return number, index


def _bad_replacement(where: str, replacement: str, problem: str) -> ConfigError:
    return ConfigError(f"{where}: replacement {replacement!r}: {problem}")


class _Translator:
    """Rewrites one Java regex as an equivalent Python ``re`` pattern.

    Python accepts inline flags ``(?i)`` only at the very start, while Java
    lets them switch on anywhere, up to the end of the enclosing group. So
    ``a(?i)b|c`` becomes ``a(?i:b)|(?i:c)``: the rest of the alternative and
    every later alternative of the group get a scoped flag group. The Unicode
    flags in force (``u``, ``U``) are tracked to keep classes ASCII under
    ``(?u)`` alone; capturing groups are counted for back references.
    """

    def __init__(self, source: str) -> None:
        self._src = source
        self._pos = 0
        self._groups = 0
        self._unicode_case = False
        self._unicode_classes = False
        self._verbose = False
        self.unicode_used = False

    def translate(self) -> str:
        alternatives = self._group_body()
        if self._pos < len(self._src):
            raise re.error("unbalanced parenthesis", self._src, self._pos)
        return "|".join(alternatives)

    def _group_body(self) -> list[str]:
        """Alternatives up to the closing ``)`` of the group (left unread)."""
        src = self._src
        alternatives: list[str] = []
        current: list[str] = []
        while self._pos < len(src) and src[self._pos] != ")":
            char = src[self._pos]
            if char == "|":
                alternatives.append("".join(current))
                current = []
                self._pos += 1
            elif char == "\\":
                current.append(self._escape(in_class=False))
            elif char == "[":
                current.append(self._char_class())
            elif char == "#" and self._verbose:
                end = src.find("\n", self._pos)  # (?x): a comment to the line end
                self._pos = len(src) if end < 0 else end + 1
            elif char == "(":
                flags = self._flag_switch()
                if flags is None:
                    current.append(self._group())
                    continue
                rest = self._group_body()
                if flags:
                    rest = [f"(?{flags}:{alt})" for alt in rest]
                current.append(rest[0])
                alternatives.append("".join(current))
                return alternatives + rest[1:]
            else:
                current.append(char)
                self._pos += 1
        alternatives.append("".join(current))
        return alternatives

    def _flag_switch(self) -> str | None:
        """Python flags for a ``(?flags)`` switch at the cursor, else None."""
        match = _FLAG_SWITCH.match(self._src, self._pos)
        if match is None or not (match[1] or match[2]):
            return None
        self._pos = match.end()
        return self._python_flags(match[1], match[2] or "")

    def _group(self) -> str:
        opener = _GROUP_OPENER.match(self._src, self._pos)
        assert opener is not None  # "(" alone always matches
        self._pos = opener.end()
        flags = self._unicode_case, self._unicode_classes, self._verbose
        head = self._translate_opener(opener[0])
        body = "|".join(self._group_body())
        self._unicode_case, self._unicode_classes, self._verbose = flags
        if self._pos == len(self._src):
            return head + body  # unclosed: re reports it
        self._pos += 1  # the ")"
        return head + body + ")"

    def _translate_opener(self, opener: str) -> str:
        if opener == "(":
            self._groups += 1
        elif opener.startswith("(?<") and opener[3] not in "=!":
            self._groups += 1
            return "(?P" + opener[2:]
        elif opener.endswith(":") and len(opener) > 3:
            on, _, off = opener[2:-1].partition("-")
            return f"(?{self._python_flags(on, off)}:"
        return opener

    def _python_flags(self, on: str, off: str) -> str:
        """Python's flags for Java's ``on``/``off`` letters; tracks ``u`` and ``U``.

        Unknown letters are left for re to reject. Python's ``u``/``a`` is
        emitted only where the Unicode state changes.
        """
        was_unicode = self._unicode_case or self._unicode_classes
        python_on = "".join(
            _PLAIN_FLAGS.get(flag, flag) for flag in on if flag not in "uU"
        )
        python_off = "".join(
            _PLAIN_FLAGS.get(flag, flag) for flag in off if flag not in "uU"
        )
        for letters, state in ((on, True), (off, False)):
            if "x" in letters:
                self._verbose = state
            if "u" in letters:
                self._unicode_case = state
            if "U" in letters:  # UNICODE_CHARACTER_CLASS implies UNICODE_CASE
                self._unicode_case = self._unicode_classes = state
        unicode = self._unicode_case or self._unicode_classes
        if unicode != was_unicode:
            python_on += "u" if unicode else "a"
            self.unicode_used = True
        return python_on + ("-" + python_off if python_off else "")

    def _char_class(self) -> str:
        src = self._src
        start = self._pos
        self._pos += 1
        if src.startswith("^", self._pos):
            self._pos += 1
        if src.startswith("]", self._pos):  # a literal "]" in both dialects
            self._pos += 1
        parts = [src[start : self._pos]]
        while self._pos < len(src) and src[self._pos] != "]":
            char = src[self._pos]
            if char == "\\":
                parts.append(self._escape(in_class=True))
            elif src.startswith(("[", "&&"), self._pos):
                message = "nested or intersected character classes are Java-only"
                raise re.error(message, src, self._pos)
            else:
                # "||" and "~~" are set operations to come in re, literals in Java
                parts.append("\\" + char if char in "|~" else char)
                self._pos += 1
        if self._pos < len(src):
            parts.append("]")
            self._pos += 1
        return "".join(parts)

    def _escape(self, in_class: bool) -> str:
        src, pos = self._src, self._pos
        char = src[pos + 1 : pos + 2]
        if char == "Q":
            end = src.find(r"\E", pos + 2)
            end = len(src) if end < 0 else end
            self._pos = min(end + 2, len(src))
            return re.escape(src[pos + 2 : end])
        if char and char in ("x0" if in_class else "xk0"):
            special = self._numeric_or_named_escape()
            if special is not None:
                return special
        if char and char in "123456789" and not in_class:
            return self._back_reference()
        self._pos = pos + 2
        if (
            char
            and self._unicode_case
            and not self._unicode_classes
            and char in "wWdDsSbB"
        ):
            return _ascii_class(char, in_class)
        return (_CLASS_ESCAPES if in_class else _ESCAPES).get(char, src[pos : pos + 2])

    def _numeric_or_named_escape(self) -> str | None:
        r"""``\x{h..}``, ``\k<name>`` or ``\0ooo`` at the cursor, translated."""
        src, pos = self._src, self._pos
        if match := _CODE_POINT.match(src, pos):
            self._pos = match.end()
            return f"\\U{int(match[1], 16):08x}"
        if match := _NAMED_REFERENCE.match(src, pos):
            self._pos = match.end()
            return f"(?P={match[1]})"
        if match := _OCTAL.match(src, pos):
            self._pos = match.end()
            return f"\\x{int(match[1], 8):02x}"
        return None

    def _back_reference(self) -> str:
        r"""Java's ``\n``: more digits only while they name an opened group."""
        src = self._src
        number, pos = _group_number(src, self._pos + 1, self._groups)
        self._pos = pos
        if number > 99:
            raise re.error("re has no back reference above 99", src, pos)
        if src[pos : pos + 1] and src[pos] in _DIGITS:
            return f"(?:\\{number})"  # keep the next digit out of the number
        return f"\\{number}"


def _ascii_class(letter: str, in_class: bool) -> str:
    r"""Java's ASCII ``\w``, ``\d``, ``\s``, ``\b`` and negations, under ``(?u)``."""
    if not in_class:
        return f"(?a:\\{letter})"
    if letter in _ASCII_IN_CLASS:
        return _ASCII_IN_CLASS[letter]
    raise re.error(f"\\{letter} in a class under (?u) has no exact translation")
