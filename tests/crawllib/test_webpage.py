import io
import json
import typing

import fastavro
import pytest

from crawllib import webpage
from crawllib.webpage import WebPage, new_page, to_json_line, to_json_value

NUTCH_2X_FIELDS = [
    "baseUrl", "status", "fetchTime", "prevFetchTime", "fetchInterval",
    "retriesSinceFetch", "modifiedTime", "prevModifiedTime", "protocolStatus",
    "content", "contentType", "prevSignature", "signature", "title", "text",
    "parseStatus", "score", "reprUrl", "headers", "outlinks", "inlinks",
    "markers", "metadata", "batchId", "sitemaps", "stmPriority",
]  # fmt: skip


def test_nutch_schema_is_webpage_avsc_field_for_field_plus_url():
    fields = [field["name"] for field in webpage.schema()["fields"]]
    assert fields == ["url", *NUTCH_2X_FIELDS]
    assert webpage.schema()["namespace"] == "org.apache.nutch.storage"


def test_typed_dict_keys_agree_with_the_schema():
    fields = [field["name"] for field in webpage.schema()["fields"]]
    assert list(typing.get_type_hints(WebPage)) == fields


def test_nutch_nested_status_records():
    types = {field["name"]: field["type"] for field in webpage.schema()["fields"]}
    protocol = types["protocolStatus"][1]
    parse = types["parseStatus"][1]
    assert [f["name"] for f in protocol["fields"]] == ["code", "args", "lastModified"]
    assert [f["name"] for f in parse["fields"]] == ["majorCode", "minorCode", "args"]


def test_new_page_round_trips_through_avro():
    page = new_page(
        "http://example.com/",
        status=2,
        score=0.5,
        signature=b"\x00\x01",
        metadata={"k": b"v"},
        protocolStatus={"code": 1, "args": [], "lastModified": 0},
    )
    buffer = io.BytesIO()
    fastavro.writer(buffer, fastavro.parse_schema(webpage.schema()), [page])
    buffer.seek(0)
    (back,) = list(fastavro.reader(buffer))
    assert back == page


def test_new_page_defaults_are_the_schema_defaults():
    defaults = {f["name"]: f.get("default") for f in webpage.schema()["fields"]}
    assert new_page("http://a/") == {**defaults, "url": "http://a/"}


def test_new_pages_do_not_share_containers():
    first = new_page("http://a/")
    first["metadata"]["x"] = b"1"
    assert new_page("http://b/")["metadata"] == {}


def test_new_page_rejects_unknown_fields():
    with pytest.raises(KeyError, match="nope"):
        new_page("http://a/", nope=1)


def test_json_values_keep_text_and_encode_binary():
    assert to_json_value(b"plain") == "plain"
    assert to_json_value(b"\x00\xff") == "base64:AP8="
    assert to_json_value({"a": [b"x"]}) == {"a": ["x"]}


def test_json_line_prints_signatures_in_hex():
    line = to_json_line(new_page("http://a/", signature=b"\xab\xcd"))
    record = json.loads(line)
    assert record["signature"] == "abcd"
    assert record["url"] == "http://a/"


def test_latest_picks_the_newest_fetch_whatever_the_order():
    from crawllib.webpage import latest

    old, new = new_page("http://a/", fetchTime=1), new_page("http://a/", fetchTime=2)
    assert latest([old, new]) is new
    assert latest([new, old]) is new
    assert latest([]) is None
    tie = [new_page("http://a/", fetchTime=2, score=s) for s in (1.0, 2.0)]
    assert latest(tie) == latest(list(reversed(tie)))
