"""The generated WebPage encoder against fastavro's own writer, byte for byte.

fastavro is the oracle: every record, valid or not, must give fastavro's
bytes, or fastavro's exception (type and message).
"""

from __future__ import annotations

import collections
import enum
import io
import math
import os
import struct
from pathlib import Path
from typing import Any

import apache_beam as beam
import fastavro
import pytest
from apache_beam.testing.util import assert_that, equal_to
from hypothesis import given, settings
from hypothesis import strategies as st

from crawllib.avro import deflate as avrodeflate
from crawllib.avro import encode as avroencode
from crawllib.config import ParseConfig, UpdateConfig, load_properties
from crawllib.db.updatedb import links_from, update_page
from crawllib.fetch.protocol import FetchResult
from crawllib.fetch.records import fetched_page
from crawllib.parse.parse import PageParser
from crawllib.parse.pool import parse_without_content
from crawllib.status import ProtocolStatus
from crawllib.webpage import new_page, schema
from pipelines.storage import io as avro_io
from pipelines.storage import partfiles
from tests.pydocs import DOCS_DIR

PARSED_SCHEMA = fastavro.parse_schema(schema())
FAST_PATH = avroencode.compile_fast_path(schema())
NOW_MS = 1_700_000_000_000
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
INT_MIN, INT_MAX = -(2**31), 2**31 - 1
FLOAT32_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]


def _fastavro(record: Any) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, PARSED_SCHEMA, record)
    return out.getvalue()


def _ours(record: Any) -> bytes:
    """``encode_webpage`` of anything, not only a WebPage."""
    return avroencode.encode_webpage(record)


def _outcome(encode: Any, record: Any) -> Any:
    """The bytes, or the exception's type and message."""
    try:
        return encode(record)
    except Exception as exc:  # noqa: BLE001 - the outcome compared is the exception
        return type(exc), str(exc)


def _assert_as_fastavro(record: Any) -> None:
    assert _outcome(_ours, record) == _outcome(_fastavro, record)


# --- records of every field and branch -----------------------------------

ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
"""Unicode including astral characters and lone surrogates (not UTF-8)."""
UTF8_TEXT = st.text(max_size=12) | st.sampled_from(["", "é", "漢字", "\U0001f600"])
LONGS = st.integers(LONG_MIN, LONG_MAX) | st.sampled_from(
    [0, 63, 64, -64, -65, 8191, 8192, INT_MIN, INT_MAX, LONG_MIN, LONG_MAX]
)
INTS32 = st.integers(INT_MIN, INT_MAX) | st.sampled_from([INT_MIN, INT_MAX, -65, 64])
BEYOND = st.sampled_from(
    [INT_MIN - 1, INT_MAX + 1, LONG_MIN - 1, LONG_MAX + 1, 2**64, -(2**70)]
)
FLOATS = st.floats(width=32) | st.sampled_from(
    [-0.0, math.inf, -math.inf, math.nan, -math.nan, FLOAT32_MAX, 1e-45, 7e-46]
)
DOUBLES_BEYOND_FLOAT32 = st.floats() | st.sampled_from(
    [1e39, -1e39, 3.4028235677973366e38, 3.4028235677973362e38, 1e-50, 0.1]
)
STRING_MAPS = st.dictionaries(UTF8_TEXT, st.none() | UTF8_TEXT, max_size=4)


def _records(text: Any, longs: Any, ints32: Any, floats: Any) -> Any:
    optional_text = st.none() | text
    optional_bytes = st.none() | st.binary(max_size=20)
    maps = st.dictionaries(text, optional_text, max_size=4)
    return st.fixed_dictionaries(
        {
            "url": text,
            "baseUrl": optional_text,
            **dict.fromkeys(_LONG_FIELDS, longs),
            "protocolStatus": st.none()
            | st.fixed_dictionaries(
                {
                    "code": ints32,
                    "args": st.lists(text, max_size=3),
                    "lastModified": longs,
                }
            ),
            "content": optional_bytes,
            "contentType": optional_text,
            "prevSignature": optional_bytes,
            "signature": optional_bytes,
            "title": optional_text,
            "text": optional_text,
            "parseStatus": st.none()
            | st.fixed_dictionaries(
                {
                    "majorCode": ints32,
                    "minorCode": ints32,
                    "args": st.lists(text, max_size=3),
                }
            ),
            "score": floats,
            "reprUrl": optional_text,
            **dict.fromkeys(("headers", "outlinks", "inlinks", "markers"), maps),
            "metadata": st.dictionaries(text, optional_bytes, max_size=4),
            "batchId": optional_text,
            "sitemaps": maps,
            "stmPriority": floats,
        }
    )


