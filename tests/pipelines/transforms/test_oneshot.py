import itertools

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import CrawlConfig
from pipelines.runtime.options import counters
from pipelines.transforms.oneshot import FetchUrls

CONFIG = CrawlConfig.from_dict(
    {"http.agent.name": "testbot", "fetcher.server.delay": 0, "http.timeout": 2000}
)
LINKS_HTML = (
    b"<html><head><title>Links</title></head><body>"
    b'<a href="/ok">ok</a> <a href="{other}/page/1">other</a></body></html>'
)


def _summary(page):
    parse = page["parseStatus"]
    return (
        page["url"],
        page["status"],
        page["protocolStatus"]["code"],
        None if parse is None else parse["majorCode"],
        page["title"],
        sorted(page["outlinks"].items()),
        page["metadata"].get("source"),
        page["content"],
    )


def test_urls_come_out_fetched_and_parsed_once_each(pipeline, sites):
    one = sites("127.0.0.2", robots="User-agent: *\nDisallow: /private\n")
    two = sites("127.0.0.3")
    one.files["links.html"] = (
        "text/html",
        LINKS_HTML.replace(b"{other}", two.base.encode()),
    )
    requests = [
        one.url("/bytes/links.html"),
        (one.url("/status/404"), {"source": "csv", "row": b"\x01"}),
        one.url("/private/secret"),
        two.url("/ok"),
        ("HTTP://" + two.url("/ok").removeprefix("http://"), {"source": "csv"}),
        "no url at all",
        one.url("/logo.gif"),
        ("http://127.0.0.2/x", {"source": 3}),
    ]
    with pipeline as p:
        pages = p | beam.Create(requests) | FetchUrls(CONFIG)
        assert_that(
            pages | beam.Map(_summary),
            equal_to(
                [
                    (
                        one.url("/bytes/links.html"),
                        2,
                        1,
                        1,
                        "Links",
                        [(one.url("/ok"), "ok"), (two.url("/page/1"), "other")],
                        None,
                        None,
                    ),
                    (one.url("/status/404"), 3, 14, None, None, [], b"csv", None),
                    (one.url("/private/secret"), 3, 18, None, None, [], None, None),
                    (two.url("/ok"), 2, 1, 1, "ok", [], b"csv", None),
                ]
            ),
        )
    assert counters(p.result, "FetchUrls") == {
        "urls_in": 8,
        "urls_rejected": 3,
        "duplicates": 1,
    }
    assert counters(p.result, "FetcherStatus") == {
        "SUCCESS": 2,
        "NOTFOUND": 1,
        "ROBOTS_DENIED": 1,
    }
    links = {"internal_kept": 1, "external_kept": 1}
    assert counters(p.result, "Links") == links
    assert [r.path for r in one.requests_for("/private")] == []
    assert len(two.requests_for("/ok")) == 1


def test_metadata_bytes_are_kept_and_the_batch_marks_set(pipeline, sites):
    site = sites("127.0.0.2")
    with pipeline as p:
        pages = (
            p
            | beam.Create([(site.url("/ok"), {"row": b"\x00\xff", "src": "caf\u00e9"})])
            | FetchUrls(CONFIG)
        )
        assert_that(
            pages
            | beam.Map(
                lambda page: (
                    page["metadata"]["row"],
                    page["metadata"]["src"],
                    page["batchId"] == page["markers"]["_ftcmrk_"] != "",
                    page["markers"]["__prsmrk__"] == page["batchId"],
                )
            ),
            equal_to([(b"\x00\xff", "caf\u00e9".encode(), True, True)]),
        )


def test_keep_content_keeps_the_raw_bytes(pipeline, sites):
    site = sites("127.0.0.2")
    site.files["links.html"] = ("text/html", LINKS_HTML.replace(b"{other}", b""))
    with pipeline as p:
        pages = (
            p
            | beam.Create(
                [
                    site.url("/ok"),
                    site.url("/status/404"),
                    site.url("/bytes/links.html"),
                ]
            )
            | FetchUrls(CONFIG, keep_content=True)
        )
        assert_that(
            pages
            | beam.Map(lambda page: (page["url"], page["title"], page["content"])),
            equal_to(
                [
                    (
                        site.url("/ok"),
                        "ok",
                        b"<html><head><title>ok</title></head><body>ok</body></html>",
                    ),
                    (site.url("/status/404"), None, None),  # not stored
                    (
                        site.url("/bytes/links.html"),
                        "Links",
                        LINKS_HTML.replace(b"{other}", b""),
                    ),
                ]
            ),
        )
    assert counters(p.result, "ParserStatus") == {"success": 2}
    assert counters(p.result, "Links") == {"internal_kept": 2}


def test_each_host_is_fetched_politely_by_one_fetcher(pipeline, sites):
    one, two = sites("127.0.0.2"), sites("127.0.0.3")
    urls = [one.url(f"/page/{n}") for n in range(3)] + [two.url("/page/9")]
    config = CONFIG.with_overrides({"fetcher.server.delay": 0.5})
    with pipeline as p:
        pages = p | beam.Create(urls) | FetchUrls(config, num_fetchers=4)
        assert_that(pages | beam.Map(lambda page: page["status"]), equal_to([2] * 4))
    requests = one.requests_for("/page/")
    assert len(requests) == 3
    gaps = [b.started - a.ended for a, b in itertools.pairwise(requests)]
    assert min(gaps) >= 0.5


def test_beamcrawl_urls_taken_from_the_web_say_so_and_reach_no_loopback(
    pipeline, sites
):
    site = sites("127.0.0.2")
    public = {"_zone_": "public"}
    with pipeline as p:
        pages = (
            p
            | beam.Create([site.url("/ok"), (site.url("/page/1"), public)])
            | FetchUrls(CONFIG)
        )
        assert_that(
            pages
            | beam.Map(
                lambda page: (
                    page["url"],
                    page["protocolStatus"]["code"],
                    page["metadata"]["_zone_"],
                )
            ),
            equal_to(
                [
                    (site.url("/ok"), 1, b"local"),  # the operator's: SUCCESS
                    (site.url("/page/1"), 24, b"public"),  # ADDRESS_DENIED
                ]
            ),
        )
    assert [r.path for r in site.requests_for("/page/")] == []
