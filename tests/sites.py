"""Real HTTP servers on 127.0.0.x for the tests, whose paths say how they behave.

``start_site(host)`` serves on ``host`` (any 127.0.0.x) and a free port and
returns a :class:`Site`; ``site.stop()`` shuts it down. Every request is
logged (path, headers, when it arrived and when the server answered, how
many requests to this server were in flight), so politeness can be checked
from the server's own view. ``site.hold(prefix, until)`` keeps requests
unanswered until an event, so a test can order events instead of timing them.

:class:`RawSite` is a bare-socket server that sends answers byte for byte
(header bytes no HTTP library would write, such as raw UTF-8 in Location);
a :class:`RawBytes` answer is sent with nothing added (interim 1xx
responses, HTTP/1.0, a body the server never ends).

Paths:
    /ok, /page/<anything>     200 text/html naming the path
    /status/<code>            that status (300-308 with ``Location: /ok``)
    /redirect/<code>?to=<u>   that redirect status to ``u`` (a path or URL)
    /loop/<n>                 302 to /loop/<n+1>, for ever
    /gzip, /deflate           200 html, compressed that way
    /chunked                  200 html in three chunks, no Content-Length
    /big/<n>                  200 text/plain of n bytes
    /gzipbomb/<n>             200 gzip of n zero bytes (a few KiB on the wire)
    /slow/<seconds>           sleeps, then 200
    /drop                     closes the connection without a response
    /modified                 304 if If-Modified-Since is sent, else 200 with
                              Last-Modified
    /headers                  200 text/plain echoing the request headers
    /robots.txt               ``site.robots`` with ``site.robots_status``
                              (404 when ``site.robots`` is None)
    /bytes/<name>             ``site.files[name]`` = (content type, bytes)
    /encoded/<kind>           ``encoded_text(size)`` (or ``size`` zero bytes with
                              ``fill=zero``) sent as ``kind``: gzip, x-gzip,
                              deflate (zlib-wrapped), rawdeflate (raw deflate,
                              labelled deflate), garbage (not gzip, labelled
                              gzip), or any other name as a label on the plain
                              bytes; ``cut=<n>`` keeps the first n bytes on the
                              wire, ``code=<n>`` sets the status
    /nolocation/<code>        that status without a Location header
    /short/<n>                declares n bytes, sends half, closes
    /trickle/<n>?every=<s>    n bytes, one every s seconds
    /peer                     200 text/plain: the client's port (shows reuse)
    /malformed                a response without an HTTP status line
"""

from __future__ import annotations

import contextlib
import gzip
import socket
import sys
import threading
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

LAST_MODIFIED = formatdate(1_600_000_000, usegmt=True)
HOLD_CAP_S = 30.0
"""A held request is answered after this long even if its event never came."""


