"""protocol-http on requests: one GET per URL, mapped to Nutch's ProtocolStatus.

Mirrors Nutch 1.x ``HttpBase.getProtocolOutput`` and protocol-http's request
and response handling (reference sections 6.3-6.5):

- Request headers in Nutch's order: ``Accept-Encoding: x-gzip, gzip,
  deflate, br, zstd`` (Nutch's three, then beamcrawl's two), ``User-Agent``,
  ``Accept-Language``, ``Accept-Charset``, ``Accept`` (each ``http.accept*``
  omitted when empty) and ``If-Modified-Since`` when
  ``http.enable.if.modified.since.header`` is set and the page has a
  modified time.
- The response head is read as browsers read it
  (:mod:`crawllib.fetch.protocol.connection`): interim 1xx responses such as
  ``103 Early Hints`` are passed over, and headers may take
  ``http.max.header.size`` bytes in all, in any number of lines.
- Redirects are never followed: a 3xx is MOVED, TEMP_MOVED or NOTMODIFIED
  with the absolute target in ``args[0]``; the fetcher decides what to do.
  Raw bytes in ``Location`` are read as browsers read them
  (:func:`location_text`), where Nutch reads them as ISO-8859-1.
- The body is read raw and decoded here (:mod:`crawllib.fetch.protocol.httpbody`:
  every coding listed, gzip, deflate, br and zstd), so ``http.content.limit``
  caps the *decoded* bytes and a bomb costs no more memory than the limit. A
  body in a coding we cannot undo is kept as sent, with the codings in
  :attr:`FetchResult.undecoded` (the parse step then fails it).
- A body is read for at most :attr:`HttpProtocol.time_limit_s` (as
  protocol-okhttp's ``http.time.limit``); what came by then is kept,
  truncated, as is what came before a read timeout (an HTTP/1.0 body whose
  closing never comes).
- Failures are EXCEPTION results naming the exception class, never raised.
- Every connection is made under the address policy for the URL's zone
  (:mod:`crawllib.fetch.protocol.guard`): a refused one is an ADDRESS_DENIED
  result, with nothing sent; a response's ``found_zone`` is the class of
  the address it came from. Connections of one zone never serve another.

Connections are pooled (keep-alive), unlike Nutch's ``Connection: close``.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from collections.abc import Callable
from urllib.parse import urljoin, urlsplit

import requests
import urllib3

from crawllib.config.fetch import HttpConfig
from crawllib.fetch.protocol import FetchResult
from crawllib.fetch.protocol.connection import CrawlerAdapter
from crawllib.fetch.protocol.guard import (
    AddressGuard,
    AddressRefused,
    Resolver,
    system_resolve,
)
from crawllib.fetch.protocol.httpbody import describe_error, read_body
from crawllib.fetch.protocol.httpmessage import (
    http_date,
    location_text,
    parse_http_date,
    request_head,
    response_head,
)
from crawllib.java import java_trim
from crawllib.status import ProtocolStatus
from crawllib.urls.addresses import AddressPolicy
from crawllib.urls.zone import OPERATOR, Zone

_LOG = logging.getLogger(__name__)

POOL_SIZE = 64
"""Connection pools kept (one per host) and connections per pool."""

ACCEPT_ENCODING = "x-gzip, gzip, deflate, br, zstd"
"""Nutch's three codings, then br and zstd (beamcrawl): all that httpbody undoes."""
MIN_TIME_LIMIT_S = 30.0
"""The body time limit is ``max(3 x http.timeout, MIN_TIME_LIMIT_S)``."""

_DRAIN_LIMIT = 64 * 1024  # unused bodies up to this size are read to keep the conn
_TEMP_REDIRECTS = frozenset({302, 303, 307})
_WITH_CONTENT = frozenset(
    {ProtocolStatus.SUCCESS, ProtocolStatus.MOVED, ProtocolStatus.TEMP_MOVED}
)  # Nutch passes the body on for 200 and redirects only


