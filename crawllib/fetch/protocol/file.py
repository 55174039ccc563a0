"""protocol-file: file: URLs read from the local file system (Nutch 1.x).

Mirrors ``org.apache.nutch.protocol.file.File`` and ``FileResponse``
(reference section 6.9), in the same order of checks:

1. the percent-decoded URL path is missing: NOTFOUND (404);
2. it is not readable: ACCESS_DENIED (401);
3. it is not canonical (a symlink, ``.`` or ``..`` on the way): MOVED (300)
   to the canonical ``file:`` URL when ``file.crawl.redirect_noncanonical``,
   else the canonical file is served under the requested URL;
4. its modified time is <= the page's modified time: NOTMODIFIED (304);
5. a directory: 200, an HTML listing; a file: 200, its bytes up to
   ``file.content.limit``; anything else (a FIFO, a device): EXCEPTION (500).

The query and the host part of the URL are ignored.

beamcrawl adds what a crawler on a shared machine needs (Nutch has none of
it): files are read only for URLs of zone ``local`` (seeds, and links from
local files: a web page cannot lead to a file, :mod:`crawllib.urls.zone`);
only regular files are read, never the kernel's files under ``/proc``,
``/sys`` and ``/dev`` (``/proc/kmsg`` would block for ever, and reading it
takes the kernel log from its reader), opened without blocking and read
for at most the time limit. The fetcher offers ``file:`` only when
``protocol-file`` is in ``plugin.includes`` (Nutch's default has not).
"""

from __future__ import annotations

import mimetypes
import os
import re
import stat
import time
from collections.abc import Callable
from urllib.parse import quote, unquote, urlsplit

from crawllib.config.fetch import HttpConfig
from crawllib.fetch.protocol import FetchResult
from crawllib.fetch.protocol.httpmessage import http_date
from crawllib.status import ProtocolStatus
from crawllib.urls.zone import OPERATOR, Zone

MIN_TIME_LIMIT_S = 30.0
"""Reading a file may take ``max(3 x http.timeout, MIN_TIME_LIMIT_S)``."""
KERNEL_DIRS = ("/proc", "/sys", "/dev")
"""Kernel interfaces that look like files; never read."""
_READ_SIZE = 64 * 1024
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_SLASHES = re.compile(r"/{2,}")
_SNIFF_SIZE = 1024
_TEXT_BYTES = bytes({7, 8, 9, 10, 12, 13, 27} | set(range(0x20, 0x100)))
_COMPRESSED_TYPES = {
    "gzip": "application/gzip",
    "bzip2": "application/x-bzip2",
    "xz": "application/x-xz",
    "compress": "application/x-compress",
    "br": "application/x-brotli",
}


