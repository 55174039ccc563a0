"""Avro deflate blocks by ISA-L or zlib: files every Avro reader reads."""

from __future__ import annotations

import io
import random
import zlib

import fastavro
import pytest

from crawllib.avro import deflate as avrodeflate
from crawllib.webpage import WebPage, new_page, schema


def _pages(count: int) -> list[WebPage]:
    rng = random.Random(7)
    words = ["crawl", "nutch", "beam", "fetch", "parse", "é", "ü", "漢字", "\x00"]

    def text(most: int) -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randrange(most)))

    return [
        new_page(
            f"http://h{n % 5}.example.com/p{n}",
            content=text(4000).encode(),
            text=text(2000),
            outlinks={f"http://h.example.com/{rng.randrange(99)}": "a" for _ in "abc"},
        )
        for n in range(count)
    ]  # fmt: skip


def _write(
    pages: list[WebPage], compress: avrodeflate.Compress | None, level: int
) -> bytes:
    out = io.BytesIO()
    writer = fastavro.write.Writer(
        out, fastavro.parse_schema(schema()), "deflate",
        sync_interval=64 * 1024, compression_level=level,
    )  # fmt: skip
    if compress is not None:
        writer.block_writer = avrodeflate.block_writer(compress)
    for page in pages:
        writer.write(dict(page))
    writer.flush()
    return out.getvalue()


COMPRESSORS = [avrodeflate.zlib_raw]
if avrodeflate.HAS_ISAL:
    COMPRESSORS.append(avrodeflate.isal_raw)


@pytest.mark.parametrize("compress", COMPRESSORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("level", [0, 1, 6, 9])
def test_the_files_read_back_as_fastavros_own_deflate_files(compress, level):
    pages = _pages(60)
    ours = _write(pages, compress, level)
    reader = fastavro.reader(io.BytesIO(ours))
    assert reader.codec == "deflate"
    assert list(reader) == list(fastavro.reader(io.BytesIO(_write(pages, None, 1))))
    assert list(fastavro.reader(io.BytesIO(ours))) == pages


@pytest.mark.parametrize("compress", COMPRESSORS, ids=lambda c: c.__name__)
def test_each_block_is_raw_deflate_with_its_exact_length(compress):
    pages = _pages(40)
    data = _write(pages, compress, 1)
    blocks = list(fastavro.block_reader(io.BytesIO(data)))
    assert len(blocks) > 3  # several blocks, each read by its stated length
    assert sum(block.num_records for block in blocks) == len(pages)
    # what Java's Inflater(nowrap) does: a raw stream, nothing after its end
    raw = compress(b"x" * 10_000 + bytes(range(256)), 1)
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    assert inflater.decompress(raw) == b"x" * 10_000 + bytes(range(256))
    assert inflater.eof
    assert inflater.unused_data == b""


def test_isal_is_the_default_where_it_is_installed():
    expected = avrodeflate.isal_raw if avrodeflate.HAS_ISAL else avrodeflate.zlib_raw
    assert avrodeflate.FASTEST is expected


@pytest.mark.parametrize("value", [0, 1, 63, 64, 127, 128, 300, 2**20, 2**40])
def test_block_lengths_are_avro_longs(value):
    out = io.BytesIO()
    fastavro.schemaless_writer(out, "long", value)
    assert avrodeflate._avro_long(value) == out.getvalue()
