import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.db.dedup import DedupConfig
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.dedup import Dedup
from pipelines.runtime.options import counters

SIG_A = bytes(16)
SIG_B = bytes(range(16))
FETCHED, DUPLICATE = CrawlStatus.FETCHED, CrawlStatus.DUPLICATE


def _page(url, signature=SIG_A, status=FETCHED, score=1.0, fetch_time=100):
    return new_page(
        url, status=status, signature=signature, score=score, fetchTime=fetch_time
    )


def _crawldb():
    return [
        _page("http://a.com/x", score=2.0),  # best of SIG_A
        _page("http://a.com/y"),
        _page("http://b.com/x", status=CrawlStatus.NOTMODIFIED),
        _page("http://b.com/z", SIG_B, fetch_time=200),  # newest of SIG_B
        _page("http://b.com/zz", SIG_B),
        # do not take part:
        _page("http://c.com/", status=CrawlStatus.UNFETCHED, score=9.0),
        _page("http://d.com/", signature=None, score=9.0),
        _page("http://e.com/", status=CrawlStatus.GONE, score=9.0),
        _page("http://f.com/", status=CrawlStatus.DUPLICATE, score=9.0),
    ]


def _statuses(pages, marked):
    return [(p["url"], DUPLICATE if p["url"] in marked else p["status"]) for p in pages]


def _run(pipeline, pages, config, expected):
    with pipeline as p:
        out = p | beam.Create(pages) | Dedup(config)
        assert_that(out | beam.Map(lambda page: (page["url"], page["status"])),
                    equal_to(expected))  # fmt: skip
    return counters(p.result, "Dedup")


def test_nutch_dedup_marks_all_but_the_best_of_each_signature(pipeline):
    marked = {"http://a.com/y", "http://b.com/x", "http://b.com/zz"}
    found = _run(pipeline, _crawldb(), DedupConfig(), _statuses(_crawldb(), marked))
    assert found == {"documents_marked_duplicate": 3}


def test_nutch_group_by_host(pipeline):
    config = DedupConfig.from_args(group="host")
    marked = {"http://a.com/y", "http://b.com/zz"}  # b.com/x is alone on its host
    found = _run(pipeline, _crawldb(), config, _statuses(_crawldb(), marked))
    assert found == {"documents_marked_duplicate": 2}


def test_nutch_group_by_domain(pipeline):
    pages = [
        _page("http://www.x.co.uk/a"),
        _page("http://shop.x.co.uk/ab"),
        _page("http://y.co.uk/abc"),
    ]
    config = DedupConfig.from_args(group="domain")
    expected = _statuses(pages, {"http://shop.x.co.uk/ab"})
    assert _run(pipeline, pages, config, expected) == {"documents_marked_duplicate": 1}


def test_nutch_compare_order_changes_the_survivor(pipeline):
    config = DedupConfig.from_args(compare_order="fetchTime,score,urlLength")
    marked = {"http://a.com/x", "http://b.com/x", "http://b.com/zz"}  # a.com/x: older
    pages = _crawldb()
    pages[1] = {**pages[1], "fetchTime": 150}
    found = _run(pipeline, pages, config, _statuses(pages, marked))
    assert found == {"documents_marked_duplicate": 3}


def test_nutch_second_run_marks_nothing(pipeline):
    marked = {"http://a.com/y", "http://b.com/x", "http://b.com/zz"}
    once = [{**p, "status": DUPLICATE} if p["url"] in marked else p for p in _crawldb()]
    found = _run(pipeline, once, DedupConfig(), _statuses(once, set()))
    assert found == {}


def test_duplicate_pages_keep_every_other_field(pipeline):
    pages = [_page("http://a.com/x", score=2.0), _page("http://a.com/y")]
    with pipeline as p:
        out = p | beam.Create(pages) | Dedup(DedupConfig())
        assert_that(
            out | beam.Map(lambda page: sorted(page.items())),
            equal_to(
                [
                    sorted(pages[0].items()),
                    sorted({**pages[1], "status": int(DUPLICATE)}.items()),
                ]
            ),
        )
