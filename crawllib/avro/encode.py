"""Avro binary encoding of WebPage records by Python code generated from the schema.

fastavro's writer walks the schema for every record it writes, and picks
each union's branch by validating the value against every candidate: for a
parsed WebPage (~27 fields, a dozen ``["null", X]`` unions, maps of
``["null", "string"]``) that walk was most of the cost of writing a record
(bench/README.md, "What each change bought"). :func:`compile_encoder` turns
a schema into one straight-line Python function instead.

The generated code takes only values of the exact expected Python types
(``str``, ``bytes``, ``int`` within the type's range, ``float`` that fits
the type, ``bool``, ``dict``, ``list``; ``tuple`` for an array outside a
union). Anything else (a missing field, a subclass, a ``Mapping`` that is
not a dict, a union given in tuple notation, a float beyond float32, an int
beyond 64 bits, a string that does not encode as UTF-8) makes that record
go to ``fastavro.schemaless_writer``, so the bytes, and the exceptions,
are fastavro's own. The rules the generated code keeps are fastavro
1.13.1's (``_write.pyx``, ``_validation.pyx``); the tests compare the two
byte for byte on the fastavro installed.
"""

from __future__ import annotations

import functools
import io
import struct
from collections.abc import Callable
from typing import Any, NamedTuple

import fastavro
import fastavro.write

from crawllib.avro.deflate import varint
from crawllib.webpage import WebPage, schema

Encoder = Callable[[Any], bytes]
"""A record's Avro binary encoding (no container framing)."""

LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1


class UnsupportedSchemaError(ValueError):
    """The schema uses a type the generator does not encode."""


class Fallback(Exception):
    """Raised by the generated code: fastavro encodes this record."""


_FALLBACK_ERRORS = (Fallback, KeyError, UnicodeEncodeError, OverflowError)
"""What sends a record to fastavro: a type or value the fast path does not take,
a missing field, a string UTF-8 cannot encode, a double beyond float32."""


def compile_encoder(avro_schema: dict[str, Any]) -> Encoder:
    """An encoder for records of ``avro_schema``, byte for byte fastavro's.

    Raises:
        UnsupportedSchemaError: the schema uses a type other than string,
            bytes, int, long, float, double, boolean, ``["null", X]``, map,
            array and record, or a logical type.
    """
    fast = compile_fast_path(avro_schema)
    parsed = fastavro.parse_schema(avro_schema)

    def encode(record: Any) -> bytes:
        try:
            return fast(record)
        except _FALLBACK_ERRORS:
            out = io.BytesIO()
            fastavro.schemaless_writer(out, parsed, record)
            return out.getvalue()

    return encode


@functools.cache
def _webpage_encoder() -> Encoder:
    return compile_encoder(schema())


def encode_webpage(page: WebPage) -> bytes:
    """A WebPage's Avro binary encoding, as ``fastavro.schemaless_writer`` writes it."""
    return _webpage_encoder()(page)


class _Block(NamedTuple):
    """What ``fastavro.write.Writer.write_block`` reads of a block."""

    num_records: int
    bytes_: io.BytesIO


class EncodedBlocks:
    """Records for a fastavro ``Writer``, in the blocks its ``write`` makes.

    ``Writer.write`` encodes a record into the writer's block buffer and
    ends the block after the record that brings it to ``sync_interval``
    bytes. fastavro's C ``Writer`` keeps that buffer out of Python's reach,
    so the block is gathered here and handed to ``Writer.write_block``,
    which frames it as ``Writer.dump`` does: record count, the codec's
    bytes, sync marker. The file is byte for byte what ``Writer.write``
    would have written.
    """

    def __init__(self, writer: fastavro.write.Writer, encode: Encoder) -> None:
        self.writer = writer
        self._encode = encode
        self._records: list[bytes] = []
        self._size = 0

    def write(self, record: Any) -> None:
        """Encode ``record`` into the block in progress.

        A ``bytes`` record is taken as already encoded (by this schema's
        encoder, as :class:`~crawllib.parse.pool.EncodedParse` holds it).
        """
        data = record if type(record) is bytes else self._encode(record)
        self._records.append(data)
        self._size += len(data)
        if self._size >= self.writer.sync_interval:
            self.end_block()

    def end_block(self) -> None:
        """Write the block in progress, if it has a record."""
        if self._records:
            block = io.BytesIO(b"".join(self._records))
            self.writer.write_block(_Block(len(self._records), block))
        self._records = []
        self._size = 0


