import dataclasses

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import LinkDbConfig, UrlConfig, load_properties
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.invertlinks import InvertLinks
from pipelines.runtime.options import counters

CONFIG = LinkDbConfig(urls=UrlConfig.from_properties(load_properties()))
SUCCESS = {"majorCode": 1, "minorCode": 0, "args": []}


def _parsed(url, outlinks, fetch_time=100, **fields):
    fields.setdefault("status", CrawlStatus.FETCHED)
    fields.setdefault("parseStatus", SUCCESS)
    return new_page(url, outlinks=outlinks, fetchTime=fetch_time, **fields)


def _rows(pages):
    return pages | beam.Map(lambda page: (page["url"], sorted(page["inlinks"].items())))


def _run(pipeline, inputs, config, expected):
    """Run InvertLinks on (parsed[, linkdb]) lists; check rows; return counters."""
    with pipeline as p:
        pcolls = tuple(
            p | f"Create{n}" >> beam.Create(pages) for n, pages in enumerate(inputs)
        )
        out = (pcolls if len(pcolls) > 1 else pcolls[0]) | InvertLinks(config)
        assert_that(_rows(out), equal_to(expected))
    return counters(p.result, "LinkDb")


def test_nutch_outlinks_become_inlinks_of_their_targets(pipeline):
    parsed = [
        _parsed("http://a.com/", {"http://b.com/": "to b", "http://a.com/in": "in"}),
        _parsed("http://c.com/", {"http://b.com/": "c to b", "http://d.com/x.gif": ""}),
        _parsed("http://e.com/?id=1", {"http://b.com/": "filtered source"}),
    ]
    found = _run(
        pipeline,
        [parsed],
        CONFIG,
        [("http://b.com/", [("http://a.com/", "to b"), ("http://c.com/", "c to b")])],
    )
    assert found == {
        "inlinks_inverted": 2,
        "internal_links_ignored": 1,
        "targets_rejected": 1,
        "sources_rejected": 1,
        "urls_written": 1,
    }


def test_only_successful_parses_give_links(pipeline):
    failed = {**SUCCESS, "majorCode": 2}
    parsed = [
        _parsed("http://a.com/", {"http://b.com/": "ok"}),
        _parsed("http://c.com/", {"http://b.com/": "failed"}, parseStatus=failed),
        _parsed("http://d.com/", {"http://b.com/": ""}, status=CrawlStatus.REDIR_TEMP),
    ]
    found = _run(
        pipeline, [parsed], CONFIG, [("http://b.com/", [("http://a.com/", "ok")])]
    )
    assert found == {"inlinks_inverted": 1, "urls_written": 1}


def test_nutch_union_with_the_existing_linkdb(pipeline):
    parsed = [
        _parsed("http://a.com/", {"http://b.com/": "new anchor", "http://c.com/": "c"})
    ]
    current = [
        new_page(
            "http://b.com/", inlinks={"http://a.com/": "old", "http://x.com/": "x"}
        ),
        new_page("http://d.com/", inlinks={"http://x.com/": "d"}),
        new_page("http://e.com/", inlinks={"http://x.com/?q": "filtered now"}),
    ]
    found = _run(
        pipeline,
        [parsed, current],
        CONFIG,
        [
            (
                "http://b.com/",
                [("http://a.com/", "new anchor"), ("http://x.com/", "x")],
            ),
            ("http://c.com/", [("http://a.com/", "c")]),
            ("http://d.com/", [("http://x.com/", "d")]),
        ],
    )
    assert found == {
        "inlinks_inverted": 2,
        "existing_inlinks_rejected": 1,
        "urls_written": 3,
    }


def test_newest_parse_gives_the_anchor(pipeline):
    parsed = [
        _parsed("http://a.com/", {"http://b.com/": "later"}, fetch_time=200),
        _parsed("http://a.com/", {"http://b.com/": "earlier"}, fetch_time=100),
    ]
    _run(pipeline, [parsed], CONFIG, [("http://b.com/", [("http://a.com/", "later")])])


def test_beamcrawl_cap_keeps_the_smallest_source_urls(pipeline):
    config = dataclasses.replace(CONFIG, max_inlinks=2)
    parsed = [_parsed(f"http://s{n}.com/", {"http://t.com/": str(n)}) for n in range(5)]
    current = [new_page("http://t.com/", inlinks={"http://s00.com/": "old"})]
    expected = [
        ("http://t.com/", [("http://s0.com/", "0"), ("http://s00.com/", "old")])
    ]
    found = _run(pipeline, [parsed, current], config, expected)
    assert found == {"inlinks_inverted": 5, "urls_written": 1}


def test_nutch_no_normalize_no_filter(pipeline):
    config = dataclasses.replace(CONFIG, normalize=False, filter_urls=False)
    parsed = [_parsed("http://A.com/?id=1", {"http://b.com/x.gif": "g"})]
    current = [new_page("http://B.com/", inlinks={"http://x.com/?q": "kept"})]
    expected = [
        ("http://b.com/x.gif", [("http://A.com/?id=1", "g")]),
        ("http://B.com/", [("http://x.com/?q", "kept")]),
    ]
    assert _run(pipeline, [parsed, current], config, expected) == {
        "inlinks_inverted": 1,
        "urls_written": 2,
    }


def test_empty_results_are_not_written(pipeline):
    config = dataclasses.replace(CONFIG, max_inlinks=0)
    parsed = [_parsed("http://a.com/", {"http://b.com/": "b"})]
    assert _run(pipeline, [parsed], config, []) == {"inlinks_inverted": 1}
