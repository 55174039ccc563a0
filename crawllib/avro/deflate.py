"""Avro's ``deflate`` codec, compressed with ISA-L where it is installed.

Every Avro block beamcrawl writes is raw DEFLATE (RFC 1951), as the Avro
spec has it; any DEFLATE encoder makes a block every reader reads. Intel's
ISA-L (the ``isal`` package) makes level-1 blocks about four times faster
than zlib at the same size (bench/README.md, "What each change bought"):
compressing the fetched content and the parsed text was most of the cost of
writing a segment's records. Without ``isal`` (a platform it has no wheel
for), zlib writes the same format.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Callable
from types import ModuleType
from typing import BinaryIO

isal_zlib: ModuleType | None
try:
    from isal import isal_zlib
except ImportError:  # pragma: no cover - isal has wheels where we run
    isal_zlib = None
HAS_ISAL = isal_zlib is not None

Compress = Callable[[bytes, int], bytes]
"""Raw DEFLATE of a block at a level."""


def zlib_raw(data: bytes, level: int) -> bytes:
    """Raw DEFLATE with zlib (no header, no checksum)."""
    compressor = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    return compressor.compress(data) + compressor.flush()


def isal_raw(data: bytes, level: int) -> bytes:
    """Raw DEFLATE with ISA-L; its levels are 0-3 (1 is zlib's 1 in size)."""
    assert isal_zlib is not None
    compressed: bytes = isal_zlib.compress(data, min(level, 3), wbits=-15)
    return compressed


FASTEST: Compress = isal_raw if HAS_ISAL else zlib_raw
"""The fastest raw DEFLATE this installation has."""


def block_writer(
    compress: Compress = FASTEST,
) -> Callable[[BinaryIO, bytes, int | None], None]:
    """A fastavro ``Writer.block_writer`` for the ``deflate`` codec.

    fastavro calls it with the output, a block's encoded records and the
    writer's compression level; it writes the block's byte count (an Avro
    long) and the compressed bytes.
    """

    def write_block(out: BinaryIO, block: bytes, level: int | None) -> None:
        data = compress(block, 6 if level is None else level)
        out.write(_avro_long(len(data)))
        out.write(data)

    return write_block


def _avro_long(value: int) -> bytes:
    """Avro's zig-zag varint encoding of a long."""
    return varint((value << 1) ^ (value >> 63))


def varint(zigzag: int) -> bytes:
    """The varint bytes of an already zig-zagged (non-negative) long."""
    out = bytearray()
    while zigzag > 0x7F:
        out.append((zigzag & 0x7F) | 0x80)
        zigzag >>= 7
    out.append(zigzag)
    return bytes(out)


def read_block(source: BinaryIO) -> io.BytesIO:
    """One ``deflate`` block's bytes from ``source``: ISA-L's inflate, else zlib's.

    :class:`crawllib.avro.blocks.BlockReader` reads with it. What fastavro's
    own reader does (read the block's byte count and bytes,
    ``EOFError`` when the file ends first, inflate), with ISA-L inflating
    about twice as fast. Data ISA-L refuses (a damaged block) goes to zlib as
    before, so a damaged file fails, or yields a partial block, as it did.
    """
    size = read_avro_long(source)
    data = source.read(size)
    if len(data) != size:
        raise EOFError(f"Expected {size} bytes, read {len(data)}")
    if isal_zlib is not None:
        try:
            return io.BytesIO(isal_zlib.decompress(data, wbits=-15))
        except isal_zlib.error:
            pass
    return io.BytesIO(zlib.decompressobj(-zlib.MAX_WBITS).decompress(data))


def read_avro_long(source: BinaryIO) -> int:
    """Avro's zig-zag varint long, one byte at a time; ``EOFError`` at the end."""
    value = shift = 0
    while True:
        byte = source.read(1)
        if not byte:
            raise EOFError("Expected a long, found the end of the file")
        value |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return (value >> 1) ^ -(value & 1)
        shift += 7
