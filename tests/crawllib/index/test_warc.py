"""WARC records of fetched pages, from real fetches of the test servers."""

import base64
import dataclasses
import gzip
import hashlib
import io
import socket
import threading
import zlib
from typing import cast

import pytest
from warcio.archiveiterator import ArchiveIterator  # type: ignore[import-untyped]
from warcio.exceptions import ArchiveLoadFailed  # type: ignore[import-untyped]

from crawllib.config.fetch import HttpConfig
from crawllib.config.properties import load_properties
from crawllib.config.warc import WarcConfig
from crawllib.errors import ConfigError
from crawllib.fetch.protocol import FetchResult
from crawllib.fetch.protocol.http import HttpProtocol
from crawllib.fetch.records import IP_ADDRESS, REQUEST, RESPONSE_HEADERS, fetched_page
from crawllib.index import warc
from crawllib.index.warc import NoRecord
from crawllib.status import ProtocolStatus
from crawllib.webpage import WebPage, new_page

NOW = 1_700_000_000_123
HTTP = HttpConfig(user_agent="beamcrawl-test/1", agent_name="beamcrawl-test")
CONFIG = WarcConfig(http=HTTP)


def _fetch(url, config=HTTP, modified_ms=0):
    protocol = HttpProtocol(config)
    try:
        result = protocol.fetch(url, modified_ms)
    finally:
        protocol.close()
    return fetched_page(new_page(url, fetchTime=NOW - 5000), result, NOW)


def _records(page, config=CONFIG):
    found = warc.fetch_records(page, config)
    assert isinstance(found, warc.FetchRecords), found
    return list(_read(found.data))


def _read(data):
    for record in ArchiveIterator(io.BytesIO(data), check_digests="raise"):
        yield record, record.content_stream().read()


def _sha1(data):
    return "sha1:" + base64.b32encode(hashlib.sha1(data).digest()).decode()


class _CaptureServer:
    """One connection: keeps the request bytes, answers ``reply`` verbatim."""

    def __init__(self, host, reply):
        self.sock = socket.create_server((host, 0))
        self.url = f"http://{host}:{self.sock.getsockname()[1]}"
        self.request = b""
        self._reply = reply
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        connection, _ = self.sock.accept()
        with connection:
            while b"\r\n\r\n" not in self.request:
                self.request += connection.recv(4096)
            connection.sendall(self._reply)

    def close(self):
        self._thread.join(5)
        self.sock.close()


def test_nutch_store_http_request_headers_and_ip_are_the_bytes_on_the_wire():
    head = (
        b"HTTP/1.1 200 \r\nSet-Cookie: a=1\r\nX-Name: \xe9t\xe9\r\n"
        b"Set-Cookie: b=2\r\nContent-Length: 2\r\n\r\n"
    )
    server = _CaptureServer("127.0.0.3", head + b"hi")
    try:
        page = _fetch(server.url + "/a?b=1", modified_ms=1_600_000_000_000)
    finally:
        server.close()
    assert page["metadata"][REQUEST] == server.request
    assert server.request.startswith(b"GET /a?b=1 HTTP/1.1\r\nHost: 127.0.0.3:")
    assert b"\r\nIf-Modified-Since: Sun, 13 Sep 2020 12:26:40 GMT\r\n" in server.request
    assert page["metadata"][RESPONSE_HEADERS] == head  # order, repeats, raw bytes
    assert page["metadata"][IP_ADDRESS] == b"127.0.0.3"


def test_beamcrawl_store_flags_off_store_nothing(site):
    off = dataclasses.replace(
        HTTP, store_ip_address=False, store_http_request=False, store_http_headers=False
    )
    page = _fetch(site.url("/ok"), off)
    assert set(page["metadata"]) & {IP_ADDRESS, REQUEST, RESPONSE_HEADERS} == set()


def test_beamcrawl_defaults_store_what_a_warc_needs():
    http = HttpConfig.from_properties(load_properties([], ["http.agent.name=x"]))
    assert (
        http.store_ip_address,
        http.store_http_request,
        http.store_http_headers,
    ) == (
        True,
        True,
        True,
    )


