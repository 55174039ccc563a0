"""Files and directories on any filesystem Beam knows (local, S3, GCS).

The primitives the storage code stands on: whether a directory exists,
removing one whole, an output directory that is as before if its job fails,
a scratch directory for a job's small results, and reading files as stored.
Every path goes through Beam's ``FileSystems`` (:mod:`pipelines.storage.paths`
quotes literal directories), so each works on an object store as on disk.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import tempfile
import time
from collections.abc import Iterator
from typing import Any, BinaryIO

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from pipelines.runtime import interrupts
from pipelines.storage import paths


def dir_exists(path: str) -> bool:
    """Whether ``path`` is a directory (on an object store: any object under it)."""
    if is_local(path):
        return os.path.isdir(path)
    return bool(paths.match(paths.under(path, "**"), limit=1))


def is_local(path: str) -> bool:
    """Whether ``path`` is on the local filesystem."""
    return paths.is_local(path)


def remove_dir(path: str) -> None:
    """Delete a directory and everything in it, if it exists, whole.

    A signal that comes meanwhile is raised once it is gone.
    """
    with interrupts.deferred():
        paths.delete_tree(path)


@contextlib.contextmanager
def new_output(out_dir: str) -> Iterator[None]:
    """For a job that writes into ``out_dir``, empty or absent before it.

    If the block fails or is interrupted, what the job wrote there (a Beam
    sink's temporary files, some of the output) is removed: ``out_dir`` is
    as it was.
    """
    existed = is_local(out_dir) and os.path.isdir(out_dir)
    try:
        yield
    except BaseException:
        if existed:
            for name in os.listdir(out_dir):
                remove_dir(os.path.join(out_dir, name))
        else:
            remove_dir(out_dir)
        raise


@contextlib.contextmanager
def scratch(temp_location: str | None) -> Iterator[str]:
    """A :func:`scratch_dir` for the block, removed when it ends (or fails)."""
    path = scratch_dir(temp_location)
    try:
        yield path
    finally:
        remove_dir(path)


def scratch_dir(temp_location: str | None) -> str:
    """A new directory for a job's small results read back by the driver.

    Under ``--temp_location`` when one is given (workers on other machines
    can write there), else a local temporary directory.
    """
    name = f"beamcrawl-{int(time.time())}-{secrets.token_hex(4)}"
    if temp_location:
        return FileSystems.join(temp_location, name)
    return tempfile.mkdtemp(prefix=name + "-")


def open_raw(path: str) -> BinaryIO:
    """``path`` opened for reading as stored (no decompression by its name)."""
    return FileSystems.open(path, compression_type=CompressionTypes.UNCOMPRESSED)


def read_range(path: str, start: int, end: int) -> bytes:
    """Bytes ``[start, end)`` of ``path``, fetching no more than those.

    Beam's readers of object stores fetch 16 MiB past each read to buffer
    it; a merge reading many small ranges of large files would fetch (and
    hold) that much per range. So the range is read from the unbuffered
    stream under a buffered reader (local files, S3), or with the GCS
    reader's chunk set to the range's size.
    """
    size = end - start
    with open_raw(path) as handle:
        stream: Any = getattr(handle, "raw", handle)
        if hasattr(handle, "_chunk_size"):  # google.cloud.storage's BlobReader
            handle._chunk_size = max(size, 1)
        stream.seek(start)
        chunks = []
        while size > 0:
            chunk = stream.read(size)
            if not chunk:
                break
            chunks.append(bytes(chunk))
            size -= len(chunk)
    return b"".join(chunks)


class RangeReader(io.BufferedIOBase):
    """Bytes ``[start, end)`` of ``path`` as a stream of their own, read lazily.

    Position 0 is ``start``. Each fetch is one :func:`read_range` of
    ``chunk_bytes`` (or of the read asked for, if larger), so a reader
    holds about one chunk however long the range, and an object store gets
    exact range requests, one per chunk.
    """

    def __init__(self, path: str, start: int, end: int, chunk_bytes: int) -> None:
        super().__init__()
        self._path = path
        self._start = start
        self._size = max(end - start, 0)
        self._chunk_bytes = max(chunk_bytes, 1)
        self._position = 0
        self._chunk = b""
        self._chunk_at = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}
        self._position = max(base[whence] + offset, 0)
        return self._position

    def read(self, size: int | None = -1) -> bytes:
        left = max(self._size - self._position, 0)
        wanted = left if size is None or size < 0 else min(size, left)
        pieces = []
        while wanted > 0:
            within = self._position - self._chunk_at
            if not 0 <= within < len(self._chunk):
                self._fetch(wanted)
                within = 0
                if not self._chunk:
                    break  # the file is shorter than the range
            piece = self._chunk[within : within + wanted]
            pieces.append(piece)
            self._position += len(piece)
            wanted -= len(piece)
        return b"".join(pieces)

    def _fetch(self, wanted: int) -> None:
        self._chunk = b""  # the last chunk is let go before the next is read
        first = self._start + self._position
        last = min(first + max(self._chunk_bytes, wanted), self._start + self._size)
        self._chunk = read_range(self._path, first, last)
        self._chunk_at = self._position


def read_lines(pattern: str) -> list[str]:
    """All lines of the text files matching ``pattern``, file by file in name order."""
    lines: list[str] = []
    for path in sorted(meta.path for meta in paths.match(pattern)):
        with open_raw(path) as f:
            lines.extend(bytes(f.read()).decode("utf-8").splitlines())
    return lines
