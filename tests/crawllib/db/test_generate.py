import dataclasses
import random

import pytest

from crawllib.config import GenerateConfig, UrlConfig, load_properties
from crawllib.db.generate import (
    GENERATE_TIME_KEY,
    PARTITION_MARKER,
    GenerateSkip,
    SegmentAssigner,
    Selector,
    generate_time,
    generated_page,
    host_cap,
    rank_key,
    with_generate_time,
)
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page

NOW = 1_700_000_000_000
DAY_MS = 86_400_000
CONFIG = GenerateConfig(urls=UrlConfig.from_properties(load_properties()))


def _page(url="http://a.com/", **fields):
    fields.setdefault("status", CrawlStatus.UNFETCHED)
    fields.setdefault("fetchTime", NOW - 1)
    fields.setdefault("score", 1.0)
    fields.setdefault("fetchInterval", 2592000)
    return new_page(url, **fields)


def _select(page, **changes):
    return Selector(dataclasses.replace(CONFIG, **changes), NOW).select(page)


def test_nutch_due_page_is_selected_with_its_score_as_sort_value():
    assert _select(_page(score=2.5)) == 2.5


def test_nutch_url_filter_unless_no_filter():
    image = _page("http://a.com/x.gif")
    assert _select(image) is GenerateSkip.FILTERED
    assert _select(image, filter_urls=False) == 1.0


def test_nutch_not_due_pages_are_skipped():
    assert _select(_page(fetchTime=NOW + 1)) is GenerateSkip.NOT_DUE
    # --adddays moves the clock, so the same page becomes due
    assert Selector(CONFIG, NOW + DAY_MS).select(_page(fetchTime=NOW + 1)) == 1.0


def test_nutch_recently_generated_waits_for_update():
    # Generator.SelectorMapper: _ngt_ + crawl.gen.delay > curTime
    recent = with_generate_time(_page(), NOW - 1000)
    assert _select(recent) is GenerateSkip.WAIT_FOR_UPDATE
    old = with_generate_time(_page(), NOW - CONFIG.gen_delay_ms - 1)
    assert _select(old) == 1.0
    assert _select(recent, gen_delay_ms=500) == 1.0


def test_nutch_restrict_status():
    fetched = _page(status=CrawlStatus.FETCHED)
    assert (
        _select(fetched, restrict_status=CrawlStatus.UNFETCHED) is GenerateSkip.STATUS
    )
    assert _select(fetched, restrict_status=CrawlStatus.FETCHED) == 1.0


def test_nutch_min_score_compares_the_sort_value():
    assert _select(_page(score=-0.1)) is GenerateSkip.SCORE_TOO_LOW  # nutch-default 0
    assert _select(_page(score=0.5), min_score=1.0) is GenerateSkip.SCORE_TOO_LOW
    assert _select(_page(score=-5.0), min_score=None) == -5.0


def test_nutch_min_interval_keeps_short_intervals_only():
    assert (
        _select(_page(fetchInterval=3600), min_interval_s=60) is GenerateSkip.INTERVAL
    )
    assert _select(_page(fetchInterval=60), min_interval_s=60) == 1.0


def test_nutch_2x_max_distance():
    far = _page(markers={"dist": "3"})
    assert _select(far, max_distance=2) is GenerateSkip.DISTANCE
    assert _select(far, max_distance=3) == 1.0
    assert _select(_page(), max_distance=0) == 1.0  # no dist marker passes


def test_checks_run_in_nutch_order():
    # filtered wins over not due, not due over a low score
    page = _page("http://a.com/x.gif", fetchTime=NOW + 1, score=-1.0)
    assert _select(page) is GenerateSkip.FILTERED
    assert _select(page, filter_urls=False) is GenerateSkip.NOT_DUE


def test_count_key_is_the_normalized_host_or_domain():
    selector = Selector(CONFIG, NOW)
    assert selector.count_key("HTTP://WWW.Example.CO.UK:80/a") == "www.example.co.uk"
    by_domain = Selector(dataclasses.replace(CONFIG, count_by_domain=True), NOW)
    assert by_domain.count_key("http://www.example.co.uk/a") == "example.co.uk"
    assert selector.count_key("not a url") is None


def test_generate_time_reads_the_marker_and_ignores_junk():
    assert generate_time(with_generate_time(_page(), 42)) == 42
    assert generate_time(_page(metadata={GENERATE_TIME_KEY: b"junk"})) is None
    assert generate_time(_page()) is None


