"""A fetch's counts add up: every generated URL fetched by status or not by reason."""

from crawllib.fetch.stats import FetcherStats
from crawllib.fetch.unfetched import fetch_counts, fetcher_counters


def test_drops_are_named_by_reason_and_the_counts_add_up():
    counts = fetch_counts(
        150,
        {"SUCCESS": 126, "EXCEPTION": 21},
        {"hit_by_timelimit": 3, "bytes_downloaded": 99_000},
    )
    assert counts.fetched == {"SUCCESS": 126, "EXCEPTION": 21}
    assert counts.unfetched == {"time_limit": 3}
    assert sum(counts.fetched.values()) + sum(counts.unfetched.values()) == 150
    assert counts.line() == (
        "generated 150: fetched SUCCESS=126 EXCEPTION=21, not fetched time_limit=3"
    )


def test_every_drop_of_the_fetcher_has_a_reason():
    fetcher = {"hit_by_timelimit": 1, "above_exception_threshold": 2,
               "robots_defer_visits_dropped": 3, "dns_lookup_failed": 4}  # fmt: skip
    counts = fetch_counts(10, {}, fetcher)
    assert counts.unfetched == {"time_limit": 1, "max_exceptions": 2,
                                "robots_deferred": 3, "dns_failed": 4}  # fmt: skip
    assert counts.line() == (
        "generated 10: fetched nothing, not fetched dns_failed=4 "
        "robots_deferred=3 max_exceptions=2 time_limit=1"
    )


def test_redirect_targets_fetched_within_the_fetch_are_not_list_urls():
    # 5 URLs: 2 redirected (MOVED) and followed; the targets SUCCESS and NOTFOUND
    counts = fetch_counts(
        5,
        {"SUCCESS": 4, "MOVED": 2, "NOTFOUND": 1},
        {"redirect_hops": 2, "redirect_hop_SUCCESS": 1, "redirect_hop_NOTFOUND": 1},
    )
    assert counts.fetched == {"SUCCESS": 3, "MOVED": 2}
    assert counts.unfetched == {}
    assert counts.redirect_hops == 2
    assert (
        counts.line()
        == "generated 5: fetched SUCCESS=3 MOVED=2, and 2 redirect targets"
    )


def test_what_does_not_add_up_is_named_unaccounted():
    counts = fetch_counts(10, {"SUCCESS": 7}, {})
    assert counts.unfetched == {"unaccounted": 3}
    assert counts.line() == "generated 10: fetched SUCCESS=7, not fetched unaccounted=3"


def test_nothing_generated_nothing_fetched():
    assert fetch_counts(0, {}, {}).line() == "generated 0: fetched nothing"


def test_a_fetcher_s_counters_name_its_drops_and_its_redirect_hops():
    stats = FetcherStats(bytes=1234)
    stats.dropped["hit_by_timelimit"] = 3
    stats.redirect_hops.update({"SUCCESS": 2, "NOTFOUND": 1})
    assert fetcher_counters(stats) == {
        "bytes_downloaded": 1234,
        "hit_by_timelimit": 3,
        "redirect_hops": 3,
        "redirect_hop_SUCCESS": 2,
        "redirect_hop_NOTFOUND": 1,
    }
    assert fetcher_counters(FetcherStats()) == {"bytes_downloaded": 0}
