"""WebPage Avro I/O, and the crawldb's versions and lock.

``ReadWebPages`` / ``WriteWebPages`` read and write Avro container files of
the one WebPage schema through Beam's Avro IO. A crawldb is a directory::

    <crawldb>/current/part-*.avro   the live version
    <crawldb>/old/                  the previous version (db.preserve.backup)
    <crawldb>/.locked               held while a job updates the crawldb

A job that changes the crawldb writes a new version beside ``current`` and
then calls :func:`install_crawldb`, which swaps it in (Nutch's
``CrawlDb.install``): a failed or killed job never leaves a half-written
``current``. All paths go through Beam's ``FileSystems``.
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import secrets
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator
from typing import BinaryIO

import apache_beam as beam
import fastavro.write
from apache_beam.io import iobase
from apache_beam.io.avroio import ReadFromAvro, _FastAvroSink
from apache_beam.io.filebasedsink import FileBasedSink
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.pvalue import PBegin, PCollection

from crawllib import avrocheck, avrodeflate
from crawllib.errors import CorruptFileError, CrawlDbLockedError, CrawlDbMissingError
from crawllib.webpage import WebPage, schema

_LOG = logging.getLogger(__name__)

PART_PREFIX = "part"
PART_SUFFIX = ".avro"
CURRENT = "current"
OLD = "old"
LOCK = ".locked"
_NEW_PREFIX = "tmp-"


class ReadWebPages(beam.PTransform[PBegin, PCollection[WebPage]]):
    """Read WebPage records from Avro files matching ``file_pattern``.

    Every matching file is checked first (:func:`check_parts`): a damaged
    one stops the job before it starts.
    """

    def __init__(self, file_pattern: str) -> None:
        super().__init__()
        self._pattern = file_pattern

    def expand(self, begin: PBegin) -> PCollection[WebPage]:
        check_parts(self._pattern)
        return begin | "ReadAvro" >> ReadFromAvro(self._pattern)


DAMAGED_HINT = "see the README, 'Damaged files'"


def webpage_schema_check() -> tuple[str, frozenset[str]]:
    """The full name and the field names a WebPage part file's schema must have."""
    webpage = schema()
    name = f"{webpage['namespace']}.{webpage['name']}"
    return name, frozenset(field["name"] for field in webpage["fields"])


def part_paths(pattern: str) -> list[tuple[str, int]]:
    """(path, size) of the files matching ``pattern``, in name order."""
    matches = FileSystems.match([pattern])
    metadata = matches[0].metadata_list if matches else []
    return sorted((meta.path, meta.size_in_bytes) for meta in metadata)


def check_parts(pattern: str) -> None:
    """Refuse any file matching ``pattern`` that is not whole WebPage Avro.

    An empty, cut-short, garbage or foreign file would otherwise be read as
    fewer records (or stop the job with a traceback), and a job that writes
    would make the loss permanent.

    Raises:
        CorruptFileError: one line naming the file and what is wrong.
    """
    name, fields = webpage_schema_check()
    for path, size in part_paths(pattern):
        with open_raw(path) as stream:
            try:
                avrocheck.check_file(stream, size, name, fields)
            except avrocheck.AvroFileError as exc:
                raise CorruptFileError(f"{path}: {exc}; {DAMAGED_HINT}") from None


class WriteWebPages(beam.PTransform[PCollection[WebPage], PCollection[str]]):
    """Write WebPages as ``<directory>/part-SSSSS-of-NNNNN.avro``; yields file names.

    ``num_shards`` 0 lets the runner choose. An empty input still writes one
    empty file, so the directory is always a readable version.
    """

    def __init__(self, directory: str, num_shards: int = 0) -> None:
        super().__init__()
        self._directory = directory
        self._num_shards = num_shards

    def expand(self, pages: PCollection[WebPage]) -> PCollection[str]:
        sink = _DeflateAvroSink(
            FileSystems.join(self._directory, PART_PREFIX),
            schema(),
            "deflate",
            PART_SUFFIX,
            self._num_shards,
            "-SSSSS-of-NNNNN",
            "application/x-avro",
        )
        return pages | "WriteAvro" >> iobase.Write(sink)