class HttpProtocol:
    """Fetches http: and https: URLs (Nutch's protocol-http); thread-safe.

    Build one per worker and share it between fetcher threads: it holds one
    pool of keep-alive connections (:data:`POOL_SIZE` hosts, as many
    connections each). ``requests.Session`` is not used: even with
    ``allow_redirects=False`` it reads the whole body of every 3xx.

    Args:
        config: the ``http.*`` settings.
        time_limit_s: how long reading a response may take in all, from the
            start of the request; default ``max(3 x http.timeout, 30 s)``.
        clock: monotonic seconds, for the time limit and the response time.
        resolve: host name to addresses (``getaddrinfo``; tests pass their own).
    """

    def __init__(
        self,
        config: HttpConfig,
        *,
        time_limit_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        resolve: Resolver = system_resolve,
    ) -> None:
        self._config = config
        self._clock = clock
        self._time_limit_s = (
            time_limit_s
            if time_limit_s is not None
            else max(3 * config.timeout_s, MIN_TIME_LIMIT_S)
        )
        self._headers = request_headers(config)
        self._guards = {
            zone: AddressGuard(zone, config.address_policy, resolve) for zone in Zone
        }
        self._adapters = {
            zone: self._adapter(guard) for zone, guard in self._guards.items()
        }
        proxy = f"http://{config.proxy_host}:{config.proxy_port}"
        self._proxy = proxy if config.proxy_host else ""
        self._no_proxy = frozenset(host.lower() for host in config.proxy_exceptions)
        self._proxy_adapter = self._adapter(None)
        if self._proxy:  # made here, not racing in the threads
            self._proxy_adapter.proxy_manager_for(self._proxy)

    def _adapter(self, guard: AddressGuard | None) -> CrawlerAdapter:
        return CrawlerAdapter(
            max_head_bytes=self._config.max_header_size,
            address_guard=guard,
            pool_connections=POOL_SIZE,
            pool_maxsize=POOL_SIZE,
            max_retries=0,
        )

    @property
    def time_limit_s(self) -> float:
        """How long one response may take, from request to the body's end."""
        return self._time_limit_s

    def fetch(
        self, url: str, modified_time_ms: int = 0, zone: Zone = OPERATOR
    ) -> FetchResult:
        """GET ``url`` once, under the address policy for ``zone``; never raises."""
        started = self._clock()
        try:
            scheme = urlsplit(url).scheme.lower()
            if scheme not in ("http", "https"):
                return FetchResult(
                    url,
                    ProtocolStatus.PROTO_NOT_FOUND,
                    (f"protocol not found for url={url}",),
                )
            response, found_zone = self._send(url, modified_time_ms, zone)
        except AddressRefused as refused:
            return FetchResult(url, ProtocolStatus.ADDRESS_DENIED, (str(refused),))
        except (requests.RequestException, ValueError) as exc:
            # ValueError: URLs or header values requests/http.client refuse
            message = describe_error(exc)
            _LOG.debug("fetch of %s failed: %s", url, message)
            elapsed_ms = self._elapsed_ms(started)
            return FetchResult(
                url, ProtocolStatus.EXCEPTION, (message,), response_time_ms=elapsed_ms
            )
        try:
            return self._result(url, response, started, found_zone)
        finally:
            response.close()  # closes the connection only if the body is unread

    def close(self) -> None:
        """Close all pooled connections."""
        for adapter in (*self._adapters.values(), self._proxy_adapter):
            adapter.close()

    def _send(
        self, url: str, modified_time_ms: int, zone: Zone
    ) -> tuple[requests.Response, Zone | None]:
        """The response, and the found zone when a proxy connected (else None).

        Raises:
            AddressRefused: the policy refuses the URL's host for ``zone``.
        """
        headers = dict(self._headers)
        if self._config.if_modified_since and modified_time_ms > 0:
            headers["If-Modified-Since"] = http_date(modified_time_ms)
        request = requests.Request("GET", url, headers=headers).prepare()
        timeout = (self._config.timeout_s, self._config.timeout_s)
        proxies = self._proxies(url)
        adapter, found_zone = self._adapters[zone], None
        if proxies:  # the proxy connects: check beamcrawl's own lookup
            host = urlsplit(url).hostname or ""
            found_zone = self._guards[zone].check_proxied(host)
            adapter = self._proxy_adapter
        response = adapter.send(request, stream=True, timeout=timeout, proxies=proxies)
        return response, found_zone

    def _proxies(self, url: str) -> dict[str, str]:
        if not self._proxy:
            return {}
        host = (urlsplit(url).hostname or "").lower()
        if host in self._no_proxy:
            return {}
        return {"http": self._proxy, "https": self._proxy}

    def _result(
        self,
        url: str,
        response: requests.Response,
        started: float,
        found_zone: Zone | None,
    ) -> FetchResult:
        raw: urllib3.BaseHTTPResponse = response.raw
        code = response.status_code
        location = raw.headers.get("Location")
        try:
            status, args = status_for(url, code, location and location_text(location))
        except ValueError as exc:  # a Location urljoin cannot resolve
            status, args = ProtocolStatus.EXCEPTION, (describe_error(exc),)
        keep = status in _WITH_CONTENT
        config = self._config
        peer = peer_address(raw)
        if found_zone is None:
            found_zone = _links_zone(self._config.address_policy, peer)
        deadline = started + self._time_limit_s
        limit = self._config.content_limit if keep else _DRAIN_LIMIT
        # not kept: a small body is read so that the connection can be reused
        body = read_body(raw, limit, deadline, self._clock, decode=keep)
        if body.error and code == 200:
            status, args = ProtocolStatus.EXCEPTION, (body.error,)
        ok = keep and not body.error
        return FetchResult(
            url=url,
            status=status,
            args=args,
            http_code=code,
            content=body.content if ok else None,
            content_type=raw.headers.get("Content-Type"),
            headers=tuple(raw.headers.items()),
            truncated=body.truncated if ok else False,
            undecoded=body.undecoded if ok else "",
            last_modified_ms=parse_http_date(raw.headers.get("Last-Modified")),
            response_time_ms=self._elapsed_ms(started),
            ip_address=peer if config.store_ip_address else "",
            found_zone=found_zone,
            request_head=(
                request_head(response.request, self._proxies(url))
                if config.store_http_request
                else b""
            ),
            response_head=response_head(raw) if config.store_http_headers else b"",
        )

    def _elapsed_ms(self, started: float) -> int:
        if not self._config.store_response_time:
            return 0
        return int((self._clock() - started) * 1000)


