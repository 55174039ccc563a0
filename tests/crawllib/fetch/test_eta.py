"""The polite ETA: per-queue delays bound the time left (plain arithmetic)."""

import pytest

from crawllib.fetch.eta import (
    QueueLoad,
    mean_fetch_s,
    polite_eta_s,
    queue_time_s,
)
from crawllib.fetch.progress import FetchSnapshot, combine, fetch_eta_s, with_total


def _load(waiting, delay_s=5.0, fetch_s=0.1, **changes):
    fields = {"in_progress": 0, "threads": 1, "ready_in_s": 0.0}
    return QueueLoad(waiting, delay_s=delay_s, fetch_s=fetch_s, **{**fields, **changes})


def test_one_queue_takes_a_fetch_per_url_and_a_delay_between_them():
    assert queue_time_s(_load(10)) == pytest.approx(10 * 0.1 + 9 * 5.0)


def test_a_queue_waits_out_its_running_delay_first():
    assert queue_time_s(_load(2, ready_in_s=3.0)) == pytest.approx(3.0 + 0.2 + 5.0)


def test_a_url_in_progress_ends_then_the_queue_waits_its_delay():
    load = _load(1, in_progress=1, fetch_s=1.0)
    assert queue_time_s(load) == pytest.approx(0.5 + 5.0 + 1.0)
    assert queue_time_s(_load(0, in_progress=1, fetch_s=1.0)) == pytest.approx(0.5)


def test_threads_per_queue_share_its_urls():
    one = queue_time_s(_load(10, delay_s=1.0, fetch_s=1.0))
    two = queue_time_s(_load(10, delay_s=1.0, fetch_s=1.0, threads=2))
    assert two == pytest.approx(one / 2)
    # more threads than URLs: each URL on its own thread
    assert queue_time_s(_load(1, threads=8, fetch_s=2.0)) == pytest.approx(2.0)


def test_the_slowest_queue_bounds_the_fetch_whatever_the_threads():
    # one host with 20 URLs at 5 s, nine hosts with 2 at no delay: the rate so
    # far (fast hosts) would say seconds; the delayed queue says ~95 s
    loads = [_load(20)] + [_load(2, delay_s=0.0) for _ in range(9)]
    assert polite_eta_s(loads, threads=10) == pytest.approx(20 * 0.1 + 19 * 5.0)


def test_many_queues_without_delay_share_the_threads():
    loads = [_load(10, delay_s=0.0, fetch_s=1.0) for _ in range(20)]
    assert polite_eta_s(loads, threads=4) == pytest.approx(200 * 1.0 / 4)


def test_a_queue_not_fetched_yet_takes_the_mean_fetch_time():
    loads = [_load(3, delay_s=0.0, fetch_s=2.0), _load(5, delay_s=0.0, fetch_s=None)]
    assert mean_fetch_s(loads) == 2.0
    assert polite_eta_s(loads, threads=10) == pytest.approx(5 * 2.0)
    assert mean_fetch_s([_load(1, fetch_s=None)]) == 0.0


def test_nothing_left_is_no_time():
    assert polite_eta_s([], threads=4) == 0.0


def test_unread_urls_go_to_the_queues_in_their_shares():
    # 30 and 10 waiting, 40 unread: 60 and 20, the first queue's time
    loads = [_load(30), _load(10)]
    assert polite_eta_s(loads, 10, unread=40) == pytest.approx(queue_time_s(_load(60)))
    # none waiting: equal shares, 3 each
    busy = [_load(0, in_progress=1), _load(0, in_progress=1)]
    expected = queue_time_s(_load(3, in_progress=1))
    assert polite_eta_s(busy, 10, unread=6) == pytest.approx(expected)


def _snapshot(**changes):
    fields = {"pages": 30, "bytes": 4096, "done": 25, "total": 100, "queues": 3,
              "queued": 40, "active": 2, "elapsed_s": 10.0}  # fmt: skip
    return FetchSnapshot(**{**fields, **changes})


def test_the_snapshot_s_polite_eta_replaces_the_rate():
    assert fetch_eta_s(_snapshot(eta_s=95.0)) == 95.0
    assert fetch_eta_s(_snapshot()) == 30.0  # none: 75 left at 2.5 items/s


def test_fetchers_side_by_side_take_the_longest_one_s_time():
    both = combine([_snapshot(eta_s=10.0), _snapshot(eta_s=40.0)])
    assert both.eta_s == 40.0
    assert combine([_snapshot(eta_s=10.0), _snapshot()]).eta_s is None


def test_fetch_lists_not_started_add_their_items_at_the_rate_so_far():
    # 100 items in the fetcher's list, 200 in the job's: 100 more at 2.5/s
    assert with_total(_snapshot(eta_s=10.0), 200).eta_s == pytest.approx(50.0)
    assert with_total(_snapshot(eta_s=10.0), 100).eta_s == 10.0
    assert with_total(_snapshot(eta_s=10.0, done=0), 200).eta_s is None