DEFLATE_LEVEL = 1
"""zlib level of the Avro blocks: 1 writes 2.5x faster than Beam's 6, 20% larger."""
SYNC_INTERVAL = 256 * 1024
"""Bytes per Avro block: bigger blocks win back some of level 1's size."""


class _DeflateAvroSink(_FastAvroSink):
    """Beam's fastavro sink (``WriteToAvro``'s) at level 1, by ISA-L if installed."""

    def open(self, temp_path: str) -> fastavro.write.Writer:
        self.file_handle = FileBasedSink.open(self, temp_path)
        writer = fastavro.write.Writer(
            self.file_handle,
            self._schema,
            self._codec,
            sync_interval=SYNC_INTERVAL,
            compression_level=DEFLATE_LEVEL,
        )
        if self._codec == "deflate":  # the same blocks, by ISA-L when installed
            writer.block_writer = avrodeflate.block_writer()
        return writer


def parts_pattern(directory: str) -> str:
    """The glob of the Avro part files in a version or segment directory."""
    return FileSystems.join(directory, f"{PART_PREFIX}-*{PART_SUFFIX}")


def current_dir(crawldb: str) -> str:
    """``<crawldb>/current``."""
    return FileSystems.join(crawldb, CURRENT)


def has_parts(directory: str) -> bool:
    """Whether ``directory`` holds at least one Avro part file."""
    matches = FileSystems.match([parts_pattern(directory)])
    return bool(matches and matches[0].metadata_list)


@contextlib.contextmanager
def new_version(crawldb: str, keep_backup: bool = True) -> Iterator[str]:
    """A directory for a job's new version: installed if the block succeeds.

    If the block raises, the directory is removed and ``current`` is left as
    it was; a killed job leaves it behind, for the next lock holder to clear.
    """
    new_dir = new_version_dir(crawldb)
    try:
        yield new_dir
    except BaseException:
        remove_dir(new_dir)
        raise
    install_crawldb(crawldb, new_dir, keep_backup=keep_backup)


def crawldb_exists(crawldb: str) -> bool:
    """Whether the crawldb has a current version (recovering an interrupted swap)."""
    recover_crawldb(crawldb)
    return has_parts(current_dir(crawldb))


def require_crawldb(crawldb: str) -> str:
    """The current-version glob of an existing crawldb; a user error if missing."""
    if not crawldb_exists(crawldb):
        raise CrawlDbMissingError(f"no crawldb at {crawldb} (no {CURRENT}/ in it)")
    return parts_pattern(current_dir(crawldb))


def new_version_dir(crawldb: str) -> str:
    """A fresh directory name beside ``current`` for a job's new version."""
    name = f"{_NEW_PREFIX}{int(time.time())}-{secrets.token_hex(4)}"
    return FileSystems.join(crawldb, name)


def _is_local(path: str) -> bool:
    return FileSystems.get_scheme(path) in (None, "file")


def install_crawldb(crawldb: str, new_dir: str, keep_backup: bool = True) -> None:
    """Make ``new_dir`` the crawldb's current version (Nutch's CrawlDb.install).

    ``current`` is renamed to ``old`` (replacing an earlier ``old``), then
    ``new_dir`` to ``current``. Locally both are directory renames, so
    ``current`` is always either the whole old version or the whole new one;
    if a crash falls between them, :func:`recover_crawldb` puts ``old`` back.
    On object stores (gs://, s3://) the parts are renamed one by one.
    """
    current = current_dir(crawldb)
    old = FileSystems.join(crawldb, OLD)
    if _is_local(crawldb):
        _remove_tree(old)
        if os.path.isdir(current):
            os.rename(current, old)
        os.rename(new_dir, current)
    else:
        _remove_tree(old)
        move_parts(current, old)
        move_parts(new_dir, current)
        _remove_tree(new_dir)
    if not keep_backup:
        _remove_tree(old)


