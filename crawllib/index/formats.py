"""Index actions as text: staging lines, Solr JSON updates, Elasticsearch bulk.

An action is an add (a :class:`~crawllib.index.index.IndexDocument`) or a
delete by id. Three encodings:

- :func:`action_line` / :func:`read_action_line`: one JSON object per line,
  how the index job hands actions from its pipeline to the tantivy writer.
- Solr's JSON update command syntax (Solr Reference Guide, "Indexing with
  Update Handlers", JSON: "Sending JSON Update Commands"): one object per
  file whose keys are commands, ``"add"`` repeated (the guide's own form:
  "the JSON object may contain multiple add commands") with ``doc`` and
  ``overwrite``, ``"delete"`` with ``{"id": ...}``, and a closing
  ``"commit"``. Repeated keys are valid JSON (RFC 8259 leaves them to the
  reader) and let each action be one line, so a file is written as a stream.
- Elasticsearch / OpenSearch ``_bulk`` NDJSON (Elasticsearch Reference,
  "Bulk API"): an action line ``{"index": {"_index", "_id"}}`` then the
  document's line, or a lone ``{"delete": {...}}``; every line, the last
  too, ends with a newline.
"""

from __future__ import annotations

import json
import time
from typing import Any

from crawllib.index.index import IndexDocument

SOLR_HEADER = "{"
SOLR_FOOTER = '"commit": {}}'


def document_fields(doc: IndexDocument) -> dict[str, Any]:
    """The document as Nutch field name -> value; absent fields left out.

    ``tstamp`` is ISO 8601 in UTC with milliseconds, as Solr's and
    Elasticsearch's date fields take it; ``anchor`` a list.
    """
    fields: dict[str, Any] = {"id": doc.id, "url": doc.url}
    if doc.orig is not None:
        fields["orig"] = doc.orig
    if doc.title is not None:
        fields["title"] = doc.title
    fields.update(
        content=doc.content,
        host=doc.host,
        site=doc.site,
        tstamp=iso_time(doc.tstamp_ms),
        boost=doc.boost,
    )
    if doc.digest is not None:
        fields["digest"] = doc.digest
    if doc.content_type is not None:
        fields["contentType"] = doc.content_type
    if doc.anchor:
        fields["anchor"] = list(doc.anchor)
    return fields


def iso_time(time_ms: int) -> str:
    """``2026-01-31T12:00:00.000Z`` for epoch milliseconds."""
    seconds, millis = divmod(time_ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def action_line(url: str, doc: IndexDocument | None) -> str:
    """A staging line: ``{"add": {fields}}`` or ``{"delete": url}``."""
    if doc is None:
        return _dumps({"delete": url})
    fields = document_fields(doc)
    fields["tstamp"] = doc.tstamp_ms
    return _dumps({"add": fields})


def read_action_line(line: str) -> tuple[str, IndexDocument | None]:
    """The ``(url, document or None for a delete)`` a staging line holds."""
    data = json.loads(line)
    if "delete" in data:
        return str(data["delete"]), None
    fields = data["add"]
    doc = IndexDocument(
        id=fields["id"],
        url=fields["url"],
        content=fields["content"],
        host=fields["host"],
        tstamp_ms=int(fields["tstamp"]),
        boost=float(fields["boost"]),
        title=fields.get("title"),
        digest=fields.get("digest"),
        content_type=fields.get("contentType"),
        orig=fields.get("orig"),
        anchor=tuple(fields.get("anchor", ())),
    )
    return doc.id, doc


def solr_line(url: str, doc: IndexDocument | None) -> str:
    """One command of a Solr JSON update file, with its trailing comma.

    A file is :data:`SOLR_HEADER`, these lines, then :data:`SOLR_FOOTER`.
    """
    if doc is None:
        return f'"delete": {_dumps({"id": url})},'
    command = {"doc": document_fields(doc), "overwrite": True}
    return f'"add": {_dumps(command)},'


def elastic_lines(url: str, doc: IndexDocument | None, index: str) -> str:
    """The bulk lines of one action, without the final newline (the sink adds it)."""
    meta = {"_index": index, "_id": url}
    if doc is None:
        return _dumps({"delete": meta})
    return _dumps({"index": meta}) + "\n" + _dumps(document_fields(doc))


def _dumps(value: object) -> str:
    """Compact JSON on one line (NDJSON forbids raw newlines; JSON escapes them)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
