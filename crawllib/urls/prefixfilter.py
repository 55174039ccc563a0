"""URL prefixes: Nutch's ``urlfilter-prefix`` (``PrefixURLFilter``)."""

from __future__ import annotations

import re

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # java.io.BufferedReader.readLine


def read_prefixes(text: str) -> tuple[str, ...]:
    """The prefixes of a ``prefix-urlfilter.txt``, in file order.

    Like ``PrefixURLFilter.readConfiguration``: each line is one prefix,
    verbatim (spaces after it count); empty lines and lines starting with a
    space or ``#`` are skipped.
    """
    return tuple(
        line for line in _LINE_BREAK.split(text) if line and line[0] not in " #"
    )


class PrefixUrlFilter:
    """Keep URLs that start with a listed prefix, like Nutch's PrefixURLFilter.

    The comparison is exact (case counts). With no prefixes every URL is
    dropped, as in Nutch.

    Attributes:
        prefixes: the prefixes in file order.
    """

    def __init__(self, rules_text: str) -> None:
        self.prefixes = read_prefixes(rules_text)

    def accepts(self, url: str) -> bool:
        """Whether ``url`` starts with one of the prefixes."""
        return url.startswith(self.prefixes)
