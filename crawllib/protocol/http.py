"""protocol-http on requests: one GET per URL, mapped to Nutch's ProtocolStatus.

Mirrors Nutch 1.x ``HttpBase.getProtocolOutput`` and protocol-http's request
and response handling (reference sections 6.3-6.5):

- Request headers in Nutch's order: ``Accept-Encoding: x-gzip, gzip,
  deflate``, ``User-Agent``, ``Accept-Language``, ``Accept-Charset``,
  ``Accept`` (each ``http.accept*`` omitted when empty) and
  ``If-Modified-Since`` when ``http.enable.if.modified.since.header`` is set
  and the page has a modified time.
- Redirects are never followed: a 3xx is MOVED, TEMP_MOVED or NOTMODIFIED
  with the absolute target in ``args[0]``; the fetcher decides what to do.
- The body is read raw and decompressed here, so ``http.content.limit`` caps
  the *decoded* bytes and a gzip bomb costs no more memory than the limit.
- A body is read for at most :attr:`HttpProtocol.time_limit_s` (as
  protocol-okhttp's ``http.time.limit``); what came by then is kept, truncated.
- Failures are EXCEPTION results naming the exception class, never raised.

Connections are pooled (keep-alive), unlike Nutch's ``Connection: close``.
"""

from __future__ import annotations

import email.utils
import logging
import time
import zlib
from dataclasses import dataclass
from datetime import timezone
from urllib.parse import urljoin, urlsplit

import requests
import urllib3
from requests.adapters import HTTPAdapter

from crawllib.config.fetch import HttpConfig
from crawllib.protocol import FetchResult
from crawllib.status import ProtocolStatus

_LOG = logging.getLogger(__name__)

POOL_SIZE = 64
"""Connection pools kept (one per host) and connections per pool."""

MIN_TIME_LIMIT_S = 30.0
"""The body time limit is ``max(3 x http.timeout, MIN_TIME_LIMIT_S)``."""

_READ_SIZE = 64 * 1024  # bytes asked of the socket per read
_STEP = 256 * 1024  # decoded bytes per zlib call when there is no limit
_DRAIN_LIMIT = 64 * 1024  # unused bodies up to this size are read to keep the conn
_MAX_MESSAGE = 300
_GZIP_WBITS = 16 + zlib.MAX_WBITS
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
    """

    def __init__(
        self, config: HttpConfig, *, time_limit_s: float | None = None
    ) -> None:
        self._config = config
        self._time_limit_s = (
            time_limit_s
            if time_limit_s is not None
            else max(3 * config.timeout_s, MIN_TIME_LIMIT_S)
        )
        self._headers = request_headers(config)
        self._adapter = HTTPAdapter(
            pool_connections=POOL_SIZE, pool_maxsize=POOL_SIZE, max_retries=0
        )
        proxy = f"http://{config.proxy_host}:{config.proxy_port}"
        self._proxy = proxy if config.proxy_host else ""
        self._no_proxy = frozenset(host.lower() for host in config.proxy_exceptions)
        if self._proxy:  # made here, not racing in the threads
            self._adapter.proxy_manager_for(self._proxy)

    @property
    def time_limit_s(self) -> float:
        """How long one response may take, from request to the body's end."""
        return self._time_limit_s

    def fetch(self, url: str, modified_time_ms: int = 0) -> FetchResult:
        """GET ``url`` once; every outcome is a result, none is raised."""
        started = time.monotonic()
        try:
            scheme = urlsplit(url).scheme.lower()
            if scheme not in ("http", "https"):
                return FetchResult(
                    url,
                    ProtocolStatus.PROTO_NOT_FOUND,
                    (f"protocol not found for url={url}",),
                )
            response = self._send(url, modified_time_ms)
        except (requests.RequestException, ValueError) as exc:
            # ValueError: URLs or header values requests/http.client refuse
            message = describe_error(exc)
            _LOG.debug("fetch of %s failed: %s", url, message)
            elapsed_ms = self._elapsed_ms(started)
            return FetchResult(
                url, ProtocolStatus.EXCEPTION, (message,), response_time_ms=elapsed_ms
            )
        try:
            return self._result(url, response, started)
        finally:
            response.close()  # closes the connection only if the body is unread

    def close(self) -> None:
        """Close all pooled connections."""
        self._adapter.close()

    def _send(self, url: str, modified_time_ms: int) -> requests.Response:
        headers = dict(self._headers)
        if self._config.if_modified_since and modified_time_ms > 0:
            headers["If-Modified-Since"] = http_date(modified_time_ms)
        request = requests.Request("GET", url, headers=headers).prepare()
        timeout = (self._config.timeout_s, self._config.timeout_s)
        return self._adapter.send(
            request, stream=True, timeout=timeout, proxies=self._proxies(url)
        )

    def _proxies(self, url: str) -> dict[str, str]:
        if not self._proxy:
            return {}
        host = (urlsplit(url).hostname or "").lower()
        if host in self._no_proxy:
            return {}
        return {"http": self._proxy, "https": self._proxy}

    def _result(
        self, url: str, response: requests.Response, started: float
    ) -> FetchResult:
        raw: urllib3.BaseHTTPResponse = response.raw
        code = response.status_code
        try:
            status, args = status_for(url, code, raw.headers.get("Location"))
        except ValueError as exc:  # a Location urljoin cannot resolve
            status, args = ProtocolStatus.EXCEPTION, (describe_error(exc),)
        keep = status in _WITH_CONTENT
        deadline = started + self._time_limit_s
        if keep:
            body = _read_body(raw, self._config.content_limit, deadline)
        else:  # read a small body so the connection can be reused
            body = _read_body(raw, _DRAIN_LIMIT, deadline, decode=False)
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
            last_modified_ms=parse_http_date(raw.headers.get("Last-Modified")),
            response_time_ms=self._elapsed_ms(started),
        )

    def _elapsed_ms(self, started: float) -> int:
        if not self._config.store_response_time:
            return 0
        return int((time.monotonic() - started) * 1000)


