"""Avro container files checked block by block, and salvaged when damaged.

A job refuses a part file it cannot read whole rather than pass over it: a
0-byte file, a file cut short (a full disk, a copy that stopped), garbage,
or a file of another schema would otherwise lose records silently, and the
loss would become permanent in the next version the job writes.

:func:`check_file` walks the container without decoding records: the
header (magic, metadata, sync marker, the writer's schema), then each
block's record count, byte size and trailing sync marker, seeking over the
data. That finds every cut and most garbage in a few reads per block.
:func:`read_file` also decompresses and decodes every block, and
:func:`salvage_file` keeps the records of the blocks that decode, finding
the next sync marker after a damaged one (Avro's own recovery point).
"""

from __future__ import annotations

import io
import json
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import fastavro

MAGIC = b"Obj\x01"
SYNC_SIZE = 16
_CODECS = ("null", "deflate")
_SEARCH_CHUNK = 1 << 16


class AvroFileError(Exception):
    """What is wrong with a container file, in words (no path)."""


@dataclass
class Header:
    """A container file's header.

    Attributes:
        schema: the writer's schema (parsed JSON).
        codec: ``null`` or ``deflate``.
        sync: the 16-byte sync marker.
        end: the offset of the first block.
    """

    schema: Any
    codec: str
    sync: bytes
    end: int


@dataclass
class Salvage:
    """What :func:`salvage_file` kept and lost.

    Attributes:
        records: the records of every block that decoded.
        lost: records of damaged blocks whose count could be read.
        unknown_loss: some data was lost whose record count is unknown
            (a cut inside a block header, or garbage between blocks).
        problems: what was wrong, in file order.
    """

    records: list[Any] = field(default_factory=list)
    lost: int = 0
    unknown_loss: bool = False
    problems: list[str] = field(default_factory=list)


def check_file(
    stream: BinaryIO, size: int, schema_name: str, fields: frozenset[str]
) -> Header:
    """Walk the container's blocks; returns the header if the file is whole.

    Args:
        stream: the file, positioned at its start; must seek.
        size: the file's size in bytes.
        schema_name: the full name the writer's record schema must have.
        fields: field names the writer's schema must have (more are fine).

    Raises:
        AvroFileError: the file is empty, cut short, not Avro, of another
            schema or codec, or a block does not end in the sync marker.
    """
    header = read_header(stream, size, schema_name, fields)
    for _ in _whole_blocks(stream, size, header):
        pass
    return header


def count_records(
    stream: BinaryIO, size: int, schema_name: str, fields: frozenset[str]
) -> int:
    """How many records the file holds, from its block headers (nothing decoded).

    Raises:
        AvroFileError: as :func:`check_file`.
    """
    header = read_header(stream, size, schema_name, fields)
    return sum(block.count for block in _whole_blocks(stream, size, header))


@dataclass(frozen=True, slots=True)
class _Block:
    number: int
    offset: int
    count: int
    data_start: int
    length: int


def _whole_blocks(stream: BinaryIO, size: int, header: Header) -> Iterator[_Block]:
    """Each block after checking that it ends, within the file, in the sync marker.

    Raises:
        AvroFileError: a block is cut short or does not end in the marker.
    """
    offset = header.end
    number = 0
    while offset < size:
        number += 1
        count, length, data_start = _block_header(stream, offset, size, number)
        end = data_start + length + SYNC_SIZE
        if end > size:
            raise AvroFileError(
                f"cut short: block {number} at byte {offset} needs {end} bytes, "
                f"the file has {size}"
            )
        stream.seek(data_start + length)
        if stream.read(SYNC_SIZE) != header.sync:
            raise AvroFileError(
                f"corrupt: block {number} at byte {offset} does not end in the "
                "file's sync marker"
            )
        yield _Block(number, offset, count, data_start, length)
        offset = end


