"""HttpProtocol against real servers on 127.0.0.x (tests/sites.py)."""

from __future__ import annotations

import itertools
import threading
import tracemalloc
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

import pytest

from crawllib.config import HttpConfig, load_properties
from crawllib.fetch.protocol.http import HttpProtocol
from crawllib.fetch.protocol.httpmessage import parse_http_date
from crawllib.status import ProtocolStatus
from crawllib.urls.zone import Zone
from tests.sites import (
    LAST_MODIFIED,
    RawReply,
    RawSite,
    encoded_text,
    refused_url,
)

S = ProtocolStatus
ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
ACCEPT_LANGUAGE = "en-us,en-gb,en;q=0.7,*;q=0.3"
ACCEPT_CHARSET = "utf-8,iso-8859-1;q=0.7,*;q=0.7"


def _config(**overrides: object) -> HttpConfig:
    values: dict[str, object] = {
        "user_agent": "beamcrawl-test/1.0",
        "agent_name": "beamcrawl-test",
        "timeout_s": 5.0,
    }
    values.update(overrides)
    return HttpConfig(**values)  # type: ignore[arg-type]


@pytest.fixture
def http() -> Iterator[HttpProtocol]:
    protocol = HttpProtocol(_config())
    yield protocol
    protocol.close()


def _page(title: str) -> bytes:
    return (
        f"<html><head><title>{title}</title></head><body>{title}</body></html>".encode()
    )


# --- HTTP code -> ProtocolStatus (reference 6.5) ---------------------------

_TABLE = [
    (200, S.SUCCESS, None),
    (300, S.MOVED, "{ok}"),
    (301, S.MOVED, "{ok}"),
    (302, S.TEMP_MOVED, "{ok}"),
    (303, S.TEMP_MOVED, "{ok}"),
    (304, S.NOTMODIFIED, "{ok}"),
    (305, S.MOVED, "{ok}"),
    (306, S.MOVED, "{ok}"),
    (307, S.TEMP_MOVED, "{ok}"),
    (308, S.MOVED, "{ok}"),
    (399, S.MOVED, "{ok}"),
    (400, S.GONE, "{url}"),
    (401, S.ACCESS_DENIED, "Authentication required: {url}"),
    (403, S.EXCEPTION, "Http code=403, url={url}"),
    (404, S.NOTFOUND, "{url}"),
    (410, S.GONE, "Http: 410 url={url}"),
    (429, S.EXCEPTION, "Http code=429, url={url}"),
    (500, S.EXCEPTION, "Http code=500, url={url}"),
    (503, S.EXCEPTION, "Http code=503, url={url}"),
    (204, S.EXCEPTION, "Http code=204, url={url}"),
    (206, S.EXCEPTION, "Http code=206, url={url}"),
]


@pytest.mark.parametrize(("code", "status", "arg"), _TABLE)
def test_nutch_http_code_to_protocol_status(http, site, code, status, arg):
    # HttpBase.getProtocolOutput; content only for 200 and redirects
    url = site.url(f"/status/{code}")

    result = http.fetch(url)

    assert result.status == status
    assert result.http_code == code
    expected_args = () if arg is None else (arg.format(ok=site.url("/ok"), url=url),)
    assert result.args == expected_args
    kept = status in (S.SUCCESS, S.MOVED, S.TEMP_MOVED)
    assert result.content == (_page(f"status {code}") if kept else None)
    assert result.truncated is False


@pytest.mark.parametrize(
    ("location", "target"),
    [
        ("/a/b", "{base}/a/b"),
        ("../up", "{base}/up"),
        ("next", "{base}/redirect/next"),
        ("?q=2", "{base}/redirect/301?q=2"),
        ("http://127.0.0.2:1/elsewhere", "http://127.0.0.2:1/elsewhere"),
        ("//example.org/z", "http://example.org/z"),
    ],
)
def test_nutch_redirect_target_is_absolute(http, site, location, target):
    # HttpBase: new URL(url, Location)
    result = http.fetch(site.url(f"/redirect/301?to={quote(location, safe='')}"))

    assert result.status == S.MOVED
    assert result.args == (target.format(base=site.base),)
    assert result.redirect_target == target.format(base=site.base)
    assert result.content == b"moved"  # the redirect body is passed on


