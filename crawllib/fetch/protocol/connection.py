"""HTTP/1.1 connections that read a response's head as browsers do (beamcrawl's own).

http.client, under urllib3 and requests, reads the status line and headers
in ``HTTPResponse.begin``. Two of its rules lose pages that browsers show:
it passes over ``100 Continue`` but takes any other interim response
(``103 Early Hints``) for the answer, and it refuses a response with more
than 100 header lines or a line over 64 KiB. :class:`CrawlerResponse` reads
the head instead; the other classes here only carry it to every request
that :class:`~crawllib.fetch.protocol.http.HttpProtocol` makes, direct or through
``http.proxy.host``:

- :class:`CrawlerHTTPConnection`, :class:`CrawlerHTTPSConnection`:
  urllib3's connections, whose responses are CrawlerResponses with the
  connection's head limit, and which connect under the address policy when
  they carry an :class:`~crawllib.fetch.protocol.guard.AddressGuard` (the checked
  address is the one connected; :mod:`crawllib.fetch.protocol.guard`);
- :class:`CrawlerHTTPConnectionPool`, :class:`CrawlerHTTPSConnectionPool`:
  urllib3's pools of those connections;
- :class:`CrawlerPoolManager`, :class:`CrawlerProxyManager`: urllib3's
  managers with those pools (``pool_classes_by_scheme`` on the instance),
  giving each new pool the head limit and the guard (a proxy manager's
  connections go to the operator's proxy: no guard);
- :class:`CrawlerAdapter`: requests' HTTPAdapter with those managers; one
  per zone, so that a connection opened for one zone never serves another.

Nothing of http.client, urllib3 or requests is changed: only objects of
these classes behave differently.
"""

from __future__ import annotations

import email.parser
import functools
import http.client
import socket
from typing import Any

import urllib3.connection
import urllib3.connectionpool
from requests.adapters import HTTPAdapter
from urllib3.exceptions import (
    ConnectTimeoutError,
    NameResolutionError,
    NewConnectionError,
)
from urllib3.poolmanager import PoolManager, ProxyManager

from crawllib.fetch.protocol.guard import AddressGuard

DEFAULT_MAX_HEAD_BYTES = 393_216
"""``http.max.header.size``: Firefox's limit (384 KiB); Chromium's is 256 KiB."""

_SWITCHING_PROTOCOLS = 101  # final: we never ask for an Upgrade
_FOLD = (b" ", b"\t")
_END_OF_HEAD = (b"\r\n", b"\n", b"")


class HeadTooLarge(http.client.HTTPException):
    """A response's status lines and headers passed the head limit."""


