r"""Seed lines with the file and line they come from, and the report of rejected ones.

A seed file's lines are read here (:func:`read_lines`), as Beam's text
reader splits them (at ``\n``, a ``\r`` before it dropped), each with its
file and number: a line that is not UTF-8 is a :class:`RejectedLine`.
Injecting them rejects more (a malformed URL). The operator is told about
the first :data:`REPORTED` rejected lines in full, in file and line order,
then how many more there were (:func:`report`)::

    seeds.txt:12: rejected 'htp:/x': malformed URL (unknown protocol: htp)
    ... and 37 more rejected seed lines (counted as injector/urls_rejected)

Nutch's Injector logs a line for each URL it skips, without file or line number.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from crawllib.urls.javaurl import MalformedUrlError, parse_url

REPORTED = 5
"""How many rejected lines are reported in full."""
_SHOWN = 200  # characters of a rejected line shown


@dataclass(frozen=True, slots=True, order=True)
class SeedLine:
    """One line of a seed file, and where it is.

    Attributes:
        source: the file, as listed; "" for a line from elsewhere (a
            library user's own ``PCollection`` of strings).
        number: its line number, from 1; 0 when ``source`` is "".
        text: the line, decoded, without its line break and byte-order mark.
    """

    source: str
    number: int
    text: str

    def where(self) -> str:
        """``file:line``, or "" when not from a file."""
        return f"{self.source}:{self.number}" if self.source else ""


@dataclass(frozen=True, slots=True, order=True)
class RejectedLine:
    """A seed line dropped, and why (``not UTF-8``, ``malformed URL ...``)."""

    line: SeedLine
    reason: str

    def message(self) -> str:
        """``seeds.txt:12: rejected 'htp:/x': <reason>``."""
        shown = self.line.text[:_SHOWN]
        where = self.line.where()
        text = f"rejected {shown!r}: {self.reason}"
        return f"{where}: {text}" if where else text


def as_seed_line(element: str | SeedLine) -> SeedLine:
    """A seed line as it is, or a plain string as one from nowhere in particular."""
    return element if isinstance(element, SeedLine) else SeedLine("", 0, element)


class _Lines(Protocol):
    def readline(self) -> bytes: ...


def read_lines(stream: _Lines, source: str) -> Iterator[SeedLine | RejectedLine]:
    r"""The lines of ``stream`` (a seed file ``source``), numbered from 1.

    Each line ends at ``\n``, which is dropped with a ``\r`` before it;
    a last line without one counts. A byte-order mark at a line's start is
    dropped. A line that is not UTF-8 is a :class:`RejectedLine`.
    """
    number = 0
    while raw := stream.readline():
        number += 1
        if raw.endswith(b"\n"):
            raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1]
        try:
            yield SeedLine(source, number, raw.decode("utf-8").lstrip("\ufeff"))
        except UnicodeDecodeError:
            text = raw.decode("utf-8", "backslashreplace")
            yield RejectedLine(SeedLine(source, number, text), "not UTF-8")


def malformed_reason(url: str) -> str:
    """Why a normalizer found ``url`` malformed, as far as parsing it says."""
    try:
        parse_url(url)
    except MalformedUrlError as exc:
        return f"malformed URL ({exc})"
    return "malformed URL"


@dataclass(frozen=True, slots=True)
class Rejections:
    """How many lines were rejected, and the first :data:`REPORTED` of them.

    "First" is in (file, line number) order, whichever worker met them, so
    every run reports the same lines.
    """

    total: int = 0
    first: tuple[RejectedLine, ...] = ()

    def add(self, rejected: RejectedLine) -> Rejections:
        """These and one more."""
        first = heapq.nsmallest(REPORTED, (*self.first, rejected))
        return Rejections(self.total + 1, tuple(first))

    @staticmethod
    def merged(parts: Iterable[Rejections]) -> Rejections:
        """All of ``parts`` in one."""
        parts = list(parts)
        first = heapq.nsmallest(REPORTED, (r for part in parts for r in part.first))
        return Rejections(sum(part.total for part in parts), tuple(first))


def report(rejections: Rejections, counter: str) -> list[str]:
    """The lines telling of ``rejections``: the first in full, then a count.

    ``counter`` names the counter that holds the total.
    """
    lines = [rejected.message() for rejected in rejections.first]
    more = rejections.total - len(rejections.first)
    if more:
        lines.append(
            f"... and {more} more rejected seed line{'s' if more > 1 else ''} "
            f"(counted as {counter})"
        )
    return lines