@pytest.mark.parametrize(("code", "status"), [(301, S.MOVED), (302, S.TEMP_MOVED)])
def test_nutch_redirect_without_location_targets_the_url_itself(
    http, site, code, status
):
    url = site.url(f"/nolocation/{code}")

    result = http.fetch(url)

    assert (result.status, result.args) == (status, (url,))


# --- Location bytes as the server sent them ----------------------------------

# (Location bytes, the target from /dir/start); "{base}" is the server
LOCATIONS = [
    pytest.param(b"/\xc3\xbcn\xc3\xafc\xc3\xb6d\xc3\xa9", "{base}/ünïcödé", id="utf-8"),
    pytest.param(b"/caf\xe9", "{base}/caf%E9", id="latin-1"),
    pytest.param(b"/%C3%BCber", "{base}/%C3%BCber", id="percent-encoded"),
    pytest.param(b"/%c3%bcber", "{base}/%c3%bcber", id="percent-encoded-lowercase"),
    pytest.param(b"/\xc3\xbc%C3%BC\xe9", "{base}/ü%C3%BC%E9", id="mixed"),
    pytest.param(
        b"/a?q=\xe2\x98\x83&r=%E2%98%83", "{base}/a?q=☃&r=%E2%98%83", id="query"
    ),
    pytest.param(b"\xc3\xa9t\xc3\xa9/x", "{base}/dir/été/x", id="bare-path"),
    pytest.param(
        b"http://b\xc3\xbccher.example/\xc3\xbc", "http://bücher.example/ü", id="idn"
    ),
    pytest.param(b"/\xc3\xbc\xff\xc3", "{base}/ü%FF%C3", id="utf-8-then-invalid"),
    pytest.param(b"/\xed\xa0\x80", "{base}/%ED%A0%80", id="encoded-surrogate"),
    pytest.param(b"/\xc3\xbc \t", "{base}/ü", id="trailing-blanks"),
    pytest.param(b"/a\xc2\xa0", "{base}/a\xa0", id="nbsp-is-no-blank"),
]


@pytest.fixture
def raw_site() -> Iterator[RawSite]:
    server = RawSite("127.0.0.13", {})
    yield server
    server.stop()


@pytest.mark.parametrize(("location", "target"), LOCATIONS)
def test_beamcrawl_location_bytes_are_read_as_browsers_read_them(
    http, raw_site, location, target
):
    # UTF-8 as UTF-8, other bytes >= 0x80 percent-encoded as they are
    # (web-platform-tests fetch/api/redirect/redirect-location-escape);
    # Nutch's protocol-http reads ISO-8859-1: "/Ã¼nÃ¯cÃ¶dÃ©"
    raw_site.replies[b"/dir/start"] = RawReply(
        b"302 Found", (b"Location: " + location,), b"moved"
    )

    result = http.fetch(raw_site.url("/dir/start"))

    assert result.status == S.TEMP_MOVED
    assert result.args == (target.format(base=raw_site.base),)
    assert raw_site.requested() == [b"/dir/start"]


def test_redirects_are_never_followed(http, site):
    result = http.fetch(site.url("/loop/0"))

    assert result.status == S.TEMP_MOVED
    assert result.args == (site.url("/loop/1"),)
    assert [r.path for r in site.requests_for("/loop")] == ["/loop/0"]


# --- failures are EXCEPTION results, never raised --------------------------


def test_read_timeout_is_an_exception(site):
    site.hold("/page/held", lambda: False)  # answered only when the site stops
    protocol = HttpProtocol(_config(timeout_s=0.3))

    result = protocol.fetch(site.url("/page/held"))
    protocol.close()

    assert result.status == S.EXCEPTION
    assert result.args[0].startswith("ReadTimeout: ")
    assert (result.http_code, result.content) == (0, None)
    assert [r.ended for r in site.requests_for("/page/held")] == [0.0]  # unanswered