def test_generated_page_carries_marks_batch_and_partition():
    page = generated_page(_page(), CONFIG, NOW, NOW + 5, "20231114221320", 3)
    assert page["markers"]["_gnmrk_"] == "20231114221320"
    assert page["markers"][PARTITION_MARKER] == "3"
    assert page["batchId"] == "20231114221320"
    assert generate_time(page) == NOW + 5
    overdue = _page(fetchTime=NOW + 200 * DAY_MS)
    assert generated_page(overdue, CONFIG, NOW, NOW, "b", 0)["fetchTime"] == NOW


def test_rank_key_orders_by_score_then_url():
    keys = [
        rank_key(1.0, "http://b/"),
        rank_key(2.0, "http://c/"),
        rank_key(1.0, "http://a/"),
    ]
    assert sorted(keys) == [
        (-2.0, "http://c/"),
        (-1.0, "http://a/"),
        (-1.0, "http://b/"),
    ]


def _assign(hosts, limit=None, max_count=-1, segments=1):
    assigner = SegmentAssigner(limit, max_count, segments)
    placed = []
    for host in hosts:
        segment = assigner.assign(host)
        if assigner.done:
            break
        placed.append(segment)
    return placed, assigner


def test_nutch_top_n_takes_the_best_scores():
    # TestGenerator.testGenerateHighest: topN 2 over scores 0..100
    scores = sorted(range(101), reverse=True)
    placed, assigner = _assign([f"h{s}" for s in scores], limit=2)
    assert placed == [1, 1]
    assert assigner.done


@pytest.mark.parametrize("max_count", [1, 2, 3])
def test_nutch_host_limit(max_count):
    # TestGenerator.testGenerateHostLimit: three URLs of one host
    placed, assigner = _assign(["h"] * 3, max_count=max_count)
    assert [s for s in placed if s is not None] == [1] * max_count
    assert assigner.skipped == 3 - max_count
    assert assigner.overflowed == ({"h"} if max_count < 3 else set())


def test_nutch_overflow_spills_into_further_segments():
    placed, _ = _assign(["h"] * 7, max_count=2, segments=3)
    assert placed == [1, 1, 2, 2, 3, 3, None]


def test_nutch_full_segment_moves_the_rest_on():
    # topN 2 per segment, no host limit: segments fill in order
    placed, assigner = _assign(["a", "b", "c", "d", "e"], limit=2, segments=2)
    assert placed == [1, 1, 2, 2]
    assert assigner.done


def test_nutch_host_moved_by_a_full_segment_restarts_its_count_at_zero():
    # SelectorReducer: a host pushed on by topN gets counter 0, so it may put
    # max.count + 1 URLs in that segment (kept as Nutch does it)
    placed, _ = _assign(
        ["x", "x", "h", "h", "h", "h"], limit=2, max_count=1, segments=3
    )
    # h's second URL finds segment 1 full and moves to segment 2 with its
    # counter at 0; its third finds segment 2 full too: so segment 3 takes
    # two of h's URLs although generate.max.count is 1
    assert placed == [1, 2, 1, 2, 3, 3]


def _random_candidates(rng, hosts, count):
    names = [f"h{i}" for i in range(hosts)]
    return [rng.choice(names) for _ in range(count)]


@pytest.mark.parametrize("seed", range(40))
def test_dropping_past_the_host_cap_never_changes_the_result(seed):
    rng = random.Random(seed)
    max_count, segments = rng.randint(1, 3), rng.randint(1, 3)
    limit = rng.choice([None, rng.randint(1, 6)])
    hosts = _random_candidates(rng, rng.randint(1, 5), rng.randint(1, 60))
    full, _ = _assign(hosts, limit, max_count, segments)
    cap = host_cap(max_count, segments)
    assert cap is not None
    seen: dict[str, int] = {}
    capped_positions = []
    for position, host in enumerate(hosts):
        seen[host] = seen.get(host, 0) + 1
        if seen[host] <= cap:
            capped_positions.append(position)
    capped, _ = _assign(
        [hosts[p] for p in capped_positions], limit, max_count, segments
    )
    kept_from_full = {p: s for p, s in enumerate(full) if s is not None}
    kept_from_capped = {
        capped_positions[i]: s for i, s in enumerate(capped) if s is not None
    }
    assert kept_from_capped == kept_from_full


def test_no_cap_without_a_host_limit():
    assert host_cap(-1, 3) is None
    assert host_cap(0, 3) is None
    assert host_cap(50, 2) == 102


def test_no_norm_counts_the_host_as_written():
    raw = "http://A%zz.com/"  # the basic normalizer rejects the bad host escape
    assert Selector(CONFIG, NOW).count_key(raw) is None
    no_norm = Selector(dataclasses.replace(CONFIG, normalize=False), NOW)
    assert no_norm.count_key(raw) == "a%zz.com"
