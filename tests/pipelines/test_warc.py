"""WarcRecords and WriteWarc on the DirectRunner, over real fetches."""

import os
import zlib

import apache_beam as beam
import pytest
from apache_beam.testing.util import assert_that, equal_to
from apache_beam.transforms.combiners import Count
from warcio.archiveiterator import ArchiveIterator  # type: ignore[import-untyped]

from crawllib.config.fetch import HttpConfig
from crawllib.config.warc import WarcConfig
from crawllib.fetch.protocol.http import HttpProtocol
from crawllib.fetch.records import fetched_page
from crawllib.webpage import new_page
from pipelines.runtime.options import counters
from pipelines.warc import NAMESPACE, WarcRecords, WriteWarc

NOW = 1_700_000_000_000
HTTP = HttpConfig(user_agent="beamcrawl-test/1", agent_name="beamcrawl-test")
PATHS = ["/ok", "/gzip", "/status/404", "/status/301", "/drop", "/page/a", "/page/b"]


@pytest.fixture
def pages(site):
    protocol = HttpProtocol(HTTP)
    try:
        fetched = [
            fetched_page(new_page(site.url(path)), protocol.fetch(site.url(path)), NOW)
            for path in PATHS
        ]
        modified = site.url("/modified")
        result = protocol.fetch(modified, NOW - 1000)
        fetched.append(fetched_page(new_page(modified), result, NOW))
    finally:
        protocol.close()
    return [*fetched, new_page(site.url("/never"))]


def _read_file(path):
    with open(path, "rb") as stream:
        return [
            (record.rec_type, record.rec_headers.get_header("WARC-Target-URI"))
            for record in ArchiveIterator(stream, check_digests="raise")
        ]


def test_records_per_fetch_and_counters(pipeline, pages):
    with pipeline as p:
        records = (
            p
            | beam.Create(pages)
            | WarcRecords(WarcConfig(http=HTTP))
            | beam.Map(lambda r: (r.url.rsplit(":", 1)[1].split("/", 1)[1], r.types))
        )
        assert_that(
            records,
            equal_to(
                [
                    ("ok", ("request", "response")),
                    ("gzip", ("request", "response")),
                    ("status/404", ("request", "response")),
                    ("status/301", ("request", "response")),
                    ("page/a", ("request", "response")),
                    ("page/b", ("request", "response")),
                    ("modified", ("request", "revisit")),
                ]
            ),
        )
    assert counters(p.result, NAMESPACE) == {
        "request": 7,
        "response": 6,
        "revisit": 1,
        "skipped_no_response": 1,
        "skipped_not_fetched": 1,
    }


def test_files_roll_at_the_size_limit_each_opening_with_warcinfo(
    pipeline, pages, tmp_path
):
    out = str(tmp_path / "warc")
    config = WarcConfig(http=HTTP, max_size=1)  # each fetch closes its file
    with pipeline as p:
        paths = p | beam.Create(pages) | WriteWarc(out, config, NOW)
        assert_that(paths | Count.Globally(), equal_to([7]))
    names = sorted(os.listdir(out))
    assert [n[:36] for n in names] == [
        f"beamcrawl-20231114221320-00000-{serial:05d}" for serial in range(7)
    ]
    assert len({n.rsplit("-", 1)[1] for n in names}) == 1  # the shard's token
    found = []
    for name in names:
        records = _read_file(os.path.join(out, name))
        assert [t for t, _ in records[:2]] == ["warcinfo", "request"]
        assert len(records) == 3
        assert records[1][1] == records[2][1]  # a fetch's records stay together
        found.append(records[2][0])
    assert sorted(found) == ["response"] * 6 + ["revisit"]
    values = counters(p.result, NAMESPACE)
    assert (values["files"], values["warcinfo"]) == (7, 7)


def test_shards_write_files_of_their_own(pipeline, pages, tmp_path):
    out = str(tmp_path / "warc")
    with pipeline as p:
        _ = p | beam.Create(pages) | WriteWarc(out, WarcConfig(http=HTTP), NOW, 3)
    names = os.listdir(out)
    records = [r for name in names for r in _read_file(os.path.join(out, name))]
    assert len(records) == len(names) + 14
    assert sum(1 for t, _ in records if t == "warcinfo") == len(names)
    assert {n.split("-")[2] for n in names} <= {"00000", "00001", "00002"}


def test_each_record_is_a_gzip_member_of_its_own(pipeline, pages, tmp_path):
    out = str(tmp_path / "warc")
    with pipeline as p:
        _ = p | beam.Create(pages) | WriteWarc(out, WarcConfig(http=HTTP), NOW)
    (name,) = os.listdir(out)
    with open(os.path.join(out, name), "rb") as stream:
        data = stream.read()
    members = 0
    while data:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        inflater.decompress(data)
        assert inflater.eof
        data, members = inflater.unused_data, members + 1
    assert members == 15
