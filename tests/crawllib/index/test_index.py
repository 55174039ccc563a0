"""IndexerReducer's rules (Nutch 1.x IndexerMapReduce) and the document fields."""

import dataclasses

import pytest

from crawllib.config import IndexConfig, Properties
from crawllib.errors import ConfigError
from crawllib.index.index import (
    IndexDocument,
    Outcome,
    anchors,
    build_document,
    clean_field,
    decide,
    index_boost,
    latest_fetch,
)
from crawllib.status import CrawlStatus, ParseMajor, ParseMinor
from crawllib.webpage import new_page

URL = "http://Example.com:8080/a.html"
CONFIG = IndexConfig()
DELETE = dataclasses.replace(CONFIG, delete=True)
SIG = bytes(range(16))


def _db(status=CrawlStatus.FETCHED, score=4.0, **fields):
    return new_page(URL, status=int(status), score=score, **fields)


def _fetch(status=CrawlStatus.FETCHED, minor=ParseMinor.OK, fetch_time=1_000, **fields):
    parse = {"majorCode": int(ParseMajor.SUCCESS), "minorCode": int(minor), "args": []}
    defaults = {
        "title": "A page",
        "text": "A page about lighthouses",
        "signature": SIG,
        "contentType": "text/html",
        "parseStatus": parse if status == CrawlStatus.FETCHED else None,
    }
    return new_page(
        URL, status=int(status), fetchTime=fetch_time, **{**defaults, **fields}
    )


def test_nutch_a_page_fetched_and_parsed_is_added_with_basic_fields():
    verdict = decide(URL, _db(), _fetch(), {}, CONFIG)

    assert verdict.outcome is Outcome.INDEXED
    assert verdict.document == IndexDocument(
        id=URL,
        url=URL,
        content="A page about lighthouses",
        host="example.com",
        tstamp_ms=1_000,
        boost=2.0,  # OPIC: 4.0 ** indexer.score.power 0.5
        title="A page",
        digest=SIG.hex(),
        content_type="text/html",
    )
    assert verdict.document.site == "example.com"


@pytest.mark.parametrize(
    ("db_status", "fetch_status", "without", "with_delete"),
    [
        (CrawlStatus.GONE, CrawlStatus.GONE, "SKIPPED_NOT_FETCHED", "DELETED_GONE"),
        (CrawlStatus.FETCHED, CrawlStatus.GONE, "SKIPPED_NOT_FETCHED", "DELETED_GONE"),
        (CrawlStatus.GONE, CrawlStatus.FETCHED, "INDEXED", "DELETED_GONE"),
        (
            CrawlStatus.REDIR_PERM,
            CrawlStatus.REDIR_PERM,
            "SKIPPED_NOT_FETCHED",
            "DELETED_REDIRECTS",
        ),
        (
            CrawlStatus.REDIR_TEMP,
            CrawlStatus.FETCHED,
            "INDEXED",
            "DELETED_REDIRECTS",
        ),
        (
            CrawlStatus.DUPLICATE,
            CrawlStatus.FETCHED,
            "SKIPPED_DUPLICATES",
            "DELETED_DUPLICATES",
        ),
        (CrawlStatus.FETCHED, CrawlStatus.RETRY, "SKIPPED_NOT_FETCHED", None),
    ],
)
def test_nutch_delete_gone_redirects_and_duplicates_only_with_delete(
    db_status, fetch_status, without, with_delete
):
    db, fetched = _db(db_status), _fetch(fetch_status)

    assert decide(URL, db, fetched, {}, CONFIG).outcome is Outcome[without]
    expected = Outcome[with_delete or without]
    assert decide(URL, db, fetched, {}, DELETE).outcome is expected


def test_nutch_a_url_not_fetched_in_the_segments_is_left_alone_even_if_gone():
    verdict = decide(URL, _db(CrawlStatus.GONE), None, {}, DELETE)

    assert verdict.outcome is Outcome.SKIPPED_NOT_IN_SEGMENTS
    assert not verdict.outcome.deletes


def test_beamcrawl_a_meta_refresh_is_a_redirect():
    refresh = _fetch(minor=ParseMinor.REDIRECT, title=None, text=None)

    assert decide(URL, _db(), refresh, {}, CONFIG).outcome is Outcome.SKIPPED_REDIRECTS
    assert decide(URL, _db(), refresh, {}, DELETE).outcome is Outcome.DELETED_REDIRECTS