_LONG_FIELDS = (
    "status", "fetchTime", "prevFetchTime", "fetchInterval", "retriesSinceFetch",
    "modifiedTime", "prevModifiedTime",
)  # fmt: skip
VALID = _records(UTF8_TEXT, LONGS, INTS32, FLOATS)


@settings(max_examples=400)
@given(VALID)
def test_every_field_and_branch_encodes_as_fastavro_by_the_generated_code(record):
    assert FAST_PATH(record) == _fastavro(record)
    assert _ours(record) == _fastavro(record)


@settings(max_examples=400)
@given(_records(ANY_TEXT, LONGS | BEYOND, INTS32 | BEYOND, DOUBLES_BEYOND_FLOAT32))
def test_surrogates_big_ints_and_big_doubles_give_fastavros_bytes_or_error(record):
    _assert_as_fastavro(record)


def test_the_schema_fields_are_the_strategys():
    assert list(VALID.wrapped_strategy.mapping) == [
        field["name"] for field in schema()["fields"]
    ]


# --- values the generated code does not take: fastavro decides ---------------


class _Code(enum.IntEnum):
    OK = 200


class _Text(str):
    pass


class _Number(float):
    pass


ODD_VALUES = [
    True, False, 1, -1, 2**40, 1.5, _Number(2.5), "1.5", "NaN", b"x", bytearray(b"x"),
    _Text("t"), _Code.OK, None, (), ["a"], ("a", "b"), ("string", "s"), ("bytes", b"b"),
    ("org.apache.nutch.storage.ProtocolStatus", {"code": 1, "args": []}),
    ("ProtocolStatus", {"code": 1, "args": [], "lastModified": 0}),
    {}, {"k": "v"}, {"k": None}, {b"k": "v"}, {1: "v"}, {"k": 1}, {"k": b"v"},
    collections.OrderedDict(k="v"), {"code": 1, "args": ("a",), "lastModified": 0},
    {"code": True, "args": [], "lastModified": 0},
    {"code": 1, "args": [], "lastModified": 0, "-type": "X"},
    {"code": 1, "args": [], "lastModified": 0, "-type": "ProtocolStatus"},
    {"code": 2**31, "args": [], "lastModified": 0}, {"code": 1},
    {"majorCode": 1, "minorCode": 2, "args": ["x"]}, {"majorCode": 1, "minorCode": 2},
    collections.OrderedDict(code=1, args=[], lastModified=0), "\ud800",
]  # fmt: skip
FIELDS = [field["name"] for field in schema()["fields"]]


@pytest.mark.parametrize("field", FIELDS)
def test_odd_values_in_each_field_give_fastavros_bytes_or_error(field):
    for value in ODD_VALUES:
        _assert_as_fastavro({**new_page("http://a.com/"), field: value})


@pytest.mark.parametrize("field", FIELDS)
def test_a_missing_field_gives_fastavros_default_or_error(field):
    page = dict(new_page("http://a.com/", score=1.5, status=3))
    del page[field]
    _assert_as_fastavro(page)


@pytest.mark.parametrize(
    ("record", "expected_type"),
    [
        ({**new_page("http://a.com/"), "status": 2**63}, OverflowError),
        ({**new_page("http://a.com/"), "title": "\udc80"}, UnicodeEncodeError),
        ({**new_page("http://a.com/"), "outlinks": {b"k": "v"}}, TypeError),
        ({**new_page("http://a.com/"), "title": 3}, ValueError),
        ({"status": 1}, ValueError),
    ],
)
def test_fastavros_exceptions_come_through(record, expected_type):
    with pytest.raises(expected_type) as ours:
        _ours(record)
    with pytest.raises(expected_type) as theirs:
        _fastavro(record)
    assert str(ours.value) == str(theirs.value)


def test_a_record_as_a_mapping_that_is_not_a_dict_is_encoded_by_fastavro():
    page = new_page("http://a.com/", outlinks={"http://b.com/": "b"})
    ordered = collections.OrderedDict(page)
    with pytest.raises(avroencode.Fallback):
        FAST_PATH(ordered)
    assert _ours(ordered) == _fastavro(page)


