"""Reading an HTTP response body: bounded, decoded, within a deadline.

:func:`read_body` reads at most ``http.content.limit`` *decoded* bytes.
Every content coding the ``Content-Encoding`` header lists is undone, the
last applied first (RFC 9110 8.4): gzip and x-gzip (multi-member), deflate
(zlib or raw), br (Google's ``brotli``) and zstd (``zstandard``);
``identity`` is nothing to undo. Each decoder pulls from the one below it
only as many bytes as asked for, so a bomb in any coding, at any depth,
costs no more memory than the limit and one decoder step. A body in a
coding beyond these (``compress``, an unknown name) or in more than
:data:`MAX_CODINGS` codings is kept as sent and named in
:attr:`Body.undecoded`.

What came before the deadline, a read timeout or a broken compressed stream
is kept and flagged truncated (Nutch's ``GZIPUtils.unzipBestEffort``); a
body that fails otherwise (cut short at a close, a broken chunk) is an error.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Protocol, cast

import brotli  # type: ignore[import-untyped]
import urllib3
import zstandard

from crawllib.logonce import innermost

_READ_SIZE = 64 * 1024  # bytes asked of the socket, or of a decoder below, per read
_STEP = 256 * 1024  # decoded bytes asked per read when there is no limit
_MAX_MESSAGE = 300
_GZIP_WBITS = 16 + zlib.MAX_WBITS
_ZSTD_MAX_WINDOW = 8 * 1024 * 1024  # RFC 9659 3: zstd in HTTP keeps to 8 MB

DECODED_CODINGS = frozenset({"gzip", "x-gzip", "deflate", "br", "zstd"})
"""The content codings :func:`read_body` undoes."""
MAX_CODINGS = 5
"""More codings than this are not undone (curl's limit, CVE-2022-32206)."""


def describe_error(exc: BaseException) -> str:
    """``Outer: Innermost: text`` for an exception and its deepest cause."""
    inner = innermost(exc)
    message = type(exc).__name__
    if inner is not exc:
        message += f": {type(inner).__name__}"
    if text := str(inner):
        message += f": {text}"
    return message[:_MAX_MESSAGE]


def content_codings(header: str | None) -> tuple[str, ...]:
    """The codings of a ``Content-Encoding`` value in the order applied.

    Lowercased; ``identity`` and empty list elements are left out.
    """
    codings = (coding.strip().lower() for coding in (header or "").split(","))
    return tuple(coding for coding in codings if coding and coding != "identity")


def decodes(codings: Sequence[str]) -> bool:
    """Whether :func:`read_body` undoes these codings: some, all known, not too many."""
    return 0 < len(codings) <= MAX_CODINGS and all(
        coding in DECODED_CODINGS for coding in codings
    )


@dataclass(frozen=True, slots=True)
class Body:
    """A response body as read: content up to the limit, or why it failed.

    Attributes:
        content: the decoded body, up to the limit.
        truncated: the content is not the whole body: cut at the limit, at
            the deadline or a read timeout, or its compressed stream broke.
        error: why no body could be read ("" if it could).
        undecoded: the codings the content is still in, as ``Content-Encoding``
            lists them, when they are not all ones :func:`read_body` undoes;
            the content is then the body as sent.
    """

    content: bytes = b""
    truncated: bool = False
    error: str = ""
    undecoded: str = ""


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
    codings = content_codings(raw.headers.get("Content-Encoding")) if decode else ()
    wire = _Wire(raw, deadline, clock)
    stages: list[_Source] = [wire]
    if decodes(codings):
        for coding in reversed(codings):
            stages.append(_decoder(coding, stages[-1]))
    undecoded = ", ".join(codings) if codings and len(stages) == 1 else ""
    out = bytearray()
    try:
        while limit < 0 or len(out) <= limit:
            chunk = stages[-1].read(limit + 1 - len(out) if limit >= 0 else _STEP)
            if not chunk:
                break
            out += chunk
    except urllib3.exceptions.HTTPError as exc:  # a broken chunk, a body cut short
        return Body(error=describe_error(exc))
    except _Corrupt as exc:
        if out:  # Nutch's GZIPUtils.unzipBestEffort keeps what it got
            return Body(bytes(out[:limit] if limit >= 0 else out), truncated=True)
        return Body(error=str(exc))
    return _finish(out, limit, wire, stages, undecoded)


def _finish(
    out: bytearray, limit: int, wire: _Wire, stages: list[_Source], undecoded: str
) -> Body:
    """The body once reading stopped: at the limit, the end or the wire's stop."""
    if 0 <= limit < len(out):
        return Body(bytes(out[:limit]), truncated=True, undecoded=undecoded)
    if wire.stopped:  # the deadline or a read timeout
        if wire.timed_out and not out:
            return Body(error=wire.stopped)
        return Body(bytes(out), truncated=True, undecoded=undecoded)
    broken = next((stage.coding for stage in stages if not stage.complete), "")
    if broken and not out:
        return Body(error=f"corrupt {broken} body: incomplete stream")
    return Body(bytes(out), truncated=bool(broken), undecoded=undecoded)


class _Corrupt(Exception):
    """A decoder met bytes that are not its coding; the message names it."""


class _Source(Protocol):
    coding: str

    @property
    def complete(self) -> bool:
        """The stream ended properly (or there was none)."""
        ...

    def read(self, size: int) -> bytes:
        """At most about ``size`` bytes; b"" once the stream has ended."""
        ...


class _Wire:
    """The body as sent, until its end, the deadline or a read timeout."""

    coding = "identity"

    def __init__(
        self, raw: urllib3.BaseHTTPResponse, deadline: float, clock: Callable[[], float]
    ) -> None:
        self._raw = raw
        self._deadline = deadline
        self._clock = clock
        self.stopped = ""  # why reading stopped before the end ("" = it did not)
        self.timed_out = False

    @property
    def complete(self) -> bool:
        return not self.stopped

    def read(self, size: int) -> bytes:
        if self.stopped:
            return b""
        if self._clock() >= self._deadline:
            self.stopped = "time limit"
            return b""
        try:
            return self._raw.read1(min(size, _READ_SIZE), decode_content=False)
        except urllib3.exceptions.ReadTimeoutError as exc:
            # what came before the silence is kept (HTTP/1.0 bodies that end
            # at a close that never comes, servers stalled mid-body)
            self.stopped, self.timed_out = describe_error(exc), True
            return b""


def _decoder(coding: str, source: _Source) -> _Source:
    if coding == "br":
        return _Brotli(source)
    if coding == "zstd":
        return _Zstd(source)
    return _Zlib(coding, source)


class _Zlib:
    """gzip (multi-member) or deflate (zlib or raw) from ``source``, bounded."""

    def __init__(self, coding: str, source: _Source) -> None:
        self.coding = coding
        self._source = source
        self._gzip = coding != "deflate"
        self._zlib = zlib.decompressobj(_GZIP_WBITS) if self._gzip else None
        self._input = b""  # compressed bytes not yet consumed
        self._fed = False
        self._between = False  # gzip: a member ended; another may follow
        self._ended = False  # stream complete; anything after it is ignored
        self._drained = False  # the source has ended

    @property
    def complete(self) -> bool:
        return self._ended or self._between or not self._fed

    def read(self, size: int) -> bytes:
        try:
            while not self._ended and not self._drained:
                pending = len(self._input)
                decoded = self._step(size) if pending else b""
                if decoded:
                    return decoded
                if 0 < len(self._input) < pending:
                    continue  # a header consumed: go on with the rest
                data = self._source.read(_READ_SIZE)
                if not data:
                    self._drained = True
                    return self._flush()
                self._fed = True
                self._input += data
            return b""
        except zlib.error as exc:
            raise _Corrupt(f"corrupt {self.coding} body: {exc}") from exc

    def _flush(self) -> bytes:
        if self._zlib is None or self._ended or self._between:
            return b""
        return self._zlib.flush()

    def _step(self, room: int) -> bytes:
        if len(self._input) < 2 and (self._zlib is None or self._between):
            return b""  # waiting for a header's first bytes
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


class _Brotli:
    """br (RFC 7932) from ``source``, at most about ``size`` bytes a read.

    brotli gives at least its 32 KiB output block per call, so a read may
    overshoot a small ``size`` by that much.
    """

    coding = "br"

    def __init__(self, source: _Source) -> None:
        self._source = source
        self._brotli = brotli.Decompressor()
        self._fed = False

    @property
    def complete(self) -> bool:
        return self._brotli.is_finished() or not self._fed

    def read(self, size: int) -> bytes:
        try:
            if self._pending():  # output the last call held back
                decoded: bytes = self._brotli.process(b"", output_buffer_limit=size)
                if decoded or self._pending():
                    return decoded
            while not self._brotli.is_finished():  # what follows the end is ignored
                data = self._source.read(_READ_SIZE)
                if not data:
                    return b""
                self._fed = True
                decoded = self._brotli.process(data, output_buffer_limit=size)
                if decoded or self._pending():
                    return decoded
            return b""
        except brotli.error as exc:
            raise _Corrupt(f"corrupt br body: {exc}") from exc

    def _pending(self) -> bool:
        return not self._brotli.can_accept_more_data()


class _Zstd:
    """zstd (RFC 8878) from ``source``: zstandard's reader pulls only as asked.

    The reader does not tell a frame cut short from a finished one, so a zstd
    body that a closed connection cuts is not flagged truncated (one cut
    while Content-Length or chunks say more is to come is an error anyway).
    """

    coding = "zstd"
    complete = True

    def __init__(self, source: _Source) -> None:
        decompressor = zstandard.ZstdDecompressor(max_window_size=_ZSTD_MAX_WINDOW)
        self._reader = decompressor.stream_reader(
            cast("IO[bytes]", source),  # zstandard needs only its read()
            read_size=_READ_SIZE,
            read_across_frames=True,
            closefd=False,
        )

    def read(self, size: int) -> bytes:
        try:
            return self._reader.read(size)
        except zstandard.ZstdError as exc:
            raise _Corrupt(f"corrupt zstd body: {exc}") from exc