def generate_source(avro_schema: dict[str, Any]) -> str:
    """The Python source of ``encode(record) -> bytes`` for ``avro_schema``."""
    generator = _Generator()
    generator.line(0, "def encode(record):")
    generator.line(1, "out = []")
    generator.line(1, "put = out.append")
    generator.value(avro_schema, "record", 1, in_union=False)
    generator.line(1, 'return b"".join(out)')
    return "\n".join(generator.lines) + "\n"


_PRIMITIVE_TYPES = {
    "string": "str",
    "bytes": "bytes",
    "int": "int",
    "long": "int",
    "float": "float",
    "double": "float",
    "boolean": "bool",
}


class _Generator:
    """Writes the statements that encode one value, type by type."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._names = 0

    def line(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    def name(self, prefix: str) -> str:
        self._names += 1
        return f"{prefix}{self._names}"

    def value(
        self, avro: Any, var: str, depth: int, in_union: bool, branch: bool = False
    ) -> None:
        """Encode ``var`` of type ``avro``.

        ``in_union``: inside a union's branch, which fastavro validates before
        writing it; ``branch``: the branch's value itself, where a tuple is
        fastavro's tuple notation.
        """
        kind = _kind(avro)
        if isinstance(avro, list):
            self._union(avro, var, depth, in_union)
        elif kind in _PRIMITIVE_TYPES:
            self.line(depth, f"if type({var}) is not {_PRIMITIVE_TYPES[kind]}:")
            self.line(depth + 1, "raise Fallback")
            self._primitive(kind, var, depth, in_union)
        elif kind == "record":
            self._record(avro, var, depth, in_union)
        elif kind == "map":
            self._map(avro, var, depth, in_union)
        elif kind == "array":
            self._array(avro, var, depth, in_union, tuple_ok=not branch)
        else:
            raise UnsupportedSchemaError(f"no generated encoder for Avro type {avro!r}")

    def _primitive(self, kind: str, var: str, depth: int, in_union: bool) -> None:
        if kind in ("string", "bytes"):
            data = var
            if kind == "string":
                data = self.name("utf8_")
                self.line(depth, f"{data} = {var}.encode()")
            size = self.name("size_")
            self.line(depth, f"{size} = len({data})")
            self.line(
                depth, f"put(small[{size}] if {size} < 64 else varint({size} << 1))"
            )
            self.line(depth, f"put({data})")
        elif kind == "boolean":
            self.line(depth, f'put(b"\\x01" if {var} else b"\\x00")')
        elif kind in ("int", "long"):
            encode = "int32" if kind == "int" and in_union else "int64"
            self.line(depth, f"put({encode}({var}))")
        else:
            self.line(depth, f"put({kind}_bits({var}))")

    def _union(self, avro: list[Any], var: str, depth: int, in_union: bool) -> None:
        if len(avro) != 2 or avro[0] != "null" or avro[1] == "null":
            raise UnsupportedSchemaError(f"no generated encoder for union {avro!r}")
        self.line(depth, f"if {var} is None:")
        self.line(depth + 1, 'put(b"\\x00")')
        self.line(depth, "else:")
        self.line(depth + 1, 'put(b"\\x02")')
        self.value(avro[1], var, depth + 1, in_union=True, branch=True)

    def _record(
        self, avro: dict[str, Any], var: str, depth: int, in_union: bool
    ) -> None:
        self.line(depth, f"if type({var}) is not dict:")
        self.line(depth + 1, "raise Fallback")
        if in_union:  # fastavro's validation refuses a "-type" naming another record
            self.line(depth, f'if "-type" in {var}:')
            self.line(depth + 1, "raise Fallback")
        for field in avro["fields"]:
            field_var = self.name("field_")
            self.line(depth, f"{field_var} = {var}[{field['name']!r}]")
            self.value(field["type"], field_var, depth, in_union)

    def _map(self, avro: dict[str, Any], var: str, depth: int, in_union: bool) -> None:
        key, item = self.name("key_"), self.name("item_")
        self.line(depth, f"if type({var}) is not dict:")
        self.line(depth + 1, "raise Fallback")
        self.line(depth, f"if {var}:")
        self.line(depth + 1, f"put(count(len({var})))")
        self.line(depth + 1, f"for {key}, {item} in {var}.items():")
        self.value("string", key, depth + 2, in_union)
        self.value(avro["values"], item, depth + 2, in_union)
        self.line(depth, 'put(b"\\x00")')

    def _array(
        self, avro: dict[str, Any], var: str, depth: int, in_union: bool, tuple_ok: bool
    ) -> None:
        item = self.name("item_")
        check = f"type({var}) is not list"
        if tuple_ok:
            check += f" and type({var}) is not tuple"
        self.line(depth, f"if {check}:")
        self.line(depth + 1, "raise Fallback")
        self.line(depth, f"if {var}:")
        self.line(depth + 1, f"put(count(len({var})))")
        self.line(depth + 1, f"for {item} in {var}:")
        self.value(avro["items"], item, depth + 2, in_union)
        self.line(depth, 'put(b"\\x00")')


def _kind(avro: Any) -> str:
    """The type name of a schema node; a primitive may be ``{"type": "long"}``."""
    if isinstance(avro, str):
        return avro
    if isinstance(avro, dict):
        if avro.get("logicalType"):
            raise UnsupportedSchemaError(f"no generated encoder for {avro!r}")
        kind = avro.get("type")
        return kind if isinstance(kind, str) else "?"
    return "union" if isinstance(avro, list) else "?"


def compile_fast_path(avro_schema: dict[str, Any]) -> Encoder:
    """The generated code alone, without the fall back to fastavro.

    It raises :class:`Fallback` (or ``KeyError``, ``UnicodeEncodeError``,
    ``OverflowError``) where the record is not all of the exact types it
    takes.
    """
    namespace: dict[str, Any] = {
        "Fallback": Fallback,
        "count": _length,
        "small": _ZIGZAG_SMALL,
        "varint": varint,
        "int32": _int32,
        "int64": _int64,
        "float_bits": _FLOAT32.pack,
        "double_bits": _FLOAT64.pack,
    }
    source = generate_source(avro_schema)
    exec(compile(source, "<crawllib.avro.encode>", "exec"), namespace)
    encode: Callable[[Any], bytes] = namespace["encode"]
    return encode


_FLOAT32 = struct.Struct("<f")  # rounds as C's (float) cast; OverflowError beyond
_FLOAT64 = struct.Struct("<d")
_ZIGZAG_SMALL = [bytes([(n << 1) ^ (n >> 63)]) for n in range(64)] + [
    bytes([(n << 1) ^ (n >> 63)]) for n in range(-64, 0)
]
"""A one-byte long for -64 <= n < 64, indexed by n (negative n from the end)."""


def _length(n: int) -> bytes:
    """A length or count (never negative) as an Avro long."""
    return _ZIGZAG_SMALL[n] if n < 64 else varint(n << 1)


def _int64(n: int) -> bytes:
    """An Avro long; beyond 64 bits fastavro raises, so the record falls back."""
    if -64 <= n < 64:
        return _ZIGZAG_SMALL[n]
    if not LONG_MIN <= n <= LONG_MAX:
        raise Fallback
    return varint((n << 1) ^ (n >> 63))


def _int32(n: int) -> bytes:
    """An int that fastavro's union validation takes: within 32 bits."""
    if -64 <= n < 64:
        return _ZIGZAG_SMALL[n]
    if not INT_MIN <= n <= INT_MAX:
        raise Fallback
    return varint((n << 1) ^ (n >> 63))