class FileProtocol:
    """Fetches file: URLs (Nutch's protocol-file); thread-safe and stateless.

    Args:
        config: its ``file.*`` settings are used.
        time_limit_s: how long reading one file may take; default
            ``max(3 x http.timeout, MIN_TIME_LIMIT_S)``.
        clock: monotonic seconds, for the time limit.
    """

    def __init__(
        self,
        config: HttpConfig,
        *,
        time_limit_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._mime = mimetypes.MimeTypes()  # built-in table: same on every host
        self._clock = clock
        self._time_limit_s = (
            time_limit_s
            if time_limit_s is not None
            else max(3 * config.timeout_s, MIN_TIME_LIMIT_S)
        )

    def fetch(
        self, url: str, modified_time_ms: int = 0, zone: Zone = OPERATOR
    ) -> FetchResult:
        """Read the file or directory ``url`` names; never raises per URL.

        A URL of a zone short of ``local`` is ADDRESS_DENIED without a look.
        """
        if zone < Zone.LOCAL:
            message = (
                f"file: URL found on a {zone.label} page: files are read only "
                "for seeds and links from local files"
            )
            return FetchResult(url, ProtocolStatus.ADDRESS_DENIED, (message,))
        try:
            parts = urlsplit(url)
        except ValueError as exc:
            return FetchResult(url, ProtocolStatus.EXCEPTION, (str(exc),))
        if parts.scheme.lower() != "file":
            return FetchResult(
                url,
                ProtocolStatus.PROTO_NOT_FOUND,
                (f"protocol not found for url={url}",),
            )
        path = java_file_path(unquote(parts.path, errors="surrogateescape"))
        try:
            return self._fetch_path(url, path, modified_time_ms)
        except FileNotFoundError:  # removed while we looked
            return FetchResult(url, ProtocolStatus.NOTFOUND, http_code=404)
        except PermissionError:
            return FetchResult(url, ProtocolStatus.ACCESS_DENIED, http_code=401)
        except OSError as exc:
            message = f"{type(exc).__name__}: {exc}"
            return FetchResult(url, ProtocolStatus.EXCEPTION, (message,))

    def close(self) -> None:
        """Nothing to release."""

    def _fetch_path(self, url: str, path: str, modified_time_ms: int) -> FetchResult:
        if not os.path.exists(path):
            return FetchResult(url, ProtocolStatus.NOTFOUND, http_code=404)
        if not os.access(path, os.R_OK):
            return FetchResult(url, ProtocolStatus.ACCESS_DENIED, http_code=401)
        canonical = os.path.realpath(path)
        if canonical != path:
            if self._config.file_redirect_noncanonical:
                target = file_url(canonical, os.path.isdir(canonical))
                return FetchResult(
                    url,
                    ProtocolStatus.MOVED,
                    (target,),
                    http_code=300,
                    headers=(("Location", target),),
                    found_zone=Zone.LOCAL,
                )
            path = canonical  # Nutch follows the redirect internally
        info = os.stat(path)
        modified_ms = info.st_mtime_ns // 1_000_000
        if modified_ms <= modified_time_ms:
            return FetchResult(
                url,
                ProtocolStatus.NOTMODIFIED,
                http_code=304,
                headers=(("Last-Modified", http_date(modified_ms)),),
                last_modified_ms=modified_ms,
            )
        if stat.S_ISDIR(info.st_mode):
            return self._directory(url, path, modified_ms)
        if stat.S_ISREG(info.st_mode) and not _in_kernel_dirs(path):
            return self._file(url, path, info.st_size, modified_ms)
        return _not_a_file(url, path)

    def _file(self, url: str, path: str, size: int, modified_ms: int) -> FetchResult:
        limit = self._config.file_content_limit
        read = _read_regular(
            path, limit, self._clock() + self._time_limit_s, self._clock
        )
        if read is None:
            return _not_a_file(url, path)
        content, truncated = read
        content_type = self._content_type(path, content)
        return FetchResult(
            url,
            ProtocolStatus.SUCCESS,
            http_code=200,
            content=content,
            content_type=content_type,
            found_zone=Zone.LOCAL,
            headers=(
                ("Content-Length", str(size)),
                ("Last-Modified", http_date(modified_ms)),
                ("Content-Type", content_type),
            ),
            truncated=truncated,
            last_modified_ms=modified_ms,
        )

    def _directory(self, url: str, path: str, modified_ms: int) -> FetchResult:
        parent = self._config.file_crawl_parent and path != "/"
        content = directory_listing(path, parent)
        return FetchResult(
            url,
            ProtocolStatus.SUCCESS,
            http_code=200,
            content=content,
            content_type="text/html",
            found_zone=Zone.LOCAL,
            headers=(
                ("Content-Length", str(len(content))),
                ("Content-Type", "text/html"),
                ("Last-Modified", http_date(modified_ms)),
            ),
            last_modified_ms=modified_ms,
        )

    def _content_type(self, path: str, head: bytes) -> str:
        """By file name, else text/plain for text, else application/octet-stream.

        Nutch asks Tika (name and magic bytes); this is the closest without it.
        """
        guessed, encoding = self._mime.guess_type(path, strict=False)
        if encoding:
            return _COMPRESSED_TYPES.get(encoding, "application/octet-stream")
        if guessed:
            return guessed
        if _looks_like_text(head[:_SNIFF_SIZE]):
            return "text/plain"
        return "application/octet-stream"


def _in_kernel_dirs(path: str) -> bool:
    return any(path == top or path.startswith(top + "/") for top in KERNEL_DIRS)


def _not_a_file(url: str, path: str) -> FetchResult:
    message = f"File Error: 500: not a regular file: {path}"
    return FetchResult(url, ProtocolStatus.EXCEPTION, (message,), http_code=500)


def _read_regular(
    path: str, limit: int, deadline: float, clock: Callable[[], float]
) -> tuple[bytes, bool] | None:
    """The first ``limit`` bytes (-1: all) of a regular file, read until ``deadline``.

    Opened without blocking and checked again once open (the path may have
    changed since it was looked at): None when it is no regular file or a
    read would block. Returns the bytes and whether they were cut short.
    """
    fd = os.open(path, _OPEN_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = bytearray()
        wanted = limit + 1 if limit >= 0 else None
        while wanted is None or len(data) < wanted:
            if clock() >= deadline:
                return bytes(data[:limit] if limit >= 0 else data), True
            size = _READ_SIZE if wanted is None else min(_READ_SIZE, wanted - len(data))
            try:
                chunk = os.read(fd, size)
            except BlockingIOError:
                return None
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    truncated = 0 <= limit < len(data)
    return bytes(data[:limit] if truncated else data), truncated


def java_file_path(path: str) -> str:
    """The path as ``java.io.File`` keeps it: no repeated or trailing ``/``.

    The empty path is ``/``. ``.`` and ``..`` stay, so they are non-canonical.
    """
    return _SLASHES.sub("/", path).rstrip("/") or "/"


def file_url(path: str, is_dir: bool) -> str:
    """``file:/path`` as ``File.toURL`` writes it (a directory ends in ``/``).

    Unlike ``toURL`` the path is percent-encoded, so it decodes back to the
    same file.
    """
    encoded = quote(os.fsencode(path), safe="/")
    if is_dir and not encoded.endswith("/"):
        encoded += "/"
    return "file:" + encoded


def directory_listing(path: str, include_parent: bool) -> bytes:
    """Nutch's ``FileResponse.list2html``, byte for byte.

    Entries come in file-system order; names are not escaped (as in Nutch);
    entries that are neither files nor directories are left out.
    """
    lines = [
        f"<html><head><title>Index of {path}</title></head>\n",
        f"<body><h1>Index of {path}</h1><pre>\n",
    ]
    if include_parent:
        lines.append("<a href='../'>../</a>\t-\t-\t-\n")
    with os.scandir(path) as entries:
        for entry in entries:
            try:
                info = entry.stat()  # follows symlinks, as java.io.File does
            except OSError:  # a dangling link: neither file nor directory
                continue
            date = http_date(info.st_mtime_ns // 1_000_000)
            name = entry.name
            if stat.S_ISDIR(info.st_mode):
                lines.append(f"<a href='{name}/'>{name}/</a>\t{date}\t-\n")
            elif stat.S_ISREG(info.st_mode):
                lines.append(f"<a href='{name}'>{name}</a>\t{date}\t{info.st_size}\n")
    lines.append("</pre></body></html>\n")
    return "".join(lines).encode("utf-8", "surrogateescape")


def _looks_like_text(head: bytes) -> bool:
    """No control bytes but tab, newlines, form feed, backspace and escape."""
    return bool(head) and not head.translate(None, _TEXT_BYTES)
