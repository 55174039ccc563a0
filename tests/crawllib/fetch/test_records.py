import struct
from typing import Any

import pytest

from crawllib.fetch.protocol import FetchResult, crawl_status
from crawllib.fetch.records import (
    REDIRECT_DISCOVERED,
    RESPONSE_TIME,
    TRUNCATED,
    fetched_page,
    media_type,
    redirect_target_page,
    with_redirect_recorded,
)
from crawllib.status import CrawlStatus, ProtocolStatus
from crawllib.urls.zone import Zone
from crawllib.webpage import new_page

NOW = 1_700_000_000_000


@pytest.mark.parametrize(
    ("protocol", "crawl"),
    [
        (ProtocolStatus.SUCCESS, CrawlStatus.FETCHED),
        (ProtocolStatus.MOVED, CrawlStatus.REDIR_PERM),
        (ProtocolStatus.TEMP_MOVED, CrawlStatus.REDIR_TEMP),
        (ProtocolStatus.NOTMODIFIED, CrawlStatus.NOTMODIFIED),
        (ProtocolStatus.GONE, CrawlStatus.GONE),
        (ProtocolStatus.NOTFOUND, CrawlStatus.GONE),
        (ProtocolStatus.ACCESS_DENIED, CrawlStatus.GONE),
        (ProtocolStatus.ROBOTS_DENIED, CrawlStatus.GONE),
        (ProtocolStatus.EXCEPTION, CrawlStatus.RETRY),
        (ProtocolStatus.RETRY, CrawlStatus.RETRY),
        (ProtocolStatus.FAILED, CrawlStatus.RETRY),
        (ProtocolStatus.BLOCKED, CrawlStatus.RETRY),
        (ProtocolStatus.PROTO_NOT_FOUND, CrawlStatus.RETRY),
    ],
)
def test_nutch_2x_protocol_status_to_page_status(protocol, crawl):
    assert crawl_status(protocol) is crawl


PRIVATE = Zone.PRIVATE


def test_unknown_protocol_codes_are_retried():
    assert crawl_status(99) is CrawlStatus.RETRY


def _page() -> Any:
    return new_page(
        "http://a.com/x",
        fetchTime=NOW - 5,
        markers={"_gnmrk_": "seg1", "_partition_": "0"},
        headers={"Old": "1"},
    )


def test_nutch_fetched_page_fields():
    result = FetchResult(
        "http://a.com/x",
        ProtocolStatus.SUCCESS,
        http_code=200,
        content=b"<html/>",
        content_type="text/html; charset=UTF-8",
        headers=(
            ("Content-Type", "text/html; charset=UTF-8"),
            ("Set-Cookie", "a"),
            ("Set-Cookie", "b"),
        ),
        last_modified_ms=NOW - 100,
        response_time_ms=42,
    )
    page: Any = fetched_page(_page(), result, NOW)
    assert page["status"] == CrawlStatus.FETCHED
    assert page["protocolStatus"] == {"code": 1, "args": [], "lastModified": NOW - 100}
    assert (page["prevFetchTime"], page["fetchTime"]) == (NOW - 5, NOW)
    assert page["content"] == b"<html/>"
    assert page["contentType"] == "text/html"
    assert page["baseUrl"] == "http://a.com/x"
    assert page["headers"] == {
        "Content-Type": "text/html; charset=UTF-8",
        "Set-Cookie": "a, b",
    }
    assert page["markers"]["_ftcmrk_"] == "seg1"
    assert struct.unpack(">i", page["metadata"][RESPONSE_TIME]) == (42,)


def test_failures_carry_no_content_and_keep_their_message():
    result = FetchResult(
        "http://a.com/x", ProtocolStatus.EXCEPTION, ("Http code=503",), 503
    )
    old: Any = {**_page(), "content": b"old"}
    page: Any = fetched_page(old, result, NOW)
    assert page["status"] == CrawlStatus.RETRY
    assert page["content"] is None
    assert page["protocolStatus"]["args"] == ["Http code=503"]


def test_truncation_is_flagged_and_store_content_false_keeps_it_empty():
    result = FetchResult("http://a.com/x", ProtocolStatus.SUCCESS, http_code=200,
                         content=b"abc", truncated=True)  # fmt: skip
    page = fetched_page(_page(), result, NOW, store_content=False)
    assert page["metadata"][TRUNCATED] == b"true"
    assert page["content"] == b""


def test_media_type_falls_back_to_the_url():
    assert (
        media_type(FetchResult("file:///x/a.html", ProtocolStatus.SUCCESS))
        == "text/html"
    )
    assert media_type(FetchResult("http://a/x", ProtocolStatus.SUCCESS)) == (
        "application/octet-stream"
    )


def test_recorded_and_followed_redirects():
    recorded = with_redirect_recorded(_page(), "http://a.com/y", "http://a.com/y")
    assert recorded["outlinks"] == {"http://a.com/y": ""}
    assert recorded["metadata"][REDIRECT_DISCOVERED] == b"y"
    scored: Any = {**_page(), "score": 3.0}
    hop = redirect_target_page(scored, "http://a.com/y", "http://a.com/x", PRIVATE)
    assert (hop["url"], hop["status"], hop["score"]) == ("http://a.com/y", 1, 0.0)
    assert hop["metadata"]["_zone_"] == b"private"
    assert hop["reprUrl"] == "http://a.com/x"
    assert hop["markers"]["_gnmrk_"] == "seg1"
