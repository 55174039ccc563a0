"""Fetch schedules (Nutch's AbstractFetchSchedule and its subclasses).

So far the part generate needs: :func:`should_fetch`. The schedules that
updatedb applies after a fetch come with it.
"""

from __future__ import annotations

from crawllib.webpage import WebPage


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
            interval = int(max_interval_s * 0.9)
        return True, {**page, "fetchTime": cur_time_ms, "fetchInterval": interval}
    return page["fetchTime"] <= cur_time_ms, page