def test_connection_refused_is_an_exception(http):
    result = http.fetch(refused_url())

    assert result.status == S.EXCEPTION
    assert result.args == (
        "ConnectionError: ConnectionRefusedError: [Errno 111] Connection refused",
    )


def test_dns_failure_is_an_exception(http):
    result = http.fetch("http://no-such-host.invalid/page")

    assert result.status == S.EXCEPTION
    assert result.args[0].startswith("ConnectionError: gaierror: ")


def test_dropped_connection_is_an_exception(http, site):
    result = http.fetch(site.url("/drop"))

    assert result.status == S.EXCEPTION
    assert result.args == (
        "ConnectionError: RemoteDisconnected: "
        "Remote end closed connection without response",
    )


def test_tls_failure_is_an_exception(http, site):
    result = http.fetch(f"https://127.0.0.1:{site.port}/ok")  # a plain-HTTP port

    assert result.status == S.EXCEPTION
    assert result.args[0].startswith("SSLError: ")
    assert result.http_code == 0


def test_nutch_body_cut_short_on_200_is_an_exception(http, site):
    # protocol-http: a failed body read on 200 is raised -> EXCEPTION
    result = http.fetch(site.url("/short/100"))

    assert result.status == S.EXCEPTION
    assert result.args[0].startswith("ProtocolError: IncompleteRead")
    assert result.content is None


def test_beamcrawl_response_without_status_line_is_an_exception(http, site):
    # Nutch reads it as HTTP/0.9 (code 200); requests cannot
    result = http.fetch(site.url("/malformed"))

    assert result.status == S.EXCEPTION
    assert result.args[0].startswith("ConnectionError: BadStatusLine: ")


def test_unparsable_url_is_an_exception(http):
    result = http.fetch("http://[::1/page")

    assert result.status == S.EXCEPTION
    assert result.args == ("ValueError: Invalid IPv6 URL",)


@pytest.mark.parametrize(
    "url", ["ftp://example.org/x", "file:/etc/hosts", "mailto:a@b"]
)
def test_other_schemes_have_no_protocol(http, url):
    result = http.fetch(url)

    assert result.status == S.PROTO_NOT_FOUND
    assert result.args == (f"protocol not found for url={url}",)


# --- body: encodings, chunks, limits ---------------------------------------


@pytest.mark.parametrize("kind", ["gzip", "x-gzip", "deflate", "rawdeflate"])
def test_nutch_compressed_bodies_are_decoded(http, site, kind):
    result = http.fetch(site.url(f"/encoded/{kind}?size=5000"))

    assert result.status == S.SUCCESS
    assert result.content == encoded_text(5000)
    assert result.truncated is False


def test_gzip_and_deflate_routes(http, site):
    assert http.fetch(site.url("/gzip")).content == _page("gzipped")
    assert http.fetch(site.url("/deflate")).content == _page("deflated")


def test_nutch_unknown_content_encoding_is_kept_as_sent(http, site):
    # beamcrawl names the coding too, and the parse step fails the page
    result = http.fetch(site.url("/encoded/compress?size=300"))

    assert (result.content, result.undecoded) == (encoded_text(300), "compress")


def test_chunked_body(http, site):
    result = http.fetch(site.url("/chunked"))

    assert result.content == b"<html><body>chunked body</body></html>"
    assert result.truncated is False
    assert ("Transfer-Encoding", "chunked") in result.headers


def test_chunked_body_cut_at_the_limit(site):
    protocol = HttpProtocol(_config(content_limit=15))

    result = protocol.fetch(site.url("/chunked"))
    protocol.close()

    assert (result.content, result.truncated) == (b"<html><body>chu", True)


@pytest.mark.parametrize(
    ("size", "truncated"), [(99, False), (100, False), (101, True)]
)
def test_nutch_content_limit(site, size, truncated):
    protocol = HttpProtocol(_config(content_limit=100))

    result = protocol.fetch(site.url(f"/big/{size}"))
    protocol.close()

    assert result.status == S.SUCCESS
    assert result.content == (b"0123456789" * 10)[: min(size, 100)]
    assert result.truncated is truncated