def request_headers(config: HttpConfig) -> dict[str, str]:
    """The headers of every request, in Nutch 1.x protocol-http's order."""
    headers = {
        "Accept-Encoding": ACCEPT_ENCODING,
        "User-Agent": config.user_agent,
    }
    for name, value in (
        ("Accept-Language", config.accept_language),
        ("Accept-Charset", config.accept_charset),
        ("Accept", config.accept),
    ):
        if value:
            headers[name] = value
    return headers


def _links_zone(policy: AddressPolicy, peer: str) -> Zone:
    """The zone of the links in a response from ``peer`` (public if it is gone)."""
    try:
        return policy.links_zone(ipaddress.ip_address(peer.split("%", 1)[0]))
    except ValueError:
        return Zone.PUBLIC


def peer_address(raw: urllib3.BaseHTTPResponse) -> str:
    """The IP address of the server (or proxy) a response came from; "" if gone.

    Nutch's ``_ip_``, from the socket's ``getInetAddress``, as the
    :class:`~crawllib.fetch.protocol.connection.CrawlerResponse` under every
    response of ours noted it when it began.
    """
    original = getattr(raw, "_original_response", None)
    return str(getattr(original, "peer_address", ""))


def status_for(
    url: str, code: int, location: str | None
) -> tuple[ProtocolStatus, tuple[str, ...]]:
    """Nutch's ``HttpBase.getProtocolOutput`` switch: HTTP code to status + args.

    A 3xx carries ``new URL(url, Location)`` (the URL itself without one).
    ``location`` is text: a header read by http.client goes through
    :func:`location_text` first. As ``java.net.URL``, only characters up to
    the space are trimmed from its ends.

    Raises:
        ValueError: the Location cannot be resolved against ``url``.
    """
    if code == 200:
        return ProtocolStatus.SUCCESS, ()
    if 300 <= code < 400:
        target = urljoin(url, java_trim(location or ""))
        if code == 304:
            return ProtocolStatus.NOTMODIFIED, (target,)
        if code in _TEMP_REDIRECTS:
            return ProtocolStatus.TEMP_MOVED, (target,)
        return ProtocolStatus.MOVED, (target,)
    if code == 400:
        return ProtocolStatus.GONE, (url,)
    if code == 401:
        return ProtocolStatus.ACCESS_DENIED, (f"Authentication required: {url}",)
    if code == 404:
        return ProtocolStatus.NOTFOUND, (url,)
    if code == 410:
        return ProtocolStatus.GONE, (f"Http: 410 url={url}",)
    return ProtocolStatus.EXCEPTION, (f"Http code={code}, url={url}",)
