from typing import Any

import apache_beam as beam
import fastavro
import pytest
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import CrawlConfig, ParseConfig, load_properties
from crawllib.errors import ConfigError
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page, schema
from pipelines.parse import Parse, ParseForUpdate, run
from pipelines.runtime.options import counters

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


def _parse_part(tmp_path, name, pages, *flags):
    segment = tmp_path / name
    (segment / "fetch").mkdir(parents=True)
    with open(segment / "fetch" / "part-00000-of-00001.avro", "wb") as handle:
        fastavro.writer(handle, fastavro.parse_schema(schema()), pages)
    assert run([str(segment), *flags]) == 0
    records: list[Any] = []
    for path in sorted((segment / "parse").glob("part-*.avro")):
        with open(path, "rb") as handle:
            records += fastavro.reader(handle)
    return sorted(records, key=lambda record: record["url"])


def test_the_parse_command_writes_the_same_records_with_and_without_workers(
    tmp_path,
):
    # with worker processes the records come back Avro-encoded and are
    # written as they are; without, this process encodes them
    pages = [
        _page(
            f"http://a.com/{n}",
            f"<title>T{n}</title><p>text {n}</p><a href='/{n + 1}'>next</a>".encode(),
        )
        for n in range(30)
    ]
    pages.append(
        _page("http://a.com/p.pdf", b"%PDF-1.4", contentType="application/pdf")
    )
    pages.append(_page("no url", b"<p>x</p>"))
    by_workers = _parse_part(tmp_path, "workers", pages, "-Dparser.processes=2")
    in_process = _parse_part(tmp_path, "in-process", pages, "-Dparser.processes=0")
    assert by_workers == in_process
    assert len(by_workers) == 32
    assert by_workers[0]["title"] == "T0"
    assert by_workers[0]["outlinks"] == {"http://a.com/1": "next"}


def test_a_bad_link_policy_spec_is_refused_when_the_transform_is_built():
    config = CrawlConfig.from_dict({"parse.link.policy": "nowhere"})
    assert config.parse.link_policy == "nowhere"  # read, not loaded
    for transform in (Parse, ParseForUpdate):
        with pytest.raises(ConfigError, match="link policy 'nowhere'"):
            transform(config)