def test_nutch_content_limit_minus_one_is_no_limit(site):
    protocol = HttpProtocol(_config(content_limit=-1))

    result = protocol.fetch(site.url("/big/3000000"))
    protocol.close()

    assert result.content == (b"0123456789" * 300000)
    assert result.truncated is False


def test_content_limit_applies_to_the_decoded_gzip_body(site):
    protocol = HttpProtocol(_config(content_limit=1000))

    result = protocol.fetch(site.url("/encoded/gzip?size=100000"))
    protocol.close()

    assert result.content == encoded_text(1000)
    assert result.truncated is True


def test_gzip_bomb_stops_at_the_limit_in_little_memory(site):
    protocol = HttpProtocol(_config(content_limit=64 * 1024))
    url = site.url("/encoded/gzip?size=100000000&fill=zero")  # 100 MB of zeros

    tracemalloc.start()
    try:
        result = protocol.fetch(url)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        protocol.close()

    assert result.status == S.SUCCESS
    assert result.content == bytes(64 * 1024)
    assert result.truncated is True
    assert peak < 4 * 1024 * 1024  # measured ~0.6 MB, server included


def test_nutch_corrupt_gzip_on_200_is_an_exception(http, site):
    # HttpBase.processGzipEncoded: "unzipBestEffort returned null"
    result = http.fetch(site.url("/encoded/garbage"))

    assert result.status == S.EXCEPTION
    assert result.args[0].startswith("corrupt gzip body: ")
    assert (result.http_code, result.content) == (200, None)


@pytest.mark.parametrize(("code", "status"), [(301, S.MOVED), (404, S.NOTFOUND)])
def test_nutch_corrupt_body_on_other_codes_keeps_the_code(http, site, code, status):
    result = http.fetch(site.url(f"/encoded/garbage?code={code}"))

    assert (result.status, result.http_code, result.content) == (status, code, None)


def test_nutch_gzip_cut_short_keeps_what_was_decoded(http, site):
    # GZIPUtils.unzipBestEffort keeps the output before the error
    result = http.fetch(site.url("/encoded/gzip?size=100000&cut=3000"))

    assert result.status == S.SUCCESS
    assert result.content
    assert encoded_text(100000).startswith(result.content)
    assert result.truncated is True


def test_body_read_stops_at_the_time_limit(site):
    # each look at the clock is a second later: the limit of 3 s comes after
    # two reads (of 64 KiB at most), whatever the speed of the machine
    ticks = itertools.count()
    config = _config(content_limit=-1)
    protocol = HttpProtocol(config, time_limit_s=3.0, clock=lambda: float(next(ticks)))

    result = protocol.fetch(site.url("/big/1000000"))
    protocol.close()

    body = (b"0123456789" * 100_000)[:1_000_000]
    assert result.status == S.SUCCESS
    assert result.truncated is True
    assert result.content  # what came by then is kept
    assert body.startswith(result.content)
    assert len(result.content) < len(body)


@pytest.mark.parametrize(
    ("timeout_s", "limit_s"), [(10.0, 30.0), (2.0, 30.0), (20.0, 60.0)]
)
def test_default_time_limit_is_three_timeouts_at_least_30s(timeout_s, limit_s):
    assert HttpProtocol(_config(timeout_s=timeout_s)).time_limit_s == limit_s


# --- connections ------------------------------------------------------------


def test_connections_are_reused_but_not_after_a_truncated_body(site):
    protocol = HttpProtocol(_config(content_limit=1000))

    first = protocol.fetch(site.url("/peer")).content
    again = protocol.fetch(site.url("/peer")).content
    cut = protocol.fetch(site.url("/big/5000000"))  # reuses, then closes it
    after = protocol.fetch(site.url("/peer")).content
    protocol.close()

    assert first == again
    assert cut.truncated is True
    assert after != first


def test_many_threads_share_one_protocol(http, site, sites):
    other = sites("127.0.0.2")
    urls = [s.url(f"/page/{i}") for i in range(60) for s in (site, other)]

    with ThreadPoolExecutor(max_workers=64) as pool:
        results = list(pool.map(http.fetch, urls))

    assert [r.status for r in results] == [S.SUCCESS] * len(urls)
    assert [r.content for r in results] == [
        _page(f"page {url.rsplit('/', 1)[1]}") for url in urls
    ]


