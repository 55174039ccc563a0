"""crawllib.avro.blocks: fastavro's records and errors, fastavro left as it was."""

from __future__ import annotations

import io
import random
import re
from collections.abc import Callable
from typing import Any

import fastavro
import fastavro.read
import pytest

from crawllib.avro import blocks, deflate
from tests.crawllib.avro.test_deflate import COMPRESSORS, _pages, _write


def _damaged(data: bytes, rng: random.Random) -> list[bytes]:
    out = []
    for cut in [*sorted(rng.sample(range(len(data)), 40)), len(data) - 17]:
        out.append(data[:cut])  # truncated
        out.append(data[:cut] + b"\0" * 5 + data[cut + 5 :])  # zeroed
        out.append(data[:cut] + bytes([data[cut] ^ 0xFF]) + data[cut + 1 :])
    return out


def _outcome(read: Callable[[io.BytesIO], Any], data: bytes) -> tuple[object, ...]:
    """What reading ``data`` gives: the records, or the error without addresses."""
    try:
        return ("records", list(read(io.BytesIO(data))))
    except Exception as exc:  # noqa: BLE001 - the outcome is what is compared
        return (type(exc).__name__, re.sub(r"0x[0-9a-f]+", "", str(exc)))


@pytest.mark.parametrize("compress", COMPRESSORS, ids=lambda c: c.__name__)
def test_records_and_errors_are_fastavros_own_on_whole_and_damaged_files(compress):
    readers_before = dict(fastavro.read.BLOCK_READERS)
    data = _write(_pages(60), compress, 1)
    files = [data, *_damaged(data, random.Random(3))]

    theirs = [_outcome(fastavro.reader, blob) for blob in files]
    ours = [_outcome(blocks.records, blob) for blob in files]

    assert ours[0] == ("records", _pages(60))
    assert ours == theirs
    assert {outcome[0] for outcome in theirs} > {"records"}  # damage was seen
    assert readers_before == fastavro.read.BLOCK_READERS  # nothing replaced


@pytest.mark.parametrize("codec", ["null", "deflate", "bzip2"])
def test_blocks_are_where_fastavro_says_in_every_codec(codec):
    out = io.BytesIO()
    writer = fastavro.write.Writer(
        out, fastavro.parse_schema({"type": "array", "items": "long"}), codec,
        sync_interval=100,
    )  # fmt: skip
    for n in range(50):
        writer.write(list(range(n)))
    writer.flush()
    data = out.getvalue()

    theirs = [
        (b.offset, b.size, list(b)) for b in fastavro.block_reader(io.BytesIO(data))
    ]
    reader = blocks.BlockReader(io.BytesIO(data))
    ours = [(b.offset, b.size, list(b)) for b in reader]

    assert len(theirs) > 3
    assert ours == theirs
    assert reader.codec == codec
    assert reader.sync_marker == data[theirs[0][0] - blocks.SYNC_SIZE : theirs[0][0]]


def test_a_reader_may_seek_to_any_block():
    data = _write(_pages(40), deflate.FASTEST, 1)
    offsets = [b.offset for b in fastavro.block_reader(io.BytesIO(data))]
    stream = io.BytesIO(data)
    reader = blocks.BlockReader(stream)
    stream.seek(offsets[2])
    block = next(reader)
    (theirs,) = [
        b for b in fastavro.block_reader(io.BytesIO(data)) if b.offset == offsets[2]
    ]
    assert (block.offset, block.size, list(block)) == (
        theirs.offset, theirs.size, list(theirs),
    )  # fmt: skip


@pytest.mark.parametrize("start", [0, 1, 15, 16, 17, 100, 5000, -17, -16, -1])
def test_skipping_past_a_sync_marker_lands_on_a_block_or_the_end(start):
    data = _write(_pages(40), deflate.FASTEST, 1)
    offsets = [b.offset for b in fastavro.block_reader(io.BytesIO(data))]
    stream = io.BytesIO(data)
    reader = blocks.BlockReader(stream)
    start = start % len(data)
    stream.seek(start)

    found = blocks.skip_past_sync(stream, reader.sync_marker)

    ends = [*offsets, len(data)]  # every block is followed by a marker
    assert found == (start <= len(data) - blocks.SYNC_SIZE)
    assert stream.tell() == (
        min(end for end in ends if end - blocks.SYNC_SIZE >= start)
        if found
        else len(data)
    )
