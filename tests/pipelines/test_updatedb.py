import struct

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import UpdateConfig, load_properties
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.runtime.options import counters
from pipelines.updatedb import UpdateDb

NOW = 1_700_000_000_000
CONFIG = UpdateConfig.from_properties(load_properties())
PARSED = {"majorCode": 1, "minorCode": 0, "args": []}


def _cash(value):
    return {"_csh_": struct.pack(">f", value)}


def test_update_joins_crawldb_segment_records_and_links(pipeline):
    crawldb = [
        new_page(
            "http://a.com/",
            status=1,
            score=1.0,
            metadata=_cash(1.0),
            fetchTime=NOW - 10,
        ),
        new_page("http://a.com/old", status=2, score=0.5, fetchTime=NOW - 10),
    ]
    marks = {"_gnmrk_": "s", "_ftcmrk_": "s"}
    fetch = new_page(
        "http://a.com/",
        status=2,
        fetchTime=NOW,
        prevFetchTime=NOW - 10,
        score=1.0,
        metadata=_cash(1.0),
        markers=marks,
        content=b"x",
    )
    parse = {
        **fetch,
        "content": None,
        "parseStatus": PARSED,
        "signature": b"sig",
        "markers": {**marks, "__prsmrk__": "s"},
        "outlinks": {"http://a.com/old": "old one", "http://b.org/": "b"},
    }
    with pipeline as p:
        current = p | "Current" >> beam.Create(crawldb)
        records = p | "Records" >> beam.Create([fetch, parse])
        updated = (current, records) | UpdateDb(CONFIG, NOW)
        summary = updated | beam.Map(
            lambda page: (page["url"], page["status"], round(page["score"], 3),
                          sorted(page["inlinks"].items()))
        )  # fmt: skip
        assert_that(
            summary,
            equal_to(
                [
                    ("http://a.com/", CrawlStatus.FETCHED, 1.0, []),
                    (
                        "http://a.com/old",
                        CrawlStatus.FETCHED,
                        1.0,
                        [("http://a.com/", "old one")],
                    ),
                    (
                        "http://b.org/",
                        CrawlStatus.UNFETCHED,
                        0.5,
                        [("http://a.com/", "b")],
                    ),
                ]
            ),
        )
    values = counters(p.result, "CrawlDB")
    assert values == {"urls_added": 1}
    assert counters(p.result, "CrawlDBStatus") == {
        "status_fetched": 2,
        "status_unfetched": 1,
    }
