"""Fetch schedules: Nutch 1.x AbstractFetchSchedule and its two subclasses.

Generate asks :func:`should_fetch`; updatedb (CrawlDbReducer) places a new
URL with :func:`initialize` and reschedules a fetched one with
:func:`set_fetch_schedule` (DefaultFetchSchedule or AdaptiveFetchSchedule,
``db.fetch.schedule.class``), :func:`set_page_retry_schedule`,
:func:`set_page_gone_schedule` and :func:`force_refetch`.

Times are epoch milliseconds, intervals seconds. 1.x works out intervals as
Java ``float`` (single precision) and stores them with
``CrawlDatum.setFetchInterval(float)``, i.e. ``Math.round``; these functions
do the same arithmetic, so their intervals and fetch times are Nutch's to the
millisecond, and ``fetchInterval`` stays an int (it is an Avro ``int``).
"""

from __future__ import annotations

import enum
import math

from crawllib.config import ScheduleConfig
from crawllib.db.inject import FIXED_INTERVAL_METADATA
from crawllib.javanum import INT_MAX, f32, java_div, round_int, round_long, to_long
from crawllib.status import CrawlStatus
from crawllib.webpage import WebPage

SECONDS_PER_DAY = 86_400
"""``FetchSchedule.SECONDS_PER_DAY``."""


class Modified(enum.IntEnum):
    """Whether the page changed, as updatedb tells the schedule (1.x FetchSchedule).

    ``STATUS_UNKNOWN``, ``STATUS_MODIFIED`` and ``STATUS_NOTMODIFIED``.
    """

    UNKNOWN = 0
    MODIFIED = 1
    NOTMODIFIED = 2


def should_fetch(
    page: WebPage, cur_time_ms: int, max_interval_s: int
) -> tuple[bool, WebPage]:
    """Whether the page is due at ``cur_time_ms``, and the page as Nutch leaves it.

    1.x ``AbstractFetchSchedule.shouldFetch``: a page scheduled further ahead
    than ``db.fetch.interval.max`` is due now (its fetchTime becomes
    ``cur_time_ms``, and an interval above the max becomes 0.9 x max);
    otherwise it is due when its fetchTime has come. The status is not looked
    at: gone and redirected pages come back when they are due.
    """
    max_interval_ms = max_interval_s * 1000
    if page["fetchTime"] - cur_time_ms > max_interval_ms:
        interval = page["fetchInterval"]
        if interval > max_interval_s:
            interval = _reduced_max(max_interval_s)
        return True, {**page, "fetchTime": cur_time_ms, "fetchInterval": interval}
    return page["fetchTime"] <= cur_time_ms, page


def may_be_due(
    page: WebPage, earliest_ms: int, latest_ms: int, max_interval_s: int
) -> bool:
    """Whether :func:`should_fetch` could say due at some time in the window.

    True when the page is due by ``latest_ms``, or is scheduled further than
    ``max_interval_s`` ahead of ``earliest_ms`` (due at once, see above).
    A crawl that finds no such page knows a generate in the window selects
    nothing.
    """
    fetch_time = page["fetchTime"]
    return fetch_time <= latest_ms or fetch_time - earliest_ms > max_interval_s * 1000


def initialize(page: WebPage, now_ms: int, config: ScheduleConfig) -> WebPage:
    """A new URL's schedule (``initializeSchedule``): due now, default interval."""
    return {
        **page,
        "fetchTime": now_ms,
        "fetchInterval": config.default_interval_s,
        "retriesSinceFetch": 0,
    }


