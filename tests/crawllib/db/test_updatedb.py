"""UpdateDb's state transitions (Nutch 1.x TestCrawlDbStates) and its bookkeeping."""

import dataclasses
from typing import Any

import pytest

from crawllib.config import ScheduleConfig, UpdateConfig, load_properties
from crawllib.db.scoring import CASH_KEY, cash_of, with_cash
from crawllib.db.updatedb import Inlink, choose_record, links_from, update_page
from crawllib.status import CrawlStatus
from crawllib.urls.zone import Zone, with_zone, zone_of
from crawllib.webpage import new_page

NOW = 1_700_000_000_000
DAY_MS = 86_400_000
URL = "http://a.com/page"
BASE = UpdateConfig.from_properties(load_properties())
CONFIGS = {
    "default": BASE,
    "adaptive": dataclasses.replace(
        BASE, schedule=dataclasses.replace(BASE.schedule, kind="adaptive")
    ),
}

OLD_STATUSES = [
    None,
    CrawlStatus.UNFETCHED,
    CrawlStatus.FETCHED,
    CrawlStatus.GONE,
    CrawlStatus.REDIR_TEMP,
    CrawlStatus.REDIR_PERM,
    CrawlStatus.NOTMODIFIED,
    CrawlStatus.DUPLICATE,
]
# new (fetch) status -> resulting crawldb status, whatever the old status
FETCH_RESULTS = {
    CrawlStatus.FETCHED: CrawlStatus.FETCHED,
    CrawlStatus.GONE: CrawlStatus.GONE,
    CrawlStatus.REDIR_TEMP: CrawlStatus.REDIR_TEMP,
    CrawlStatus.REDIR_PERM: CrawlStatus.REDIR_PERM,
    CrawlStatus.NOTMODIFIED: CrawlStatus.NOTMODIFIED,
    CrawlStatus.RETRY: CrawlStatus.UNFETCHED,
}


def _old(status: Any) -> Any:
    if status is None:
        return None
    return new_page(
        URL, status=int(status), fetchTime=NOW - DAY_MS, fetchInterval=2592000
    )


def _fetched(status: Any, **fields: Any) -> Any:
    fields.setdefault("fetchTime", NOW)
    fields.setdefault("prevFetchTime", NOW - DAY_MS)
    fields.setdefault("fetchInterval", 2592000)
    fields.setdefault("markers", {"_gnmrk_": "s", "_ftcmrk_": "s"})
    return new_page(URL, status=int(status), **fields)


def _inlinks(count: int) -> list[Inlink]:
    return [Inlink(f"http://src{n}.org/", f"a{n}", 0.5, 0) for n in range(count)]


@pytest.mark.parametrize("schedule", sorted(CONFIGS))
@pytest.mark.parametrize("links", [0, 1, 2])
@pytest.mark.parametrize("old_status", OLD_STATUSES, ids=str)
@pytest.mark.parametrize("new_status", [*FETCH_RESULTS, None], ids=str)
def test_nutch_crawldb_state_transition_matrix(schedule, links, old_status, new_status):
    # TestCrawlDbStates.testCrawlDbStateTransitionMatrix
    config = CONFIGS[schedule]
    fetched = None if new_status is None else _fetched(new_status)
    result = update_page(URL, _old(old_status), fetched, _inlinks(links), config, NOW)
    if new_status is None and links == 0:
        assert result == _old(old_status)
        return
    assert result is not None
    if new_status is None:  # links only
        expected = CrawlStatus.UNFETCHED if old_status is None else old_status
    else:
        expected = FETCH_RESULTS[new_status]
    assert result["status"] == expected


