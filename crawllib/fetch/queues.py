"""Per-host fetch queues and their politeness (1.x FetchItemQueues / FetchItemQueue).

Items are grouped into queues by ``fetcher.queue.mode`` (host, domain or IP).
A queue hands out its next item only while fewer than ``threads_per_queue``
of its items are in progress and its ``next_fetch_s`` has come; finishing an
item sets ``next_fetch_s`` = now + the queue's delay, so the delay counts from
the end of the previous request. Times are seconds of a monotonic clock passed
in by the caller; nothing here sleeps or starts threads.
"""

from __future__ import annotations

import collections
import heapq
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

from crawllib.fetch.eta import QueueLoad
from crawllib.webpage import WebPage

_WEIGHT = 0.3
"""A new request's weight in a queue's moving average of fetch times."""


@dataclass(slots=True)
class FetchItem:
    """One URL to fetch: the fetch-list page, and its redirect history."""

    url: str
    page: WebPage
    queue_id: str
    redirects: int = 0
    repr_url: str | None = None
    started_s: float = 0.0
    """When a thread took it (the clock of :meth:`FetchQueues.next_item`)."""


@dataclass(slots=True)
class FetchQueue:
    """The state of one queue (host, domain or IP)."""

    queue_id: str
    crawl_delay_s: float
    min_crawl_delay_s: float
    max_threads: int
    items: collections.deque[FetchItem] = field(default_factory=collections.deque)
    in_progress: int = 0
    next_fetch_s: float = 0.0
    exceptions: int = 0
    deferrals: int = 0
    robots_delay_set: bool = False
    fetch_s: float | None = None
    """Its recent seconds per request (a moving average), for the ETA."""
    scheduled_at: float | None = None  # its entry in FetchQueues' heap, if any

    @property
    def delay_s(self) -> float:
        """The wait after each request (``fetcher.server.min.delay`` with threads).

        The crawl delay, or the min delay when several threads may work on
        the queue.
        """
        return self.min_crawl_delay_s if self.max_threads > 1 else self.crawl_delay_s

    @property
    def eligible(self) -> bool:
        """Whether it has items and a free thread slot (whatever the time)."""
        return bool(self.items) and self.in_progress < self.max_threads


class FetchQueues:
    """All queues of one fetcher, with Nutch's politeness rules.

    Not thread-safe by itself: the fetcher holds one lock around it.
    """

    def __init__(
        self, crawl_delay_s: float, min_crawl_delay_s: float, threads_per_queue: int
    ) -> None:
        self._crawl_delay_s = crawl_delay_s
        self._min_crawl_delay_s = min_crawl_delay_s
        self._threads_per_queue = threads_per_queue
        self._queues: dict[str, FetchQueue] = {}
        self._heap: list[tuple[float, int, str]] = []  # (next fetch, seq, queue id)
        self._seq = itertools.count()
        self.queued = 0
        """Items waiting in all queues (not counting those in progress)."""
        self.in_progress = 0
        """Items handed out and not yet finished."""

    def __len__(self) -> int:
        return len(self._queues)

    def queue(self, queue_id: str, now_s: float) -> FetchQueue:
        """The queue ``queue_id``, created ready to start at once if new."""
        queue = self._queues.get(queue_id)
        if queue is None:
            queue = FetchQueue(
                queue_id,
                self._crawl_delay_s,
                self._min_crawl_delay_s,
                self._threads_per_queue,
                next_fetch_s=now_s - self._crawl_delay_s,
            )
            self._queues[queue_id] = queue
        return queue

    def add(self, item: FetchItem, now_s: float, first: bool = False) -> None:
        """Queue an item (at the front with ``first``, as a redirect target)."""
        queue = self.queue(item.queue_id, now_s)
        if first:
            queue.items.appendleft(item)
        else:
            queue.items.append(item)
        self.queued += 1
        self._schedule(queue)

    def next_item(self, now_s: float) -> tuple[FetchItem | None, float]:
        """The next item any queue may hand out now, and else how long to wait.

        Returns (item, 0) or (None, seconds until the earliest queue is ready;
        infinity when every queue is empty or busy). Queues wait in a heap by
        their next fetch time, so this costs O(log queues), not O(queues).
        """
        while self._heap:
            at, _, queue_id = self._heap[0]
            queue = self._queues[queue_id]
            if queue.scheduled_at != at or not queue.eligible:
                heapq.heappop(self._heap)  # stale entry
                if queue.scheduled_at == at:
                    queue.scheduled_at = None
                continue
            if at > now_s:
                return None, at - now_s
            heapq.heappop(self._heap)
            queue.scheduled_at = None
            item = queue.items.popleft()
            item.started_s = now_s
            queue.in_progress += 1
            self.queued -= 1
            self.in_progress += 1
            self._schedule(queue)
            return item, 0.0
        return None, float("inf")

    def finish(self, item: FetchItem, now_s: float, asap: bool = False) -> None:
        """An item is done: the queue's next request waits its delay from now.

        ``asap`` (robots denial and the like, no request made) lets the next
        one go at once.
        """
        queue = self._queues[item.queue_id]
        queue.in_progress -= 1
        self.in_progress -= 1
        queue.next_fetch_s = now_s if asap else now_s + queue.delay_s
        if not asap:
            took = max(now_s - item.started_s, 0.0)
            recent = queue.fetch_s
            queue.fetch_s = (
                took if recent is None else recent + _WEIGHT * (took - recent)
            )
        self._schedule(queue)

    def back_off(self, queue_id: str, now_s: float, delay_s: float) -> None:
        """Push a queue's next request to at least ``delay_s`` from now."""
        queue = self._queues[queue_id]
        queue.next_fetch_s = max(queue.next_fetch_s, now_s + delay_s)
        self._schedule(queue)

    def _schedule(self, queue: FetchQueue) -> None:
        if queue.eligible and queue.scheduled_at != queue.next_fetch_s:
            queue.scheduled_at = queue.next_fetch_s
            entry = (queue.next_fetch_s, next(self._seq), queue.queue_id)
            heapq.heappush(self._heap, entry)

    def purge(self, queue_id: str) -> list[FetchItem]:
        """Drop a queue's waiting items (they are not written) and return them."""
        queue = self._queues[queue_id]
        dropped = list(queue.items)
        queue.items.clear()
        self.queued -= len(dropped)
        return dropped

    def purge_all(self) -> list[FetchItem]:
        """Drop every waiting item (time limit reached)."""
        dropped: list[FetchItem] = []
        for queue_id in self._queues:
            dropped.extend(self.purge(queue_id))
        return dropped

    def loads(self, now_s: float) -> list[QueueLoad]:
        """What each busy queue has left (:func:`crawllib.fetch.eta.polite_eta_s`)."""
        return [
            QueueLoad(
                len(q.items),
                q.in_progress,
                q.delay_s,
                q.fetch_s,
                q.max_threads,
                q.next_fetch_s - now_s,
            )
            for q in self._queues.values()
            if q.items or q.in_progress
        ]

    def busy_queues(self) -> Iterator[FetchQueue]:
        """Queues with items waiting or in progress."""
        return (q for q in self._queues.values() if q.items or q.in_progress)