def encoded_text(size: int) -> bytes:
    """The plain text ``/encoded/<kind>?size=<n>`` compresses."""
    text = b"".join(b"line %d of the encoded body\n" % i for i in range(size // 20 + 1))
    return text[:size]


def _compressed(kind: str, size: int, zeros: bool) -> bytes:
    if kind == "garbage":
        return b"this is not a gzip stream at all"
    wbits = {"gzip": 31, "x-gzip": 31, "deflate": 15, "rawdeflate": -15}.get(kind)
    if wbits is None:
        return bytes(size) if zeros else encoded_text(size)
    compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
    if not zeros:
        return compressor.compress(encoded_text(size)) + compressor.flush()
    block = bytes(64 * 1024)  # zeros in blocks: a 100 MB bomb costs no memory
    parts = []
    for start in range(0, size, len(block)):
        parts.append(compressor.compress(block[: size - start]))
    parts.append(compressor.flush())
    return b"".join(parts)


@dataclass
class Request:
    """One request as the server saw it (``time.monotonic()`` seconds).

    ``ended`` is stamped when the server starts to answer, before the first
    byte of the answer is written: no client can have the answer earlier, so
    the gap from one request's ``ended`` to the next one's ``started`` is
    never shorter than the wait the client made between them, however slow
    the machine. 0.0 while unanswered.
    """

    path: str
    headers: dict[str, str]
    started: float
    ended: float = 0.0
    in_flight: int = 1  # requests to this server not yet answered when it came


@dataclass
class Site:
    """A running test server and its request log."""

    host: str
    port: int
    server: ThreadingHTTPServer
    robots: str | None = None
    robots_status: int = 200
    files: dict[str, tuple[str, bytes]] = field(default_factory=dict)
    log: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    active: int = 0
    holds: list[tuple[str, Callable[[], bool]]] = field(default_factory=list)
    stopping: threading.Event = field(default_factory=threading.Event)

    @property
    def base(self) -> str:
        """``http://host:port``."""
        return f"http://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        """An absolute URL on this site."""
        return self.base + path

    def requests_for(self, prefix: str = "/") -> list[Request]:
        """The logged requests whose path starts with ``prefix``, in order."""
        with self.lock:
            return [r for r in self.log if r.path.startswith(prefix)]

    def hold(self, prefix: str, until: Callable[[], bool]) -> None:
        """Answer requests whose path starts with ``prefix`` once ``until()`` holds.

        ``until`` should stay true once it is (an event set, a count reached).
        A held request is logged and in flight. :meth:`stop` releases it; so
        does :data:`HOLD_CAP_S`, which also ends the hold for later requests,
        so that a test whose event never comes fails on its assertions rather
        than hanging.
        """
        with self.lock:
            self.holds.append((prefix, until))

    def wait_for_release(self, path: str) -> None:
        """Block while a hold on ``path`` is not released (server threads)."""
        with self.lock:
            waits = [hold for hold in self.holds if path.startswith(hold[0])]
        deadline = time.monotonic() + HOLD_CAP_S
        while not all(until() for _, until in waits):
            if self.stopping.wait(0.005):
                return
            if time.monotonic() >= deadline:
                with self.lock:  # the event never came: no more holding
                    self.holds[:] = [h for h in self.holds if h not in waits]
                return

    def stop(self) -> None:
        """Release held requests, shut the server down and close its socket."""
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "beamcrawl-test"

    def setup(self) -> None:
        super().setup()
        # headers and body are two writes: avoid Nagle + delayed-ACK stalls
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: object) -> None:
        pass  # the Site keeps its own log

    @property
    def site(self) -> Site:
        return self.server.site  # type: ignore[attr-defined]

    def do_GET(self) -> None:
        site = self.site
        with site.lock:
            site.active += 1
            self._entry = Request(
                self.path, dict(self.headers), time.monotonic(), 0.0, site.active
            )
            site.log.append(self._entry)
        try:
            site.wait_for_release(self.path)
            self._route()
        finally:
            self._answering()

    def send_response(self, code: int, message: str | None = None) -> None:
        self._answering()  # before any byte of the answer leaves (end_headers)
        super().send_response(code, message)

    def _answering(self) -> None:
        """Stamp the current request answered (once) and no longer in flight."""
        entry: Request | None = getattr(self, "_entry", None)
        if entry is None or entry.ended:
            return  # an error answer before any request, or already stamped
        site = self.site
        with site.lock:
            site.active -= 1
            entry.ended = time.monotonic()

    def _route(self) -> None:
        parts = urlsplit(self.path)
        path = parts.path
        head, _, rest = path.strip("/").partition("/")
        handler = getattr(self, f"_r_{head or 'root'}", None)
        if handler is None:
            self._send(404, b"<html><body>not found</body></html>")
        else:
            handler(rest, parse_qs(parts.query))

    def _send(
        self,
        code: int,
        body: bytes,
        content_type: str = "text/html; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _page(self, title: str) -> bytes:
        html = f"<html><head><title>{title}</title></head><body>{title}</body></html>"
        return html.encode()

    def _r_root(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(200, self._page("home"))

    def _r_ok(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(200, self._page("ok"))

    def _r_page(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(200, self._page(f"page {rest}"))

    def _r_status(self, rest: str, query: dict[str, list[str]]) -> None:
        code = int(rest)
        headers = {"Location": "/ok"} if 300 <= code < 400 else {}
        empty = code in (204, 304)  # these may not carry a body (RFC 9110)
        self._send(
            code, b"" if empty else self._page(f"status {code}"), headers=headers
        )

    def _r_redirect(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(
            int(rest), b"moved", headers={"Location": query.get("to", ["/ok"])[0]}
        )

    def _r_loop(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(302, b"again", headers={"Location": f"/loop/{int(rest or 0) + 1}"})

    def _r_gzip(self, rest: str, query: dict[str, list[str]]) -> None:
        body = gzip.compress(self._page("gzipped"))
        self._send(200, body, headers={"Content-Encoding": "gzip"})

    def _r_deflate(self, rest: str, query: dict[str, list[str]]) -> None:
        body = zlib.compress(self._page("deflated"))
        self._send(200, body, headers={"Content-Encoding": "deflate"})

    def _r_chunked(self, rest: str, query: dict[str, list[str]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for chunk in (b"<html><body>", b"chunked body", b"</body></html>"):
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        self.wfile.write(b"0\r\n\r\n")

    def _r_big(self, rest: str, query: dict[str, list[str]]) -> None:
        size = int(rest)
        self._send(200, (b"0123456789" * (size // 10 + 1))[:size], "text/plain")

    def _r_gzipbomb(self, rest: str, query: dict[str, list[str]]) -> None:
        body = gzip.compress(bytes(int(rest)), compresslevel=9)
        self._send(200, body, "text/html", headers={"Content-Encoding": "gzip"})

    def _r_slow(self, rest: str, query: dict[str, list[str]]) -> None:
        time.sleep(float(rest))
        self._send(200, self._page("slow"))

    def _r_drop(self, rest: str, query: dict[str, list[str]]) -> None:
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)

    def _r_modified(self, rest: str, query: dict[str, list[str]]) -> None:
        if self.headers.get("If-Modified-Since"):
            self._send(304, b"", headers={"Last-Modified": LAST_MODIFIED})
        else:
            self._send(
                200, self._page("modified"), headers={"Last-Modified": LAST_MODIFIED}
            )

    def _r_headers(self, rest: str, query: dict[str, list[str]]) -> None:
        lines = "".join(f"{name}: {value}\n" for name, value in self.headers.items())
        self._send(200, lines.encode(), "text/plain")

    def _r_robots(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(404, b"no such path")

    def _r_bytes(self, rest: str, query: dict[str, list[str]]) -> None:
        content_type, body = self.site.files[rest]
        self._send(200, body, content_type)

    def _r_encoded(self, rest: str, query: dict[str, list[str]]) -> None:
        size = int(query.get("size", ["1000"])[0])
        zeros = query.get("fill", ["text"])[0] == "zero"
        body = _compressed(rest, size, zeros)
        if "cut" in query:
            body = body[: int(query["cut"][0])]
        label = {"rawdeflate": "deflate", "garbage": "gzip"}.get(rest, rest)
        code = int(query.get("code", ["200"])[0])
        headers = {"Content-Encoding": label}
        if 300 <= code < 400:
            headers["Location"] = "/ok"
        self._send(code, body, "text/plain", headers=headers)

    def _r_nolocation(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(int(rest), b"no location")

    def _r_short(self, rest: str, query: dict[str, list[str]]) -> None:
        size = int(rest)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        self.wfile.write(b"x" * (size // 2))
        self.wfile.flush()
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)

    def _r_trickle(self, rest: str, query: dict[str, list[str]]) -> None:
        size, every = int(rest), float(query.get("every", ["0.1"])[0])
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        try:
            for _ in range(size):
                self.wfile.write(b"t")
                self.wfile.flush()
                time.sleep(every)
        except OSError:  # the client gave up
            self.close_connection = True

    def _r_peer(self, rest: str, query: dict[str, list[str]]) -> None:
        self._send(200, str(self.client_address[1]).encode(), "text/plain")

    def _r_malformed(self, rest: str, query: dict[str, list[str]]) -> None:
        self._answering()
        self.wfile.write(b"THIS IS NOT HTTP\r\n\r\nbody")
        self.wfile.flush()
        self.close_connection = True


class _RobotsAwareHandler(_Handler):
    def _route(self) -> None:
        if urlsplit(self.path).path == "/robots.txt":
            site = self.site
            if site.robots is None:
                self._send(404, b"none", "text/plain")
            else:
                self._send(site.robots_status, site.robots.encode(), "text/plain")
            return
        super()._route()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # a client that hung up early (timeouts, cut bodies): expected
        super().handle_error(request, client_address)  # type: ignore[arg-type]


def start_site(host: str = "127.0.0.1", robots: str | None = None) -> Site:
    """Serve on ``host`` and a free port, in a daemon thread."""
    server = _Server((host, 0), _RobotsAwareHandler)
    site = Site(host=host, port=server.server_address[1], server=server, robots=robots)
    server.site = site  # type: ignore[attr-defined]
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()  # a short poll: stop() returns at once
    return site


def refused_url(host: str = "127.0.0.1") -> str:
    """A URL on a port nothing listens on (connection refused)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        port = sock.getsockname()[1]
    return f"http://{host}:{port}/nothing"


# --- /robots.txt answered byte for byte (status, headers such as Location) ---


@dataclass(frozen=True)
class RobotsReply:
    """A raw /robots.txt answer: any status, bytes and headers."""

    status: int
    body: bytes = b""
    content_type: str = "text/plain"
    headers: tuple[tuple[str, str], ...] = ()


class _RobotsReplyHandler(_RobotsAwareHandler):
    def _route(self) -> None:
        reply: RobotsReply | None = getattr(self.server, "robots_reply", None)
        if reply is not None and urlsplit(self.path).path == "/robots.txt":
            self._send(
                reply.status, reply.body, reply.content_type, dict(reply.headers)
            )
            return
        super()._route()


def set_robots_reply(site: Site, reply: RobotsReply) -> None:
    """Answer /robots.txt on ``site`` with ``reply`` instead of ``site.robots``.

    For what ``site.robots`` cannot say: redirects (``Location``), non-UTF-8
    bytes, a Content-Type. Other paths behave as before.
    """
    site.server.robots_reply = reply  # type: ignore[attr-defined]
    site.server.RequestHandlerClass = _RobotsReplyHandler


# --- answers sent byte for byte, on a bare socket ---------------------------


@dataclass(frozen=True)
class RawReply:
    """An answer as bytes: the status after ``HTTP/1.1``, header lines, body.

    ``Content-Length`` and ``Connection: close`` are added.
    """

    status: bytes
    headers: tuple[bytes, ...] = ()
    body: bytes = b""


@dataclass(frozen=True)
class RawBytes:
    """An answer sent exactly as ``data``, status line and all, nothing added.

    With ``hang`` the server then keeps the connection open without a word
    until the client hangs up (or the site stops): a body that ends only at
    a close that never comes, a server stalled mid-body.
    """

    data: bytes
    hang: bool = False


_NOT_FOUND = RawReply(b"404 Not Found", (b"Content-Type: text/plain",), b"none")


class RawSite:
    """An HTTP server on a bare socket: each answer goes out exactly as given.

    ``replies`` maps request targets, as bytes on the request line
    (``b"/start"``), to answers; other targets get a 404. One connection at
    a time (a hanging :class:`RawBytes` answer holds it until the client
    hangs up), one request per connection. The request targets are logged
    as they came in :attr:`targets`. Serves in a thread that :meth:`stop`
    joins.
    """

    def __init__(self, host: str, replies: Mapping[bytes, RawReply | RawBytes]) -> None:
        self._socket = socket.create_server((host, 0))
        self._socket.settimeout(0.05)  # how often the loop looks for stop()
        self.host = host
        self.port: int = self._socket.getsockname()[1]
        self.replies = dict(replies)
        self.targets: list[bytes] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @property
    def base(self) -> str:
        """``http://host:port``."""
        return f"http://{self.host}:{self.port}"

    def url(self, path: str) -> str:
        """An absolute URL on this site."""
        return self.base + path

    def requested(self) -> list[bytes]:
        """The request targets so far, in order."""
        with self._lock:
            return list(self.targets)

    def stop(self) -> None:
        """Stop serving, join the thread and close the socket."""
        self._stopping.set()
        self._thread.join()
        self._socket.close()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self._socket.accept()
            except TimeoutError:
                continue
            # OSError: a client that hung up, nothing to answer
            with connection, contextlib.suppress(OSError):
                self._answer(connection)

    def _answer(self, connection: socket.socket) -> None:
        connection.settimeout(10.0)
        request = b""
        while b"\r\n\r\n" not in request:
            chunk = connection.recv(4096)
            if not chunk:
                return
            request += chunk
        target = request.split(b"\r\n", 1)[0].split(b" ")[1]
        with self._lock:
            self.targets.append(target)
        reply = self.replies.get(target, _NOT_FOUND)
        if isinstance(reply, RawBytes):
            connection.sendall(reply.data)
            if reply.hang:
                self._stay_silent(connection)
            return
        head = [b"HTTP/1.1 " + reply.status, *reply.headers]
        head += [b"Content-Length: %d" % len(reply.body), b"Connection: close"]
        connection.sendall(b"\r\n".join(head) + b"\r\n\r\n" + reply.body)

    def _stay_silent(self, connection: socket.socket) -> None:
        """Keep the connection open, sending nothing, until the client hangs up."""
        connection.settimeout(0.05)  # how often to look for stop()
        while not self._stopping.is_set():
            try:
                if not connection.recv(4096):
                    return  # the client closed its end
            except TimeoutError:
                continue