def read_header(
    stream: BinaryIO, size: int, schema_name: str, fields: frozenset[str]
) -> Header:
    """The file's header, checked against the expected schema.

    Raises:
        AvroFileError: as :func:`check_file`, for the header.
    """
    if size == 0:
        raise AvroFileError("empty file (0 bytes): its records are lost")
    reader = _Reader(stream, size)
    magic = reader.read(len(MAGIC), "the Avro magic bytes")
    if magic != MAGIC:
        raise AvroFileError(f"not an Avro container file (starts with {magic!r})")
    metadata = _read_metadata(reader)
    sync = reader.read(SYNC_SIZE, "the header's sync marker")
    try:
        schema = json.loads(metadata.get("avro.schema", b"").decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise AvroFileError(f"corrupt header: unreadable schema ({exc})") from None
    codec = metadata.get("avro.codec", b"null").decode("utf-8", "replace")
    if codec not in _CODECS:
        raise AvroFileError(f"codec {codec!r} is not one beamcrawl writes or reads")
    _check_schema(schema, schema_name, fields)
    return Header(schema, codec, sync, stream.tell())


def read_file(
    stream: BinaryIO, size: int, schema_name: str, fields: frozenset[str]
) -> int:
    """Decode every record of the file; returns how many it holds.

    Raises:
        AvroFileError: as :func:`check_file`, or a block does not decode.
    """
    header = read_header(stream, size, schema_name, fields)
    parsed = fastavro.parse_schema(header.schema)
    records = 0
    for block in _whole_blocks(stream, size, header):
        stream.seek(block.data_start)
        try:
            _decode(stream.read(block.length), block.count, header.codec, parsed)
        except Exception as exc:  # noqa: BLE001 - any decoding failure is damage
            raise AvroFileError(
                f"corrupt: block {block.number} at byte {block.offset} does not "
                f"decode ({type(exc).__name__}: {exc})"
            ) from None
        records += block.count
    return records


def salvage_file(
    stream: BinaryIO, size: int, schema_name: str, fields: frozenset[str]
) -> Salvage:
    """The records of every block that decodes; counts of what was lost.

    Raises:
        AvroFileError: the header is unreadable (nothing can be salvaged).
    """
    header = read_header(stream, size, schema_name, fields)
    parsed = fastavro.parse_schema(header.schema)
    result = Salvage()
    offset = header.end
    block = 0
    while offset < size:
        block += 1
        try:
            count, length, data_start = _block_header(stream, offset, size, block)
        except AvroFileError as exc:
            result.problems.append(str(exc))
            result.unknown_loss = True
            break
        stream.seek(data_start)
        data = stream.read(length)
        sync = stream.read(SYNC_SIZE)
        if len(data) < length or sync != header.sync:
            result.lost += count
            result.problems.append(f"block {block} at byte {offset} is damaged")
            found = _find_sync(stream, offset + 1, size, header.sync)
            if found is None:
                result.unknown_loss = True
                break
            if found != data_start + length:  # records between may be lost too
                result.unknown_loss = True
            offset = found + SYNC_SIZE
            continue
        try:
            result.records.extend(_decode(data, count, header.codec, parsed))
        except Exception as exc:  # noqa: BLE001 - any decoding failure is damage
            result.lost += count
            result.problems.append(
                f"block {block} at byte {offset} does not decode ({exc})"
            )
        offset = data_start + length + SYNC_SIZE
    return result


def _decode(data: bytes, count: int, codec: str, parsed: Any) -> list[Any]:
    if codec == "deflate":
        inflater = zlib.decompressobj(-15)
        data = inflater.decompress(data) + inflater.flush()
    buffer = io.BytesIO(data)
    records = [fastavro.schemaless_reader(buffer, parsed) for _ in range(count)]
    if buffer.tell() != len(data):
        raise AvroFileError(f"{len(data) - buffer.tell()} bytes after the records")
    return records


def _block_header(
    stream: BinaryIO, offset: int, size: int, block: int
) -> tuple[int, int, int]:
    """(record count, data length, data offset) of the block at ``offset``."""
    stream.seek(offset)
    reader = _Reader(stream, size)
    where = f"block {block} at byte {offset}"
    count = reader.long(f"the record count of {where}")
    length = reader.long(f"the size of {where}")
    if count < 0 or length < 0:
        raise AvroFileError(f"corrupt: {where} has a negative count or size")
    return count, length, stream.tell()


def _find_sync(stream: BinaryIO, start: int, size: int, sync: bytes) -> int | None:
    """The offset of the next sync marker at or after ``start``, if any."""
    position = start
    while position < size:
        stream.seek(position)
        chunk = stream.read(_SEARCH_CHUNK + SYNC_SIZE)
        at = chunk.find(sync)
        if at >= 0:
            return position + at
        if len(chunk) <= SYNC_SIZE:
            return None
        position += _SEARCH_CHUNK
    return None


def _read_metadata(reader: _Reader) -> Mapping[str, bytes]:
    metadata: dict[str, bytes] = {}
    while True:
        count = reader.long("the header's metadata")
        if count == 0:
            return metadata
        if count < 0:
            count = -count
            reader.long("the header's metadata")  # the block's byte size
        if count > 1000:
            raise AvroFileError("corrupt header: implausible metadata")
        for _ in range(count):
            key = reader.read(reader.length(), "a metadata key")
            metadata[key.decode("utf-8", "replace")] = reader.read(
                reader.length(), "a metadata value"
            )


def _check_schema(schema: Any, schema_name: str, fields: frozenset[str]) -> None:
    if not isinstance(schema, dict) or schema.get("type") != "record":
        raise AvroFileError("of another schema (not a record schema)")
    name = str(schema.get("name", ""))
    namespace = schema.get("namespace")
    full = name if "." in name or not namespace else f"{namespace}.{name}"
    names = {f.get("name") for f in schema.get("fields", []) if isinstance(f, dict)}
    missing = sorted(fields - names)
    if full != schema_name or missing:
        what = f"missing {', '.join(missing[:3])}" if missing else "another name"
        raise AvroFileError(
            f"of another schema: {full!r} ({what}), not {schema_name!r}"
        )


class _Reader:
    """Reads Avro's primitive encodings, naming what it read when cut short."""

    def __init__(self, stream: BinaryIO, size: int) -> None:
        self._stream = stream
        self._size = size

    def read(self, count: int, what: str) -> bytes:
        at = self._stream.tell()
        if at + count > self._size:
            raise AvroFileError(
                f"cut short or corrupt: {what} at byte {at} needs {count} bytes, "
                f"the file has {self._size}"
            )
        data = self._stream.read(count)
        if len(data) < count:
            raise AvroFileError(f"cut short in {what}")
        return bytes(data)

    def length(self) -> int:
        value = self.long("a length")
        if value < 0:
            raise AvroFileError("corrupt header: a negative length")
        return value

    def long(self, what: str) -> int:
        """A zig-zag varint (Avro's int and long)."""
        shift = 0
        value = 0
        while True:
            byte = self._stream.read(1)
            if not byte:
                raise AvroFileError(f"cut short in {what}")
            value |= (byte[0] & 0x7F) << shift
            if byte[0] < 0x80:
                return (value >> 1) ^ -(value & 1)
            shift += 7
            if shift > 63:
                raise AvroFileError(f"corrupt: {what} is no valid number")