def test_response_and_request_of_a_200(site):
    page = _fetch(site.url("/ok"))
    (request, _), (response, payload) = _records(page)
    assert request.rec_type == "request"
    assert response.rec_type == "response"
    assert request.rec_headers.get_header("WARC-Concurrent-To") == (
        response.rec_headers.get_header("WARC-Record-ID")
    )
    for record in (request, response):
        assert record.rec_headers.get_header("WARC-Target-URI") == site.url("/ok")
        assert record.rec_headers.get_header("WARC-Date") == "2023-11-14T22:13:20.123Z"
        assert record.rec_headers.get_header("WARC-IP-Address") == "127.0.0.1"
        assert record.rec_headers.protocol == "WARC/1.1"
    assert request.http_headers.protocol == "GET"
    assert request.http_headers.statusline == "/ok HTTP/1.1"
    assert request.rec_headers.get_header(warc.RECONSTRUCTED) is None
    assert response.http_headers.statusline == "200 OK"
    assert response.http_headers.get_header("Content-Length") == str(len(payload))
    assert payload == page["content"]
    assert response.rec_headers.get_header("WARC-Payload-Digest") == _sha1(payload)


def test_common_crawl_gzip_headers_renamed_digest_over_the_decoded_payload(site):
    page = _fetch(site.url("/gzip"))
    _, (response, payload) = _records(page)
    assert payload == page["content"]
    assert payload.startswith(b"<html><head><title>gzipped</title>")
    headers = response.http_headers
    assert headers.get_header("Content-Encoding") is None
    assert headers.get_header("X-Crawler-Content-Encoding") == "gzip"
    wire_length = int(headers.get_header("X-Crawler-Content-Length"))
    assert wire_length != len(payload)
    assert headers.get_header("Content-Length") == str(len(payload))
    assert response.rec_headers.get_header("WARC-Payload-Digest") == _sha1(payload)


def test_common_crawl_chunked_transfer_encoding_renamed(site):
    _, (response, payload) = _records(_fetch(site.url("/chunked")))
    assert payload == b"<html><body>chunked body</body></html>"
    assert response.http_headers.headers[-2:] == [
        ("X-Crawler-Transfer-Encoding", "chunked"),
        ("Content-Length", "38"),
    ]


def test_truncated_at_the_content_limit(site):
    http = dataclasses.replace(HTTP, content_limit=100)
    page = _fetch(site.url("/big/1000"), http)
    _, (response, payload) = _records(page, WarcConfig(http=http))
    assert payload == (b"0123456789" * 10)
    assert response.rec_headers.get_header("WARC-Truncated") == "length"
    assert response.http_headers.get_header("X-Crawler-Content-Length") == "1000"
    assert response.http_headers.get_header("Content-Length") == "100"


def test_redirect_and_404_are_responses(site):
    _, (moved, _) = _records(_fetch(site.url("/status/301")))
    assert moved.http_headers.statusline == "301 Moved Permanently"
    assert moved.http_headers.get_header("Location") == "/ok"
    _, (missing, payload) = _records(_fetch(site.url("/status/404")))
    assert missing.http_headers.statusline == "404 Not Found"
    assert payload == b""  # protocol-http keeps no body for a 404
    assert missing.rec_headers.get_header("WARC-Truncated") == "unspecified"
    assert missing.http_headers.get_header("Content-Length") == "0"


def test_not_modified_is_a_server_not_modified_revisit(site):
    page = _fetch(site.url("/modified"), modified_ms=1_600_000_000_000)
    assert page["protocolStatus"]["code"] == ProtocolStatus.NOTMODIFIED
    (request, _), (revisit, payload) = _records(page)
    assert b"If-Modified-Since" in page["metadata"][REQUEST]
    assert request.http_headers.get_header("If-Modified-Since") is not None
    assert revisit.rec_type == "revisit"
    assert revisit.rec_headers.get_header("WARC-Profile") == warc.NOT_MODIFIED_PROFILE
    assert revisit.rec_headers.get_header("WARC-Refers-To-Target-URI") == page["url"]
    assert revisit.rec_headers.get_header("WARC-Refers-To-Date") == (
        "2023-11-14T22:13:15.123Z"
    )
    assert revisit.http_headers.statusline == "304 Not Modified"
    assert payload == b""


def test_no_http_response_gives_no_record(site):
    assert warc.fetch_records(_fetch(site.url("/drop")), CONFIG) == NoRecord.NO_RESPONSE
    denied = FetchResult(site.url("/x"), ProtocolStatus.ROBOTS_DENIED, ("robots.txt",))
    page = fetched_page(new_page(site.url("/x")), denied, NOW)
    assert warc.fetch_records(page, CONFIG) == NoRecord.NO_RESPONSE
    unfetched = new_page(site.url("/y"))
    assert warc.fetch_records(unfetched, CONFIG) == NoRecord.NOT_FETCHED
    file_page = fetched_page(
        new_page("file:///tmp/a.html"),
        FetchResult("file:///tmp/a.html", ProtocolStatus.SUCCESS, content=b"a"),
        NOW,
    )
    assert warc.fetch_records(file_page, CONFIG) == NoRecord.NOT_HTTP


