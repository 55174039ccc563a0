"""crawllib.avro.check on real Avro files written by fastavro."""

import io

import fastavro
import pytest

from crawllib.avro import check as avrocheck
from crawllib.avro.check import AvroFileError
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page, schema

NAME = "org.apache.nutch.storage.WebPage"
FIELDS = frozenset(field["name"] for field in schema()["fields"])


def _pages(count):
    return [
        new_page(
            f"http://h{n % 7}.example/{n}.html",
            status=int(CrawlStatus.FETCHED),
            title=f"page {n}",
        )
        for n in range(count)
    ]


def _file(records, codec="deflate", sync_interval=2000):
    buffer = io.BytesIO()
    fastavro.writer(
        buffer,
        fastavro.parse_schema(schema()),
        records,
        codec,
        sync_interval=sync_interval,
    )
    return buffer.getvalue()


def _blocks(data):
    """The offsets at which blocks start, from fastavro's own block reader."""
    stream = io.BytesIO(data)
    return sum(1 for _ in fastavro.block_reader(stream))


def _check(data):
    return avrocheck.check_file(io.BytesIO(data), len(data), NAME, FIELDS)


@pytest.mark.parametrize("codec", ["null", "deflate"])
def test_a_whole_file_passes_and_reads_back_every_record(codec):
    records = _pages(300)
    data = _file(records, codec)
    assert _blocks(data) > 3  # several blocks, so the walk is tested

    header = _check(data)

    assert header.codec == codec
    assert avrocheck.read_file(io.BytesIO(data), len(data), NAME, FIELDS) == 300
    salvaged = avrocheck.salvage_file(io.BytesIO(data), len(data), NAME, FIELDS)
    assert salvaged.records == list(fastavro.reader(io.BytesIO(data)))
    assert (salvaged.lost, salvaged.unknown_loss, salvaged.problems) == (0, False, [])


def test_a_file_without_records_is_whole():
    data = _file([])
    _check(data)
    assert avrocheck.read_file(io.BytesIO(data), len(data), NAME, FIELDS) == 0


def test_every_cut_is_found():
    data = _file(_pages(120))
    for end in range(0, len(data) - 1, 37):
        with pytest.raises(AvroFileError) as caught:
            _check(data[:end])
        message = str(caught.value)
        assert "cut short" in message or "empty file" in message, (end, message)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", r"empty file \(0 bytes\)"),
        (b"PK\x03\x04 a zip file, not Avro" * 10, "not an Avro container file"),
        (bytes(range(256)) * 8, "not an Avro container file"),
    ],
)
def test_empty_and_foreign_bytes_are_named(data, words):
    with pytest.raises(AvroFileError, match=words):
        _check(data)


def test_a_file_of_another_schema_is_refused():
    other = {
        "type": "record",
        "name": "Other",
        "namespace": "x",
        "fields": [{"name": "url", "type": "string"}],
    }
    buffer = io.BytesIO()
    fastavro.writer(buffer, fastavro.parse_schema(other), [{"url": "http://a/"}])
    data = buffer.getvalue()

    with pytest.raises(AvroFileError, match=r"of another schema: 'x\.Other'"):
        _check(data)


def test_garbage_in_a_block_is_found_by_reading_and_salvage_keeps_the_rest():
    records = _pages(300)
    data = bytearray(_file(records))
    blocks = list(fastavro.block_reader(io.BytesIO(bytes(data))))
    counts = [block.num_records for block in blocks]
    # overwrite the middle of the file: one block's compressed data
    middle = len(data) // 2
    data[middle : middle + 40] = b"\xff" * 40
    damaged = bytes(data)

    with pytest.raises(AvroFileError, match="corrupt"):
        avrocheck.read_file(io.BytesIO(damaged), len(damaged), NAME, FIELDS)
    salvaged = avrocheck.salvage_file(io.BytesIO(damaged), len(damaged), NAME, FIELDS)

    assert salvaged.problems
    kept = {page["url"] for page in salvaged.records}
    assert kept < {page["url"] for page in records}
    assert len(salvaged.records) + salvaged.lost <= 300
    assert salvaged.lost in counts or salvaged.unknown_loss or salvaged.lost > 0
    assert all(page in records for page in salvaged.records)


def test_salvage_of_a_cut_file_keeps_the_whole_blocks():
    records = _pages(300)
    data = _file(records)
    cut = data[: len(data) * 2 // 3]

    salvaged = avrocheck.salvage_file(io.BytesIO(cut), len(cut), NAME, FIELDS)

    assert 0 < len(salvaged.records) < 300
    assert salvaged.records == records[: len(salvaged.records)]
    assert salvaged.unknown_loss or salvaged.lost > 0