class CrawlerResponse(http.client.HTTPResponse):
    """http.client's response, reading the head as browsers do.

    - Interim responses (1xx but ``101 Switching Protocols``, which we never
      ask for) are passed over with their headers, as RFC 9110 15.2 says:
      a ``103 Early Hints`` before the ``200`` no longer hides the page.
    - The status lines and header lines of the response, interim ones
      included, may take ``max_head_bytes`` in all, in lines of any length
      and number, as browsers allow (Chromium 256 KiB, Firefox 384 KiB),
      instead of http.client's 100 lines of at most 64 KiB; beyond that
      :class:`HeadTooLarge` is raised.
    - A header continued on the next line (obs-fold) is joined with a space,
      as RFC 9112 5.2 asks, before urllib3 sees it: urllib3's own unfolding
      costs time in the square of the number of headers.
    """

    def __init__(
        self,
        sock: socket.socket,
        debuglevel: int = 0,
        method: str | None = None,
        url: str | None = None,
        *,
        max_head_bytes: int = DEFAULT_MAX_HEAD_BYTES,
    ) -> None:
        super().__init__(sock, debuglevel, method, url)
        self.max_head_bytes = max_head_bytes
        self._head_left = max_head_bytes
        self.peer_address = _peer(sock)
        """The address the response came from: kept, since a connection that
        closes after the response (``Connection: close``) drops its socket."""

    def begin(self) -> None:
        """Read the final response's status line and headers (http.client's begin)."""
        if self.headers is not None:
            return
        version, status, reason = self._read_status()
        while 100 <= status < 200 and status != _SWITCHING_PROTOCOLS:
            self._read_head_lines()  # an interim response's headers: not kept
            version, status, reason = self._read_status()
        self.code = self.status = status
        self.reason = reason.strip()
        if version in ("HTTP/1.0", "HTTP/0.9"):
            self.version = 10
        elif version.startswith("HTTP/1."):
            self.version = 11
        else:
            raise http.client.UnknownProtocol(version)
        text = self._read_head_lines().decode("iso-8859-1")
        parser = email.parser.Parser(_class=http.client.HTTPMessage)
        self.headers = self.msg = parser.parsestr(text)
        self._frame_body(status)

    def _frame_body(self, status: int) -> None:
        """How the body ends: chunks, a length, or the connection's close.

        http.client's rules, unchanged (the second half of its ``begin``).
        """
        coding = self.headers.get("transfer-encoding")
        self.chunked = coding is not None and coding.lower() == "chunked"
        if self.chunked:
            self.chunk_left = None
        self.will_close = self._check_close()  # type: ignore[attr-defined]
        self.length = None
        length = self.headers.get("content-length")
        if length and not self.chunked:
            try:
                self.length = int(length)
            except ValueError:
                self.length = None
            else:
                if self.length < 0:  # nonsensical negative lengths are ignored
                    self.length = None
        method = self._method  # type: ignore[attr-defined]
        if status in (204, 304) or 100 <= status < 200 or method == "HEAD":
            self.length = 0
        if not self.will_close and not self.chunked and self.length is None:
            self.will_close = True

    def _read_status(self) -> tuple[str, int, str]:
        """The status line (http.client's ``_read_status`` within the head limit)."""
        line = str(self._read_head_line(), "iso-8859-1")
        if not line:  # the server closed the connection before answering
            raise http.client.RemoteDisconnected(
                "Remote end closed connection without response"
            )
        parts = line.split(None, 2)
        version = parts[0] if parts else ""
        if not version.startswith("HTTP/") or len(parts) < 2:
            self._close_conn()  # type: ignore[attr-defined]
            raise http.client.BadStatusLine(line)
        try:
            status = int(parts[1])
        except ValueError:
            raise http.client.BadStatusLine(line) from None
        if not 100 <= status <= 999:
            raise http.client.BadStatusLine(line)
        return version, status, parts[2] if len(parts) > 2 else ""

    def _read_head_lines(self) -> bytes:
        """The header lines up to the blank line, obs-folds joined (RFC 9112 5.2)."""
        lines: list[bytes] = []
        while True:
            line = self._read_head_line()
            if line in _END_OF_HEAD:
                lines.append(line)
                return b"".join(lines)
            if line[:1] in _FOLD and lines:
                lines[-1] = lines[-1].rstrip(b"\r\n")
                line = b" " + line.lstrip(b" \t")
            lines.append(line)

    def _read_head_line(self) -> bytes:
        line = self.fp.readline(self._head_left + 1)
        if len(line) > self._head_left:
            raise HeadTooLarge(
                f"response head over {self.max_head_bytes} bytes (http.max.header.size)"
            )
        self._head_left -= len(line)
        return line


def _peer(sock: socket.socket) -> str:
    try:
        return str(sock.getpeername()[0])
    except (OSError, AttributeError, IndexError):  # gone, or no socket at all
        return ""