def set_fetch_schedule(
    page: WebPage,
    prev_fetch_time_ms: int,
    prev_modified_time_ms: int,
    fetch_time_ms: int,
    modified_time_ms: int,
    state: Modified,
    config: ScheduleConfig,
) -> WebPage:
    """The next fetch of a page fetched at ``fetch_time_ms`` (1.x ``setFetchSchedule``).

    Default or adaptive schedule as ``config.kind`` says; either way the
    retry counter is reset. ``modified_time_ms`` is the page's modification
    time as updatedb knows it (0 if unknown); the schedule may move it to the
    fetch time (see :func:`_default_next` and :func:`_adaptive_next`). When
    it moves, ``prevModifiedTime`` (a 2.x field 1.x lacks) takes the page's
    old ``modifiedTime``. ``prev_fetch_time_ms`` and ``prev_modified_time_ms``
    are part of Nutch's interface; neither 1.x schedule reads them.

    Raises:
        ValueError: ``config.kind`` is neither ``default`` nor ``adaptive``.
    """
    del prev_fetch_time_ms, prev_modified_time_ms  # unused, as in 1.x
    if config.kind == "default":
        interval, next_ms, modified = _default_next(
            page, fetch_time_ms, modified_time_ms, state, config
        )
    elif config.kind == "adaptive":
        interval, next_ms, modified = _adaptive_next(
            page, fetch_time_ms, modified_time_ms, state, config
        )
    else:
        raise ValueError(f"unknown fetch schedule kind {config.kind!r}")
    old_modified = page["modifiedTime"]
    return {
        **page,
        "retriesSinceFetch": 0,
        "fetchInterval": interval,
        "fetchTime": next_ms,
        "modifiedTime": modified,
        "prevModifiedTime": (
            page["prevModifiedTime"] if modified == old_modified else old_modified
        ),
    }


def set_page_gone_schedule(
    page: WebPage, fetch_time_ms: int, config: ScheduleConfig
) -> WebPage:
    """Try a gone page much later (``setPageGoneSchedule``).

    The interval grows by half while that stays under
    ``db.fetch.interval.max``, else becomes 0.9 x max; the next fetch is the
    fetch time plus the interval. 30 days with a 90-day max: 45, 67.5, 81,
    81 ... days.
    """
    grown = f32(f32(page["fetchInterval"]) * 1.5)
    if grown < f32(config.max_interval_s):
        interval = round_int(grown)
    else:
        interval = _reduced_max(config.max_interval_s)
    return {
        **page,
        "fetchInterval": interval,
        "fetchTime": fetch_time_ms + interval * 1000,
    }


def set_page_retry_schedule(
    page: WebPage, fetch_time_ms: int, config: ScheduleConfig
) -> WebPage:
    """Retry a transient failure a day after it (``setPageRetrySchedule``).

    The retry counter goes up by one (kept within the Avro ``int`` range).
    ``config`` is unused (the retry delay is fixed in Nutch); it is taken for
    symmetry with the other schedule calls.
    """
    del config
    return {
        **page,
        "fetchTime": fetch_time_ms + SECONDS_PER_DAY * 1000,
        "retriesSinceFetch": min(page["retriesSinceFetch"] + 1, INT_MAX),
    }


def force_refetch(
    page: WebPage, now_ms: int, asap: bool, config: ScheduleConfig
) -> WebPage:
    """Make the page fetched anew, as if never seen (1.x ``forceRefetch``).

    An interval above ``db.fetch.interval.max`` becomes 0.9 x max; the page
    becomes UNFETCHED with no retries, no modified time and no signature
    (1.x clears it, 2.x does not). With ``asap`` it is due at ``now_ms``,
    otherwise its fetchTime is kept.
    """
    interval = page["fetchInterval"]
    if interval > config.max_interval_s:
        interval = _reduced_max(config.max_interval_s)
    return {
        **page,
        "fetchInterval": interval,
        "status": int(CrawlStatus.UNFETCHED),
        "retriesSinceFetch": 0,
        "signature": None,
        "modifiedTime": 0,
        "fetchTime": now_ms if asap else page["fetchTime"],
    }


def calculate_last_fetch_time(page: WebPage) -> int:
    """When the page was last fetched (1.x ``calculateLastFetchTime``).

    0 for an UNFETCHED page, else its fetchTime less its interval.
    """
    if page["status"] == CrawlStatus.UNFETCHED:
        return 0
    return page["fetchTime"] - page["fetchInterval"] * 1000


