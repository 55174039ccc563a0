import copy
import random

import pytest

from crawllib.config import ScheduleConfig
from crawllib.db.inject import FIXED_INTERVAL_METADATA
from crawllib.db.schedule import (
    Modified,
    calculate_last_fetch_time,
    force_refetch,
    initialize,
    may_be_due,
    set_fetch_schedule,
    set_page_gone_schedule,
    set_page_retry_schedule,
    should_fetch,
)
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page

NOW = 1_700_000_000_000
DAY_S = 86_400
DAY_MS = 86_400_000
MAX_S = 7_776_000  # db.fetch.interval.max, 90 days

DEFAULT = ScheduleConfig()
ADAPTIVE = ScheduleConfig(kind="adaptive")


def _schedule(page, fetch_ms, modified_ms, state, config):
    return set_fetch_schedule(
        page,
        page["fetchTime"],
        page["modifiedTime"],
        fetch_ms,
        modified_ms,
        state,
        config,
    )


def test_nutch_due_when_fetch_time_has_come():
    assert should_fetch(new_page("u", fetchTime=NOW), NOW, MAX_S)[0]
    assert should_fetch(new_page("u", fetchTime=NOW - 1), NOW, MAX_S)[0]
    assert not should_fetch(new_page("u", fetchTime=NOW + 1), NOW, MAX_S)[0]


def test_nutch_scheduled_beyond_the_max_interval_is_due_now():
    # AbstractFetchSchedule.shouldFetch
    page = new_page("u", fetchTime=NOW + 91 * DAY_MS, fetchInterval=100 * 86400)
    due, adjusted = should_fetch(page, NOW, MAX_S)
    assert due
    assert adjusted["fetchTime"] == NOW
    assert adjusted["fetchInterval"] == int(MAX_S * 0.9)
    assert page["fetchTime"] == NOW + 91 * DAY_MS  # the input is not changed