def request_headers(config: HttpConfig) -> dict[str, str]:
    """The headers of every request, in Nutch 1.x protocol-http's order."""
    headers = {
        "Accept-Encoding": "x-gzip, gzip, deflate",
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


def status_for(
    url: str, code: int, location: str | None
) -> tuple[ProtocolStatus, tuple[str, ...]]:
    """Nutch's ``HttpBase.getProtocolOutput`` switch: HTTP code to status + args.

    A 3xx carries ``urljoin(url, Location)`` (the URL itself without one).

    Raises:
        ValueError: the Location cannot be resolved against ``url``.
    """
    if code == 200:
        return ProtocolStatus.SUCCESS, ()
    if 300 <= code < 400:
        target = urljoin(url, (location or "").strip())
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


def http_date(epoch_ms: int) -> str:
    """An RFC 1123 date in GMT, as Nutch's ``HttpDateFormat.toString``."""
    return email.utils.formatdate(epoch_ms // 1000, usegmt=True)


def parse_http_date(value: str | None) -> int:
    """An HTTP date (RFC 1123, RFC 850 or asctime) as epoch ms; 0 if bad."""
    if not value:
        return 0
    try:
        parsed = email.utils.parsedate_to_datetime(value.strip())
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=timezone.utc)
        return int(parsed.timestamp() * 1000)
    except (TypeError, ValueError, IndexError, OverflowError, OSError):
        return 0


def describe_error(exc: BaseException) -> str:
    """``Outer: Innermost: text`` for an exception and its deepest cause."""
    inner = exc
    seen = {id(exc)}
    while (cause := _cause(inner)) is not None and id(cause) not in seen:
        seen.add(id(cause))
        inner = cause
    message = type(exc).__name__
    if inner is not exc:
        message += f": {type(inner).__name__}"
    if text := str(inner):
        message += f": {text}"
    return message[:_MAX_MESSAGE]


def _cause(exc: BaseException) -> BaseException | None:
    reason = getattr(exc, "reason", None)  # urllib3's MaxRetryError
    if isinstance(reason, BaseException):
        return reason
    for arg in exc.args:  # requests and ProtocolError wrap the cause in args
        if isinstance(arg, BaseException):
            return arg
    return exc.__cause__ or exc.__context__


@dataclass(frozen=True, slots=True)
class _Body:
    content: bytes = b""  # up to the limit
    truncated: bool = False
    error: str = ""


def _read_body(
    raw: urllib3.BaseHTTPResponse, limit: int, deadline: float, decode: bool = True
) -> _Body:
    """Read and decode the body: at most ``limit`` decoded bytes, until ``deadline``.

    A read never blocks longer than the read timeout, so the deadline is
    overshot by at most one ``http.timeout``.
    """
    encoding = (raw.headers.get("Content-Encoding") or "").strip().lower()
    inflater = _Inflater.for_encoding(encoding) if decode else None
    out = bytearray()
    try:
        while time.monotonic() < deadline:
            chunk = raw.read1(_READ_SIZE, decode_content=False)
            if not chunk:
                return _finish(out, inflater, limit, encoding)
            if inflater is None:
                out += chunk
            else:
                inflater.inflate(chunk, out, limit)
            if 0 <= limit < len(out):
                return _Body(bytes(out[:limit]), truncated=True)
        return _Body(bytes(out[:limit] if limit >= 0 else out), truncated=True)
    except urllib3.exceptions.HTTPError as exc:
        return _Body(error=describe_error(exc))
    except zlib.error as exc:
        if out:  # Nutch's GZIPUtils.unzipBestEffort keeps what it got
            return _Body(bytes(out[:limit] if limit >= 0 else out), truncated=True)
        return _Body(error=f"corrupt {encoding} body: {exc}")


def _finish(
    out: bytearray, inflater: _Inflater | None, limit: int, encoding: str
) -> _Body:
    if inflater is None:
        return _Body(bytes(out))
    out += inflater.flush()
    truncated = 0 <= limit < len(out)
    if truncated:
        del out[limit:]
    if not inflater.complete:
        if not out:
            return _Body(error=f"corrupt {encoding} body: incomplete stream")
        truncated = True  # the compressed stream stopped early: best effort
    return _Body(bytes(out), truncated=truncated)


class _Inflater:
    """Bounded incremental gzip (multi-member) or deflate (zlib or raw) decoding."""

    def __init__(self, gzip: bool) -> None:
        self._gzip = gzip
        self._zlib = zlib.decompressobj(_GZIP_WBITS) if gzip else None
        self._input = b""  # compressed bytes not yet consumed
        self._fed = False
        self._between = False  # gzip: a member ended; another may follow
        self._ended = False  # stream complete; anything after it is ignored

    @classmethod
    def for_encoding(cls, encoding: str) -> _Inflater | None:
        """An inflater for gzip, x-gzip and deflate; None for anything else."""
        if encoding in ("gzip", "x-gzip"):
            return cls(gzip=True)
        if encoding == "deflate":
            return cls(gzip=False)
        return None

    @property
    def complete(self) -> bool:
        """The stream ended properly (or there was none)."""
        return self._ended or self._between or not self._fed

    def inflate(self, data: bytes, out: bytearray, limit: int) -> None:
        """Append what ``data`` decodes to onto ``out``, stopping past ``limit``.

        Raises:
            zlib.error: the data is not a valid stream.
        """
        self._fed = True
        self._input += data
        while self._input and not self._ended and not 0 <= limit < len(out):
            room = limit + 1 - len(out) if limit >= 0 else _STEP
            pending = len(self._input)
            decoded = self._step(room)
            if not decoded and len(self._input) == pending:
                return  # waiting for a header's first bytes
            out += decoded

    def flush(self) -> bytes:
        """The rest of the output at the end of the body."""
        if self._zlib is None or self._ended or self._between:
            return b""
        return self._zlib.flush()

    def _step(self, room: int) -> bytes:
        if len(self._input) < 2 and (self._zlib is None or self._between):
            return b""
        if self._zlib is None:  # deflate: RFC 1950 header or raw RFC 1951?
            raw = not _zlib_header(self._input)
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS if raw else zlib.MAX_WBITS)
        if self._between:
            if not self._input.startswith(b"\x1f\x8b"):  # trailing garbage
                self._ended, self._input = True, b""
                return b""
            self._between = False
        decoded = self._zlib.decompress(self._input, room)
        self._input = self._zlib.unconsumed_tail
        if self._zlib.eof:
            self._input = self._zlib.unused_data
            if self._gzip:
                self._zlib = zlib.decompressobj(_GZIP_WBITS)
                self._between = True
            else:
                self._ended, self._input = True, b""
        return decoded


def _zlib_header(data: bytes) -> bool:
    """RFC 1950: deflate method and a header checksum divisible by 31."""
    return data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
