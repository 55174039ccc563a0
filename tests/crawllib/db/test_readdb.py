import math

import pytest

from crawllib.db.generate import with_generate_time
from crawllib.db.readdb import DbStats, days_hms, merge_all, render_text, to_json
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page

MINUTE_MS = 60_000
NOW = 25 * MINUTE_MS  # the URL states' clock
GEN_DELAY = 604_800_000


def _page(url, status, score, interval, fetch_time, retries=0):
    return new_page(
        url,
        status=status,
        score=score,
        fetchInterval=interval,
        fetchTime=fetch_time,
        retriesSinceFetch=retries,
    )


PAGES = [
    _page("http://a/1", CrawlStatus.UNFETCHED, 1.0, 86400 * 30, 10 * MINUTE_MS),
    _page("http://a/2", CrawlStatus.FETCHED, 3.0, 3600, 20 * MINUTE_MS),
    _page("http://a/3", CrawlStatus.FETCHED, 0.5, 90061, 30 * MINUTE_MS, retries=2),
    _page("http://a/4", CrawlStatus.GONE, math.nan, 60, 40 * MINUTE_MS),
]


def _stats(pages):
    stats = DbStats()
    for page in pages:
        stats.add(page, NOW, GEN_DELAY)
    return stats


def test_counts_scores_intervals_and_times():
    stats = _stats(PAGES)
    report = to_json(stats, {})
    assert report["total"] == 4
    assert report["status"] == {
        "status_unfetched": 1,
        "status_fetched": 2,
        "status_gone": 1,
    }
    assert report["status_codes"] == {"1": 1, "2": 2, "3": 1}
    assert report["retry"] == {"0": 3, "2": 1}
    assert report["score"] == {
        "min": 0.5,
        "avg": 1.5,
        "max": 3.0,
        "nan": 1,
        "quantiles": {},
    }
    assert report["fetch_interval_s"] == {
        "min": 60,
        "avg": (86400 * 30 + 3600 + 90061 + 60) / 4,
        "max": 86400 * 30,
    }
    assert report["fetch_time_ms"] == {
        "min": 10 * MINUTE_MS,
        "avg": 25 * MINUTE_MS,
        "max": 40 * MINUTE_MS,
    }


def test_merging_partial_accumulators_equals_one_pass():
    merged = merge_all([_stats(PAGES[:1]), _stats([]), _stats(PAGES[1:])])
    assert merged == _stats(PAGES)


def test_nutch_stats_report_layout():
    text = render_text("crawl/crawldb", _stats(PAGES), {0.5: 1.0})
    lines = text.splitlines()
    assert lines[0] == "Statistics for CrawlDb: crawl/crawldb"
    assert lines[1] == "TOTAL urls:\t4"
    assert lines[2] == "shortest fetch interval:\t00:01:00"
    assert lines[4] == "longest fetch interval:\t30 days, 00:00:00"
    assert "retry 0:\t3" in lines
    assert "retry 2:\t1" in lines
    assert "score == NaN:\t1" in lines
    assert "score quantile 0.5:\t1" in lines
    assert lines[-10:] == [
        "max score:\t3",
        "status 1 (status_unfetched):\t1",
        "status 2 (status_fetched):\t2",
        "status 3 (status_gone):\t1",
        "URL states (waiting / running / error / complete):",
        "waiting:\t1\t(due now: 1)",
        "running:\t0",
        "error:\t1",
        "complete:\t2",
        "CrawlDb statistics: done",
    ]


def test_url_states_counted_in_the_same_pass():
    generated = with_generate_time(
        _page("http://a/5", CrawlStatus.UNFETCHED, 1.0, 60, NOW + 1), NOW - 1
    )
    later = _page("http://a/6", CrawlStatus.UNFETCHED, 1.0, 60, NOW + 1)
    stats = _stats([*PAGES, generated, later])
    assert to_json(stats, {})["states"] == {
        "waiting": 2,
        "running": 1,
        "error": 1,
        "complete": 2,
        "waiting_due": 1,
    }
    assert render_text("db", stats, {}).splitlines()[-6:-1] == [
        "URL states (waiting / running / error / complete):",
        "waiting:\t2\t(due now: 1)",
        "running:\t1",
        "error:\t1",
        "complete:\t2",
    ]


def test_empty_crawldb_reports_zero_without_dividing_by_it():
    stats = DbStats()
    assert render_text("db", stats, {}).splitlines() == [
        "Statistics for CrawlDb: db",
        "TOTAL urls:\t0",
        "CrawlDb statistics: done",
    ]
    report = to_json(stats, {})
    assert report["states"] == {
        "waiting": 0,
        "running": 0,
        "error": 0,
        "complete": 0,
        "waiting_due": 0,
    }
    assert report["score"]["avg"] is None
    assert report["fetch_interval_s"]["avg"] is None


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "00:00:00"), (59, "00:00:59"), (3661, "01:01:01"), (86400, "1 days, 00:00:00"),
     (90061, "1 days, 01:01:01"), (2592000, "30 days, 00:00:00")],
)  # fmt: skip
def test_nutch_timing_util_days_hms(seconds, text):
    assert days_hms(seconds) == text
