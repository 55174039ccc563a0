import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import ParseConfig, load_properties
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.options import counters
from pipelines.parse import Parse

CONFIG = ParseConfig.from_properties(load_properties())


def _page(url, content, **fields):
    fields.setdefault("status", CrawlStatus.FETCHED)
    fields.setdefault("contentType", "text/html")
    return new_page(url, content=content, markers={"_ftcmrk_": "s"}, **fields)


def test_parse_transform_counts_by_major_status(pipeline):
    pages = [
        _page("http://a.com/", b"<html><title>A</title><body>a</body></html>"),
        _page("http://a.com/p.pdf", b"%PDF-1.4", contentType="application/pdf"),
        _page("http://a.com/gone", None, status=CrawlStatus.GONE),
        _page("http://a.com/cut", b"x", headers={"Content-Length": "100"}),
        new_page("http://a.com/not-fetched", status=CrawlStatus.FETCHED),
    ]
    with pipeline as p:
        parsed = p | beam.Create(pages) | Parse(CONFIG)
        summary = parsed | beam.Map(
            lambda page: (page["url"], page["title"], page["content"],
                          (page["parseStatus"] or {}).get("majorCode"))
        )  # fmt: skip
        assert_that(
            summary,
            equal_to(
                [
                    ("http://a.com/", "A", None, 1),
                    ("http://a.com/p.pdf", None, None, 0),
                    ("http://a.com/gone", None, None, None),
                ]
            ),
        )
    assert counters(p.result, "ParserStatus") == {"success": 1, "notparsed": 1}
    assert counters(p.result, "Parser") == {"not_fetched": 1, "truncated": 1}
