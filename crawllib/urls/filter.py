r"""The regex URL filter, like Nutch's ``urlfilter-regex`` plugin.

:class:`RegexUrlFilter` reads rules in the format of Nutch's
``regex-urlfilter.txt`` (``RegexURLFilterBase``); :class:`UrlFilters` is the
chain of active filters a job applies (Nutch's ``URLFilters``), built from a
:class:`~crawllib.config.UrlConfig`.

Rule regexes are Java regexes. They are translated to Python's ``re`` where
the syntax differs and the translation is exact: inline flags in the middle
of a pattern (``a(?i)b``), ``\Q...\E`` quoting, ``\z``, ``\x{...}``,
``\e``, named groups ``(?<name>...)`` and ``\k<name>``, and the flag letters
``d``, ``u`` and ``U``. Patterns are compiled ASCII-only, which is
Java's default: ``(?i)`` folds ASCII letters only and ``\w``, ``\d``, ``\s``
are ASCII classes (``(?u)``/``(?U)`` switch to Unicode, as in Java).
Possessive quantifiers and atomic groups need no translation. Java syntax
with no exact Python equivalent (``\p{...}`` classes, nested or intersected
character classes ``[a-z&&[^b]]``, variable-length lookbehind) makes the
rule a :class:`~crawllib.errors.ConfigError` naming its line.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from crawllib.config import UrlConfig
from crawllib.errors import ConfigError
from crawllib.urls.domain import domain_of_host, java_host

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # java.io.BufferedReader.readLine
_Search = Callable[[str], "re.Match[str] | None"]
# Java regex constructs the translator rewrites.
_FLAG_SWITCH = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?\)")
_GROUP_OPENER = re.compile(
    r"\((?:\?(?:[:=!>]|<[=!]|<[A-Za-z][A-Za-z0-9]*>|[a-zA-Z]*(?:-[a-zA-Z]*)?:))?"
)
_HEX_OR_BACKREF = re.compile(r"\\x\{([0-9a-fA-F]+)\}|\\k<([A-Za-z][A-Za-z0-9]*)>")


@dataclass(frozen=True, slots=True)
class RegexRule:
    """One ``+regex``/``-regex`` line of a rules file.

    Attributes:
        accept: True for ``+`` (accept the URL), False for ``-`` (reject it).
        regex: the Java regex as written in the file.
        scope: the host or domain of the enclosing ``>`` block, lowercased;
            None outside any block.
        line: the line number in the rules text, from 1.
    """

    accept: bool
    regex: str
    scope: str | None
    line: int


class RegexUrlFilter:
    """Accept or reject URLs by regex rules, like Nutch's RegexURLFilter.

    The rules text holds one rule per line: ``+regex`` accepts, ``-regex``
    rejects. The regex is the rest of the line, verbatim (trailing spaces
    included, as in Nutch). Empty lines, whitespace-only lines and lines
    starting with ``#`` or a space are skipped; any other first character is
    a :class:`~crawllib.errors.ConfigError` naming the line.

    Rules are tried in file order. The first rule whose regex is found
    anywhere in the URL (Java's ``Matcher.find()``) decides; a URL that no
    rule matches is rejected.

    Host and domain blocks (Nutch 1.x): a line ``> name`` starts a block and
    a line ``<`` ends it. A rule inside a block takes part only for URLs whose
    host (lowercased, port and user-info removed) *equals* ``name``, or whose
    registrable domain (see :func:`~crawllib.urls.domain.domain_of_host`)
    equals it. This is exactly ``RegexURLFilterBase``'s test: ``> example.com``
    covers ``example.com`` and every host under it, because they all have the
    domain ``example.com``; but ``> sub.example.com`` covers that one host
    only, not ``a.sub.example.com`` (whose domain is ``example.com``). Rules
    outside blocks apply to every URL, and all rules keep their file order.
    Unlike Nutch, the block name is lowercased, so ``> Example.COM`` works
    (in Nutch such a block can never match).

    Attributes:
        rules: the rules in file order.

    Raises:
        ConfigError: a line has no valid prefix, or its regex does not compile.
    """

    def __init__(self, rules_text: str) -> None:
        self.rules = tuple(_read_rules(rules_text))
        compiled = [(_compile(rule), rule.accept, rule.scope) for rule in self.rules]
        self._scoped = any(scope is not None for _, _, scope in compiled)
        self._plain = tuple((search, accept) for search, accept, _ in compiled)
        self._all = tuple(compiled)

    def accepts(self, url: str) -> bool:
        """Whether the first matching rule accepts ``url`` (no match: False)."""
        if self._scoped:
            return self._accepts_scoped(url)
        for search, accept in self._plain:
            if search(url) is not None:
                return accept
        return False

    def _accepts_scoped(self, url: str) -> bool:
        host = java_host(url)
        # URLUtil.getHost and getDomainName give null for a malformed URL.
        lowered = None if host is None else host.lower()
        domain = None if host is None else domain_of_host(host)
        for search, accept, scope in self._all:
            if scope is not None and scope != lowered and scope != domain:
                continue
            if search(url) is not None:
                return accept
        return False


class UrlFilters:
    """The active URL filters in order, like Nutch's ``URLFilters``.

    Only the regex filter exists so far; it runs when ``urlfilter-regex`` is
    in ``plugin.includes`` (``config.regex_filter``). With no active filter
    every URL passes. The rules are compiled here, once.
    """

    def __init__(self, config: UrlConfig) -> None:
        self._accepts: Callable[[str], bool] | None = None
        if config.regex_filter:
            self._accepts = RegexUrlFilter(config.regex_filter_rules).accepts

    def filter(self, url: str) -> str | None:
        """The URL if every active filter accepts it, else None."""
        accepts = self._accepts
        if accepts is None or accepts(url):
            return url
        return None


def _read_rules(text: str) -> list[RegexRule]:
    rules: list[RegexRule] = []
    scope: str | None = None
    for number, line in enumerate(_LINE_BREAK.split(text), start=1):
        if not line.strip() or line[0] in " #":
            continue
        first = line[0]
        if first in "+-":
            rules.append(RegexRule(first == "+", line[1:], scope, number))
        elif first == ">":
            scope = line[1:].strip().lower()
        elif first == "<":
            scope = None
        else:
            raise ConfigError(
                f"URL filter rules, line {number}: {line!r} does not start with "
                "'+', '-', '>', '<' or '#'"
            )
    return rules


def _compile(rule: RegexRule) -> _Search:
    """The ``search`` method of the rule's regex, translated from Java."""
    try:
        source = _JavaRegex(rule.regex).translate()
        pattern = _compile_ascii(source)
    except (re.error, FutureWarning, ValueError) as exc:
        raise ConfigError(
            f"URL filter rules, line {rule.line}: cannot compile regex "
            f"{rule.regex!r}: {exc}"
        ) from exc
    # search(".*X") finds a match exactly when search("X") does (the ".*" may
    # match the empty string where X starts), but re tries every start and
    # every length of ".*": quadratic time on the default loop-breaking rule.
    lazy = source.startswith(".*?")
    if source.startswith(".*") and source[2:3] not in ("+", "{"):
        with contextlib.suppress(re.error, FutureWarning, ValueError):
            pattern = _compile_ascii(source[3:] if lazy else source[2:])
    return pattern.search


def _compile_ascii(source: str) -> re.Pattern[str]:
    """Compile with Java's defaults: ASCII classes and case folding.

    The ``(?a:...)`` wrapper, not the ``re.ASCII`` flag, lets an inner
    ``(?u:...)`` (Java's ``(?u)``/``(?U)``) switch Unicode back on.
    """
    with warnings.catch_warnings():
        # re warns on "[[" and "&&" in a class: Java nests or intersects
        # classes there, which re cannot express.
        warnings.simplefilter("error", FutureWarning)
        return re.compile(f"(?a:{source})")


_JAVA_FLAGS = {"i": "i", "m": "m", "s": "s", "x": "x", "u": "u", "U": "u", "d": ""}
_SIMPLE_ESCAPES = {"z": r"\Z", "e": r"\x1b"}


class _JavaRegex:
    """Rewrites a Java regex as an equivalent Python ``re`` pattern.

    Python accepts inline flags ``(?i)`` only at the very start, while Java
    lets them switch on anywhere, up to the end of the enclosing group. So
    ``a(?i)b|c`` becomes ``a(?i:b)|(?i:c)``: the rest of the alternative and
    every later alternative of the group get a scoped flag group.
    """

    def __init__(self, source: str) -> None:
        self._src = source
        self._pos = 0

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
        while self._pos < len(src):
            char = src[self._pos]
            if char == ")":
                break
            if char == "|":
                alternatives.append("".join(current))
                current = []
                self._pos += 1
            elif char == "\\":
                current.append(self._escape())
            elif char == "[":
                current.append(self._char_class())
            elif char == "(":
                flags = self._flag_switch()
                if flags is None:
                    current.append(self._group())
                    continue
                rest = self._group_body()
                if flags:
                    # A newline ends a trailing (?x) comment before the ")".
                    end = "\n)" if "x" in flags.partition("-")[0] else ")"
                    rest = [f"(?{flags}:{alt}{end}" for alt in rest]
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
        if match is None or not (match.group(1) or match.group(2)):
            return None
        self._pos = match.end()
        return _python_flags(match.group(1), match.group(2) or "")

    def _group(self) -> str:
        src = self._src
        opener = _group_opener(src, self._pos)
        self._pos += len(opener)
        body = "|".join(self._group_body())
        if self._pos < len(src):
            self._pos += 1  # the ")"
            return _translate_opener(opener) + body + ")"
        return _translate_opener(opener) + body

    def _char_class(self) -> str:
        src = self._src
        start = self._pos
        self._pos += 1
        if src.startswith("^", self._pos):
            self._pos += 1
        if src.startswith("]", self._pos):
            self._pos += 1
        parts = [src[start : self._pos]]
        while self._pos < len(src) and src[self._pos] != "]":
            if src[self._pos] == "\\":
                parts.append(self._escape())
            elif src.startswith(("[", "&&"), self._pos):
                message = "nested or intersected character classes are Java-only"
                raise re.error(message, src, self._pos)
            else:
                parts.append(src[self._pos])
                self._pos += 1
        if self._pos < len(src):
            parts.append("]")
            self._pos += 1
        return "".join(parts)

    def _escape(self) -> str:
        src = self._src
        pos = self._pos
        char = src[pos + 1 : pos + 2]
        if char == "Q":
            end = src.find(r"\E", pos + 2)
            literal = src[pos + 2 :] if end < 0 else src[pos + 2 : end]
            self._pos = len(src) if end < 0 else end + 2
            return re.escape(literal)
        if char in _SIMPLE_ESCAPES:
            self._pos = pos + 2
            return _SIMPLE_ESCAPES[char]
        match = _HEX_OR_BACKREF.match(src, pos)
        if match is not None:
            self._pos = match.end()
            if match.group(1) is not None:
                return f"\\U{int(match.group(1), 16):08x}"
            return f"(?P={match.group(2)})"
        self._pos = pos + 2
        return src[pos : pos + 2]


def _group_opener(src: str, pos: int) -> str:
    """The text opening the group at ``pos``: ``(``, ``(?:``, ``(?<name>`` ..."""
    match = _GROUP_OPENER.match(src, pos)
    assert match is not None  # "(" alone always matches
    return match.group(0)


def _translate_opener(opener: str) -> str:
    if opener.startswith("(?<") and opener[3] not in "=!":
        return "(?P" + opener[2:]
    if opener.endswith(":") and len(opener) > 3:
        on, _, off = opener[2:-1].partition("-")
        return f"(?{_python_flags(on, off)}:"
    return opener


def _python_flags(on: str, off: str) -> str:
    """Java inline flag letters as Python's (unknown letters are left for re).

    ``d`` (UNIX_LINES) is dropped: it only changes which line terminators
    ``.`` and ``$`` see, and re knows only the newline anyway. Switching ``u``/``U``
    off means ASCII (``a``), which re takes only in the "on" part.
    """
    python_on = "".join(_JAVA_FLAGS.get(flag, flag) for flag in on)
    python_off = ""
    for flag in off:
        if flag in "uU":
            python_on += "a"
        else:
            python_off += _JAVA_FLAGS.get(flag, flag)
    python_on = "".join(dict.fromkeys(python_on))
    return python_on + ("-" + python_off if python_off else "")
