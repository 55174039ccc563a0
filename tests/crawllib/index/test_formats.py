"""Index actions encoded for Solr and Elasticsearch, read back by strict readers.

The readers below are written from the formats' documentation, not from our
encoder, and refuse anything the documentation does not allow.
"""

import json

import pytest

from crawllib.index.formats import (
    SOLR_FOOTER,
    SOLR_HEADER,
    action_line,
    document_fields,
    elastic_lines,
    iso_time,
    read_action_line,
    solr_line,
)
from crawllib.index.index import IndexDocument

DOC = IndexDocument(
    id="http://a.com/x?q=1",
    url="http://a.com/x?q=1",
    content='Line one\nline "two" \u2028 café',
    host="a.com",
    tstamp_ms=1_700_000_000_123,
    boost=1.5,
    title="Café",
    digest="00ff",
    content_type="text/html",
    anchor=("Home", "Start"),
)
PLAIN = IndexDocument(
    id="http://b.com/", url="http://b.com/", content="", host="b.com",
    tstamp_ms=0, boost=1.0,
)  # fmt: skip

# Solr Reference Guide, "Uploading Data with Index Handlers", section "JSON
# Formatted Index Updates" / "Sending JSON Update Commands"
# (https://solr.apache.org/guide/8_7/uploading-data-with-index-handlers.html):
# one JSON object whose keys are commands; "add" (repeatable) takes an object
# with "doc" and optional "overwrite" / "commitWithin"; "delete" takes an id
# string, a list of ids, or {"id": ...} / {"query": ...}; "commit" and
# "optimize" an object of options.
_SOLR_COMMANDS = {"add", "delete", "commit", "optimize", "rollback"}


def read_solr_update(text):
    """The (command, value) pairs of a Solr JSON update message, in order."""
    pairs = json.loads(text, object_pairs_hook=lambda items: ("object", items))
    assert pairs[0] == "object", "the message must be one JSON object"
    commands: list[tuple[str, object]] = []
    for name, value in pairs[1]:
        assert name in _SOLR_COMMANDS, name
        if name == "add":
            assert value[0] == "object"
            options = dict(value[1])
            assert set(options) <= {"doc", "overwrite", "commitWithin"}
            assert isinstance(options.get("overwrite", True), bool)
            doc = options["doc"]
            assert doc[0] == "object"
            fields = dict(doc[1])
            assert len(fields) == len(doc[1]), "a field repeated"
            for field in fields.values():
                values = field if isinstance(field, list) else [field]
                assert all(isinstance(v, str | int | float | bool) for v in values)
            commands.append(("add", {**options, "doc": fields}))
        elif name == "delete":
            if isinstance(value, tuple):
                body = dict(value[1])
                assert set(body) in ({"id"}, {"query"}), body
                commands.append(("delete", body))
            else:
                assert isinstance(value, str | list)
                commands.append(("delete", value))
        else:
            assert value[0] == "object"
            commands.append((name, dict(value[1])))
    return commands


# Elasticsearch Reference, "Bulk API" (https://www.elastic.co/guide/en/
# elasticsearch/reference/current/docs-bulk.html), also OpenSearch's: NDJSON,
# "action_and_meta_data\n optional_source\n"; actions index, create, update
# (followed by a source line) and delete (not); "The final line of data must
# end with a newline character \n".
_ACTIONS_WITH_SOURCE = {"index", "create", "update"}
_METADATA = {"_index", "_id", "routing", "version", "version_type", "pipeline"}


def read_bulk(text):
    """The (action, metadata, source or None) of a bulk request body."""
    assert text.endswith("\n"), "the final line must end with a newline"
    lines = text[:-1].split("\n")
    actions = []
    while lines:
        action = json.loads(lines.pop(0))
        assert isinstance(action, dict)
        assert len(action) == 1
        ((name, meta),) = action.items()
        assert name in _ACTIONS_WITH_SOURCE | {"delete"}, name
        assert set(meta) <= _METADATA
        assert isinstance(meta["_id"], str)
        source = None
        if name in _ACTIONS_WITH_SOURCE:
            source = json.loads(lines.pop(0))
            assert isinstance(source, dict)
        actions.append((name, meta, source))
    return actions


def test_solr_file_is_one_update_message_of_adds_deletes_and_a_commit():
    lines = [solr_line(DOC.id, DOC), solr_line("http://gone/", None)]
    text = "\n".join([SOLR_HEADER, *lines, SOLR_FOOTER]) + "\n"

    assert read_solr_update(text) == [
        ("add", {"doc": document_fields(DOC), "overwrite": True}),
        ("delete", {"id": "http://gone/"}),
        ("commit", {}),
    ]


def test_an_empty_solr_file_only_commits():
    assert read_solr_update(SOLR_HEADER + "\n" + SOLR_FOOTER) == [("commit", {})]


def test_elasticsearch_bulk_index_and_delete_by_url_id():
    text = "".join(
        line + "\n"
        for line in (
            elastic_lines(DOC.id, DOC, "crawl"),
            elastic_lines("http://gone/", None, "crawl"),
        )
    )

    assert read_bulk(text) == [
        ("index", {"_index": "crawl", "_id": DOC.id}, document_fields(DOC)),
        ("delete", {"_index": "crawl", "_id": "http://gone/"}, None),
    ]


def test_nutch_field_names_and_values():
    assert document_fields(DOC) == {
        "id": DOC.id,
        "url": DOC.url,
        "title": "Café",
        "content": DOC.content,
        "host": "a.com",
        "site": "a.com",
        "tstamp": "2023-11-14T22:13:20.123Z",
        "boost": 1.5,
        "digest": "00ff",
        "contentType": "text/html",
        "anchor": ["Home", "Start"],
    }
    assert set(document_fields(PLAIN)) == {
        "id", "url", "content", "host", "site", "tstamp", "boost"
    }  # fmt: skip


@pytest.mark.parametrize("doc", [DOC, PLAIN])
def test_staging_lines_round_trip(doc):
    line = action_line(doc.id, doc)

    assert "\n" not in line
    assert read_action_line(line) == (doc.id, doc)


def test_staging_delete_round_trips():
    assert read_action_line(action_line("http://gone/", None)) == ("http://gone/", None)


def test_iso_time_keeps_milliseconds():
    assert iso_time(0) == "1970-01-01T00:00:00.000Z"
    assert iso_time(86_400_007) == "1970-01-02T00:00:00.007Z"