class CrawlerHTTPConnection(urllib3.connection.HTTPConnection):
    """urllib3's HTTPConnection whose responses are :class:`CrawlerResponse`.

    Args:
        max_head_bytes: the head limit of each response (from the pool).
        address_guard: connect under the address policy (from the pool);
            None: as urllib3 does (a proxy's connections).
    """

    def __init__(
        self,
        *args: Any,
        max_head_bytes: int = DEFAULT_MAX_HEAD_BYTES,
        address_guard: AddressGuard | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        # http.client calls response_class(sock, method=...): a partial does too
        self.response_class = functools.partial(  # type: ignore[assignment]
            CrawlerResponse, max_head_bytes=max_head_bytes
        )
        self.address_guard = address_guard

    def _new_conn(self) -> socket.socket:
        """A socket to an address the guard allows, resolved once.

        Errors are urllib3's, as its own ``_new_conn`` raises them; a refusal
        is :class:`~crawllib.fetch.protocol.guard.AddressRefused`, which nothing
        between here and the protocol catches.
        """
        guard = self.address_guard
        if guard is None:
            return super()._new_conn()
        timeout = self.timeout
        if timeout is not None and not isinstance(timeout, int | float):
            timeout = socket.getdefaulttimeout()  # urllib3's "default" marker
        try:
            return guard.connect(
                self._dns_host,
                self.port,
                timeout,
                source_address=self.source_address,
                socket_options=self.socket_options,
            )
        except socket.gaierror as exc:
            raise NameResolutionError(self.host, self, exc) from exc
        except TimeoutError as exc:
            raise ConnectTimeoutError(
                self,
                f"Connection to {self.host} timed out. (connect timeout={timeout})",
            ) from exc
        except OSError as exc:
            raise NewConnectionError(
                self, f"Failed to establish a new connection: {exc}"
            ) from exc


class CrawlerHTTPSConnection(CrawlerHTTPConnection, urllib3.connection.HTTPSConnection):
    """urllib3's HTTPSConnection whose responses are :class:`CrawlerResponse`.

    What :class:`CrawlerHTTPConnection` adds (or overrides, such as
    ``_new_conn``) holds for HTTPS too: it comes first in the MRO.
    """


class CrawlerHTTPConnectionPool(urllib3.connectionpool.HTTPConnectionPool):
    """urllib3's HTTPConnectionPool of :class:`CrawlerHTTPConnection`."""

    ConnectionCls = CrawlerHTTPConnection


class CrawlerHTTPSConnectionPool(urllib3.connectionpool.HTTPSConnectionPool):
    """urllib3's HTTPSConnectionPool of :class:`CrawlerHTTPSConnection`."""

    ConnectionCls = CrawlerHTTPSConnection


class CrawlerPoolManager(PoolManager):
    """urllib3's PoolManager whose pools are the Crawler pools above.

    Each new pool gets ``max_head_bytes`` and ``address_guard`` as
    connection arguments, after the pool's key is made (the key has a fixed
    set of fields).
    """

    def __init__(
        self,
        *args: Any,
        max_head_bytes: int = DEFAULT_MAX_HEAD_BYTES,
        address_guard: AddressGuard | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.max_head_bytes = max_head_bytes
        self.address_guard = address_guard
        self.pool_classes_by_scheme = {
            "http": CrawlerHTTPConnectionPool,
            "https": CrawlerHTTPSConnectionPool,
        }

    def _new_pool(
        self,
        scheme: str,
        host: str,
        port: int,
        request_context: dict[str, Any] | None = None,
    ) -> urllib3.connectionpool.HTTPConnectionPool:
        context = dict(
            self.connection_pool_kw if request_context is None else request_context
        )
        context["max_head_bytes"] = self.max_head_bytes
        context["address_guard"] = self.address_guard
        return super()._new_pool(scheme, host, port, context)


class CrawlerProxyManager(CrawlerPoolManager, ProxyManager):
    """urllib3's ProxyManager (an HTTP proxy) with the Crawler pools."""


class CrawlerAdapter(HTTPAdapter):
    """requests' HTTPAdapter whose pool and proxy managers are the Crawler ones.

    Only HTTP proxies (``http.proxy.host``), not SOCKS ones.

    Args:
        max_head_bytes: ``http.max.header.size``, the head limit.
        address_guard: the direct connections' guard (the proxy's have none).
        kwargs: HTTPAdapter's arguments.
    """

    __attrs__ = (*HTTPAdapter.__attrs__, "max_head_bytes", "address_guard")
    """What pickling keeps: HTTPAdapter's attributes, the head limit, the guard."""

    def __init__(
        self,
        *,
        max_head_bytes: int = DEFAULT_MAX_HEAD_BYTES,
        address_guard: AddressGuard | None = None,
        **kwargs: Any,
    ) -> None:
        self.max_head_bytes = max_head_bytes  # init_poolmanager needs them
        self.address_guard = address_guard
        super().__init__(**kwargs)

    def init_poolmanager(
        self,
        connections: int,
        maxsize: int,
        block: bool = False,
        **pool_kwargs: Any,
    ) -> None:
        self._pool_connections = connections
        self._pool_maxsize = maxsize
        self._pool_block = block
        self.poolmanager = CrawlerPoolManager(
            num_pools=connections,
            maxsize=maxsize,
            block=block,
            max_head_bytes=self.max_head_bytes,
            address_guard=self.address_guard,
            **pool_kwargs,
        )

    def proxy_manager_for(self, proxy: str, **proxy_kwargs: Any) -> ProxyManager:
        manager: ProxyManager | None = self.proxy_manager.get(proxy)
        if manager is None:
            manager = self.proxy_manager[proxy] = CrawlerProxyManager(
                proxy,
                proxy_headers=self.proxy_headers(proxy),
                num_pools=self._pool_connections,
                maxsize=self._pool_maxsize,
                block=self._pool_block,
                max_head_bytes=self.max_head_bytes,
                **proxy_kwargs,
            )
        return manager
