"""Reading an HTTP response body: bounded, decoded, within a deadline.

:func:`read_body` reads at most ``http.content.limit`` *decoded* bytes, so a
gzip bomb costs no more memory than the limit; gzip (multi-member), x-gzip
and deflate (zlib or raw) are decoded incrementally; what came before a
deadline or a broken stream is kept and flagged truncated (Nutch's
``GZIPUtils.unzipBestEffort``).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass

import urllib3

_READ_SIZE = 64 * 1024  # bytes asked of the socket per read
_STEP = 256 * 1024  # decoded bytes per zlib call when there is no limit
_MAX_MESSAGE = 300
_GZIP_WBITS = 16 + zlib.MAX_WBITS


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
class Body:
    """A response body as read: content up to the limit, or why it failed."""

    content: bytes = b""  # up to the limit
    truncated: bool = False
    error: str = ""


def read_body(
    raw: urllib3.BaseHTTPResponse,
    limit: int,
    deadline: float,
    clock: Callable[[], float],
    decode: bool = True,
) -> Body:
    """Read and decode the body: at most ``limit`` decoded bytes, until ``deadline``.

    A read never blocks longer than the read timeout, so the deadline is
    overshot by at most one ``http.timeout``.
    """
    encoding = (raw.headers.get("Content-Encoding") or "").strip().lower()
    inflater = _Inflater.for_encoding(encoding) if decode else None
    out = bytearray()
    try:
        while clock() < deadline:
            chunk = raw.read1(_READ_SIZE, decode_content=False)
            if not chunk:
                return _finish(out, inflater, limit, encoding)
            if inflater is None:
                out += chunk
            else:
                inflater.inflate(chunk, out, limit)
            if 0 <= limit < len(out):
                return Body(bytes(out[:limit]), truncated=True)
        return Body(bytes(out[:limit] if limit >= 0 else out), truncated=True)
    except urllib3.exceptions.HTTPError as exc:
        return Body(error=describe_error(exc))
    except zlib.error as exc:
        if out:  # Nutch's GZIPUtils.unzipBestEffort keeps what it got
            return Body(bytes(out[:limit] if limit >= 0 else out), truncated=True)
        return Body(error=f"corrupt {encoding} body: {exc}")


def _finish(
    out: bytearray, inflater: _Inflater | None, limit: int, encoding: str
) -> Body:
    if inflater is None:
        return Body(bytes(out))
    out += inflater.flush()
    truncated = 0 <= limit < len(out)
    if truncated:
        del out[limit:]
    if not inflater.complete:
        if not out:
            return Body(error=f"corrupt {encoding} body: incomplete stream")
        truncated = True  # the compressed stream stopped early: best effort
    return Body(bytes(out), truncated=truncated)


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
