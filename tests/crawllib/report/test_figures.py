import math
import struct
from urllib.parse import urlsplit

import pytest

from crawllib.report.charts import score_bins, sections
from crawllib.report.figures import (
    FETCH,
    GENERATE,
    NO_RESPONSE,
    NOT_STORED,
    PARSE,
    CrawlFigures,
    FetchTimeline,
    ScoreValues,
    depth_label,
    http_code,
    parse_label,
)
from crawllib.report.hosts import HostTable, host_of
from crawllib.status import CrawlStatus, ProtocolStatus
from crawllib.webpage import new_page


def _db_page(url, status=CrawlStatus.FETCHED, dist="1", score=1.0):
    markers = {} if dist is None else {"dist": dist}
    return new_page(url, status=int(status), markers=markers, score=score)


def _fetch_page(url, status, code=None, when=1_000):
    metadata = {}
    if code is not None:
        metadata["_response.headers_"] = f"HTTP/1.1 {code} X\r\nA: b\r\n\r\n".encode()
        metadata["_rs_"] = struct.pack(">i", 5)
    return new_page(
        url,
        protocolStatus={"code": int(status), "args": [], "lastModified": 0},
        metadata=metadata,
        fetchTime=when,
    )


def test_crawldb_records_are_counted_by_status_depth_score_and_host():
    figures = CrawlFigures()
    for page in (
        _db_page("http://a.example/", dist="0"),
        _db_page("http://a.example/x", CrawlStatus.UNFETCHED, score=0.5),
        _db_page("http://B.example:8080/y", CrawlStatus.GONE, dist=None),
    ):
        figures.add_crawldb_page(page)

    db = figures.crawldb
    assert db.records == 3
    assert db.by_status == {
        "status_fetched": 1,
        "status_unfetched": 1,
        "status_gone": 1,
    }
    assert db.depths == {"0": 1, "1": 1, "unknown": 1}
    assert db.scores.counts == {1.0: 2, 0.5: 1}
    top = figures.hosts.top(5, lambda t: t.pages)
    assert [(host, t.pages) for host, t in top] == [("a.example", 2), ("b.example", 1)]


def test_fetch_records_are_counted_per_segment_and_host():
    figures = CrawlFigures()
    figures.add_segment_page("s1", GENERATE, new_page("http://a/"))
    figures.add_segment_page("s1", GENERATE, new_page("http://a/gone"))
    figures.add_segment_page("s1", FETCH, _fetch_page("http://a/", 1, 200, 5_000))
    figures.add_segment_page("s1", FETCH, _fetch_page("http://a/gone", 14, 404, 7_000))
    figures.add_segment_page("s2", FETCH, _fetch_page("http://b/", 18, None, 9_000))
    figures.add_segment_page(
        "s1",
        PARSE,
        new_page("http://a/", parseStatus={"majorCode": 1, "minorCode": 0, "args": []}),
    )

    s1 = figures.segments["s1"]
    assert s1.generated == 2
    assert s1.fetched == {"SUCCESS": 1, "NOTFOUND": 1}
    assert s1.http_codes == {"200": 1, "404": 1}
    assert s1.parsed == {"success": 1}
    assert (s1.first_fetch_ms, s1.last_fetch_ms) == (5_000, 7_000)
    assert s1.parts == {GENERATE, FETCH, PARSE}
    assert figures.segments["s2"].fetched == {"ROBOTS_DENIED": 1}
    assert figures.fetch_errors == 2
    errors = figures.hosts.top(5, lambda t: t.errors)
    assert [(host, t.errors) for host, t in errors] == [("a", 1), ("b", 1)]
    assert sum(figures.timeline.counts.values()) == 3


def test_http_code_comes_from_the_status_line_or_says_why_not():
    assert http_code(_fetch_page("http://a/", 1, 301)) == "301"
    assert http_code(_fetch_page("http://a/", 16)) == NO_RESPONSE
    stored_time_only = new_page("http://a/", metadata={"_rs_": struct.pack(">i", 1)})
    assert http_code(stored_time_only) == NOT_STORED