def test_beamcrawl_noindex_is_skipped_and_deleted_per_property():
    page = _fetch(title="", text="", metadata={"robots": b"noindex"})
    deletes = dataclasses.replace(CONFIG, delete_robots_noindex=True)

    assert decide(URL, _db(), page, {}, CONFIG).outcome is Outcome.SKIPPED_NOINDEX
    assert decide(URL, _db(), page, {}, deletes).outcome is Outcome.DELETED_NOINDEX


def test_nutch_skip_not_modified_only_with_the_property():
    db = _db(CrawlStatus.NOTMODIFIED)
    skips = dataclasses.replace(CONFIG, skip_not_modified=True)

    assert decide(URL, db, _fetch(), {}, CONFIG).outcome is Outcome.INDEXED
    assert decide(URL, db, _fetch(), {}, skips).outcome is Outcome.SKIPPED_NOT_MODIFIED


def test_a_failed_parse_is_not_indexed():
    failed = {"majorCode": int(ParseMajor.FAILED), "minorCode": 0, "args": ["x"]}
    page = _fetch(parseStatus=failed)

    assert decide(URL, _db(), page, {}, CONFIG).outcome is Outcome.SKIPPED_NOT_PARSED


def test_latest_fetch_wins_and_not_modified_fetches_are_ignored():
    old = _fetch(fetch_time=1)
    new = _fetch(CrawlStatus.GONE, fetch_time=2)
    unmodified = _fetch(CrawlStatus.NOTMODIFIED, fetch_time=3)

    assert latest_fetch([old, unmodified, new]) is new
    assert latest_fetch([unmodified]) is None
    assert latest_fetch([]) is None


def test_nutch_title_and_content_are_cut_and_an_empty_title_is_left_out():
    config = dataclasses.replace(CONFIG, max_title_length=3, max_content_length=5)
    doc = build_document(URL, _db(), _fetch(), {}, config)
    untitled = build_document(URL, _db(), _fetch(title=""), {}, CONFIG)

    assert (doc.title, doc.content) == ("A p", "A pag")
    assert untitled.title is None


def test_nutch_repr_url_is_the_url_and_the_key_is_orig():
    target = "http://www.example.com/b.html"
    doc = build_document(URL, _db(reprUrl=target), _fetch(), {}, CONFIG)

    assert (doc.id, doc.url, doc.orig, doc.host) == (
        URL,
        target,
        URL,
        "www.example.com",
    )


def test_nutch_boost_is_score_to_the_power_as_a_java_float():
    assert index_boost(_db(score=2.0), CONFIG) == 1.4142135381698608  # float32
    assert index_boost(None, CONFIG) == 1.0
    assert index_boost(_db(score=-1.0), CONFIG) == 0.0
    no_opic = dataclasses.replace(CONFIG, opic_boost=False)
    assert index_boost(_db(score=9.0), no_opic) == 1.0


def test_nutch_anchors_are_one_text_per_host_and_skip_empty_ones():
    inlinks = {
        "http://a.com/1": "Home",
        "http://a.com/2": "Home",
        "http://a.com/3": "home",
        "http://b.com/1": "Home",
        "http://b.com/2": "",
        "http://c.com/": None,
    }

    assert anchors(inlinks, deduplicate=False) == ("Home", "home", "Home")
    assert anchors(inlinks, deduplicate=True) == ("Home",)


def test_anchors_only_with_index_anchor():
    inlinks = {"http://a.com/": "Lighthouses"}
    without = dataclasses.replace(CONFIG, anchors=False)

    assert build_document(URL, None, _fetch(), inlinks, CONFIG).anchor == (
        "Lighthouses",
    )
    assert build_document(URL, None, _fetch(), inlinks, without).anchor == ()


def test_nutch_clean_field_drops_what_xml_forbids():
    assert clean_field("a\x00b\x0bc\td\ne\ufffef") == "abc\td\nef"


def test_config_reads_nutch_properties_and_plugins():
    props = Properties(
        {
            "indexer.max.title.length": "10",
            "indexer.delete": "true",
            "plugin.includes": "index-basic|scoring-opic",
            "elastic.index": "crawl",
        }
    )

    config = IndexConfig.from_properties(props)

    assert config == IndexConfig(
        max_title_length=10, delete=True, anchors=False, elastic_index="crawl"
    )
    assert IndexConfig.from_properties(Properties()) == IndexConfig()


def test_config_rejects_a_bad_length():
    with pytest.raises(ConfigError, match=r"indexer\.max\.content\.length"):
        IndexConfig.from_properties(Properties({"indexer.max.content.length": "-2"}))