def recover_crawldb(crawldb: str) -> None:
    """Put ``old`` back as ``current`` when an install stopped between renames."""
    current = current_dir(crawldb)
    old = FileSystems.join(crawldb, OLD)
    if not has_parts(current) and has_parts(old):
        _LOG.warning("crawldb %s has no current version; restoring %s", crawldb, old)
        if _is_local(crawldb):
            _remove_tree(current)
            os.rename(old, current)
        else:
            move_parts(old, current)


def move_parts(source: str, target: str) -> None:
    """Rename the Avro part files of ``source`` into ``target``."""
    matches = FileSystems.match([parts_pattern(source)])
    paths = [meta.path for meta in matches[0].metadata_list] if matches else []
    if paths:
        targets = [FileSystems.join(target, os.path.basename(p)) for p in paths]
        FileSystems.rename(paths, targets)


def _remove_tree(path: str) -> None:
    if _is_local(path):
        shutil.rmtree(path, ignore_errors=True)
    elif FileSystems.exists(path):
        FileSystems.delete([path])


def rename_dir(source: str, target: str) -> None:
    """Move a finished job's output directory to its final name."""
    if _is_local(source):
        os.rename(source, target)
    else:
        move_parts(source, target)
        _remove_tree(source)


def remove_dir(path: str) -> None:
    """Delete a directory and everything in it, if it exists."""
    _remove_tree(path)


@contextlib.contextmanager
def crawldb_lock(crawldb: str, force: bool = False) -> Iterator[None]:
    """Hold ``<crawldb>/.locked`` for the duration (Nutch's LockUtil).

    Raises:
        CrawlDbLockedError: the lock exists and ``force`` is false.
    """
    lock = FileSystems.join(crawldb, LOCK)
    owner = f"{socket.gethostname()} pid {os.getpid()} at {time.ctime()}\n"
    if _is_local(lock):
        os.makedirs(crawldb, exist_ok=True)
        _create_local_lock(lock, owner, force)
    else:
        if FileSystems.exists(lock) and not force:
            raise _locked(crawldb, lock, _read_text(lock))
        with FileSystems.create(
            lock, compression_type=CompressionTypes.UNCOMPRESSED
        ) as f:
            f.write(owner.encode())
    _remove_stale_versions(crawldb)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            FileSystems.delete([lock])


def _remove_stale_versions(crawldb: str) -> None:
    """Delete ``tmp-*`` versions: holding the lock, no job can be writing them."""
    pattern = FileSystems.join(crawldb, f"{_NEW_PREFIX}*")
    if _is_local(crawldb):
        stale = glob.glob(pattern)
    else:
        matches = FileSystems.match([FileSystems.join(pattern, "*")])[0].metadata_list
        stale = sorted({os.path.dirname(m.path) for m in matches})
    for path in stale:
        _LOG.warning("removing %s, left by a job that did not finish", path)
        _remove_tree(path)


def _create_local_lock(lock: str, owner: str, force: bool) -> None:
    flags = os.O_CREAT | os.O_WRONLY | (os.O_TRUNC if force else os.O_EXCL)
    try:
        fd = os.open(lock, flags, 0o644)
    except FileExistsError:
        raise _locked(os.path.dirname(lock), lock, _read_text(lock)) from None
    with os.fdopen(fd, "w") as handle:
        handle.write(owner)


def _read_text(path: str) -> str:
    try:
        with open_raw(path) as f:
            return bytes(f.read(200)).decode("utf-8", "replace").strip()
    except OSError:
        return "unknown owner"


def _locked(crawldb: str, lock: str, owner: str) -> CrawlDbLockedError:
    return CrawlDbLockedError(
        f"{crawldb} is locked by another job ({lock}: {owner}); "
        "if none is running, delete the lock or pass --force"
    )


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


def read_lines(pattern: str) -> list[str]:
    """All lines of the text files matching ``pattern``, file by file in name order."""
    matches = FileSystems.match([pattern])
    paths = sorted(meta.path for meta in matches[0].metadata_list) if matches else []
    lines: list[str] = []
    for path in paths:
        with open_raw(path) as f:
            lines.extend(bytes(f.read()).decode("utf-8").splitlines())
    return lines
