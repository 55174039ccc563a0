import glob
import os

import apache_beam as beam
import fastavro
import pytest
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import CrawlConfig
from crawllib.errors import CrawlDbMissingError, CrawlError
from crawllib.fetch.outcome import page_error
from pipelines.inject import Inject
from pipelines.invertlinks import InvertLinks
from pipelines.storage import versions
from pipelines.storage.io import WriteWebPages
from pipelines.transforms.library import (
    CrawlRound,
    ReadCrawlDb,
    ReadSegment,
    new_crawldb_version,
)

CONFIG = CrawlConfig.from_dict(
    {
        "http.agent.name": "testbot",
        "fetcher.server.delay": 0,
        "http.timeout": 2000,
        "linkdb.ignore.internal.links": False,
    }
)


def _serve_small_site(site):
    site.files["a.html"] = (
        "text/html",
        b'<html><head><title>A</title></head><body><a href="/bytes/b.html">b</a>'
        b' <a href="/status/404">gone</a></body></html>',
    )
    site.files["b.html"] = (
        "text/html",
        b'<html><head><title>B</title></head><body><a href="/ok">ok</a></body></html>',
    )


def _read_db(db):
    statuses = {}
    for path in glob.glob(versions.require(db)):
        with open(path, "rb") as handle:
            for page in fastavro.reader(handle):
                statuses[page["url"]] = page["status"]  # type: ignore[call-overload,index]
    return statuses


def _round(db, segment, processor=None, expected=None):
    with new_crawldb_version(db) as out, beam.Pipeline() as p:
        result = p | ReadCrawlDb(db) | CrawlRound(CONFIG, top_n=10, processor=processor)
        _ = result.crawldb | WriteWebPages(out)
        _ = result.fetched | "WriteFetched" >> WriteWebPages(f"{segment}/fetch")
        _ = result.parsed | "WriteParsed" >> WriteWebPages(f"{segment}/parse")
        if expected is not None:
            assert_that(result.processed, equal_to(expected))


def test_two_rounds_in_users_pipelines(sites, tmp_path):
    site = sites("127.0.0.2")
    _serve_small_site(site)
    db = str(tmp_path / "crawldb")
    with new_crawldb_version(db) as out, beam.Pipeline() as p:
        _ = (
            p
            | beam.Create([site.url("/bytes/a.html")])
            | Inject(CONFIG)
            | WriteWebPages(out)
        )
    assert _read_db(db) == {site.url("/bytes/a.html"): 1}

    described = lambda page: f"{page['url']} {page_error(page)}"  # noqa: E731
    _round(db, tmp_path / "s1", described, [f"{site.url('/bytes/a.html')} None"])
    assert _read_db(db) == {
        site.url("/bytes/a.html"): 2,
        site.url("/bytes/b.html"): 1,
        site.url("/status/404"): 1,
    }
    _round(
        db,
        tmp_path / "s2",
        described,
        [f"{site.url('/bytes/b.html')} None", f"{site.url('/status/404')} NOTFOUND"],
    )
    assert _read_db(db) == {
        site.url("/bytes/a.html"): 2,
        site.url("/bytes/b.html"): 2,
        site.url("/status/404"): 3,
        site.url("/ok"): 1,
    }
    assert [r.path for r in site.requests_for("/bytes/")] == [
        "/bytes/a.html",
        "/bytes/b.html",
    ]

    with beam.Pipeline() as p:
        fetched = p | "Fetched" >> ReadSegment(str(tmp_path / "s2"), "fetch")
        parsed = p | "Parsed" >> ReadSegment(str(tmp_path / "s2"))
        assert_that(
            fetched
            | beam.Map(lambda page: (page["url"], page["protocolStatus"]["code"])),
            equal_to([(site.url("/bytes/b.html"), 1), (site.url("/status/404"), 14)]),
            label="FetchedRecords",
        )
        inlinks = parsed | InvertLinks(CONFIG)
        assert_that(
            inlinks | beam.Map(lambda page: (page["url"], page["inlinks"])),
            equal_to([(site.url("/ok"), {site.url("/bytes/b.html"): "ok"})]),
            label="Inlinks",
        )


def test_a_failed_block_leaves_the_crawldb_as_it_was(tmp_path):
    db = str(tmp_path / "crawldb")
    with new_crawldb_version(db) as out, beam.Pipeline() as p:
        _ = p | beam.Create(["http://127.0.0.2/"]) | Inject(CONFIG) | WriteWebPages(out)
    before = versions.current_version(db)
    with pytest.raises(RuntimeError, match="user pipeline broke"):
        _fail_in_block(db)
    assert versions.current_version(db) == before
    assert _read_db(db) == {"http://127.0.0.2/": 1}
    with pytest.raises(CrawlError, match="no part files to publish"):
        _write_nothing_in_block(db)  # the lock was released: it gets that far
    assert versions.current_version(db) == before


def _fail_in_block(db):
    with new_crawldb_version(db) as out:
        os.makedirs(out)
        raise RuntimeError("user pipeline broke")


def _write_nothing_in_block(db):
    with new_crawldb_version(db) as out:
        os.makedirs(out)


def test_reading_what_is_not_there_is_a_user_error(tmp_path):
    with pytest.raises(CrawlDbMissingError):
        ReadCrawlDb(str(tmp_path / "nothing"))
    with pytest.raises(CrawlError) as error:
        ReadSegment(str(tmp_path / "segment"), "fetch")
    assert str(error.value) == f"segment {tmp_path / 'segment'} has no fetch/ part"
    with pytest.raises(ValueError, match="expected one of generate, fetch, parse"):
        ReadSegment(str(tmp_path / "segment"), "crawl_fetch")
