"""The fetcher: worker threads over polite per-host queues (Nutch 1.x Fetcher).

:meth:`Fetcher.run` takes one fetch list (an iterable of fetch-list pages)
and yields the fetched pages as they complete. The caller's thread feeds the
queues (keeping ``threads x fetcher.queue.depth.multiplier`` items queued) and
hands out results; ``fetcher.threads.fetch`` worker threads take items from
:class:`~crawllib.fetch.queues.FetchQueues` as politeness allows, check
robots.txt, fetch, and follow or record redirects. Items dropped without a
fetch (time limit, too many exceptions on their queue, robots.txt deferred
too often, DNS failure in byIP mode) are not written, as in Nutch: the
crawldb keeps their old state. ``Fetcher.stats`` counts them, and the pages
of redirects followed within the fetch, which are written without being
items of the list (:mod:`crawllib.fetch.unfetched` adds them up).

Progress: every :data:`REPORT_EVERY_S` the fetcher logs a line of pages,
bytes, pages/s, queues and, when the fetch list's size is given, the ETA
(:mod:`crawllib.fetch.progress`), from the queues' politeness
(:mod:`crawllib.fetch.eta`); a caller with a live display passes
``on_progress`` instead, which gets a :class:`~crawllib.fetch.progress.FetchSnapshot`
every :data:`SHOW_EVERY_S` in place of the periodic lines. The last line is
logged either way.
"""

from __future__ import annotations

import collections
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from crawllib.config import FetcherConfig
from crawllib.fetch.plan import queue_key
from crawllib.fetch.progress import FetchSnapshot, fetch_line
from crawllib.fetch.protocol import FetchResult, Protocol
from crawllib.fetch.protocol.robots import Defer, RobotRules, RobotsCache, Unreachable
from crawllib.fetch.queues import FetchItem, FetchQueues
from crawllib.fetch.records import (
    fetched_page,
    redirect_target_page,
    with_redirect_recorded,
)
from crawllib.fetch.redirects import RedirectTargets, choose_repr
from crawllib.fetch.stats import FetcherStats, Snapshots
from crawllib.status import ProtocolStatus
from crawllib.urls.domain import host_of
from crawllib.urls.partition import resolve_ipv4
from crawllib.urls.zone import Zone, zone_of
from crawllib.webpage import WebPage

_LOG = logging.getLogger(__name__)
REPORT_EVERY_S = 5.0
SHOW_EVERY_S = 0.25
"""How often ``on_progress`` gets a snapshot (at most; the caller wakes each 1 s)."""