def test_request_reconstructed_when_not_stored(site):
    page = _fetch(site.url("/ok?x=1"))
    stored = page["metadata"][REQUEST]
    page = {
        **page,
        "metadata": {k: v for k, v in page["metadata"].items() if k != REQUEST},
    }
    (request, _), _ = _records(page)
    assert request.rec_headers.get_header(warc.RECONSTRUCTED) == "reconstructed"
    rebuilt = request.http_headers.to_str().encode() + b"\r\n"
    assert rebuilt == stored  # same bytes as sent, when no If-Modified-Since


def test_nutch_without_stored_headers_a_resource_record(site):
    page = _fetch(site.url("/ok"))
    meta = {k: v for k, v in page["metadata"].items() if k != RESPONSE_HEADERS}
    ((resource, payload),) = _records({**page, "metadata": meta})
    assert resource.rec_type == "resource"
    assert resource.rec_headers.get_header("Content-Type") == "text/html"
    assert payload == page["content"]
    gone = cast(WebPage, {**page, "metadata": meta, "content": None})
    assert warc.fetch_records(gone, CONFIG) == NoRecord.NO_STORED_HEADERS


def test_warcinfo_names_the_file_and_the_agent():
    ((info, payload),) = list(_read(warc.warcinfo_record("a.warc.gz", CONFIG, NOW)))
    assert info.rec_type == "warcinfo"
    assert info.rec_headers.get_header("WARC-Filename") == "a.warc.gz"
    assert info.rec_headers.get_header("WARC-Date") == "2023-11-14T22:13:20.123Z"
    fields = dict(line.split(": ", 1) for line in payload.decode().splitlines())
    assert fields == {
        "software": "beamcrawl/0.1.0",
        "format": "WARC File Format 1.1",
        "conformsTo": warc.CONFORMS_TO,
        "robots": "obey",
        "http-header-user-agent": "beamcrawl-test/1",
    }


@pytest.mark.parametrize(
    ("headers", "length", "kept", "expected"),
    [
        ([("Content-Length", "5")], 5, True, [("Content-Length", "5")]),
        ([], 5, True, [("Content-Length", "5")]),
        (
            [("Content-Encoding", "compress"), ("Content-Length", "5")],
            5,
            True,
            [("Content-Encoding", "compress"), ("Content-Length", "5")],
        ),  # not decoded: stays
        (
            [("Content-Encoding", "gzip"), ("Content-Encoding", "compress")],
            5,
            True,
            [
                ("Content-Encoding", "gzip"),
                ("Content-Encoding", "compress"),
                ("Content-Length", "5"),
            ],
        ),  # one coding not undone: none was
        (
            [("Content-Encoding", "gzip, br"), ("Content-Length", "3")],
            9,
            True,
            [
                ("X-Crawler-Content-Encoding", "gzip, br"),
                ("X-Crawler-Content-Length", "3"),
                ("Content-Length", "9"),
            ],
        ),
        (
            [("content-encoding", "x-gzip"), ("content-length", "3")],
            9,
            True,
            [
                ("X-Crawler-content-encoding", "x-gzip"),
                ("X-Crawler-content-length", "3"),
                ("Content-Length", "9"),
            ],
        ),
    ],
)
def test_common_crawl_payload_headers(headers, length, kept, expected):
    assert warc.payload_headers(headers, length, kept) == expected


def test_warc_date():
    assert warc.warc_date(1_700_000_000_000) == "2023-11-14T22:13:20Z"
    assert warc.warc_date(1_700_000_000_007) == "2023-11-14T22:13:20.007Z"


def test_max_size_must_be_positive():
    with pytest.raises(ConfigError, match=r"warc\.export\.max\.size"):
        WarcConfig.from_properties(load_properties([], ["warc.export.max.size=0"]))


def test_a_changed_payload_byte_fails_the_digest_check(site):
    found = warc.fetch_records(_fetch(site.url("/ok")), CONFIG)
    assert isinstance(found, warc.FetchRecords)
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    request = inflater.decompress(found.data)
    response = gzip.decompress(inflater.unused_data)
    tampered = gzip.compress(request) + gzip.compress(response.replace(b"ok<", b"OK<"))
    with pytest.raises(ArchiveLoadFailed, match="digest"):
        list(_read(tampered))