def test_parse_and_depth_labels():
    failed = {"majorCode": 2, "minorCode": 200, "args": []}
    assert parse_label(new_page("http://a/", parseStatus=failed)) == "failed/exception"
    assert parse_label(new_page("http://a/")) == "notparsed"
    assert depth_label(_db_page("http://a/", dist="12")) == "12"
    assert depth_label(_db_page("http://a/", dist="x")) == "unknown"


@pytest.mark.parametrize(
    "url",
    [
        "http://Example.COM/a",
        "https://user:pw@host.example:8080/x?y#z",
        "http://host.example?q",
        "http://host.example#f",
        "http://[::1]:8080/",
        "http://127.0.0.5:41234/index.html",
        "ftp://a.b",
        "http://<img src=x>/",
    ],
)
def test_host_of_is_urlsplits_hostname(url):
    assert host_of(url) == urlsplit(url).hostname


def test_host_of_a_url_without_a_host():
    assert host_of("file:///etc/passwd") == "(no host)"
    assert host_of("mailto:a@b.example") == "(no host)"


def test_a_full_host_table_keeps_the_biggest_and_counts_what_it_let_go():
    table = HostTable(capacity=8)
    table.tally("big").pages = 100
    table.tally("failing").errors = 50
    for n in range(20):
        table.tally(f"small{n}").pages = 1

    assert len(table) <= 8
    assert table.dropped > 0
    assert table.top(1, lambda t: t.pages)[0][0] == "big"
    assert table.top(1, lambda t: t.errors)[0][0] == "failing"


def test_score_values_stay_bounded_and_keep_the_count():
    scores = ScoreValues(capacity=10)
    for n in range(1000):
        scores.add(n / 997)
    scores.add(math.nan)

    assert len(scores.counts) <= 10
    assert sum(scores.counts.values()) == 1000
    assert scores.nan == 1
    assert not scores.exact


def test_fetch_timeline_widens_its_buckets_and_keeps_the_count():
    timeline = FetchTimeline(capacity=4)
    for second in range(100):
        timeline.add(second * 1000 + 1)

    assert len(timeline.counts) <= 4
    assert sum(timeline.counts.values()) == 100
    assert timeline.bucket_ms > 1000


def test_score_bins_cover_the_range_with_every_record():
    bins, log = score_bins({0.0: 2, 0.5: 1, 1.0: 3}, bins=4)

    assert not log
    assert [count for _, _, count in bins] == [2, 0, 1, 3]
    assert (bins[0][0], bins[-1][1]) == (0.0, 1.0)
    assert score_bins({0.25: 7}) == ([(0.25, 0.25, 7)], False)
    assert score_bins({}) == ([], False)


def test_scores_that_span_decades_get_log_bins():
    bins, log = score_bins({0.0001: 4, 0.001: 2, 0.01: 1, 1.0: 1}, bins=4)

    assert log
    assert [count for _, _, count in bins] == [4, 2, 1, 1]
    assert [round(low, 6) for low, _, _ in bins] == [0.0001, 0.001, 0.01, 0.1]
    assert bins[-1][1] == 1.0


def test_an_empty_crawl_has_every_section_and_no_chart():
    found = sections(CrawlFigures())

    assert len(found) == 11
    assert [s.chart for s in found] == [None] * 11
    assert all(s.text for s in found)


@pytest.mark.parametrize("status", list(ProtocolStatus))
def test_every_protocol_status_is_either_an_error_or_not(status):
    figures = CrawlFigures()
    figures.add_segment_page("s", FETCH, _fetch_page("http://a/", status))
    ok = status.name in ("SUCCESS", "MOVED", "TEMP_MOVED", "NOTMODIFIED")
    assert figures.fetch_errors == (0 if ok else 1)
