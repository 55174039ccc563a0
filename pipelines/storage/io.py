"""WebPage Avro I/O, and directories of Avro part files.

``ReadWebPages`` / ``WriteWebPages`` read and write Avro container files of
the one WebPage schema through Beam's Avro IO, as ``part-SSSSS-of-NNNNN.avro``
files in a directory (a crawldb version, a segment's part). A directory
whose ``-of-NNNNN`` set is not whole (a job killed while an object store
copied its files into place) is refused, never read as fewer records. The
crawldb's versions and lock are in ``pipelines.storage.versions`` and
``pipelines.storage.locks``. All paths go through Beam's ``FileSystems``; a pattern
quotes its literal directory (:mod:`pipelines.storage.paths`), so a directory named
``crawl[1]*?`` is read and written as any other. :class:`WriteText` is
Beam's ``WriteToText`` with its output quoted likewise.
"""

from __future__ import annotations

import contextlib
import logging
import os
import posixpath
import re
import secrets
import tempfile
import time
from collections.abc import Iterator
from typing import Any, BinaryIO, cast

import apache_beam as beam
import fastavro.write
from apache_beam.io import iobase
from apache_beam.io.avroio import ReadFromAvro, _FastAvroSink
from apache_beam.io.filebasedsink import FileBasedSink
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.io.textio import _TextSink
from apache_beam.pvalue import PBegin, PCollection

from crawllib.avro import check as avrocheck
from crawllib.avro import deflate as avrodeflate
from crawllib.avro import encode as avroencode
from crawllib.errors import CorruptFileError
from crawllib.webpage import WebPage, schema
from pipelines.runtime import interrupts
from pipelines.storage import paths

_LOG = logging.getLogger(__name__)
avrodeflate.install_block_reader()  # every Avro file read here inflates by ISA-L

PART_PREFIX = "part"
PART_SUFFIX = ".avro"


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
    return sorted((meta.path, meta.size_in_bytes) for meta in paths.match(pattern))


def check_parts(pattern: str) -> None:
    """Refuse any file matching ``pattern`` that is not whole WebPage Avro.

    An empty, cut-short, garbage or foreign file would otherwise be read as
    fewer records (or stop the job with a traceback), and a job that writes
    would make the loss permanent.

    Raises:
        CorruptFileError: one line naming the file and what is wrong.
    """
    name, fields = webpage_schema_check()
    found = part_paths(pattern)
    for path, size in found:
        with open_raw(path) as stream:
            try:
                avrocheck.check_file(stream, size, name, fields)
            except avrocheck.AvroFileError as exc:
                raise CorruptFileError(f"{path}: {exc}; {DAMAGED_HINT}") from None
    for directory, problem in incomplete_sets([path for path, _ in found]).items():
        raise CorruptFileError(
            f"{directory}: {problem} (a job stopped while its files were moved "
            f"into place: run it again); {DAMAGED_HINT}"
        )


_SHARD = re.compile(r"-(\d+)-of-(\d+)" + re.escape(PART_SUFFIX) + "$")


def incomplete_sets(paths: list[str]) -> dict[str, str]:
    """Directories whose ``part-SSSSS-of-NNNNN`` files are not one whole set.

    Each file of a Beam job's output carries the number of files written; on
    an object store they are copied into place one by one, so a job killed
    meanwhile leaves some. Returns what is wrong, by directory.
    """
    shards: dict[str, dict[int, set[int]]] = {}
    for path in paths:
        match = _SHARD.search(posixpath.basename(path))
        if match:
            sets = shards.setdefault(posixpath.dirname(path), {})
            sets.setdefault(int(match[2]), set()).add(int(match[1]))
    problems = {}
    for directory, sets in shards.items():
        if len(sets) > 1:
            totals = " and ".join(f"of-{total}" for total in sorted(sets))
            problems[directory] = f"part files of different jobs ({totals})"
            continue
        ((total, present),) = sets.items()
        if len(present) < total:
            problems[directory] = f"only {len(present)} of its {total} part files"
    return problems


def parts_state(directory: str) -> str:
    """``absent``, ``whole`` or ``incomplete``: the part files of ``directory``."""
    paths = [path for path, _ in part_paths(parts_pattern(directory))]
    if not paths:
        return "absent"
    return "incomplete" if incomplete_sets(paths) else "whole"