# --- request headers (reference 6.3) ---------------------------------------


def test_beamcrawl_request_headers(site):
    # Nutch 1.x protocol-http's headers and order; br and zstd are accepted too
    props = load_properties(
        defines=[
            "http.agent.name=testbot",
            "http.agent.description=a test crawler",
            "http.agent.url=http://example.org/bot",
            "http.agent.email=bot@example.org",
        ]
    )
    protocol = HttpProtocol(HttpConfig.from_properties(props))

    protocol.fetch(site.url("/ok"))
    protocol.close()

    sent = site.requests_for("/ok")[0].headers
    assert list(sent.items()) == [
        ("Host", f"127.0.0.1:{site.port}"),
        ("Accept-Encoding", "x-gzip, gzip, deflate, br, zstd"),
        (
            "User-Agent",
            "testbot/Nutch-1.23-SNAPSHOT "
            "(a test crawler; http://example.org/bot; bot@example.org)",
        ),
        ("Accept-Language", ACCEPT_LANGUAGE),
        ("Accept-Charset", ACCEPT_CHARSET),
        ("Accept", ACCEPT),
    ]


def test_nutch_empty_accept_headers_are_not_sent(site):
    protocol = HttpProtocol(_config(accept="", accept_language="", accept_charset=""))

    protocol.fetch(site.url("/ok"))
    protocol.close()

    assert list(site.requests_for("/ok")[0].headers) == [
        "Host",
        "Accept-Encoding",
        "User-Agent",
    ]


def test_nutch_if_modified_since_is_sent_when_enabled_and_known(http, site):
    http.fetch(site.url("/ok"), modified_time_ms=1_600_000_000_999)
    http.fetch(site.url("/ok"), modified_time_ms=0)

    first, second = site.requests_for("/ok")
    assert first.headers["If-Modified-Since"] == "Sun, 13 Sep 2020 12:26:40 GMT"
    assert list(first.headers)[-1] == "If-Modified-Since"
    assert "If-Modified-Since" not in second.headers


def test_nutch_if_modified_since_can_be_disabled(site):
    protocol = HttpProtocol(_config(if_modified_since=False))

    protocol.fetch(site.url("/ok"), modified_time_ms=1_600_000_000_000)
    protocol.close()

    assert "If-Modified-Since" not in site.requests_for("/ok")[0].headers


def test_nutch_not_modified_page(http, site):
    url = site.url("/modified")

    unchanged = http.fetch(url, modified_time_ms=1_600_000_000_000)
    fresh = http.fetch(url)

    assert unchanged.status == S.NOTMODIFIED
    assert unchanged.args == (url,)  # no Location: the URL itself
    assert unchanged.content is None
    assert fresh.status == S.SUCCESS
    assert fresh.last_modified_ms == 1_600_000_000_000
    assert ("Last-Modified", LAST_MODIFIED) in fresh.headers


# --- response fields --------------------------------------------------------


def test_response_headers_in_arrival_order(http, site):
    result = http.fetch(site.url("/ok"))

    assert [name for name, _ in result.headers] == [
        "Server",
        "Date",
        "Content-Type",
        "Content-Length",
    ]
    assert result.content_type == "text/html; charset=utf-8"
    assert ("Content-Length", "58") in result.headers
    assert result.last_modified_ms == 0


@pytest.mark.parametrize(
    ("value", "ms"),
    [
        ("Sun, 13 Sep 2020 12:26:40 GMT", 1_600_000_000_000),  # RFC 1123
        ("Sunday, 13-Sep-20 12:26:40 GMT", 1_600_000_000_000),  # RFC 850
        ("Sun Sep 13 12:26:40 2020", 1_600_000_000_000),  # asctime
        ("Sun, 13 Sep 2020 14:26:40 +0200", 1_600_000_000_000),
        ("yesterday", 0),
        ("", 0),
        (None, 0),
    ],
)
def test_last_modified_parsing(value, ms):
    assert parse_http_date(value) == ms


