"""Progress arithmetic: rates, ETAs and the lines, on given times (no clock)."""

import pytest

from crawllib.fetch.progress import (
    FetchSnapshot,
    combine,
    duration,
    eta_s,
    fetch_eta_s,
    fetch_line,
    fetch_words,
    rate,
    records_line,
)


def _snapshot(**changes):
    fields = {"pages": 30, "bytes": 4096, "done": 25, "total": 100, "queues": 3,
              "queued": 40, "active": 2, "elapsed_s": 10.0}  # fmt: skip
    return FetchSnapshot(**{**fields, **changes})


def test_rate_is_count_per_second_and_zero_before_any_time():
    assert rate(30, 10.0) == 3.0
    assert rate(30, 0.0) == 0.0


@pytest.mark.parametrize(
    ("done", "total", "elapsed_s", "expected"),
    [
        (25, 100, 10.0, 30.0),  # 2.5 items/s, 75 left
        (100, 100, 10.0, 0.0),
        (110, 100, 10.0, 0.0),  # redirect hops beyond the list: nothing left
        (0, 100, 10.0, None),  # no rate yet
        (25, None, 10.0, None),  # no total
        (0, 0, 0.0, 0.0),  # an empty list is done
    ],
)
def test_eta_is_what_is_left_at_the_rate_so_far(done, total, elapsed_s, expected):
    assert eta_s(done, total, elapsed_s) == expected


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(None, "?"), (0.0, "0:00"), (59.6, "1:00"), (754.0, "12:34"), (3725.0, "1:02:05")],
)
def test_duration(seconds, text):
    assert duration(seconds) == text


def test_fetch_line_has_pages_bytes_rate_queues_and_eta():
    assert fetch_line(_snapshot()) == (
        "fetched 30 pages (25 of 100 listed), 4096 bytes, 3.0 pages/s; "
        "3 queues, 40 queued, 2 active; ETA 0:30"
    )
    assert fetch_eta_s(_snapshot()) == 30.0


def test_fetch_line_without_a_total_is_the_line_of_old():
    assert fetch_line(_snapshot(total=None)) == (
        "fetched 30 pages, 4096 bytes, 3.0 pages/s; 3 queues, 40 queued, 2 active"
    )


def test_fetch_words_are_the_short_form_for_a_display():
    assert fetch_words(_snapshot()) == (
        "30 pages, 4096 bytes, 3.0 pages/s, 3 queues, 2 active, ETA 0:30"
    )


def test_combine_adds_fetchers_up_over_the_longest_time():
    one = _snapshot()
    two = _snapshot(pages=10, bytes=4, done=5, total=20, queues=1, queued=2,
                    active=1, elapsed_s=4.0)  # fmt: skip
    assert combine([one, two]) == FetchSnapshot(
        pages=40, bytes=4100, done=30, total=120, queues=4, queued=42, active=3,
        elapsed_s=10.0,
    )  # fmt: skip
    assert combine([one, _snapshot(total=None)]).total is None
    assert combine([]) == FetchSnapshot(0, 0, 0, 0, 0, 0, 0, 0.0)


def test_records_line():
    assert records_line("generate", 120_000, 10.0) == (
        "generate: 120000 records, 12000 records/s"
    )