def test_fastavros_rules_the_fallback_keeps():
    page = new_page("http://a.com/")
    # bool is an int to fastavro outside a union, not inside one
    assert _ours({**page, "status": True}) == _fastavro({**page, "status": 1})
    # an int or a numeric string in a float field is float() of it
    assert _ours({**page, "score": 2}) == _fastavro({**page, "score": 2.0})
    assert _ours({**page, "score": "0.5"}) == _fastavro({**page, "score": 0.5})
    # a double beyond float32 is written as infinity (C's float cast)
    beyond = _ours({**page, "score": 1e39})
    assert beyond == _fastavro({**page, "score": math.inf})


# --- real records: a small parse of the docs fixture ----------------------------


@pytest.fixture(scope="module")
def real_records() -> dict[str, list[Any]]:
    paths = sorted(DOCS_DIR.glob("library/*.html"))[:40]
    assert len(paths) == 40
    fetched = [_fetched(path) for path in paths]
    parser = PageParser(ParseConfig.from_properties(load_properties()))
    try:
        parsed = [parse_without_content(parser, page) for page in fetched]
    finally:
        parser.close()
    config = UpdateConfig.from_properties(load_properties())
    crawldb = [update_page(p["url"], None, p, [], config, NOW_MS) for p in parsed]
    for page in parsed[:10]:
        _, links = links_from(page, config)
        crawldb += [
            update_page(t, None, None, [link], config, NOW_MS) for t, link in links
        ]
    return {"fetched": fetched, "parsed": parsed, "crawldb": crawldb}


def _fetched(path: Path) -> Any:
    url = f"http://127.0.0.5/library/{path.name}"
    result = FetchResult(
        url, ProtocolStatus.SUCCESS, http_code=200, content=path.read_bytes(),
        content_type="text/html; charset=utf-8",
        headers=(("Content-Type", "text/html"), ("Server", "test")),
        response_time_ms=3, request_head=b"GET / HTTP/1.1\r\n\r\n",
    )  # fmt: skip
    return fetched_page(new_page(url, status=1, fetchTime=NOW_MS), result, NOW_MS + 7)


@pytest.mark.parametrize("kind", ["fetched", "parsed", "crawldb"])
def test_real_records_encode_as_fastavro_without_falling_back(real_records, kind):
    records = [record for record in real_records[kind] if record is not None]
    assert len(records) >= 40
    assert [FAST_PATH(record) for record in records] == [
        _fastavro(record) for record in records
    ]
    if kind == "parsed":
        assert sum(len(record["outlinks"]) for record in records) > 400


# --- files: the sink's blocks and the pipeline ------------------------------------


def _old_sink_file(path: Path, records: list[Any], sync_marker: bytes) -> bytes:
    """The file as the sink wrote it before: fastavro's ``Writer.write``."""
    with open(path, "wb") as handle:
        writer = fastavro.write.Writer(
            handle, schema(), "deflate", sync_interval=avro_io.SYNC_INTERVAL,
            compression_level=avro_io.DEFLATE_LEVEL, sync_marker=sync_marker,
        )  # fmt: skip
        writer.block_writer = avrodeflate.block_writer()
        for record in records:
            writer.write(record)
        writer.flush()
    return path.read_bytes()


def _block_counts(data: bytes) -> list[int]:
    return [block.num_records for block in fastavro.block_reader(io.BytesIO(data))]


def test_the_sinks_files_are_byte_for_byte_fastavros(real_records, tmp_path):
    records = real_records["fetched"] * 3 + real_records["parsed"]
    ours = _sink_file(tmp_path / "new.avro", records)
    marker = ours[-16:]
    before = _old_sink_file(tmp_path / "old.avro", records, marker)
    counts = _block_counts(ours)
    assert len(counts) >= 4
    assert sum(counts) == len(records)
    assert ours == before
    assert list(fastavro.reader(io.BytesIO(ours))) == records


def _sink_file(path: Path, records: list[Any]) -> bytes:
    sink = avro_io._DeflateAvroSink(
        str(path.parent / "part"), schema(), "deflate", ".avro", 0, "",
        "application/x-avro",
    )  # fmt: skip
    blocks = sink.open(str(path))
    for record in records:
        sink.write_record(blocks, record)
    sink.close(blocks)
    return path.read_bytes()


