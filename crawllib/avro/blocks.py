"""Avro container blocks, the ``deflate`` ones inflated by ISA-L, for one reader.

fastavro looks a codec's block reader up in one module-wide table
(``fastavro.read.BLOCK_READERS``); beamcrawl once replaced its ``deflate``
entry, and so changed how every fastavro user in the process read. Here the
blocks of ``null`` and ``deflate`` files are read by :class:`BlockReader`
itself, inflated by :func:`crawllib.avro.deflate.read_block` (ISA-L, about
twice as fast as zlib), and their records decoded by fastavro's
``schemaless_reader``: the same records and the same errors as fastavro's own
reader, and fastavro's tables untouched. A file in another codec is read by
fastavro's ``block_reader`` as it is.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, Protocol

import fastavro

from crawllib.avro import deflate

SYNC_SIZE = 16
"""Bytes of an Avro container file's sync marker."""


class AvroBlock(Protocol):
    """What a reader of blocks needs: where the block is, and its records."""

    @property
    def offset(self) -> int: ...

    @property
    def size(self) -> int: ...

    def __iter__(self) -> Iterator[Any]: ...


class _Block:
    """One block's records, decoded on iteration (as fastavro's ``Block``)."""

    __slots__ = ("_data", "_schema", "num_records", "offset", "size")

    def __init__(
        self, data: io.BytesIO, schema: Any, num_records: int, offset: int, size: int
    ) -> None:
        self._data = data
        self._schema = schema
        self.num_records = num_records
        self.offset = offset
        self.size = size

    def __iter__(self) -> Iterator[Any]:
        for _ in range(self.num_records):
            yield fastavro.schemaless_reader(self._data, self._schema)


class BlockReader:
    """The blocks of the Avro container file ``fo``, from where ``fo`` stands.

    The header is read when it is made (:attr:`sync_marker`, :attr:`codec`);
    each ``next`` reads the block at the file's current position, so a
    reader may seek between blocks, as Beam's Avro source does.
    """

    def __init__(self, fo: BinaryIO) -> None:
        self._fo = fo
        self._fastavro = fastavro.block_reader(fo)
        self.codec: str = self._fastavro.codec
        self.sync_marker: bytes = self._fastavro._header["sync"]
        self._schema = fastavro.parse_schema(self._fastavro.writer_schema)
        self._blocks: Iterator[AvroBlock] = (
            self._read_blocks()
            if self.codec in ("null", "deflate")
            else iter(self._fastavro)
        )

    def __iter__(self) -> Iterator[AvroBlock]:
        return self

    def __next__(self) -> AvroBlock:
        return next(self._blocks)

    def _read_blocks(self) -> Iterator[AvroBlock]:
        """What fastavro's block iterator does, inflating by ``read_block``."""
        fo = self._fo
        while True:
            offset = fo.tell()
            try:
                count = deflate.read_avro_long(fo)
            except EOFError:
                return
            if self.codec == "deflate":
                data = deflate.read_block(fo)
            else:
                data = io.BytesIO(_read_bytes(fo))
            if fo.read(SYNC_SIZE) != self.sync_marker:
                raise ValueError("expected sync marker not found")
            yield _Block(data, self._schema, count, offset, fo.tell() - offset)


def records(fo: BinaryIO) -> Iterable[Any]:
    """Every record of the Avro container file ``fo``, block by block."""
    for block in BlockReader(fo):
        yield from block


def _read_bytes(fo: BinaryIO) -> bytes:
    size = deflate.read_avro_long(fo)
    data = fo.read(size)
    if len(data) != size:
        raise EOFError(f"Expected {size} bytes, read {len(data)}")
    return data


def skip_past_sync(fo: BinaryIO, sync_marker: bytes) -> bool:
    """Move ``fo`` just past the next ``sync_marker``: where a block starts.

    False, at the end of the file, if there is none. A reader of part of a
    file (a Beam bundle) starts at the first block after its start offset.
    """
    carry = b""
    while True:
        chunk = fo.read(_CHUNK)
        if not chunk:
            return False
        data = carry + chunk
        found = data.find(sync_marker)
        if found >= 0:
            fo.seek(found + len(sync_marker) - len(data), io.SEEK_CUR)
            return True
        carry = data[len(data) - len(sync_marker) + 1 :]


_CHUNK = 64 * 1024