def test_nutch_equal_signatures_make_a_fetch_notmodified():
    old: Any = {
        **_old(CrawlStatus.FETCHED),
        "signature": b"same",
        "modifiedTime": NOW - 5 * DAY_MS,
    }
    parsed = {"majorCode": 1, "minorCode": 0, "args": []}
    same = _fetched(CrawlStatus.FETCHED, signature=b"same", parseStatus=parsed)
    result = update_page(URL, old, same, [], BASE, NOW)
    assert result is not None
    assert result["status"] == CrawlStatus.NOTMODIFIED
    assert result["modifiedTime"] == NOW - 5 * DAY_MS
    changed = _fetched(CrawlStatus.FETCHED, signature=b"new", parseStatus=parsed)
    result = update_page(URL, old, changed, [], BASE, NOW)
    assert result is not None
    assert result["status"] == CrawlStatus.FETCHED
    assert result["signature"] == b"new"


def test_beamcrawl_unparsed_fetch_does_not_count_as_unchanged():
    # Nutch 1.x compares the carried old signature with itself and says
    # notmodified when a page was not parsed (observed); beamcrawl says fetched
    old: Any = {**_old(CrawlStatus.FETCHED), "signature": b"same"}
    unparsed = _fetched(CrawlStatus.FETCHED, signature=b"same")
    result = update_page(URL, old, unparsed, [], BASE, NOW)
    assert result is not None
    assert result["status"] == CrawlStatus.FETCHED


def test_nutch_retry_counts_up_then_gone():
    page = _old(CrawlStatus.UNFETCHED)
    for attempt in range(1, BASE.retry_max + 1):
        fetched = _fetched(
            CrawlStatus.RETRY, retriesSinceFetch=page["retriesSinceFetch"]
        )
        page = update_page(URL, page, fetched, [], BASE, NOW)
        assert page is not None
        assert page["retriesSinceFetch"] == attempt
        expected = (
            CrawlStatus.GONE if attempt >= BASE.retry_max else CrawlStatus.UNFETCHED
        )
        assert page["status"] == expected


def test_nutch_new_url_from_links_is_unfetched_with_link_score():
    result = update_page(URL, None, None, _inlinks(2), BASE, NOW)
    assert result is not None
    assert result["status"] == CrawlStatus.UNFETCHED
    assert result["fetchTime"] == NOW
    assert result["fetchInterval"] == BASE.schedule.default_interval_s
    assert result["score"] == pytest.approx(1.0)
    assert cash_of(result) == pytest.approx(1.0)
    assert result["inlinks"] == {"http://src0.org/": "a0", "http://src1.org/": "a1"}
    assert result["markers"]["dist"] == "1"


def test_nutch_additions_not_allowed_and_purge_404():
    no_additions = dataclasses.replace(BASE, additions_allowed=False)
    assert update_page(URL, None, None, _inlinks(1), no_additions, NOW) is None
    purge = dataclasses.replace(BASE, purge_404=True)
    assert update_page(URL, _old(CrawlStatus.GONE), None, [], purge, NOW) is None


def test_segment_marks_are_cleared_and_the_parse_mark_kept_as_updatedb_mark():
    fetched = _fetched(
        CrawlStatus.FETCHED,
        markers={
            "_gnmrk_": "s",
            "_ftcmrk_": "s",
            "__prsmrk__": "s",
            "_partition_": "0",
        },
        metadata={"_ngt_": b"1", "keep": b"me"},
        content=b"<html/>",
        text="words",
        outlinks={"http://b.com/": "b"},
    )
    result = update_page(URL, None, fetched, [], BASE, NOW)
    assert result is not None
    assert result["markers"] == {"_updmrk_": "s"}
    assert result["metadata"] == {"keep": b"me"}
    assert (result["content"], result["text"], result["outlinks"]) == (None, None, {})


def test_nutch_interval_beyond_the_max_forces_a_refetch():
    schedule = ScheduleConfig(max_interval_s=1000)
    config = dataclasses.replace(BASE, schedule=schedule)
    fetched = _fetched(CrawlStatus.FETCHED, fetchInterval=5000, signature=b"s")
    result = update_page(URL, None, fetched, [], config, NOW)
    assert result is not None
    assert result["status"] == CrawlStatus.UNFETCHED
    assert result["fetchInterval"] == 900


