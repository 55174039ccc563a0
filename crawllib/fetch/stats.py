"""What a fetcher did and has left: its counts, and its snapshot for progress.

:class:`FetcherStats` counts a run's pages and the fetch-list items dropped
unwritten (:mod:`crawllib.fetch.unfetched` adds them up for the crawl's
round line); :class:`Snapshots` makes a :class:`~crawllib.fetch.progress.FetchSnapshot`
of them and the queues, with the polite ETA (:mod:`crawllib.fetch.eta`).
"""

from __future__ import annotations

import collections
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

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


ETA_EVERY_S = 1.0
"""How often the polite ETA is worked out (a pass over every queue); between
two, the last one counts down."""


@dataclass(frozen=True)
class Taken:
    """A fetcher's counts at one moment, taken under its lock; no ETA yet."""

    counts: FetchSnapshot
    now_s: float
    loads: list[eta.QueueLoad] | None
    """The busy queues' loads; None: the last ETA counts down."""
    unread: int
    """Fetch-list items not read into the queues yet."""


class Snapshots:
    """A fetcher's snapshots, with the polite ETA (:mod:`crawllib.fetch.eta`).

    :meth:`take` runs under the fetcher's lock and passes over the queues
    only when the ETA is due (each :data:`ETA_EVERY_S`, and whenever nothing
    is queued); :meth:`finish` works the ETA out after, without the lock. A
    fetch of 10,000 queues shown 4 times a second spends its threads' time
    on fetching, not on the display.
    """

    def __init__(self, threads: int) -> None:
        self._threads = threads
        self._eta: tuple[float, float | None] | None = None
        """When the ETA was last worked out, and what it was."""

    def take(
        self,
        stats: FetcherStats,
        queues: FetchQueues,
        now_s: float,
        elapsed_s: float,
        total: int | None,
        reading: bool,
    ) -> Taken:
        """The counts now (the fetcher's lock held).

        Args:
            stats: the run's counts so far.
            queues: the fetcher's queues.
            now_s: the fetcher's clock now.
            elapsed_s: seconds since the run started.
            total: the fetch list's size, if known.
            reading: the fetch list is still being read into the queues:
                what ``total`` has beyond the items seen is not in them yet.
        """
        done = stats.done + sum(stats.dropped.values())
        busy = queues.queued + queues.in_progress
        due = self._eta is None or now_s - self._eta[0] >= ETA_EVERY_S or not busy
        loads = queues.loads(now_s) if due else None
        unread = max((total or 0) - done - busy, 0) if reading else 0
        counts = FetchSnapshot(
            pages=stats.pages,
            bytes=stats.bytes,
            done=done,
            total=total,
            queues=_count(queues.busy_queues()) if loads is None else len(loads),
            queued=queues.queued,
            active=queues.in_progress,
            elapsed_s=elapsed_s,
        )
        return Taken(counts, now_s, loads, unread)

    def finish(self, taken: Taken) -> FetchSnapshot:
        """The snapshot of ``taken`` with its ETA (None: estimate from the rate)."""
        if taken.loads is not None:
            seconds: float | None = None
            if taken.loads or not taken.unread:  # no queue yet: nothing to go by
                seconds = eta.polite_eta_s(taken.loads, self._threads, taken.unread)
            self._eta = (taken.now_s, seconds)
        assert self._eta is not None
        at, last = self._eta
        left = None if last is None else max(last - (taken.now_s - at), 0.0)
        return replace(taken.counts, eta_s=left)


def _count(items: Iterable[object]) -> int:
    return sum(1 for _ in items)
