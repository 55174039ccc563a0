"""Property tests of the page parsers (hypothesis): no input makes them raise.

The HTML, feed and text parsers, the dispatcher and ParserJob's record step
take arbitrary bytes and structured but broken documents (tag soup, feeds,
bad encodings, cut-off files) and always give a result of the documented
types; a parsed record still writes to Avro and reads back equal. Parsing
ends within ``parser.timeout``: no generated page gets the timeout status,
while a page built to be slow does. Each failure hypothesis found is kept as
an example test in the test module of its parser.
"""

from __future__ import annotations

import io
from typing import Any

import fastavro
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawllib.config import ParseConfig, load_properties
from crawllib.parse import Outlink, ParseResult
from crawllib.parse.dispatch import Parsers
from crawllib.parse.feed import parse_feed
from crawllib.parse.html import parse_html
from crawllib.parse.htmlurl import parse_java_url
from crawllib.parse.parse import PageParser
from crawllib.parse.text import parse_text
from crawllib.status import CrawlStatus, ParseMajor, ParseMinor
from crawllib.webpage import WebPage, new_page, schema
from tests.crawllib.fuzz.strategies import (
    encoded,
    feed_documents,
    html_documents,
)

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)
FEW = settings(FUZZ, max_examples=60)

CONFIG = ParseConfig.from_properties(load_properties())
PAGE_URLS = st.sampled_from(
    [
        "http://a.example/dir/page.html",
        "https://a.example",
        "http://[::1]:8080/x?q#f",
        "file:/tmp/page.html",
        "ftp://f.example/a/b",
    ]
)
CONTENT_TYPES = st.sampled_from(
    [
        None,
        "",
        "text/html",
        "TEXT/HTML; charset=UTF-8",
        "text/html; charset=bogus",
        "application/xhtml+xml",
        "text/plain",
        "text/plain; charset=utf-16",
        "text/xml",
        "application/xml",
        "application/rss+xml",
        "application/atom+xml; charset=latin1",
        "image/svg+xml",
        "application/octet-stream",
        ";;",
    ]
)
HEADERS = st.dictionaries(
    st.sampled_from(["Content-Type", "content-type", "Content-Length", "X-Other"]),
    st.one_of(st.none(), CONTENT_TYPES.map(str), st.text(max_size=20)),
    max_size=3,
)
CONTENT = st.one_of(
    st.binary(max_size=400),
    encoded(html_documents()),
    encoded(feed_documents()),
)
PARSED = fastavro.parse_schema(schema())


def _is_text(value: object) -> bool:
    """A str that UTF-8 (and so Avro) can hold: no lone surrogates."""
    if not isinstance(value, str):
        return False
    value.encode("utf-8")
    return True


def assert_parse_result(result: ParseResult) -> None:
    """The documented shape of a ParseResult."""
    assert isinstance(result, ParseResult)
    assert isinstance(result.major, ParseMajor)
    assert isinstance(result.minor, ParseMinor)
    assert all(_is_text(arg) for arg in result.args)
    assert _is_text(result.title)
    assert _is_text(result.text)
    for outlink in result.outlinks:
        assert isinstance(outlink, Outlink)
        assert _is_text(outlink.url)
        assert _is_text(outlink.anchor)
    for key, value in result.metadata:
        assert _is_text(key)
        assert _is_text(value)
    if result.success and result.minor is ParseMinor.REDIRECT:
        assert len(result.args) == 2
        int(result.args[1])
    assert {type(flag) for flag in (result.noindex, result.nofollow)} == {bool}


def assert_not_timed_out(result: ParseResult) -> None:
    assert not any(str(arg).startswith("parse timed out") for arg in result.args)


@FUZZ
@given(PAGE_URLS, st.one_of(st.binary(max_size=400), encoded(html_documents())))
def test_html_parser_gives_a_parse_result_for_any_content(url, content):
    result = parse_html(url, content, "text/html", {}, CONFIG.html)
    assert_parse_result(result)
    assert result.major is ParseMajor.SUCCESS
    for outlink in result.outlinks:  # resolved links are absolute URLs
        assert parse_java_url(outlink.url) is not None, outlink


@FEW
@given(st.text(max_size=40), st.binary(max_size=200), CONTENT_TYPES, HEADERS)
def test_html_parser_takes_any_url_content_type_and_headers(
    url, content, content_type, headers
):
    assert_parse_result(parse_html(url, content, content_type, headers, CONFIG.html))


@FUZZ
@given(PAGE_URLS, st.one_of(st.binary(max_size=400), encoded(feed_documents())))
def test_feed_parser_gives_a_parse_result_for_any_content(url, content):
    result = parse_feed(url, content, "application/rss+xml", {}, "windows-1252")
    assert_parse_result(result)
    if result.major is not ParseMajor.SUCCESS:  # only content that is no XML
        assert result.args[0].startswith("not XML"), result


@FEW
@given(PAGE_URLS, CONTENT, CONTENT_TYPES, HEADERS)
def test_text_parser_gives_a_parse_result_for_any_content(
    url, content, content_type, headers
):
    result = parse_text(url, content, content_type, headers, "windows-1252")
    assert_parse_result(result)
    assert result.major is ParseMajor.SUCCESS


@FUZZ
@given(PAGE_URLS, CONTENT, CONTENT_TYPES, HEADERS)
def test_dispatcher_parses_any_page_within_the_timeout(
    url, content, content_type, headers
):
    parsers = Parsers(CONFIG)  # parser.timeout: 30 s, on the helper thread
    try:
        result = parsers.parse(url, content, content_type, headers)
    finally:
        parsers.close()
    assert_parse_result(result)
    assert_not_timed_out(result)


def test_a_page_built_to_be_slow_gets_the_timeout_status():
    config = ParseConfig.from_properties(
        load_properties(defines=["parser.timeout=0.05"])
    )
    slow = b"<p>" + b"<b>x</b><a href=y>z</a>" * 100_000
    parsers = Parsers(config)
    try:
        result = parsers.parse("http://a.example/", slow, "text/html", {})
    finally:
        parsers.close()
    assert (result.major, result.args) == (
        ParseMajor.FAILED,
        ("parse timed out after 0.05 s",),
    )


def _avro_round_trip(page: WebPage) -> Any:
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, PARSED, page)
    buffer.seek(0)
    return fastavro.schemaless_reader(buffer, PARSED)


@FUZZ
@given(
    PAGE_URLS,
    st.one_of(st.none(), CONTENT),
    CONTENT_TYPES,
    HEADERS,
    st.sampled_from(list(CrawlStatus)),
)
def test_page_parser_gives_a_record_that_writes_to_avro(
    url, content, content_type, headers, status
):
    page = new_page(
        url,
        content=content,
        contentType=content_type,
        headers=headers,
        status=int(status),
        markers={"_ftcmrk_": "b1"},
        signature=b"old",
    )
    parser = PageParser(CONFIG)
    try:
        parsed = parser.parse_page(page)
    finally:
        parser.close()
    assert parsed.keys() == page.keys()
    assert _avro_round_trip(parsed) == parsed
    if status is not CrawlStatus.FETCHED:
        assert parsed == page
        return
    parse_status = parsed["parseStatus"]
    assert parse_status is not None
    assert not any(arg.startswith("parse timed out") for arg in parse_status["args"])
    if parse_status["majorCode"] == ParseMajor.SUCCESS and parsed["text"] is not None:
        assert parsed["markers"]["__prsmrk__"] == "b1"
