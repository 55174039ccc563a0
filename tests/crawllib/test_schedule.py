from crawllib.schedule import should_fetch
from crawllib.webpage import new_page

NOW = 1_700_000_000_000
DAY_MS = 86_400_000
MAX_S = 7_776_000  # db.fetch.interval.max, 90 days


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


def test_interval_within_the_max_is_kept_when_rescheduled():
    page = new_page("u", fetchTime=NOW + 91 * DAY_MS, fetchInterval=3600)
    assert should_fetch(page, NOW, MAX_S)[1]["fetchInterval"] == 3600