def _default_next(
    page: WebPage,
    fetch_time_ms: int,
    modified_time_ms: int,
    state: Modified,
    config: ScheduleConfig,
) -> tuple[int, int, int]:
    """1.x DefaultFetchSchedule: (interval, next fetch, modified time).

    The interval is kept (0 becomes ``db.fetch.interval.default``). The
    modified time becomes the fetch time on the first fetch (no modified time
    yet) or when the page changed; otherwise it is kept.
    """
    interval = page["fetchInterval"] or config.default_interval_s
    modified = modified_time_ms
    if modified <= 0 or state == Modified.MODIFIED:
        modified = fetch_time_ms
    return interval, fetch_time_ms + interval * 1000, modified


def _adaptive_next(
    page: WebPage,
    fetch_time_ms: int,
    modified_time_ms: int,
    state: Modified,
    config: ScheduleConfig,
) -> tuple[int, int, int]:
    """1.x AdaptiveFetchSchedule (1.22+): (interval, next fetch, modified time).

    A ``fixedInterval`` in the metadata is used as is. Otherwise the interval
    shrinks by ``dec_rate`` when the page changed (and the modified time
    becomes the fetch time), grows by ``inc_rate`` when it did not, is
    synchronised with the change time (:func:`_sync_delta`) and is clamped
    to ``[min_interval, max_interval]``. The next fetch is the reference
    time plus the interval.
    """
    interval = f32(page["fetchInterval"]) or f32(config.default_interval_s)
    ref_ms = fetch_time_ms
    modified = modified_time_ms
    fixed = _fixed_interval(page)
    if fixed is not None:
        interval = fixed
    else:
        if modified <= 0:
            modified = fetch_time_ms
        if state == Modified.MODIFIED:
            interval = f32(interval * f32(1.0 - f32(config.dec_rate)))
            modified = fetch_time_ms
        elif state == Modified.NOTMODIFIED:
            interval = f32(interval * f32(1.0 + f32(config.inc_rate)))
        low, high = f32(config.min_adaptive_s), f32(config.max_adaptive_s)
        if config.sync_delta:
            interval, ref_ms = _sync_delta(
                interval, fetch_time_ms, modified, high, config.sync_delta_rate
            )
        if interval < low:
            interval = low
        elif interval > high:
            interval = high
    return round_int(interval), ref_ms + round_long(interval * 1000.0), modified


def _sync_delta(
    interval: float, fetch_time_ms: int, modified_ms: int, high: float, rate: float
) -> tuple[float, int]:
    """Shift the next fetch towards the change time: (interval, reference time).

    1.22+ rule: delta = fetch time - modified time (ms); the interval is at
    least delta; the reference time is the fetch time less delta x rate,
    unless that offset exceeds the max interval, in which case it becomes
    ``offset // delta x max`` (Java long arithmetic: 0 for a rate below 1).
    """
    delta = fetch_time_ms - modified_ms
    if f32(delta) > f32(interval * 1000.0):
        interval = f32(java_div(delta, 1000))
    offset = round_long(delta * f32(rate))
    max_ms = to_long(high) * 1000
    if delta > 0 and offset > max_ms:
        offset = java_div(offset, delta) * max_ms
    return interval, fetch_time_ms - offset


def _fixed_interval(page: WebPage) -> float | None:
    """The ``fixedInterval`` metadata (decimal text of a float), if valid."""
    raw = page["metadata"].get(FIXED_INTERVAL_METADATA)
    if raw is None:
        return None
    try:
        value = float(raw.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return None
    return f32(value) if math.isfinite(value) else None


def _reduced_max(max_interval_s: int) -> int:
    """0.9 x ``db.fetch.interval.max``: ``setFetchInterval(maxInterval * 0.9f)``."""
    return round_int(f32(f32(max_interval_s) * f32(0.9)))
