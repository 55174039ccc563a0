"""FileProtocol on real files in tmp_path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest

from crawllib.config import HttpConfig
from crawllib.fetch.protocol.file import FileProtocol
from crawllib.status import ProtocolStatus
from crawllib.urls.zone import Zone

S = ProtocolStatus
MTIME_S = 1_600_000_000
MTIME_MS = MTIME_S * 1000
DATE = "Sun, 13 Sep 2020 12:26:40 GMT"


def _protocol(**overrides: object) -> FileProtocol:
    values: dict[str, object] = {"user_agent": "t", "agent_name": "t"}
    values.update(overrides)
    return FileProtocol(HttpConfig(**values))  # type: ignore[arg-type]


def _url(path: Path | str) -> str:
    return "file:" + quote(str(path))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path))  # canonical, so no redirects


def _write(path: Path, data: bytes, mtime_s: int = MTIME_S) -> Path:
    path.write_bytes(data)
    os.utime(path, (mtime_s, mtime_s))
    return path


def test_nutch_file_content_and_headers(root):
    path = _write(root / "notes.txt", b"hello world")

    result = _protocol().fetch(_url(path))

    assert result.status == S.SUCCESS
    assert result.http_code == 200
    assert result.content == b"hello world"
    assert result.content_type == "text/plain"
    assert result.headers == (
        ("Content-Length", "11"),
        ("Last-Modified", DATE),
        ("Content-Type", "text/plain"),
    )
    assert result.last_modified_ms == MTIME_MS
    assert result.truncated is False


@pytest.mark.parametrize(
    ("name", "data", "content_type"),
    [
        ("page.html", b"<html></html>", "text/html"),
        ("data.json", b"{}", "application/json"),
        ("archive.tar.gz", b"\x1f\x8b\x08\x00", "application/gzip"),
        ("README", b"plain words\n", "text/plain"),
        ("latin1", "caf\xe9\n".encode("latin-1"), "text/plain"),
        ("blob", b"\x00\x01\x02binary", "application/octet-stream"),
        ("empty", b"", "application/octet-stream"),
    ],
)
def test_content_type_by_name_then_by_bytes(root, name, data, content_type):
    result = _protocol().fetch(_url(_write(root / name, data)))

    assert result.content_type == content_type


@pytest.mark.parametrize(("limit", "truncated"), [(5, True), (11, False), (-1, False)])
def test_nutch_file_content_limit(root, limit, truncated):
    path = _write(root / "notes.txt", b"hello world")

    result = _protocol(file_content_limit=limit).fetch(_url(path))

    assert result.content == (b"hello" if truncated else b"hello world")
    assert result.truncated is truncated
    assert ("Content-Length", "11") in result.headers  # the full size


def test_nutch_directory_listing(root):
    directory = root / "dir"
    directory.mkdir()
    _write(directory / "a.txt", b"12345")
    (directory / "sub").mkdir()
    os.utime(directory / "sub", (MTIME_S, MTIME_S))
    os.symlink("nowhere", directory / "dangling")  # neither file nor directory
    os.utime(directory, (MTIME_S, MTIME_S))
    lines = {
        "a.txt": f"<a href='a.txt'>a.txt</a>\t{DATE}\t5\n",
        "sub": f"<a href='sub/'>sub/</a>\t{DATE}\t-\n",
        "dangling": "",
    }
    path = str(directory)

    result = _protocol().fetch(_url(directory) + "/")

    expected = (
        f"<html><head><title>Index of {path}</title></head>\n"
        f"<body><h1>Index of {path}</h1><pre>\n"
        "<a href='../'>../</a>\t-\t-\t-\n"
        + "".join(lines[name] for name in os.listdir(directory))
        + "</pre></body></html>\n"
    ).encode()
    assert result.status == S.SUCCESS
    assert result.content == expected
    assert result.content_type == "text/html"
    assert result.headers == (
        ("Content-Length", str(len(expected))),
        ("Content-Type", "text/html"),
        ("Last-Modified", DATE),
    )


def test_nutch_directory_listing_without_parent(root):
    result = _protocol(file_crawl_parent=False).fetch(_url(root))

    assert result.content is not None
    assert b"../" not in result.content


def test_nutch_root_directory_has_no_parent_link():
    result = _protocol().fetch("file:///")

    assert result.content is not None
    assert result.content.startswith(b"<html><head><title>Index of /</title>")
    assert b"<a href='../'>" not in result.content


def test_nutch_missing_file_is_not_found(root):
    result = _protocol().fetch(_url(root / "missing.txt"))

    assert (result.status, result.http_code, result.content) == (S.NOTFOUND, 404, None)


_FETCH_AND_PRINT = (
    "import sys; from crawllib.config import HttpConfig;"
    "from crawllib.fetch.protocol.file import FileProtocol;"
    "r = FileProtocol(HttpConfig(user_agent='t', agent_name='t')).fetch(sys.argv[1]);"
    "print(r.status.name, r.http_code, r.content)"
)


def test_nutch_unreadable_file_is_access_denied(root):
    # root reads any file: as root (CI) the fetch runs in a process without
    # the capabilities that override file modes
    path = _write(root / "secret.txt", b"secret")
    path.chmod(0)
    command = [sys.executable, "-c", _FETCH_AND_PRINT, _url(path)]
    if os.geteuid() == 0:
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[4],
        check=False,
    )

    assert done.stdout == "ACCESS_DENIED 401 None\n", done.stderr


def test_nutch_symlink_redirects_to_the_canonical_file(root):
    target = _write(root / "target.txt", b"real")
    os.symlink(target, root / "link.txt")

    result = _protocol().fetch(_url(root / "link.txt"))

    assert result.status == S.MOVED
    assert result.http_code == 300
    assert result.args == (_url(target),)
    assert result.headers == (("Location", _url(target)),)
    assert result.content is None


def test_nutch_symlinked_directory_redirects_with_a_slash(root):
    (root / "real").mkdir()
    os.symlink(root / "real", root / "alias")

    result = _protocol().fetch(_url(root / "alias"))

    assert result.args == (_url(root / "real") + "/",)


def test_nutch_dot_dot_redirects_to_the_canonical_file(root):
    (root / "sub").mkdir()
    _write(root / "top.txt", b"top")

    result = _protocol().fetch(_url(root / "sub") + "/../top.txt")

    assert (result.status, result.args) == (S.MOVED, (_url(root / "top.txt"),))


def test_nutch_noncanonical_served_in_place_when_redirects_are_off(root):
    _write(root / "target.txt", b"real")
    os.symlink(root / "target.txt", root / "link.txt")
    url = _url(root / "link.txt")

    result = _protocol(file_redirect_noncanonical=False).fetch(url)

    assert (result.url, result.status, result.content) == (url, S.SUCCESS, b"real")


def test_nutch_repeated_and_trailing_slashes_are_canonical(root):
    (root / "dir").mkdir()
    _write(root / "dir" / "f.txt", b"f")

    doubled = _protocol().fetch("file:" + quote(str(root)) + "//dir//f.txt")
    trailing = _protocol().fetch(_url(root / "dir") + "/")

    assert (doubled.status, doubled.content) == (S.SUCCESS, b"f")
    assert trailing.status == S.SUCCESS


@pytest.mark.parametrize(
    ("modified_ms", "status"),
    [
        (MTIME_MS, S.NOTMODIFIED),
        (MTIME_MS + 1, S.NOTMODIFIED),
        (MTIME_MS - 1, S.SUCCESS),
    ],
)
def test_nutch_not_modified_by_mtime(root, modified_ms, status):
    path = _write(root / "page.html", b"<html></html>")

    result = _protocol().fetch(_url(path), modified_time_ms=modified_ms)

    assert result.status == status
    if status == S.NOTMODIFIED:
        assert (result.http_code, result.content) == (304, None)
        assert result.headers == (("Last-Modified", DATE),)


def test_percent_decoded_path_and_query_ignored(root):
    _write(root / "a b+c%.txt", b"odd name")

    result = _protocol().fetch(_url(root / "a b+c%.txt") + "?q=1#part")

    assert (result.status, result.content) == (S.SUCCESS, b"odd name")


def test_fifo_is_an_exception(root):
    os.mkfifo(root / "pipe")

    result = _protocol().fetch(_url(root / "pipe"))

    assert (result.status, result.http_code) == (S.EXCEPTION, 500)
    assert result.args == (f"File Error: 500: not a regular file: {root / 'pipe'}",)


@pytest.mark.parametrize("path", ["/proc/kmsg", "/proc/version", "/dev/zero"])
def test_beamcrawl_kernel_files_are_never_read(path):
    # /proc/kmsg looks like a regular file and a read of it blocks for ever
    # (and takes the kernel's log from its reader)
    result = _protocol().fetch("file:" + path)

    assert (result.status, result.http_code, result.content) == (
        S.EXCEPTION,
        500,
        None,
    )
    assert result.args == (f"File Error: 500: not a regular file: {path}",)


def test_beamcrawl_a_symlink_into_proc_is_not_read_either(root):
    (root / "env").symlink_to("/proc/self/environ")
    protocol = _protocol(file_redirect_noncanonical=False)

    result = protocol.fetch(_url(root / "env"))

    assert (result.status, result.content) == (S.EXCEPTION, None)


class _Steps:
    """A clock that moves on a second each time it is read."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_beamcrawl_reading_stops_at_the_time_limit_with_what_came(root):
    path = _write(root / "big.txt", b"x" * (300 * 1024))
    protocol = FileProtocol(
        HttpConfig(user_agent="t", agent_name="t", file_content_limit=-1),
        time_limit_s=3.5,
        clock=_Steps(),
    )

    result = protocol.fetch(_url(path))

    # started at 1; reads at clock 2, 3 and 4 are before 4.5; at 5 it stops
    assert result.status == S.SUCCESS
    assert (result.content, result.truncated) == (b"x" * (3 * 64 * 1024), True)


@pytest.mark.parametrize(
    "zone", [Zone.PUBLIC, Zone.PRIVATE, Zone.LOOPBACK], ids=lambda z: z.label
)
def test_beamcrawl_files_are_only_for_the_local_zone(root, zone):
    path = _write(root / "a.txt", b"secret")

    result = _protocol().fetch(_url(path), zone=zone)

    assert (result.status, result.content) == (S.ADDRESS_DENIED, None)
    assert result.args == (
        f"file: URL found on a {zone.label} page: files are read only for seeds "
        "and links from local files",
    )


def test_beamcrawl_file_results_are_in_the_local_zone(root):
    path = _write(root / "a.html", b"<a href='b.html'>b</a>")

    assert _protocol().fetch(_url(path)).found_zone is Zone.LOCAL
    assert _protocol().fetch(_url(root)).found_zone is Zone.LOCAL


@pytest.mark.parametrize("url", ["http://example.org/", "ftp://example.org/x"])
def test_other_schemes_have_no_protocol(url):
    result = _protocol().fetch(url)

    assert result.status == S.PROTO_NOT_FOUND
