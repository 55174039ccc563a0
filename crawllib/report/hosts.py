"""Per-host tallies in bounded memory: the hosts a report ranks.

A crawl of millions of hosts would not fit one dict per host, so the table
holds at most ``capacity`` hosts. When it is full, it keeps the half that
rank highest by pages or by errors and drops the rest, counting what it
dropped: a dropped host that comes back starts again from zero, so on such a
crawl the host figures are lower bounds and the report says so.
"""

from __future__ import annotations

import collections
import heapq
import re
from collections.abc import Callable
from dataclasses import dataclass, field

DEFAULT_CAPACITY = 20_000
"""Hosts a :class:`HostTable` holds before it drops the lowest ranked half."""


@dataclass(slots=True)
class HostTally:
    """What one host contributed: crawldb records and fetches by outcome."""

    pages: int = 0
    """Crawldb records of the host's URLs."""
    pages_by_status: collections.Counter[str] = field(
        default_factory=collections.Counter
    )
    """Crawldb records by status label."""
    fetches: int = 0
    """Fetch records in the segments (every fetch of every round)."""
    errors: int = 0
    """Fetches that brought no page (see :func:`crawllib.report.figures.is_error`)."""
    fetch_statuses: collections.Counter[str] = field(
        default_factory=collections.Counter
    )
    """Fetches by protocol status label."""
    http_codes: collections.Counter[str] = field(default_factory=collections.Counter)
    """Fetches by HTTP response code (``none``: no response)."""


_HOST = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://(?:[^/?#@]*@)?(\[[^\]/?#]*\]|[^/?#:]*)")


def host_of(url: str) -> str:
    """The URL's host name in lower case (``urlsplit(url).hostname``, faster).

    ``(no host)`` for a URL without one (``file:///``, ``mailto:``).
    """
    match = _HOST.match(url)
    host = match.group(1).strip("[]").lower() if match else ""
    return host or "(no host)"


class HostTable:
    """Tallies per host, at most ``capacity`` of them (see the module docstring)."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 2:
            raise ValueError("a host table holds at least 2 hosts")
        self._capacity = capacity
        self._tallies: dict[str, HostTally] = {}
        self.dropped = 0
        """Hosts dropped to stay within the capacity (0: every figure is exact)."""

    def __len__(self) -> int:
        return len(self._tallies)

    def tally(self, host: str) -> HostTally:
        """The host's tally, a new one if the host is not (or no longer) held."""
        tally = self._tallies.get(host)
        if tally is None:
            if len(self._tallies) >= self._capacity:
                self._shrink()
            tally = self._tallies[host] = HostTally()
        return tally

    def top(
        self, n: int, key: Callable[[HostTally], int]
    ) -> list[tuple[str, HostTally]]:
        """The ``n`` hosts with the highest positive ``key``; ties by host name."""
        ranked = sorted(
            ((host, t) for host, t in self._tallies.items() if key(t) > 0),
            key=lambda item: (-key(item[1]), item[0]),
        )
        return ranked[:n]

    def _shrink(self) -> None:
        keep = self._capacity // 4
        items = self._tallies.items()
        kept = {h for h, _ in heapq.nlargest(keep, items, key=_pages_and_fetches)}
        kept.update(h for h, _ in heapq.nlargest(keep, items, key=_errors))
        before = len(self._tallies)
        self._tallies = {h: t for h, t in self._tallies.items() if h in kept}
        self.dropped += before - len(self._tallies)


def _pages_and_fetches(item: tuple[str, HostTally]) -> int:
    return item[1].pages + item[1].fetches


def _errors(item: tuple[str, HostTally]) -> int:
    return item[1].errors
