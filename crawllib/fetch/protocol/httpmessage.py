"""HTTP message text: request and response heads as recorded, dates, ``Location``.

What :mod:`crawllib.fetch.protocol.http` writes into a fetched record and reads
from a response's headers, apart from the fetching itself: the request and
response heads as Nutch's ``_request_`` and ``_response.headers_`` hold them,
a ``Location`` value read as browsers read its bytes, and HTTP dates.
"""

from __future__ import annotations

import email.utils
import re
from datetime import timezone
from urllib.parse import urlsplit

import requests
import urllib3

_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")  # surrogateescape's stand-ins


def request_head(request: requests.PreparedRequest, proxies: dict[str, str]) -> bytes:
    """The request line and headers as http.client sends them (Nutch's ``_request_``).

    http.client writes ``Host`` first (the port only when it is not the
    scheme's default), then the headers in the order given; through a plain
    HTTP proxy the request line holds the absolute URL.
    """
    parts = urlsplit(request.url or "")
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    default_port = 443 if parts.scheme == "https" else 80
    if parts.port is not None and parts.port != default_port:
        host = f"{host}:{parts.port}"
    via_proxy = parts.scheme == "http" and bool(proxies)
    target = request.url if via_proxy else request.path_url
    lines = [f"{request.method} {target} HTTP/1.1", f"Host: {host}"]
    lines += [f"{name}: {value}" for name, value in request.headers.items()]
    return "\r\n".join([*lines, "", ""]).encode("latin-1", errors="replace")


_HTTP_VERSIONS = {9: "HTTP/0.9", 10: "HTTP/1.0", 11: "HTTP/1.1"}


def response_head(raw: urllib3.BaseHTTPResponse) -> bytes:
    """The status line and headers as received (Nutch's ``_response.headers_``).

    Headers keep their order, spelling and repeats as http.client read them
    (each byte one ISO-8859-1 character, so encoding back gives the bytes);
    a status line without a reason keeps its space (NUTCH-2763).
    """
    version = _HTTP_VERSIONS.get(raw.version, "HTTP/1.1")
    original = getattr(raw, "_original_response", None)
    message = getattr(original, "msg", None)
    items = message.items() if message is not None else raw.headers.items()
    lines = [f"{version} {raw.status} {raw.reason or ''}"]
    lines += [f"{name}: {value}" for name, value in items]
    return "\r\n".join([*lines, "", ""]).encode("latin-1", errors="replace")


def location_text(header: str) -> str:
    """A ``Location`` value as browsers read its bytes (beamcrawl, not Nutch).

    ``header`` is the value as http.client hands it over: each byte one
    character (ISO-8859-1). Runs of bytes that are valid UTF-8 are read as
    UTF-8 (the bytes ``2F C3 BC`` are ``/ü``); any other byte >= 0x80 is
    percent-encoded as it is (``2F E9`` is ``/%E9``), as Firefox and Chromium
    do and web-platform-tests pins (fetch/api/redirect/
    redirect-location-escape). Escapes already in the value are left alone,
    so the normalizer then writes every target in UTF-8 percent-encoding and
    never encodes one twice.

    Nutch 1.x protocol-http reads header bytes as ISO-8859-1 and keeps the
    characters, so BasicURLNormalizer stores ``2F C3 BC`` as
    ``/%C3%83%C2%BC``, a URL the server never meant; protocol-okhttp reads
    UTF-8 but turns other bytes into U+FFFD.
    """
    try:
        raw = header.encode("latin-1")
    except UnicodeEncodeError:  # not bytes in disguise: already text
        return header
    text = raw.decode("utf-8", errors="surrogateescape")
    return _ESCAPED_BYTE.sub(lambda byte: f"%{ord(byte[0]) - 0xDC00:02X}", text)


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
