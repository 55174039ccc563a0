"""URL suffixes: Nutch's ``urlfilter-suffix`` (``SuffixURLFilter``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from crawllib.java import java_trim
from crawllib.urls.javaurl import MalformedUrlError, parse_url

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # java.io.BufferedReader.readLine


@dataclass(frozen=True, slots=True)
class SuffixRules:
    """The content of a ``suffix-urlfilter.txt``.

    Attributes:
        suffixes: the suffixes in file order, lowercased if ``ignore_case``.
        accept_unlisted: the mode: True (``+``) keeps URLs with no listed
            suffix and drops the others; False (``-``, the default) keeps
            only URLs with a listed suffix.
        ignore_case: compare lowercased (an ``I`` on a mode line).
        path_only: compare the URL's path only, without host and query (a
            ``P`` on a mode line).
    """

    suffixes: tuple[str, ...] = ()
    accept_unlisted: bool = False
    ignore_case: bool = False
    path_only: bool = False


def read_suffix_rules(text: str) -> SuffixRules:
    """Read suffix rules like ``SuffixURLFilter.readConfiguration``.

    Each line is trimmed. Empty lines and lines starting with ``#`` are
    skipped. A line starting with ``+`` or ``-`` sets the mode (the last one
    wins), and turns on ignore-case if it holds an ``I`` and path-only if it
    holds a ``P`` anywhere (``+I``, ``-PI``; once on, they stay on). Any other
    line is a literal suffix (no regex, no wildcard).
    """
    suffixes: list[str] = []
    accept_unlisted = ignore_case = path_only = False
    for raw in _LINE_BREAK.split(text):
        line = java_trim(raw)
        if not line or line[0] == "#":
            continue
        if line[0] in "+-":
            accept_unlisted = line[0] == "+"
            ignore_case = ignore_case or "I" in line
            path_only = path_only or "P" in line
        else:
            suffixes.append(line)
    if ignore_case:
        suffixes = [suffix.lower() for suffix in suffixes]
    return SuffixRules(tuple(suffixes), accept_unlisted, ignore_case, path_only)


class SuffixUrlFilter:
    """Keep or drop URLs by their ending, like Nutch's SuffixURLFilter.

    In ``+`` mode a URL ending in a listed suffix is dropped and every other
    URL kept; in ``-`` mode (the default) it is the reverse. With path-only
    on, the path of the URL (lowercased first under ignore-case) is compared
    instead, as ``java.net.URL.getPath()`` gives it: without query and ref,
    ``""`` for ``http://host``; a URL that does not parse is compared whole.

    Attributes:
        rules: the rules read from the text.
    """

    def __init__(self, rules_text: str) -> None:
        self.rules = read_suffix_rules(rules_text)

    def accepts(self, url: str) -> bool:
        """Whether ``url`` is kept."""
        rules = self.rules
        text = url.lower() if rules.ignore_case else url
        if rules.path_only:
            text = _path(text)
        return text.endswith(rules.suffixes) != rules.accept_unlisted


def _path(url: str) -> str:
    """``new URL(url).getPath()``, or ``url`` itself if it does not parse."""
    try:
        file = parse_url(url).file
    except MalformedUrlError:
        return url
    return file.partition("?")[0]
