import os
from typing import Any

import apache_beam as beam
import fastavro
from apache_beam.testing.util import assert_that, equal_to

from crawllib.webpage import new_page
from pipelines.storage import io, partfiles

PAGES = [
    new_page("http://a.com/", status=1, score=1.0, metadata={"k": b"v"}),
    new_page("http://b.com/x", status=2, signature=b"\x00\x01", outlinks={"u": "t"}),
]


def _write(pipeline, pages, directory):
    with pipeline as p:
        _ = p | beam.Create(pages) | io.WriteWebPages(str(directory))


def test_write_then_read_gives_the_same_pages(pipeline, tmp_path):
    _write(pipeline, PAGES, tmp_path / "v1")
    files = sorted(os.listdir(tmp_path / "v1"))
    assert files
    assert all(name.startswith("part-") and name.endswith(".avro") for name in files)
    with beam.Pipeline() as p:
        read = p | io.ReadWebPages(partfiles.parts_pattern(str(tmp_path / "v1")))
        assert_that(read, equal_to(PAGES))


def test_files_are_plain_avro_readable_with_fastavro(pipeline, tmp_path):
    _write(pipeline, PAGES, tmp_path / "v1")
    records: list[Any] = []
    for name in os.listdir(tmp_path / "v1"):
        with open(tmp_path / "v1" / name, "rb") as handle:
            reader = fastavro.reader(handle)
            schema = reader.writer_schema
            assert isinstance(schema, dict)
            assert schema["name"] == "org.apache.nutch.storage.WebPage"
            records.extend(reader)
    assert sorted(records, key=lambda r: r["url"]) == PAGES


def test_an_empty_collection_still_writes_a_readable_version(pipeline, tmp_path):
    _write(pipeline, [], tmp_path / "v1")
    assert partfiles.has_parts(str(tmp_path / "v1"))
    with beam.Pipeline() as p:
        read = p | io.ReadWebPages(partfiles.parts_pattern(str(tmp_path / "v1")))
        assert_that(read, equal_to([]))
