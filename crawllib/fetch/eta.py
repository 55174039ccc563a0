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
those already read are (:func:`with_unread`). Plain arithmetic: no clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class QueueLoad:
    """What one queue (host, domain or IP) has left to do."""

    waiting: float
    """URLs queued, not yet handed out (fractional after :func:`with_unread`)."""
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
    fetch_s = default_fetch_s if load.fetch_s is None else load.fetch_s
    threads = max(1, load.threads)
    if load.waiting <= 0:
        return fetch_s / 2 if load.in_progress else 0.0
    if load.in_progress:
        start_s = fetch_s / 2 + load.delay_s
    else:
        start_s = max(load.ready_in_s, 0.0)
    slots = min(float(threads), max(load.waiting, 1.0))
    work_s = load.waiting * fetch_s + max(load.waiting - 1, 0.0) * load.delay_s
    return start_s + work_s / slots


def mean_fetch_s(loads: Sequence[QueueLoad]) -> float:
    """The mean of the queues' known fetch times (0 when none is known)."""
    known = [load.fetch_s for load in loads if load.fetch_s is not None]
    return sum(known) / len(known) if known else 0.0


def polite_eta_s(loads: Sequence[QueueLoad], threads: int) -> float:
    """Seconds left: the slowest queue's time, at least the work over ``threads``.

    Args:
        loads: every queue with URLs waiting or in progress.
        threads: the fetcher's threads (``fetcher.threads.fetch``).
    """
    if not loads:
        return 0.0
    default = mean_fetch_s(loads)
    slowest = max(queue_time_s(load, default) for load in loads)
    work = sum(
        (load.waiting + load.in_progress / 2)
        * (default if load.fetch_s is None else load.fetch_s)
        for load in loads
    )
    return max(slowest, work / max(1, threads))


def with_unread(loads: Sequence[QueueLoad], unread: int) -> list[QueueLoad]:
    """The loads with ``unread`` more URLs, spread as the waiting ones are.

    The fetcher reads its fetch list into the queues a few hundred at a
    time; the URLs not read yet most likely go to the queues in the same
    shares (a fetch list is grouped by host only by partition). Without
    waiting URLs to go by, each queue gets an equal share.
    """
    if unread <= 0 or not loads:
        return list(loads)
    waiting = sum(load.waiting for load in loads)
    if waiting <= 0:
        share = unread / len(loads)
        return [replace(load, waiting=load.waiting + share) for load in loads]
    scale = (waiting + unread) / waiting
    return [replace(load, waiting=load.waiting * scale) for load in loads]