def _requests_seen(site):
    """A clock that reads the server's log: one second per request it got."""
    return lambda: float(len(site.requests_for("/")))


def test_response_time_runs_from_before_the_request_to_after_the_answer(site):
    protocol = HttpProtocol(_config(), clock=_requests_seen(site))

    result = protocol.fetch(site.url("/ok"))
    protocol.close()

    assert result.response_time_ms == 1000


def test_nutch_response_time_can_be_switched_off(site):
    protocol = HttpProtocol(
        _config(store_response_time=False), clock=_requests_seen(site)
    )

    result = protocol.fetch(site.url("/ok"))
    protocol.close()

    assert result.response_time_ms == 0


# --- proxy ------------------------------------------------------------------


class _ProxyHandler(BaseHTTPRequestHandler):
    """A forward proxy that answers itself: it logs absolute-URL request lines."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.server.seen.append(self.requestline)  # type: ignore[attr-defined]
        body = f"proxied {self.path}".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def proxy() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.2", 0), _ProxyHandler)
    server.daemon_threads = True
    server.seen = []  # type: ignore[attr-defined]
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    yield server
    server.shutdown()
    server.server_close()


def test_nutch_requests_go_through_the_proxy(proxy):
    port = proxy.server_address[1]
    protocol = HttpProtocol(_config(proxy_host="127.0.0.2", proxy_port=port))

    result = protocol.fetch("http://origin.invalid/page?q=1")
    protocol.close()

    assert result.status == S.SUCCESS
    assert result.content == b"proxied http://origin.invalid/page?q=1"
    assert proxy.seen == ["GET http://origin.invalid/page?q=1 HTTP/1.1"]


def test_nutch_proxy_exception_list_goes_direct(proxy, site):
    port = proxy.server_address[1]
    config = _config(
        proxy_host="127.0.0.2", proxy_port=port, proxy_exceptions=("127.0.0.1",)
    )
    protocol = HttpProtocol(config)

    direct = protocol.fetch(site.url("/ok"))
    proxied = protocol.fetch("http://origin.invalid/x")
    protocol.close()

    assert direct.content == _page("ok")
    assert len(site.requests_for("/ok")) == 1
    assert proxied.content == b"proxied http://origin.invalid/x"
    assert proxy.seen == ["GET http://origin.invalid/x HTTP/1.1"]


def test_proxy_settings_from_properties(proxy):
    props = load_properties(
        defines=[
            "http.agent.name=testbot",
            "http.proxy.host=127.0.0.2",
            f"http.proxy.port={proxy.server_address[1]}",
            "http.proxy.exception.list=localhost,example.org",
        ]
    )
    protocol = HttpProtocol(HttpConfig.from_properties(props))

    result = protocol.fetch("http://example.net/y")
    protocol.close()

    assert result.content == b"proxied http://example.net/y"


def test_beamcrawl_through_a_proxy_an_address_the_zone_may_not_reach_is_refused(
    proxy,
):
    port = proxy.server_address[1]
    protocol = HttpProtocol(_config(proxy_host="127.0.0.2", proxy_port=port))

    refused = protocol.fetch("http://0x7f000001:8080/admin", zone=Zone.PUBLIC)
    metadata = protocol.fetch("http://metadata.google.internal/x", zone=Zone.LOCAL)
    named = protocol.fetch("http://origin.invalid/page", zone=Zone.PUBLIC)
    inside = protocol.fetch("http://10.1.2.3/page", zone=Zone.PRIVATE)
    protocol.close()

    # the proxy resolves names: only what the URL spells is checked here
    assert (refused.status, metadata.status) == (S.ADDRESS_DENIED, S.ADDRESS_DENIED)
    assert refused.args == (
        "0x7f000001: 127.0.0.1 is a loopback address and the URL was found "
        "on a public one",
    )
    assert (named.status, named.found_zone) == (S.SUCCESS, Zone.PUBLIC)
    assert (inside.status, inside.found_zone) == (S.SUCCESS, Zone.PRIVATE)
    assert proxy.seen == [
        "GET http://origin.invalid/page HTTP/1.1",
        "GET http://10.1.2.3/page HTTP/1.1",
    ]
