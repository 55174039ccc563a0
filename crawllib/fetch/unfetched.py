"""A round's fetch in numbers that add up: every generated URL counted once.

Each URL of a fetch list ends one of two ways in the fetcher
(:mod:`crawllib.fetch.fetch`):

- fetched: a record is written with its protocol status (``SUCCESS``,
  ``NOTFOUND``, ``EXCEPTION``, ``ROBOTS_DENIED`` ... robots.txt denials and
  unreachable robots.txt are written too, as in Nutch);
- not fetched: dropped without a record, the crawldb keeping its old state,
  for a reason the fetcher counts (:data:`REASONS`).

The fetcher's ``FetcherStatus`` counters count written pages, and the pages
of redirects it follows within the fetch (``http.redirect.max`` above 0) are
written without being URLs of the list; the ``Fetcher`` counters
``redirect_hops`` and ``redirect_hop_<STATUS>`` count those, and are taken
off here. What still does not add up (counters a runner lost) is named
``unaccounted``, never left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from crawllib.fetch.stats import FetcherStats

REASONS: dict[str, str] = {
    "hit_by_timelimit": "time_limit",
    "above_exception_threshold": "max_exceptions",
    "robots_defer_visits_dropped": "robots_deferred",
    "dns_lookup_failed": "dns_failed",
}
"""The fetcher's counter of URLs dropped unwritten, and the reason's short name.

``time_limit``: ``fetcher.timelimit.mins`` passed (the URLs queued and the
ones never read); ``max_exceptions``: the queue's host reached
``fetcher.max.exceptions.per.queue``; ``robots_deferred``: robots.txt
answered 5xx/429 more than ``http.robots.503.defer.visits.retries`` times;
``dns_failed``: no address for the host (``fetcher.queue.mode=byIP``).
"""

REDIRECT_HOPS = "redirect_hops"
"""The ``Fetcher`` counter of redirect targets fetched within the fetch."""
REDIRECT_HOP_PREFIX = "redirect_hop_"
"""``Fetcher`` counters ``redirect_hop_<STATUS>``: those targets by status."""
UNACCOUNTED = "unaccounted"


@dataclass(frozen=True)
class FetchCounts:
    """A fetch's URLs split: ``sum(fetched) + sum(unfetched) == generated``."""

    generated: int
    fetched: dict[str, int] = field(default_factory=dict)
    """Fetch-list URLs written, by protocol status name."""
    unfetched: dict[str, int] = field(default_factory=dict)
    """Fetch-list URLs not written, by reason (:data:`REASONS`' short names)."""
    redirect_hops: int = 0
    """Redirect targets fetched besides (not URLs of the list)."""

    def line(self) -> str:
        """The counts in words, as the crawl's round line shows them.

        ``generated 150: fetched SUCCESS=126 EXCEPTION=21, not fetched
        time_limit=3``: largest counts first; redirect targets followed, if
        any, at the end.
        """
        words = f"generated {self.generated}: fetched {_named(self.fetched)}"
        if self.unfetched:
            words += f", not fetched {_named(self.unfetched)}"
        if self.redirect_hops:
            hops = self.redirect_hops
            words += f", and {hops} redirect target{'s' if hops != 1 else ''}"
        return words


def fetch_counts(
    generated: int, statuses: Mapping[str, int], fetcher: Mapping[str, int]
) -> FetchCounts:
    """Split ``generated`` URLs by the fetch's counters.

    Args:
        generated: URLs in the fetch lists (generate's ``GENERATED``).
        statuses: the ``FetcherStatus`` counters (written pages by status).
        fetcher: the ``Fetcher`` counters (drops, redirect hops, bytes ...);
            other names are ignored.
    """
    fetched = dict(statuses)
    for name, count in fetcher.items():
        if name.startswith(REDIRECT_HOP_PREFIX) and name != REDIRECT_HOPS:
            status = name[len(REDIRECT_HOP_PREFIX) :]
            fetched[status] = fetched.get(status, 0) - count
    fetched = {name: count for name, count in fetched.items() if count > 0}
    unfetched = {
        short: fetcher[name] for name, short in REASONS.items() if fetcher.get(name)
    }
    missing = generated - sum(fetched.values()) - sum(unfetched.values())
    if missing:
        unfetched[UNACCOUNTED] = missing
    return FetchCounts(generated, fetched, unfetched, fetcher.get(REDIRECT_HOPS, 0))


def fetcher_counters(stats: FetcherStats) -> dict[str, int]:
    """A fetcher's ``Fetcher`` counters: bytes, drops by reason, redirect hops."""
    counters = {"bytes_downloaded": stats.bytes, **stats.dropped}
    hops = stats.redirect_hops
    if hops:
        counters[REDIRECT_HOPS] = sum(hops.values())
    for status, count in hops.items():
        counters[REDIRECT_HOP_PREFIX + status] = count
    return counters


def _named(counts: Mapping[str, int]) -> str:
    if not counts:
        return "nothing"
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return " ".join(f"{name}={count}" for name, count in ordered)
