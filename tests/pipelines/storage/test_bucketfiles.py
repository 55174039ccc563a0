"""Bucket files: plain WebPage Avro with their bucket in the header; the layout file."""

from __future__ import annotations

from pathlib import Path

import fastavro
import pytest

from crawllib.db.buckets import Bucketing
from crawllib.webpage import new_page
from pipelines.storage import bucketfiles, partfiles


def test_bucket_file_is_plain_webpage_avro_naming_its_bucket(tmp_path: Path) -> None:
    layout = Bucketing(4)
    pages = [new_page(f"http://a.org/{n}", score=float(n)) for n in range(5)]
    written = bucketfiles.write_bucket(str(tmp_path), 2, layout, iter(pages))
    path = bucketfiles.bucket_path(str(tmp_path), 2, 4)
    assert written == 5
    assert path.endswith("part-00002-of-00004.avro")
    with open(path, "rb") as handle:
        reader = fastavro.reader(handle)
        metadata = reader.metadata
        assert [r["url"] for r in bucketfiles.read_pages(path)] == [
            p["url"] for p in pages
        ]
        assert metadata[bucketfiles.BUCKET_KEY] == "2/4"
        assert metadata[bucketfiles.HASH_KEY] == "crc32-utf8"
    with open(path, "rb") as handle:
        assert list(bucketfiles.read_pages(path)) == list(fastavro.reader(handle))
    for other in (0, 1, 3):
        assert bucketfiles.write_bucket(str(tmp_path), other, layout, iter([])) == 0
    partfiles.check_parts(partfiles.parts_pattern(str(tmp_path)))  # whole set


def test_layout_is_recorded_and_read(tmp_path: Path) -> None:
    assert bucketfiles.read_layout(str(tmp_path)) is None
    bucketfiles.write_layout(str(tmp_path), Bucketing(64))
    assert bucketfiles.read_layout(str(tmp_path)) == Bucketing(64)
    (tmp_path / bucketfiles.LAYOUT_FILE).write_text('{"buckets": 6}')
    with pytest.raises(ValueError, match="power of two"):
        bucketfiles.read_layout(str(tmp_path))


def test_the_layout_file_records_the_count_the_next_job_estimates_from(
    tmp_path: Path,
) -> None:
    layout = Bucketing(2)
    pages = [new_page(f"http://a.org/{n}") for n in range(40)]
    for bucket in range(2):
        mine = [p for p in pages if layout.bucket_of(p["url"]) == bucket]
        bucketfiles.write_bucket(str(tmp_path), bucket, layout, iter(mine))
    by_size = bucketfiles.estimated_records(str(tmp_path))
    bucketfiles.write_layout(str(tmp_path), layout, 40)
    assert bucketfiles.estimated_records(str(tmp_path)) == 40 != by_size
    assert bucketfiles.read_layout(str(tmp_path)) == layout


def test_a_version_is_read_by_another_count_up_to_four_times_more_buckets():
    stored = Bucketing(8)
    assert bucketfiles.readable_by(stored, Bucketing(8))
    assert bucketfiles.readable_by(stored, Bucketing(1))  # each file read once
    assert bucketfiles.readable_by(stored, Bucketing(32))  # each read four times
    assert not bucketfiles.readable_by(stored, Bucketing(64))  # sorted in instead
    assert not bucketfiles.readable_by(None, Bucketing(8))  # not bucketed


def test_a_new_linkdb_has_as_many_buckets_as_its_sources_need(tmp_path):
    parse = tmp_path / "s1" / "parse"
    parse.mkdir(parents=True)
    (parse / "part-00000-of-00001.avro").write_bytes(b"x" * (128 * 120_000))
    assert bucketfiles.next_layout_for_new(0, [str(parse)]) == Bucketing(4)
    assert bucketfiles.next_layout_for_new(16, [str(parse)]) == Bucketing(16)