def test_write_webpages_reads_back_the_same_records(pipeline, real_records, tmp_path):
    records = real_records["parsed"] + [r for r in real_records["crawldb"] if r]
    odd = {**new_page("http://odd.com/"), "score": 2, "status": True}  # fastavro's
    with pipeline as p:
        _ = (
            p
            | beam.Create([*records, odd])
            | avro_io.WriteWebPages(str(tmp_path / "v"))
        )
    read: list[Any] = []
    for name in sorted(os.listdir(tmp_path / "v")):
        with open(tmp_path / "v" / name, "rb") as handle:
            read.extend(fastavro.reader(handle))
    expected = [*records, {**odd, "score": 2.0, "status": 1}]
    assert sorted(read, key=_key) == sorted(expected, key=_key)
    with beam.Pipeline() as p:
        again = p | avro_io.ReadWebPages(partfiles.parts_pattern(str(tmp_path / "v")))
        assert_that(
            again | beam.Map(lambda r: r["url"]), equal_to([_key(r) for r in expected])
        )


def _key(record: Any) -> str:
    return str(record["url"])


def test_generation_refuses_types_it_does_not_encode():
    for avro_type in ["enum", "fixed", "null"]:
        bad = {
            "type": "record",
            "name": "R",
            "fields": [{"name": "x", "type": avro_type}],
        }
        with pytest.raises(avroencode.UnsupportedSchemaError):
            avroencode.compile_encoder(bad)
    for field_type in [
        ["string", "null"], ["null", "string", "bytes"], "R",
        {"type": "long", "logicalType": "timestamp-millis"},
    ]:  # fmt: skip
        bad = {
            "type": "record",
            "name": "R",
            "fields": [{"name": "x", "type": field_type}],
        }
        with pytest.raises(avroencode.UnsupportedSchemaError):
            avroencode.compile_encoder(bad)


OTHER_SCHEMA = {
    "type": "record",
    "name": "Other",
    "fields": [
        {"name": "flag", "type": "boolean"},
        {"name": "ratio", "type": "double"},
        {"name": "count", "type": {"type": "long"}},
        {"name": "tags", "type": ["null", {"type": "array", "items": "string"}]},
        {"name": "sizes", "type": ["null", {"type": "map", "values": "int"}]},
        {"name": "flags", "type": {"type": "array", "items": ["null", "boolean"]}},
        {"name": "inner", "type": {"type": "record", "name": "In", "fields": [
            {"name": "weight", "type": "float"}, {"name": "blob", "type": "bytes"},
        ]}},
    ],
}  # fmt: skip
OTHER_PARSED = fastavro.parse_schema(OTHER_SCHEMA)
OTHER_ENCODE = avroencode.compile_encoder(OTHER_SCHEMA)
ODD = st.sampled_from([True, 1, 2.5, "s", b"b", None, ("a", "b"), ("array", ["x"])])


def _other_fastavro(record: Any) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, OTHER_PARSED, record)
    return out.getvalue()


@settings(max_examples=300)
@given(
    st.fixed_dictionaries(
        {
            "flag": st.booleans() | ODD,
            "ratio": st.floats() | ODD,
            "count": LONGS | ODD,
            "tags": st.none() | st.lists(UTF8_TEXT, max_size=3) | ODD,
            "sizes": st.none() | st.dictionaries(UTF8_TEXT, INTS32 | BEYOND) | ODD,
            "flags": st.lists(st.none() | st.booleans() | ODD, max_size=3) | ODD,
            "inner": st.fixed_dictionaries(
                {"weight": FLOATS | ODD, "blob": st.binary(max_size=5) | ODD}
            ),
        }
    )
)
def test_other_types_give_fastavros_bytes_or_error(record):
    assert _outcome(OTHER_ENCODE, record) == _outcome(_other_fastavro, record)


def test_other_types_take_the_generated_code():
    fast = avroencode.compile_fast_path(OTHER_SCHEMA)
    record = {
        "flag": True, "ratio": -0.1, "count": -(2**40), "tags": ["a", "é"],
        "sizes": {"k": INT_MIN, "": 70}, "flags": (None, False, True),
        "inner": {"weight": 0.5, "blob": b"\x00" * 70},
    }  # fmt: skip
    assert fast(record) == _other_fastavro(record)
    with pytest.raises(avroencode.Fallback):  # fastavro's tuple notation
        fast({**record, "tags": ("a", "b")})
