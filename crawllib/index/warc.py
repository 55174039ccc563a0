"""WARC/1.1 records of fetched WebPages (Nutch's WARCExporter, Common Crawl's layout).

:func:`fetch_records` turns one page of a segment's ``fetch/`` part into its
records, gzipped one member per record as warcio's ``WARCWriter`` writes
them, so that records of many pages concatenate into a valid ``.warc.gz``:

- a ``request`` record (the request as sent, from the ``_request_``
  metadata; rebuilt from the URL and the ``http.*`` settings when the fetch
  did not store it, which ``X-Beamcrawl-Request: reconstructed`` says) and a
  ``response`` record (status line and headers as received, from
  ``_response.headers_``; payload the stored content), the request pointing
  at the response with ``WARC-Concurrent-To``;
- for a 304 (NOTMODIFIED) a ``revisit`` record with the
  ``server-not-modified`` profile instead of the response;
- where the stored body is not the body on the wire (content codings
  undone, de-chunked, cut at the content limit, or not kept), the original
  ``Content-Encoding``, ``Transfer-Encoding`` and ``Content-Length``
  headers are kept renamed ``X-Crawler-...`` as Common Crawl does, and
  ``Content-Length`` is the stored payload's;
- a page fetched without ``store.http.headers`` gives a ``resource`` record
  of its content, as Nutch's WARCExporter does; a fetch with no HTTP
  response (connection error, robots.txt denial, a file: URL) none.

``WARC-Date`` is the fetch time, ``WARC-IP-Address`` the ``_ip_`` metadata;
warcio computes ``WARC-Block-Digest`` and ``WARC-Payload-Digest`` (sha1,
base32).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from io import BytesIO
from typing import Any
from urllib.parse import urlsplit

from warcio.statusandheaders import StatusAndHeaders  # type: ignore[import-untyped]
from warcio.warcwriter import WARCWriter  # type: ignore[import-untyped]

from crawllib import __version__
from crawllib.config.warc import WarcConfig
from crawllib.fetch.protocol.http import request_headers
from crawllib.fetch.protocol.httpbody import content_codings, decodes
from crawllib.fetch.records import IP_ADDRESS, REQUEST, RESPONSE_HEADERS, TRUNCATED
from crawllib.status import ProtocolStatus
from crawllib.webpage import WebPage

WARC_VERSION = "WARC/1.1"
NOT_MODIFIED_PROFILE = "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
CONFORMS_TO = (
    "https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/"
)
RENAMED_PREFIX = "X-Crawler-"
"""Common Crawl's prefix for headers that no longer describe the payload."""
RECONSTRUCTED = "X-Beamcrawl-Request"
"""WARC header ``reconstructed`` on a request record not stored at fetch time."""


class NoRecord(enum.Enum):
    """Why a page of a fetch part gives no record; the value is its counter."""

    NOT_FETCHED = "skipped_not_fetched"  # in the fetch list, never fetched
    NOT_HTTP = "skipped_not_http"  # a file: URL
    NO_RESPONSE = "skipped_no_response"  # connection error, robots denial ...
    NO_STORED_HEADERS = "skipped_no_stored_headers"  # no headers, no content


@dataclass(frozen=True, slots=True)
class FetchRecords:
    """One fetch's records, serialized.

    Attributes:
        url: the page's URL.
        types: the WARC-Type of each record, in order.
        data: the records, each a gzip member.
    """

    url: str
    types: tuple[str, ...]
    data: bytes


def fetch_records(page: WebPage, config: WarcConfig) -> FetchRecords | NoRecord:
    """The WARC records of one fetched page, or why it has none."""
    status = page["protocolStatus"]
    if status is None:
        return NoRecord.NOT_FETCHED
    if urlsplit(page["url"]).scheme.lower() not in ("http", "https"):
        return NoRecord.NOT_HTTP
    metadata = page["metadata"]
    head = metadata.get(RESPONSE_HEADERS)
    if head is None and not page["headers"]:
        return NoRecord.NO_RESPONSE
    out = BytesIO()
    writer = WARCWriter(out, gzip=True, warc_version=WARC_VERSION)
    common = _common_headers(page)
    if head is None:
        if page["content"] is None:
            return NoRecord.NO_STORED_HEADERS
        writer.write_record(_resource(writer, page, common))
        return FetchRecords(page["url"], ("resource",), out.getvalue())
    if status["code"] == ProtocolStatus.NOTMODIFIED:
        main = _revisit(writer, page, head, common)
    else:
        main = _response(writer, page, head, common, config)
    request = _request(writer, page, common, config)
    request.rec_headers.add_header(
        "WARC-Concurrent-To", main.rec_headers.get_header("WARC-Record-ID")
    )
    writer.write_record(request)
    writer.write_record(main)
    return FetchRecords(page["url"], ("request", main.rec_type), out.getvalue())


def warcinfo_record(filename: str, config: WarcConfig, date_ms: int) -> bytes:
    """The ``warcinfo`` record that opens each file, as Common Crawl's."""
    out = BytesIO()
    writer = WARCWriter(out, gzip=True, warc_version=WARC_VERSION)
    info = {
        "software": f"beamcrawl/{__version__}",
        "format": "WARC File Format 1.1",
        "conformsTo": CONFORMS_TO,
        "isPartOf": config.is_part_of,
        "operator": config.operator,
        "description": config.description,
        "robots": "obey",  # robots.txt is checked before every fetch
        "http-header-user-agent": config.http.user_agent,
    }
    record = writer.create_warcinfo_record(filename, info)
    record.rec_headers.replace_header("WARC-Date", warc_date(date_ms))
    writer.write_record(record)
    return out.getvalue()


