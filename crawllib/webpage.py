"""The WebPage record: Nutch 2.x ``WebPage`` plus ``url``, kept as a plain dict.

fastavro reads and writes dicts, so a page is a dict whose keys are the field
names of ``schema/webpage.avsc``; :class:`WebPage` types it. Change a page by
returning a copy (``{**page, "fetchTime": now_ms}``), never in place.
"""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Iterable
from importlib import resources
from typing import Any, TypedDict


class ProtocolStatusRecord(TypedDict):
    """``WebPage.protocolStatus``: code (see ``status.ProtocolStatus``) and args."""

    code: int
    args: list[str]
    lastModified: int


class ParseStatusRecord(TypedDict):
    """``WebPage.parseStatus``: major/minor codes (see ``status``) and args."""

    majorCode: int
    minorCode: int
    args: list[str]


class WebPage(TypedDict):
    """One URL's record, field for field as ``schema/webpage.avsc``."""

    url: str
    baseUrl: str | None
    status: int
    fetchTime: int
    prevFetchTime: int
    fetchInterval: int
    retriesSinceFetch: int
    modifiedTime: int
    prevModifiedTime: int
    protocolStatus: ProtocolStatusRecord | None
    content: bytes | None
    contentType: str | None
    prevSignature: bytes | None
    signature: bytes | None
    title: str | None
    text: str | None
    parseStatus: ParseStatusRecord | None
    score: float
    reprUrl: str | None
    headers: dict[str, str | None]
    outlinks: dict[str, str | None]
    inlinks: dict[str, str | None]
    markers: dict[str, str | None]
    metadata: dict[str, bytes | None]
    batchId: str | None
    sitemaps: dict[str, str | None]
    stmPriority: float


@functools.cache
def schema() -> dict[str, Any]:
    """The WebPage Avro schema as a JSON dict (read once from package data)."""
    text = resources.files("crawllib").joinpath("schema/webpage.avsc").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


@functools.cache
def field_names() -> frozenset[str]:
    """The names of the WebPage fields."""
    return frozenset(field["name"] for field in schema()["fields"])


def new_page(url: str, **fields: Any) -> WebPage:
    """A WebPage with every field at its schema default, ``url`` and ``fields`` set.

    Built literally rather than by copying the schema defaults: this runs
    once per record and a deep copy costs ten times as much.

    Raises:
        KeyError: a name in ``fields`` is not a WebPage field.
    """
    page: WebPage = {
        "url": url,
        "baseUrl": None,
        "status": 0,
        "fetchTime": 0,
        "prevFetchTime": 0,
        "fetchInterval": 0,
        "retriesSinceFetch": 0,
        "modifiedTime": 0,
        "prevModifiedTime": 0,
        "protocolStatus": None,
        "content": None,
        "contentType": None,
        "prevSignature": None,
        "signature": None,
        "title": None,
        "text": None,
        "parseStatus": None,
        "score": 0.0,
        "reprUrl": None,
        "headers": {},
        "outlinks": {},
        "inlinks": {},
        "markers": {},
        "metadata": {},
        "batchId": None,
        "sitemaps": {},
        "stmPriority": 0.0,
    }
    if fields:
        unknown = fields.keys() - field_names()
        if unknown:
            raise KeyError(f"not WebPage fields: {sorted(unknown)}")
        page.update(fields)  # type: ignore[typeddict-item]
    return page


def latest(pages: Iterable[WebPage]) -> WebPage | None:
    """The most recently fetched of several records of one URL; None if none.

    Ties are broken by the whole record, so every runner picks the same one.
    """
    group = list(pages)
    if len(group) <= 1:
        return group[0] if group else None
    return max(group, key=lambda page: (page["fetchTime"], repr(sorted(page.items()))))


def to_json_value(value: Any) -> Any:
    """Make a field value JSON-safe: bytes become text where that is lossless.

    Bytes that decode as UTF-8 without control characters become that text;
    other bytes become ``"base64:<data>"``. Used by ``readdb --dump``.
    """
    if isinstance(value, bytes):
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is not None and text.isprintable() and not text.startswith("base64:"):
            return text
        return "base64:" + base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {key: to_json_value(item) for key, item in value.items()}
    if isinstance(value, list):
        return [to_json_value(item) for item in value]
    return value


def to_json_line(page: WebPage) -> str:
    """One page as a line of JSON (signatures as hex, other bytes as text)."""
    record = {key: to_json_value(value) for key, value in page.items()}
    for key in ("signature", "prevSignature"):
        raw = page.get(key)
        if isinstance(raw, bytes):
            record[key] = raw.hex()
    return json.dumps(record, ensure_ascii=False, sort_keys=False)