def test_may_be_due_holds_whenever_should_fetch_could_say_due_in_the_window():
    rng = random.Random(7)
    window = 3_600_000
    edges = [0, 1, -1, window, window + 1, MAX_S * 1000, MAX_S * 1000 + 1]
    for _ in range(5000):
        offset = rng.choice(edges) + rng.choice([0, rng.randrange(-DAY_MS, DAY_MS)])
        page = new_page("u", fetchTime=NOW + offset)
        due_some_time = any(
            should_fetch(page, NOW + at, MAX_S)[0]
            for at in (0, 1, window // 2, window - 1, window)
        )
        if due_some_time:
            assert may_be_due(page, NOW, NOW + window, MAX_S), offset
    assert not may_be_due(new_page("u", fetchTime=NOW + DAY_MS), NOW, NOW + 1, MAX_S)


def test_interval_within_the_max_is_kept_when_rescheduled():
    page = new_page("u", fetchTime=NOW + 91 * DAY_MS, fetchInterval=3600)
    assert should_fetch(page, NOW, MAX_S)[1]["fetchInterval"] == 3600


def test_nutch_reduced_max_is_rounded_from_a_java_float():
    # setFetchInterval(maxInterval * 0.9f) = Math.round(4.5f) = 5, not int(4.5)
    page = new_page("u", fetchTime=NOW + DAY_MS, fetchInterval=10)
    assert should_fetch(page, NOW, 5)[1]["fetchInterval"] == 5


def test_nutch_initialize_schedule():
    page = new_page("u", fetchTime=5, fetchInterval=7, retriesSinceFetch=2)
    assert initialize(page, NOW, DEFAULT) == {
        **page,
        "fetchTime": NOW,
        "fetchInterval": 2_592_000,
        "retriesSinceFetch": 0,
    }


# --- AdaptiveFetchSchedule -------------------------------------------------


def test_nutch_adaptive_interval_follows_the_change_state():
    # TestAdaptiveFetchSchedule.testAdaptiveFetchSchedule: inc 0.4, dec 0.2
    page = new_page("http://www.example.com", status=1, score=1.0, fetchInterval=100)

    page = _schedule(page, 0, 0, Modified.UNKNOWN, ADAPTIVE)
    assert page["fetchInterval"] == 100
    page = _schedule(page, 0, 0, Modified.MODIFIED, ADAPTIVE)
    assert page["fetchInterval"] == 80
    page = _schedule(
        {**page, "fetchInterval": 100}, 0, 0, Modified.NOTMODIFIED, ADAPTIVE
    )
    assert page["fetchInterval"] == 140
    assert page["fetchTime"] == 140_000


@pytest.mark.parametrize("state", [Modified.UNKNOWN, Modified.NOTMODIFIED])
@pytest.mark.parametrize(
    ("default_d", "min_d", "max_d", "modified_d"),
    [(2, 1, 7, 30), (1, 1, 2, 10), (2, 1, 10, 180)],
)
def test_nutch_sync_delta_keeps_the_next_fetch_ahead(
    state, default_d, min_d, max_d, modified_d
):
    # TestAdaptiveFetchSchedule.testSetFetchSchedule1-3 (NUTCH-1564): the
    # offset (30% of the time since the change) is beyond the max interval,
    # so 1.22+ drops it and the next fetch is one max interval ahead.
    config = ScheduleConfig(
        kind="adaptive",
        default_interval_s=default_d * DAY_S,
        max_interval_s=max_d * DAY_S,
        min_adaptive_s=min_d * DAY_S,
        max_adaptive_s=max_d * DAY_S,
    )
    modified = NOW - modified_d * DAY_MS
    page = new_page("http://www.example2.com", fetchInterval=100, fetchTime=NOW)

    result = set_fetch_schedule(
        page, NOW - 3 * DAY_MS, modified, NOW, modified, state, config
    )

    assert result["fetchTime"] == NOW + max_d * DAY_MS
    assert result["fetchInterval"] == max_d * DAY_S
    assert result["modifiedTime"] == modified


def test_nutch_sync_delta_property_over_random_inputs():
    # With sync_delta the interval stays within [min, max] and the next fetch
    # comes after the fetch and at most one max interval later.
    rng = random.Random(1564)
    for _ in range(3000):
        min_s = rng.randint(1, 7200) * 60  # up to 5 days
        max_s = rng.randint(5, 365) * DAY_S  # whole days: exact as Java floats
        config = ScheduleConfig(
            kind="adaptive",
            inc_rate=rng.uniform(0.0, 0.5),
            dec_rate=rng.uniform(0.0, 0.5),
            min_adaptive_s=float(min_s),
            max_adaptive_s=float(max_s),
            sync_delta_rate=rng.uniform(0.0, 0.9),
        )
        fetch = NOW + rng.randint(-400, 400) * DAY_MS
        modified = rng.choice([0, fetch - rng.randint(0, 3 * 365 * DAY_MS)])
        page = new_page("u", fetchInterval=rng.randint(0, 400 * DAY_S))
        state = rng.choice(list(Modified))

        result = set_fetch_schedule(page, 0, 0, fetch, modified, state, config)

        assert min_s <= result["fetchInterval"] <= max_s
        assert fetch < result["fetchTime"] <= fetch + max_s * 1000
        assert result["retriesSinceFetch"] == 0


def test_nutch_sync_delta_can_schedule_sooner_than_min_interval():
    # Observed (1.22+): an offset just under the max interval is kept, so the
    # next fetch comes 0.02 days after this one although min_interval is 1 day.
    # The rate is the float 0.3f, so the offset is 171,072,007 ms, not ...006.
    config = ScheduleConfig(
        kind="adaptive",
        min_adaptive_s=float(DAY_S),
        max_adaptive_s=float(2 * DAY_S),
        sync_delta_rate=0.3,
    )
    modified = NOW - 570_240_000  # 6.6 days
    page = new_page("u", fetchInterval=DAY_S)

    result = _schedule(page, NOW, modified, Modified.NOTMODIFIED, config)

    assert result["fetchInterval"] == 2 * DAY_S
    assert result["fetchTime"] == NOW + 2 * DAY_MS - 171_072_007


def test_nutch_adaptive_modified_page_counts_from_this_fetch():
    page = new_page("u", fetchInterval=1000, modifiedTime=NOW - DAY_MS)
    result = _schedule(page, NOW, NOW - DAY_MS, Modified.MODIFIED, ADAPTIVE)
    assert result["modifiedTime"] == NOW
    assert result["prevModifiedTime"] == NOW - DAY_MS
    assert result["fetchInterval"] == 800
    assert result["fetchTime"] == NOW + 800_000


def test_nutch_adaptive_interval_is_clamped():
    low = new_page("u", fetchInterval=50)
    assert _schedule(low, NOW, NOW, Modified.MODIFIED, ADAPTIVE)["fetchInterval"] == 60
    high = new_page("u", fetchInterval=31_000_000)
    result = _schedule(high, NOW, NOW, Modified.NOTMODIFIED, ADAPTIVE)
    assert result["fetchInterval"] == 31_536_000


def test_nutch_adaptive_zero_interval_starts_from_the_default():
    # NUTCH-1430
    result = _schedule(new_page("u"), NOW, NOW, Modified.UNKNOWN, ADAPTIVE)
    assert result["fetchInterval"] == 2_592_000


def test_nutch_adaptive_without_sync_delta():
    config = ScheduleConfig(kind="adaptive", sync_delta=False)
    page = new_page("u", fetchInterval=1000)
    result = _schedule(page, NOW, NOW - 300 * DAY_MS, Modified.NOTMODIFIED, config)
    assert result["fetchInterval"] == 1400
    assert result["fetchTime"] == NOW + 1_400_000


def test_nutch_fixed_interval_is_honoured():
    # AdaptiveFetchSchedule: metadata fixedInterval (from nutch.fetchInterval.fixed)
    # replaces the interval; no rates, no sync delta, no clamping.
    for fixed, expected in ((b"600.0", 600), (b"30.0", 30), (b"90.5", 91)):
        page = new_page(
            "u", fetchInterval=100, metadata={FIXED_INTERVAL_METADATA: fixed}
        )
        result = _schedule(page, NOW, NOW - 100 * DAY_MS, Modified.MODIFIED, ADAPTIVE)
        assert result["fetchInterval"] == expected
        assert result["fetchTime"] == NOW + int(float(fixed) * 1000)
        assert result["modifiedTime"] == NOW - 100 * DAY_MS


def test_beamcrawl_bad_fixed_interval_is_ignored():
    page = new_page("u", fetchInterval=100, metadata={FIXED_INTERVAL_METADATA: b"soon"})
    result = _schedule(page, NOW, NOW, Modified.MODIFIED, ADAPTIVE)
    assert result["fetchInterval"] == 80


# --- DefaultFetchSchedule --------------------------------------------------


def test_nutch_default_schedule_keeps_the_interval():
    page = new_page("u", fetchInterval=3600, retriesSinceFetch=2, fetchTime=NOW - 5)
    for state in Modified:
        result = _schedule(page, NOW, NOW - DAY_MS, state, DEFAULT)
        assert result["fetchInterval"] == 3600
        assert result["fetchTime"] == NOW + 3_600_000
        assert result["retriesSinceFetch"] == 0


def test_nutch_default_schedule_zero_interval_becomes_the_default():
    result = _schedule(new_page("u"), NOW, 0, Modified.UNKNOWN, DEFAULT)
    assert result["fetchInterval"] == 2_592_000
    assert result["fetchTime"] == NOW + 2_592_000_000


@pytest.mark.parametrize(
    ("modified", "state", "expected"),
    [
        (0, Modified.UNKNOWN, NOW),  # first fetch: no modified time yet
        (0, Modified.NOTMODIFIED, NOW),
        (NOW - DAY_MS, Modified.MODIFIED, NOW),  # changed: this fetch
        (NOW - DAY_MS, Modified.NOTMODIFIED, NOW - DAY_MS),
        (NOW - DAY_MS, Modified.UNKNOWN, NOW - DAY_MS),
    ],
)
def test_nutch_default_schedule_modified_time(modified, state, expected):
    page = new_page("u", fetchInterval=3600, modifiedTime=modified)
    assert _schedule(page, NOW, modified, state, DEFAULT)["modifiedTime"] == expected


def test_prev_modified_time_follows_a_change_of_modified_time():
    page = new_page(
        "u", fetchInterval=60, modifiedTime=NOW - DAY_MS, prevModifiedTime=7
    )
    changed = _schedule(page, NOW, NOW - DAY_MS, Modified.MODIFIED, DEFAULT)
    assert changed["prevModifiedTime"] == NOW - DAY_MS
    same = _schedule(page, NOW, NOW - DAY_MS, Modified.NOTMODIFIED, DEFAULT)
    assert same["prevModifiedTime"] == 7


def test_unknown_schedule_kind_is_a_bug():
    with pytest.raises(ValueError, match="hourly"):
        _schedule(
            new_page("u"), NOW, 0, Modified.UNKNOWN, ScheduleConfig(kind="hourly")
        )


# --- gone, retry, forced re-fetch ------------------------------------------


def test_nutch_gone_schedule_sequence():
    # 30-day interval, 90-day max: 45 d, 67.5 d, (101.25 >= 90) 81 d, 81 d
    page = new_page("u", fetchInterval=30 * DAY_S, retriesSinceFetch=1)
    intervals = []
    for step in range(4):
        fetch = NOW + step * DAY_MS
        page = set_page_gone_schedule(page, fetch, DEFAULT)
        assert page["fetchTime"] == fetch + page["fetchInterval"] * 1000
        intervals.append(page["fetchInterval"])
    assert intervals == [45 * DAY_S, 67.5 * DAY_S, 81 * DAY_S, 81 * DAY_S]
    assert page["retriesSinceFetch"] == 1


def test_nutch_gone_interval_is_rounded_like_set_fetch_interval():
    # CrawlDatum.setFetchInterval(float) = Math.round: 1.5 -> 2, 4.5 -> 5
    assert (
        set_page_gone_schedule(new_page("u", fetchInterval=1), NOW, DEFAULT)[
            "fetchInterval"
        ]
        == 2
    )
    assert (
        set_page_gone_schedule(new_page("u", fetchInterval=3), NOW, DEFAULT)[
            "fetchInterval"
        ]
        == 5
    )


def test_nutch_retry_schedule():
    page = new_page("u", fetchTime=NOW - 5, retriesSinceFetch=0, fetchInterval=60)
    once = set_page_retry_schedule(page, NOW, DEFAULT)
    twice = set_page_retry_schedule(once, NOW + 1, DEFAULT)
    assert (once["fetchTime"], once["retriesSinceFetch"]) == (NOW + DAY_MS, 1)
    assert (twice["fetchTime"], twice["retriesSinceFetch"]) == (NOW + 1 + DAY_MS, 2)
    assert twice["fetchInterval"] == 60


def test_nutch_force_refetch():
    page = new_page(
        "u",
        status=int(CrawlStatus.NOTMODIFIED),
        fetchTime=NOW + DAY_MS,
        fetchInterval=100 * DAY_S,
        retriesSinceFetch=2,
        modifiedTime=NOW - DAY_MS,
        signature=b"sig",
        prevSignature=b"old",
    )
    later = force_refetch(page, NOW, False, DEFAULT)
    assert later == {
        **page,
        "status": int(CrawlStatus.UNFETCHED),
        "fetchInterval": 6_998_400,  # round(0.9f x 90 days)
        "retriesSinceFetch": 0,
        "modifiedTime": 0,
        "signature": None,
    }
    assert force_refetch(page, NOW, True, DEFAULT)["fetchTime"] == NOW


def test_nutch_force_refetch_keeps_an_interval_within_the_max():
    page = new_page("u", fetchInterval=3600)
    assert force_refetch(page, NOW, True, DEFAULT)["fetchInterval"] == 3600


def test_nutch_last_fetch_time():
    fetched = new_page("u", status=2, fetchTime=NOW, fetchInterval=3600)
    assert calculate_last_fetch_time(fetched) == NOW - 3_600_000
    unfetched = new_page("u", status=1, fetchTime=NOW, fetchInterval=3600)
    assert calculate_last_fetch_time(unfetched) == 0


def test_schedules_never_change_their_input():
    page = new_page(
        "u",
        status=2,
        fetchTime=NOW,
        fetchInterval=3600,
        modifiedTime=NOW - DAY_MS,
        signature=b"s",
        metadata={FIXED_INTERVAL_METADATA: b"60.0"},
    )
    before = copy.deepcopy(page)
    for config in (DEFAULT, ADAPTIVE):
        initialize(page, NOW, config)
        _schedule(page, NOW, 0, Modified.MODIFIED, config)
        set_page_gone_schedule(page, NOW, config)
        set_page_retry_schedule(page, NOW, config)
        force_refetch(page, NOW, True, config)
    assert page == before