def test_links_from_shares_cash_and_zeroes_it():
    page = with_cash(
        _fetched(
            CrawlStatus.FETCHED, outlinks={"http://a.com/x": "x", "http://b.org/": "b"}
        ),
        2.0,
    )
    after, links = links_from(page, BASE)
    assert cash_of(after) == 0.0
    assert sorted((t, link.score, link.anchor) for t, link in links) == [
        ("http://a.com/x", 1.0, "x"),
        ("http://b.org/", 1.0, "b"),
    ]
    assert CASH_KEY in after["metadata"]


def test_choose_record_prefers_the_latest_fetch_then_the_parse_record():
    fetch = _fetched(CrawlStatus.FETCHED)
    parse: Any = {**fetch, "parseStatus": {"majorCode": 1, "minorCode": 0, "args": []}}
    older = _fetched(CrawlStatus.GONE, fetchTime=NOW - DAY_MS)
    assert choose_record([older, fetch, parse]) is parse
    assert choose_record([]) is None


def test_beamcrawl_choose_record_breaks_ties_the_same_in_any_order():
    # the same URL fetched at the same millisecond in two segments
    one = _fetched(CrawlStatus.FETCHED)
    other: Any = {**one, "title": "another fetch"}
    assert choose_record([one, other]) is choose_record([other, one])


def test_links_without_cash_still_add_their_targets():
    page = _fetched(CrawlStatus.FETCHED, outlinks={"http://b.org/": "b"})
    after, links = links_from(page, BASE)
    assert [(t, link.score) for t, link in links] == [("http://b.org/", 0.0)]
    assert cash_of(after) == 0.0


# --- zones (beamcrawl, crawllib/urls/zone.py) ------------------------------------


def _zoned_link(zone: Zone) -> Inlink:
    return Inlink(f"http://{zone.label}.example/", "", 0.0, 0, int(zone))


def test_beamcrawl_links_carry_the_zone_of_the_address_their_page_came_from():
    for found, expected in [(b"private", Zone.PRIVATE), (None, Zone.PUBLIC)]:
        metadata = {} if found is None else {"_foundzone_": found}
        record = _fetched(
            CrawlStatus.FETCHED, outlinks={"http://b.com/": "b"}, metadata=metadata
        )
        _, links = links_from(record, BASE)
        assert [(target, link.zone) for target, link in links] == [
            ("http://b.com/", expected)
        ]


def test_beamcrawl_a_new_url_takes_the_innermost_zone_of_its_links():
    links = [_zoned_link(Zone.PUBLIC), _zoned_link(Zone.LOOPBACK)]
    page = update_page(URL, None, None, links, BASE, NOW)
    assert page is not None
    assert zone_of(page) is Zone.LOOPBACK
    only_public = update_page(URL, None, None, [_zoned_link(Zone.PUBLIC)], BASE, NOW)
    assert only_public is not None
    assert only_public["metadata"]["_zone_"] == b"public"


@pytest.mark.parametrize("old_zone", list(Zone), ids=lambda z: z.label)
def test_beamcrawl_a_known_url_is_never_moved_outward_by_links(old_zone):
    old = with_zone(_old(CrawlStatus.FETCHED), old_zone)
    links = [_zoned_link(Zone.PRIVATE)]
    page = update_page(URL, old, None, links, BASE, NOW)
    assert page is not None
    assert zone_of(page) is max(old_zone, Zone.PRIVATE)


def test_beamcrawl_the_found_zone_stays_in_the_segment():
    fetched = _fetched(CrawlStatus.FETCHED, metadata={"_foundzone_": b"loopback"})
    page = update_page(URL, _old(CrawlStatus.UNFETCHED), fetched, [], BASE, NOW)
    assert page is not None
    assert "_foundzone_" not in page["metadata"]
