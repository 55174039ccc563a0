"""IndexPages on a real runner: the join by URL, the verdicts, exact counters."""

import dataclasses

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import IndexConfig
from crawllib.index.index import IndexDocument
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.index import NAMESPACE, IndexPages, WriteIndexFiles, read_actions
from pipelines.runtime.options import counters
from tests.crawllib.index.test_formats import read_bulk, read_solr_update

SUCCESS = {"majorCode": 1, "minorCode": 0, "args": []}
A, B, C, D = (f"http://a.com/{name}" for name in "abcd")


def _db(url, status=CrawlStatus.FETCHED, score=1.0):
    return new_page(url, status=int(status), score=score)


def _fetch(url, fetch_time, status=CrawlStatus.FETCHED, text="text"):
    parsed = status == CrawlStatus.FETCHED
    return new_page(
        url,
        status=int(status),
        fetchTime=fetch_time,
        title=f"title {fetch_time}" if parsed else None,
        text=text if parsed else None,
        parseStatus=SUCCESS if parsed else None,
        outlinks={"http://x.com/": "x"},
    )


def _doc(url, fetch_time, anchor=()):
    return IndexDocument(
        id=url, url=url, content="text", host="a.com", tstamp_ms=fetch_time,
        boost=1.0, title=f"title {fetch_time}", anchor=anchor,
    )  # fmt: skip


CRAWLDB = [_db(A), _db(B, CrawlStatus.GONE), _db(C), _db(D, CrawlStatus.DUPLICATE)]
PARSED = [
    _fetch(A, 1),
    _fetch(A, 5),  # a later segment: the latest fetch wins
    _fetch(A, 9, CrawlStatus.NOTMODIFIED),  # unmodified fetches are ignored
    _fetch(B, 1),
    _fetch(B, 5, CrawlStatus.GONE),
    _fetch(D, 5),
]
LINKDB = [new_page(A, inlinks={"http://b.org/": "Start", "http://c.org/": "Start"})]


def _run(pipeline, config, inputs, expected):
    with pipeline as p:
        pcolls = tuple(
            p | f"Create{n}" >> beam.Create(pages) for n, pages in enumerate(inputs)
        )
        assert_that(pcolls | IndexPages(config), equal_to(expected))
    return counters(p.result, NAMESPACE)


def test_nutch_pages_are_joined_by_url_and_the_latest_fetch_wins(pipeline):
    values = _run(
        pipeline,
        IndexConfig(),
        (CRAWLDB, PARSED, LINKDB),
        [(A, _doc(A, 5, ("Start", "Start")))],  # one per linking host
    )

    assert values == {
        "indexed (add/update)": 1,
        "skipped (fetch not successful)": 1,
        "skipped (not in segments)": 1,
        "skipped (duplicates)": 1,
    }


def test_nutch_delete_gone_deletes_gone_and_duplicate_pages(pipeline):
    config = dataclasses.replace(IndexConfig(), delete=True)

    values = _run(
        pipeline, config, (CRAWLDB, PARSED), [(A, _doc(A, 5)), (B, None), (D, None)]
    )

    assert values == {
        "indexed (add/update)": 1,
        "deleted (gone)": 1,
        "deleted (duplicates)": 1,
        "skipped (not in segments)": 1,
    }


def test_solr_and_elasticsearch_files_hold_every_action(pipeline, tmp_path):
    actions = [(A, _doc(A, 5)), (B, None)]
    with pipeline as p:
        created = p | beam.Create(actions)
        _ = created | "Solr" >> WriteIndexFiles(str(tmp_path / "solr"), "solr")
        _ = created | "Es" >> WriteIndexFiles(str(tmp_path / "es"), "elasticsearch")
        _ = created | "Stage" >> WriteIndexFiles(str(tmp_path / "stage"), "tantivy")

    solr = [read_solr_update(f.read_text()) for f in (tmp_path / "solr").iterdir()]
    commands = sorted(c for commands in solr for c in commands if c[0] != "commit")
    assert [(name, body.get("doc", body)["id"]) for name, body in commands] == [
        ("add", A),
        ("delete", B),
    ]
    assert all(commands[-1] == ("commit", {}) for commands in solr)
    bulk = [read_bulk(f.read_text()) for f in (tmp_path / "es").iterdir()]
    assert sorted((a, meta["_id"]) for body in bulk for a, meta, _ in body) == [
        ("delete", B),
        ("index", A),
    ]
    assert sorted(read_actions(str(tmp_path / "stage")), key=str) == sorted(
        actions, key=str
    )