def dir_exists(path: str) -> bool:
    """Whether ``path`` is a directory (on an object store: any object under it)."""
    if is_local(path):
        return os.path.isdir(path)
    return bool(paths.match(paths.under(path, "**"), limit=1))


def is_local(path: str) -> bool:
    """Whether ``path`` is on the local filesystem."""
    return paths.is_local(path)


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


class WriteText(beam.PTransform[PCollection[str], PCollection[str]]):
    """Beam's ``WriteToText``, its output prefix quoted (:class:`paths.LiteralSink`).

    Lines go to ``<prefix><shard><suffix>`` files; yields the file names.
    """

    def __init__(
        self,
        prefix: str,
        suffix: str = "",
        shard_name_template: str | None = None,
        header: str | None = None,
        footer: str | None = None,
    ) -> None:
        super().__init__()
        self._sink = _LiteralTextSink(
            prefix,
            file_name_suffix=suffix,
            shard_name_template=shard_name_template,
            header=header,
            footer=footer,
        )

    def expand(self, lines: PCollection[str]) -> PCollection[str]:
        return lines | "Write" >> iobase.Write(self._sink)  # WriteToText's label


class _LiteralTextSink(paths.LiteralSink, _TextSink):
    """Beam's text sink (``WriteToText``'s), its output prefix quoted."""


DEFLATE_LEVEL = 1
"""zlib level of the Avro blocks: 1 writes 2.5x faster than Beam's 6, 20% larger."""
SYNC_INTERVAL = 256 * 1024
"""Bytes per Avro block: bigger blocks win back some of level 1's size."""


class _DeflateAvroSink(paths.LiteralSink, _FastAvroSink):
    """Beam's fastavro sink (``WriteToAvro``'s) at level 1, by ISA-L if installed.

    Records are encoded by :mod:`crawllib.avro.encode` (fastavro's bytes, at
    half the cost or less) into the blocks fastavro's ``Writer`` would make;
    the ``Writer`` writes the header and frames each block.
    """

    def open(self, temp_path: str) -> avroencode.EncodedBlocks:
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
        if self._schema == schema():
            return avroencode.EncodedBlocks(writer, avroencode.encode_webpage)
        encode = avroencode.compile_encoder(self._schema)
        return avroencode.EncodedBlocks(writer, encode)

    def write_record(self, blocks: avroencode.EncodedBlocks, value: Any) -> None:
        with _closed_on_failure(cast(Any, blocks.writer).fo):
            blocks.write(value)

    def close(self, blocks: avroencode.EncodedBlocks) -> None:
        with _closed_on_failure(cast(Any, blocks.writer).fo):
            blocks.end_block()
            super().close(blocks.writer)  # fastavro's flush, then the file closed


@contextlib.contextmanager
def _closed_on_failure(handle: Any) -> Iterator[None]:
    """The file closed if the block fails (a full disk): Beam leaves it open."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(OSError):  # the buffer it cannot write
            handle.close()
        raise


def parts_pattern(directory: str) -> str:
    """The glob of the Avro part files in a version or segment directory.

    The directory is quoted (:func:`pipelines.storage.paths.escape`): the glob
    matches the files in exactly that directory.
    """
    return paths.under(directory, f"{PART_PREFIX}-*{PART_SUFFIX}")


def has_parts(directory: str) -> bool:
    """Whether ``directory`` holds at least one Avro part file."""
    return bool(paths.match(parts_pattern(directory), limit=1))


def move_parts(source: str, target: str) -> None:
    """Rename the Avro part files of ``source`` into ``target``."""
    found = [meta.path for meta in paths.match(parts_pattern(source))]
    if found:
        targets = [FileSystems.join(target, posixpath.basename(p)) for p in found]
        FileSystems.rename(found, targets)


def rename_dir(source: str, target: str) -> None:
    """Move a finished job's output directory to its final name."""
    if is_local(source):
        os.rename(source, target)
    else:
        move_parts(source, target)
        remove_dir(source)


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


def read_lines(pattern: str) -> list[str]:
    """All lines of the text files matching ``pattern``, file by file in name order."""
    lines: list[str] = []
    for path in sorted(meta.path for meta in paths.match(pattern)):
        with open_raw(path) as f:
            lines.extend(bytes(f.read()).decode("utf-8").splitlines())
    return lines