def warc_date(epoch_ms: int) -> str:
    """``epoch_ms`` as a WARC-Date: UTC, with milliseconds when there are any."""
    moment = datetime.fromtimestamp(epoch_ms / 1000, timezone.utc)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if epoch_ms % 1000:
        text += f".{epoch_ms % 1000:03d}"
    return text + "Z"


def parse_head(head: bytes) -> tuple[str, list[tuple[str, str]]]:
    """A stored status or request line and its headers (ISO-8859-1 bytes)."""
    lines = head.decode("latin-1").split("\r\n")
    headers = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if colon:
            headers.append((name, value.strip()))
    return lines[0], headers


def payload_headers(
    headers: Sequence[tuple[str, str]], payload_length: int, body_kept: bool
) -> list[tuple[str, str]]:
    """Headers fit for the stored payload, Common Crawl's ``X-Crawler-`` way.

    ``Transfer-Encoding`` always goes (the payload is de-chunked),
    ``Content-Encoding`` when protocol-http decoded the body and
    ``Content-Length`` when it no longer matches; each is kept renamed, and a
    ``Content-Length`` of the payload is added.
    """
    encoding = ", ".join(v for n, v in headers if n.lower() == "content-encoding")
    decoded = body_kept and decodes(content_codings(encoding))
    length = _header(headers, "Content-Length")
    renamed = {"transfer-encoding"}
    if decoded:
        renamed.add("content-encoding")
    if length and (decoded or length != str(payload_length)):
        renamed.add("content-length")
    fixed = [
        (RENAMED_PREFIX + name if name.lower() in renamed else name, value)
        for name, value in headers
    ]
    if fixed != list(headers) or not length:
        fixed = [(n, v) for n, v in fixed if n.lower() != "content-length"]
        fixed.append(("Content-Length", str(payload_length)))
    return fixed


def _header(headers: Sequence[tuple[str, str]], name: str) -> str:
    return next((v for n, v in headers if n.lower() == name.lower()), "")


def _common_headers(page: WebPage) -> dict[str, str]:
    headers = {"WARC-Date": warc_date(page["fetchTime"])}
    address = page["metadata"].get(IP_ADDRESS)
    if address:
        headers["WARC-IP-Address"] = address.decode("ascii", errors="replace")
    return headers


def _response(
    writer: Any,
    page: WebPage,
    head: bytes,
    common: dict[str, str],
    config: WarcConfig,
) -> Any:
    payload = page["content"] or b""
    status_line, headers = parse_head(head)
    body_kept = page["content"] is not None
    warc_headers = dict(common)
    if page["metadata"].get(TRUNCATED) == b"true":
        limit = config.http.content_limit
        cut = 0 <= limit <= len(payload)
        warc_headers["WARC-Truncated"] = "length" if cut else "unspecified"
    elif not body_kept and _header(headers, "Content-Length") not in ("", "0"):
        warc_headers["WARC-Truncated"] = "unspecified"  # the body was not kept
    http = StatusAndHeaders(
        status_line, payload_headers(headers, len(payload), body_kept)
    )
    return _record(writer, page, "response", payload, warc_headers, http)


def _revisit(writer: Any, page: WebPage, head: bytes, common: dict[str, str]) -> Any:
    status_line, headers = parse_head(head)
    warc_headers = {
        **common,
        "WARC-Profile": NOT_MODIFIED_PROFILE,
        "WARC-Refers-To-Target-URI": page["url"],
    }
    if page["prevFetchTime"] > 0:
        warc_headers["WARC-Refers-To-Date"] = warc_date(page["prevFetchTime"])
    http = StatusAndHeaders(status_line, headers)
    return _record(writer, page, "revisit", b"", warc_headers, http)


def _request(
    writer: Any, page: WebPage, common: dict[str, str], config: WarcConfig
) -> Any:
    stored = page["metadata"].get(REQUEST)
    warc_headers = dict(common)
    if stored is None:
        stored = _rebuilt_request(page["url"], config)
        warc_headers[RECONSTRUCTED] = "reconstructed"
    request_line, headers = parse_head(stored)
    http = StatusAndHeaders(request_line, headers)
    return _record(writer, page, "request", b"", warc_headers, http)


def _rebuilt_request(url: str, config: WarcConfig) -> bytes:
    """The request protocol-http sends for ``url``, If-Modified-Since aside."""
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    lines = [f"GET {target} HTTP/1.1", f"Host: {parts.netloc.rpartition('@')[2]}"]
    lines += [f"{n}: {v}" for n, v in request_headers(config.http).items()]
    return "\r\n".join([*lines, "", ""]).encode("latin-1", errors="replace")


def _resource(writer: Any, page: WebPage, common: dict[str, str]) -> Any:
    content = page["content"] or b""
    return writer.create_warc_record(
        page["url"],
        "resource",
        payload=BytesIO(content),
        length=len(content),
        warc_content_type=page["contentType"] or "application/octet-stream",
        warc_headers_dict=dict(common),
    )


def _record(
    writer: Any,
    page: WebPage,
    record_type: str,
    payload: bytes,
    warc_headers: dict[str, str],
    http: Any,
) -> Any:
    return writer.create_warc_record(
        page["url"],
        record_type,
        payload=BytesIO(payload),
        length=len(payload),
        warc_headers_dict=warc_headers,
        http_headers=http,
    )
