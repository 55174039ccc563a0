"""Before a fetch: warn when politeness alone makes it long.

``fetcher.server.delay`` is 5 s (Nutch's default): one host's queue fetches
about 12 URLs a minute whatever the machine, so a fetch list with 200 URLs
of one host takes over 16 minutes. :func:`slow_queue_warning` says so in one
line before the fetch starts, with the host, the property that sets the
delay and how to lower it, when the largest queue needs more than
:data:`SLOW_QUEUE_S` for its delays alone.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable
from dataclasses import dataclass

from crawllib.config import FetcherConfig
from crawllib.fetch.progress import duration
from crawllib.urls.domain import domain_of, host_of

SLOW_QUEUE_S = 60.0
"""A queue whose delays add up to more than this is worth a warning."""
_GENTLER = (1.0, 0.5, 0.2, 0.1)
"""The delays suggested, the largest that brings the queue under the bound."""


@dataclass(frozen=True, slots=True)
class LargestQueue:
    """The fetch list's largest queue and the least time its delays take."""

    queue_id: str
    urls: int
    delay_s: float
    delay_property: str
    threads: int

    @property
    def seconds(self) -> float:
        """The delays between its requests, shared by the queue's threads."""
        return max(self.urls - 1, 0) * self.delay_s / max(self.threads, 1)


def queue_key(url: str, mode: str) -> str:
    """The queue of ``url`` by ``fetcher.queue.mode``, without a DNS lookup.

    byIP is taken as byHost here: a host's address is looked up only when
    fetching.
    """
    host = host_of(url)
    if mode == "byDomain":
        return domain_of(url) or host
    return host


def largest_queue(urls: Iterable[str], config: FetcherConfig) -> LargestQueue | None:
    """The queue with the most of ``urls`` (None for none), with its delay."""
    counts = collections.Counter(queue_key(url, config.queue_mode) for url in urls)
    if not counts:
        return None
    queue_id, size = counts.most_common(1)[0]
    threads = config.threads_per_queue
    if threads > 1:
        delay, name = config.server_min_delay_s, "fetcher.server.min.delay"
    else:
        delay, name = config.server_delay_s, "fetcher.server.delay"
    return LargestQueue(queue_id, size, delay, name, threads)


def slow_queue_warning(queue: LargestQueue | None) -> str | None:
    """One line when ``queue``'s delays alone take over :data:`SLOW_QUEUE_S`."""
    if queue is None or queue.seconds <= SLOW_QUEUE_S:
        return None
    gentler = next((d for d in _GENTLER if d < queue.delay_s and _under(queue, d)), 0.0)
    return (
        f"{queue.queue_id} has {queue.urls} URLs in this fetch list: at "
        f"{queue.delay_property}={queue.delay_s:g} s between its requests they "
        f"take at least {duration(queue.seconds)}; on your own site (only), "
        f"lower it with -D {queue.delay_property}={gentler:g}"
    )


def _under(queue: LargestQueue, delay_s: float) -> bool:
    urls = max(queue.urls - 1, 0)
    return urls * delay_s / max(queue.threads, 1) <= SLOW_QUEUE_S
