"""What a fetcher did and has left: its counts, and its snapshot for progress.

:class:`FetcherStats` counts a run's pages and the fetch-list items dropped
unwritten (:mod:`crawllib.fetch.unfetched` adds them up for the crawl's
round line); :func:`take_snapshot` turns them and the queues into a
:class:`~crawllib.fetch.progress.FetchSnapshot` with the polite ETA
(:mod:`crawllib.fetch.eta`).
"""

from __future__ import annotations

import collections
from collections.abc import Iterable
from dataclasses import dataclass, field

from crawllib.fetch import eta
from crawllib.fetch.progress import FetchSnapshot
from crawllib.fetch.queues import FetchItem, FetchQueues


@dataclass
class FetcherStats:
    """What a fetch run did, for counters and the progress line."""

    pages: int = 0
    bytes: int = 0
    done: int = 0
    """Fetch-list items written (redirect hops are pages, not items)."""
    dropped: collections.Counter[str] = field(default_factory=collections.Counter)
    """Items not written, by reason (Nutch's fetcher counter names)."""
    redirect_hops: collections.Counter[str] = field(default_factory=collections.Counter)
    """Pages of redirects followed within the fetch, by protocol status name:
    written, but no fetch-list item of their own."""

    def drop(self, reason: str, items: Iterable[FetchItem]) -> None:
        """Count the fetch-list items among ``items`` as dropped for ``reason``.

        Redirect hops dropped are not counted: their item was written.
        """
        self.dropped[reason] += sum(1 for item in items if item.redirects == 0)


def take_snapshot(
    stats: FetcherStats,
    queues: FetchQueues,
    now_s: float,
    elapsed_s: float,
    total: int | None,
    reading: bool,
    threads: int,
) -> FetchSnapshot:
    """The counts now, with the ETA of the queues (the fetcher's lock held).

    Args:
        stats: the run's counts so far.
        queues: the fetcher's queues.
        now_s: the fetcher's clock now.
        elapsed_s: seconds since the run started.
        total: the fetch list's size, if known.
        reading: the fetch list is still being read into the queues: what
            ``total`` has beyond the items seen is spread over the queues.
        threads: the fetcher's threads (``fetcher.threads.fetch``).
    """
    done = stats.done + sum(stats.dropped.values())
    loads = queues.loads(now_s)
    if reading and total is not None:
        unread = total - done - queues.queued - queues.in_progress
        loads = eta.with_unread(loads, unread)
    return FetchSnapshot(
        pages=stats.pages,
        bytes=stats.bytes,
        done=done,
        total=total,
        queues=len(loads),
        queued=queues.queued,
        active=queues.in_progress,
        elapsed_s=elapsed_s,
        eta_s=eta.polite_eta_s(loads, threads),
    )