class Fetcher:
    """Fetch one fetch list politely; see the module docstring.

    Args:
        config: queues, threads, delays, limits.
        protocol_for: the protocol for a URL's scheme, or None.
        robots: robots.txt rules per host (None: ignore robots.txt).
        resolve: host to IP for ``fetcher.queue.mode=byIP``.
        clock: monotonic seconds (politeness and limits).
        wall_ms: epoch milliseconds (the fetchTime written).
        on_progress: takes a snapshot every :data:`SHOW_EVERY_S` (a live
            display), in place of the periodic log line.
    """

    def __init__(
        self,
        config: FetcherConfig,
        protocol_for: Callable[[str], Protocol | None],
        robots: RobotsCache | None,
        resolve: Callable[[str], str | None] = resolve_ipv4,
        clock: Callable[[], float] = time.monotonic,
        wall_ms: Callable[[], int] = lambda: int(time.time() * 1000),
        on_progress: Callable[[FetchSnapshot], None] | None = None,
    ) -> None:
        self._config = config
        self._protocol_for = protocol_for
        self._robots = robots
        self._resolve = resolve
        self._ips: dict[str, str | None] = {}
        self._clock = clock
        self._wall_ms = wall_ms
        self._on_progress = on_progress
        self._redirects = RedirectTargets(
            config.urls, config.max_outlink_length, config.links
        )
        self._queues = FetchQueues(
            config.server_delay_s, config.server_min_delay_s, config.threads_per_queue
        )
        # One lock, two conditions: workers wait on ``_cond`` for an item,
        # the caller on ``_out_ready`` for output. Waking only whom an event
        # concerns (one worker per new item) spares 64 threads waking for
        # every page, which cost more CPU than the fetching.
        lock = threading.Lock()
        self._cond = threading.Condition(lock)
        self._out_ready = threading.Condition(lock)
        self._out: collections.deque[WebPage] = collections.deque()
        self._feeding = True
        self._stopped = False
        self.stats = FetcherStats()
        self._snapshots = Snapshots(config.threads)

    def run(
        self, pages: Iterable[WebPage], total: int | None = None
    ) -> Iterator[WebPage]:
        """Fetch ``pages``; yield each fetched page (and redirect hop) when done.

        Args:
            pages: the fetch list.
            total: how many ``pages`` there are, for the ETA (None: unknown).
        """
        started = self._clock()
        workers = [
            threading.Thread(target=self._work, name=f"fetcher-{n}", daemon=True)
            for n in range(self._config.threads)
        ]
        for worker in workers:
            worker.start()
        source = iter(pages)
        reported = started
        try:
            while True:
                self._feed(source)
                self._check_time_limit(started, source)
                batch, done = self._take_output()
                yield from batch
                if done:
                    break
                now = self._clock()
                if now - reported >= self._report_every_s:
                    reported = now
                    self._report(now - started, total, final=False)
        finally:
            with self._cond:
                self._stopped = True
                self._feeding = False
                self._wake_all()
            if not isinstance(sys.exc_info()[1], KeyboardInterrupt):
                for worker in workers:  # interrupted: they end with the process
                    worker.join()
        self._report(self._clock() - started, total, final=True)

    @property
    def _report_every_s(self) -> float:
        return REPORT_EVERY_S if self._on_progress is None else SHOW_EVERY_S

    # -- the caller's side: feeding and collecting ----------------------------

    def _feed(self, source: Iterator[WebPage]) -> None:
        while self._feeding:
            with self._cond:
                if self._queues.queued >= self._config.queue_depth:
                    return
            page = next(source, None)
            queue_id = None if page is None else self._queue_id(page["url"])
            with self._cond:
                if page is None:
                    self._feeding = False
                    self._wake_all()
                elif queue_id is None:
                    self.stats.dropped["dns_lookup_failed"] += 1
                    self._wake_all()
                else:
                    item = FetchItem(page["url"], page, queue_id, 0, page["reprUrl"])
                    self._queues.add(item, self._clock())
                    self._cond.notify()  # one worker for one item

    def _queue_id(self, url: str) -> str | None:
        mode = self._config.queue_mode
        if mode == "byIP":
            host = host_of(url)
            if host not in self._ips:
                self._ips[host] = self._resolve(host) if host else None
            return self._ips[host]
        return queue_key(url, mode)

    def _check_time_limit(self, started: float, source: Iterator[WebPage]) -> None:
        """Once the time limit passed, drop what is queued and what is unread."""
        limit = self._config.time_limit_s
        if limit is None or self._clock() - started < limit:
            return
        with self._cond:
            if self._feeding or self._queues.queued:
                self.stats.drop("hit_by_timelimit", self._queues.purge_all())
                if self._feeding:  # a list's rest is read without a fetch
                    self.stats.dropped["hit_by_timelimit"] += sum(1 for _ in source)
                self._feeding = False
                self._wake_all()

    def _take_output(self) -> tuple[list[WebPage], bool]:
        with self._cond:
            if not self._out and not self._finished():
                self._out_ready.wait(timeout=1.0)
            batch = list(self._out)
            self._out.clear()
            return batch, self._finished() and not self._out

    def _finished(self) -> bool:
        return (
            not self._feeding
            and self._queues.queued == 0
            and self._queues.in_progress == 0
        )

    def _report(self, elapsed_s: float, total: int | None, final: bool) -> None:
        """Show a snapshot (``on_progress``) or log it; the last one is logged."""
        snapshot = self.snapshot(elapsed_s, total)
        if self._on_progress is not None:
            self._on_progress(snapshot)
        if final or self._on_progress is None:
            _LOG.info("%s", fetch_line(snapshot))

    def snapshot(self, elapsed_s: float, total: int | None = None) -> FetchSnapshot:
        """The counts now; ``done`` counts dropped items as finished."""
        snapshots = self._snapshots
        with self._cond:
            taken = snapshots.take(
                self.stats,
                self._queues,
                self._clock(),
                elapsed_s,
                total,
                self._feeding,
            )
        return snapshots.finish(taken)

    # -- the workers' side ----------------------------------------------------

    def _work(self) -> None:
        while True:
            with self._cond:
                item = self._next_item()
                if item is None:
                    return
            try:
                self._process(item)
            except Exception as exc:  # noqa: BLE001 - a bug must not kill the fetch
                _LOG.exception("fetcher thread failed on %s", item.url)
                failed = FetchResult(
                    item.url, ProtocolStatus.FAILED, (type(exc).__name__,)
                )
                self._finish(item, failed, asap=False)

    def _next_item(self) -> FetchItem | None:
        """Wait for an item a queue may hand out; None when all is done."""
        while not self._stopped:
            item, wait = self._queues.next_item(self._clock())
            if item is not None:
                return item
            if self._finished():
                return None
            self._cond.wait(timeout=min(wait, 1.0))
        return None

    def _process(self, item: FetchItem) -> None:
        protocol = self._protocol_for(item.url)
        if protocol is None:
            self._finish(
                item, FetchResult(item.url, ProtocolStatus.PROTO_NOT_FOUND), True
            )
            return
        zone = zone_of(item.page)
        if self._robots is not None and item.url.startswith(("http:", "https:")):
            denial = self._robots_denial(item, zone)
            if denial is not None:
                if denial.status is not ProtocolStatus.NOTFETCHING:
                    self._finish(item, denial, asap=True)
                return
        result = protocol.fetch(item.url, item.page["modifiedTime"], zone)
        refused = result.status is ProtocolStatus.ADDRESS_DENIED
        if refused:  # nothing was sent: the queue need not wait
            _LOG.warning("refused %s: %s", item.url, result.args[0])
        self._finish(item, result, asap=refused)

    def _robots_denial(self, item: FetchItem, zone: Zone) -> FetchResult | None:
        """None to go ahead; NOTFETCHING when deferred; else the result to write.

        That is ROBOTS_DENIED, or EXCEPTION when robots.txt is unreachable.
        """
        verdict = self._robots.rules_for(item.url, zone) if self._robots else None
        if isinstance(verdict, Defer):
            self._defer(item)
            return FetchResult(item.url, ProtocolStatus.NOTFETCHING)
        if isinstance(verdict, Unreachable):
            message = f"robots.txt unreachable: {verdict.message}"
            return FetchResult(item.url, ProtocolStatus.EXCEPTION, (message,))
        if not isinstance(verdict, RobotRules):
            return None
        if not verdict.allowed(item.url):
            return FetchResult(item.url, ProtocolStatus.ROBOTS_DENIED, ("robots.txt",))
        delay = verdict.crawl_delay_s
        if delay is not None and delay > 0:
            maximum = self._config.max_crawl_delay_s
            if 0 <= maximum < delay:
                message = (
                    f"Crawl-Delay {delay:g} s > fetcher.max.crawl.delay {maximum:g} s"
                )
                return FetchResult(item.url, ProtocolStatus.ROBOTS_DENIED, (message,))
            with self._cond:
                queue = self._queues.queue(item.queue_id, self._clock())
                if not queue.robots_delay_set:
                    queue.crawl_delay_s = max(delay, self._config.min_crawl_delay_s)
                    queue.robots_delay_set = True
        return None

    def _defer(self, item: FetchItem) -> None:
        """robots.txt answered 5xx/429: retry the host later, or give up on it."""
        robots = self._config.robots
        with self._cond:
            now = self._clock()
            queue = self._queues.queue(item.queue_id, now)
            queue.deferrals += 1
            self._queues.finish(item, now, asap=True)
            if queue.deferrals > robots.defer_retries:
                dropped = [item, *self._queues.purge(item.queue_id)]
                self.stats.drop("robots_defer_visits_dropped", dropped)
            else:
                self._queues.add(item, now, first=True)
                self._queues.back_off(item.queue_id, now, robots.defer_delay_s)
            self._wake_all()

    def _finish(self, item: FetchItem, result: FetchResult, asap: bool) -> None:
        """Write the item's page, follow or record a redirect, release the queue."""
        config = self._config
        page = fetched_page(
            item.page,
            result,
            self._wall_ms(),
            config.store_content,
            config.http.store_response_time,
        )
        follow = None
        target = result.redirect_target
        if target is not None:
            page, follow = self._redirect(item, page, result, target)
        with self._cond:
            now = self._clock()
            self._queues.finish(item, now, asap)
            if result.status is ProtocolStatus.EXCEPTION:
                self._count_exception(item.queue_id, now)
            if follow is not None:
                self._queues.add(follow, now, first=True)
            self._out.append(page)
            self.stats.pages += 1
            if item.redirects == 0:
                self.stats.done += 1
            else:
                self.stats.redirect_hops[result.status.name] += 1
            self.stats.bytes += len(result.content or b"")
            self._out_ready.notify()
            if follow is not None:
                self._cond.notify()
            if self._finished():
                self._wake_all()
            # else this worker itself looks for the next item when it returns

    def _wake_all(self) -> None:
        """Wake the caller and every worker (the lock is held): the state changed."""
        self._cond.notify_all()
        self._out_ready.notify_all()

    def _redirect(
        self, item: FetchItem, page: WebPage, result: FetchResult, target: str
    ) -> tuple[WebPage, FetchItem | None]:
        kept = self._redirects.keep(item.url, target)
        if kept is None:
            return page, None
        temp = result.status is ProtocolStatus.TEMP_MOVED
        repr_url = choose_repr(item.repr_url or item.url, kept, temp)
        config = self._config
        if config.redirect_max > 0 and item.redirects < config.redirect_max:
            queue_id = self._queue_id(kept)
            if queue_id is not None:
                hop = redirect_target_page(item.page, kept, repr_url, result.found_zone)
                return page, FetchItem(
                    kept, hop, queue_id, item.redirects + 1, repr_url
                )
        if config.redirect_max > 0 and config.redirect_exceeded_skip:
            return page, None
        return with_redirect_recorded(page, kept, repr_url), None

    def _count_exception(self, queue_id: str, now: float) -> None:
        """1.x FetchItemQueues.checkExceptionThreshold: back off, then give up."""
        config = self._config
        queue = self._queues.queue(queue_id, now)
        queue.exceptions += 1
        limit = config.max_exceptions_per_queue
        if 0 < limit <= queue.exceptions:
            dropped = self._queues.purge(queue_id)
            self.stats.drop("above_exception_threshold", dropped)
        elif config.exception_delay_s > 0:
            delay = config.exception_delay_s * 2 ** (queue.exceptions - 1)
            self._queues.back_off(queue_id, now, delay)
