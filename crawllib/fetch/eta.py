"""The time a fetch has left, with politeness: per-queue delays bound it.

A fetcher with many threads but one busy host is as slow as that host's
queue: each of its URLs waits the queue's delay (``fetcher.server.delay``,
or the host's robots.txt Crawl-delay) after the previous one. So the time
left is the longest queue's, ``left x (delay + fetch time) / its threads``,
and at least the whole work spread over the fetcher's threads,
``sum(left x fetch time) / threads``. An ETA from the pages/s so far would
say 0:21 where one delayed queue is left with 20 URLs at 5 s.

The fetcher (:mod:`crawllib.fetch.fetch`) describes its queues as
:class:`QueueLoad` and puts :func:`polite_eta_s` in its snapshot; URLs of
the fetch list not yet read into queues are spread over the queues as
those already read are (``unread``). Plain arithmetic: no clock. A fetch
may have 10,000 queues, and a live display asks 4 times a second: a load is
a tuple, and one pass over them does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple


class QueueLoad(NamedTuple):
    """What one queue (host, domain or IP) has left to do."""

    waiting: float
    """URLs queued, not yet handed out."""
    in_progress: int
    """URLs being fetched now."""
    delay_s: float
    """The wait between two of its requests (server delay or Crawl-delay)."""
    fetch_s: float | None
    """Its recent time per request; None before its first one finished."""
    threads: int
    """Requests it may have in flight at once (``fetcher.threads.per.queue``)."""
    ready_in_s: float = 0.0
    """Seconds until it may hand out its next URL (its delay still running)."""


def queue_time_s(load: QueueLoad, default_fetch_s: float = 0.0) -> float:
    """Seconds until the queue is empty: its wait, then each URL's fetch and delay.

    The URL in progress ends in about half a fetch, then the queue waits its
    delay; each waiting URL then costs a fetch and, but for the last, a
    delay, shared by the queue's threads.
    """
    waiting, in_progress, delay_s, fetch_s, threads, ready_in_s = load
    return _queue_time_s(
        waiting,
        in_progress,
        delay_s,
        default_fetch_s if fetch_s is None else fetch_s,
        threads,
        ready_in_s,
    )


def _queue_time_s(
    waiting: float,
    in_progress: int,
    delay_s: float,
    fetch_s: float,
    threads: int,
    ready_in_s: float,
) -> float:
    if waiting <= 0:
        return fetch_s / 2 if in_progress else 0.0
    if in_progress:
        start_s = fetch_s / 2 + delay_s
    else:
        start_s = ready_in_s if ready_in_s > 0 else 0.0
    slots = min(float(max(threads, 1)), max(waiting, 1.0))
    return start_s + (waiting * fetch_s + max(waiting - 1, 0.0) * delay_s) / slots


def mean_fetch_s(loads: Sequence[QueueLoad]) -> float:
    """The mean of the queues' known fetch times (0 when none is known)."""
    known = [load.fetch_s for load in loads if load.fetch_s is not None]
    return sum(known) / len(known) if known else 0.0


def polite_eta_s(loads: Sequence[QueueLoad], threads: int, unread: int = 0) -> float:
    """Seconds left: the slowest queue's time, at least the work over ``threads``.

    Args:
        loads: every queue with URLs waiting or in progress.
        threads: the fetcher's threads (``fetcher.threads.fetch``).
        unread: URLs of the fetch list not read into the queues yet; they go
            to the queues in the shares of the URLs waiting (a fetch list is
            not sorted by host), or in equal shares when none waits.
    """
    if not loads:
        return 0.0
    default = mean_fetch_s(loads)
    scale, share = _spread(loads, unread)
    slowest = work = 0.0
    for waiting, in_progress, delay_s, fetch_s, per_queue, ready_in_s in loads:
        if fetch_s is None:
            fetch_s = default
        waiting = waiting * scale + share
        seconds = _queue_time_s(
            waiting, in_progress, delay_s, fetch_s, per_queue, ready_in_s
        )
        if seconds > slowest:
            slowest = seconds
        work += (waiting + in_progress / 2) * fetch_s
    return max(slowest, work / max(1, threads))


def _spread(loads: Sequence[QueueLoad], unread: int) -> tuple[float, float]:
    """How ``unread`` URLs change each queue's waiting: (factor, share added)."""
    if unread <= 0:
        return 1.0, 0.0
    waiting = sum(load.waiting for load in loads)
    if waiting <= 0:
        return 1.0, unread / len(loads)
    return (waiting + unread) / waiting, 0.0
