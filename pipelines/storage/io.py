"""WebPage Avro I/O: the Beam transforms that read and write part files.

``ReadWebPages`` / ``WriteWebPages`` read and write Avro container files of
the one WebPage schema through Beam's Avro IO, as ``part-SSSSS-of-NNNNN.avro``
files in a directory (a crawldb version, a segment's part). A directory
whose ``-of-NNNNN`` set is not whole (a job killed while an object store
copied its files into place) is refused, never read as fewer records
(:mod:`pipelines.storage.partfiles`). The
crawldb's versions and lock are in ``pipelines.storage.versions`` and
``pipelines.storage.locks``. All paths go through Beam's ``FileSystems``; a pattern
quotes its literal directory (:mod:`pipelines.storage.paths`), so a directory named
``crawl[1]*?`` is read and written as any other. :class:`WriteText` is
Beam's ``WriteToText`` with its output quoted likewise.

The sources and sinks here are built on Beam's public file IO
(``FileBasedSource``, ``FileBasedSink``), not on its private Avro and text
classes, whose constructors change between releases (Beam 2.7x's file sink
passes its Avro sink a ``triggering_frequency`` that 2.62's lacks). Reading
inflates by ISA-L for these sources' own files only
(:mod:`crawllib.avro.blocks`): fastavro stays as the process installed it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import weakref
from collections.abc import Iterator
from typing import Any, cast

import apache_beam as beam
import fastavro.write
from apache_beam.coders.coders import ToBytesCoder
from apache_beam.io import filebasedsource, iobase
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.pvalue import PBegin, PCollection

from crawllib.avro import blocks as avroblocks
from crawllib.avro import deflate as avrodeflate
from crawllib.avro import encode as avroencode
from crawllib.webpage import WebPage, schema
from pipelines.storage import partfiles, paths

_LOG = logging.getLogger(__name__)


class ReadWebPages(beam.PTransform[PBegin, PCollection[WebPage]]):
    """Read WebPage records from Avro files matching ``file_pattern``.

    Every matching file is checked first (:func:`check_parts`): a damaged
    one stops the job before it starts.
    """

    def __init__(self, file_pattern: str) -> None:
        super().__init__()
        self._pattern = file_pattern

    def expand(self, begin: PBegin) -> PCollection[WebPage]:
        partfiles.check_parts(self._pattern)
        return begin | "ReadAvro" >> _ReadAvro(self._pattern)


class _ReadAvro(beam.PTransform[PBegin, PCollection[Any]]):
    """Beam's ``ReadFromAvro``, by :class:`AvroSource` (its steps, its labels)."""

    def __init__(self, file_pattern: str) -> None:
        super().__init__()
        self._source = AvroSource(file_pattern)

    def expand(self, begin: PBegin) -> PCollection[Any]:
        return begin.pipeline | "Read" >> iobase.Read(self._source)


def read_all_avro() -> filebasedsource.ReadAllFiles:
    """Beam's ``ReadAllFromAvro()`` by :class:`AvroSource`: files by name.

    Each element is a pattern (quote a literal path with
    :func:`paths.escape`); each file it matches is read by its name, quoted
    again (as :func:`paths.reading_by_name` makes Beam's readers do).
    """
    return filebasedsource.ReadAllFiles(
        True, CompressionTypes.AUTO, 64 * 1024 * 1024, 0, _source_by_name
    )


def _source_by_name(path: str) -> AvroSource:
    return AvroSource(paths.escape(path))


class AvroSource(filebasedsource.FileBasedSource):
    """Beam's fastavro source, its ``deflate`` blocks inflated by ISA-L.

    What ``ReadFromAvro`` reads by (Beam's ``_FastAvroSource``): a bundle
    of a file starts at the first block after its start offset and claims
    each block's start; blocks are read by :class:`crawllib.avro.blocks.BlockReader`.
    """

    def __init__(self, file_pattern: str, validate: bool = True) -> None:
        super().__init__(file_pattern, min_bundle_size=0, validate=validate)

    def read_records(
        self, file_name: str, range_tracker: iobase.RangeTracker
    ) -> Iterator[Any]:
        next_block_start = -1

        def split_points_unclaimed(stop_position: int) -> Any:
            if next_block_start >= stop_position:  # no block starts before the stop
                return 0
            return iobase.RangeTracker.SPLIT_POINTS_UNKNOWN

        range_tracker.set_split_points_unclaimed_callback(split_points_unclaimed)
        start_offset = range_tracker.start_position() or 0
        with self.open_file(file_name) as f:
            blocks = avroblocks.BlockReader(f)
            marker = blocks.sync_marker
            # a bundle that ended just after a sync marker: this one starts there
            f.seek(max(0, start_offset - len(marker)))
            avroblocks.skip_past_sync(f, marker)
            next_block_start = f.tell()
            while range_tracker.try_claim(next_block_start):
                block = next(blocks)
                next_block_start = block.offset + block.size
                yield from block


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
            FileSystems.join(self._directory, partfiles.PART_PREFIX),
            schema(),
            "deflate",
            partfiles.PART_SUFFIX,
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


_OPEN_FILES: weakref.WeakSet[Any] = weakref.WeakSet()
_OPEN_FILES_LOCK = threading.Lock()


def close_abandoned_files() -> int:
    """Close the files this process's sinks opened and no job will close; how many.

    A job that fails in one sink leaves the files its other sinks had open
    to the garbage collector (Beam drops the writer with the failed bundle):
    on a full disk, an open file of a deleted directory holds its space. The
    command line calls this once its job has failed or been interrupted.
    """
    with _OPEN_FILES_LOCK:
        handles = list(_OPEN_FILES)
        _OPEN_FILES.clear()
    for handle in handles:
        with contextlib.suppress(OSError):  # the buffer it cannot write
            handle.close()
    return len(handles)


class _ClosingSink(paths.LiteralSink):
    """A file sink whose open files :func:`close_abandoned_files` can close."""

    def open(self, temp_path: str) -> Any:
        handle = super().open(temp_path)
        with _OPEN_FILES_LOCK:
            _OPEN_FILES.add(handle)
        return handle

    def close(self, file_handle: Any) -> None:
        with _OPEN_FILES_LOCK:
            _OPEN_FILES.discard(file_handle)
        super().close(file_handle)


class _LiteralTextSink(_ClosingSink):
    """Beam's text sink (``WriteToText``'s), its output prefix quoted.

    Each line (and the header and footer, if any) is written UTF-8 encoded
    and followed by a newline; the file's name says whether it is compressed.
    """

    def __init__(
        self,
        file_path_prefix: str,
        file_name_suffix: str,
        shard_name_template: str | None,
        header: str | None,
        footer: str | None,
    ) -> None:
        super().__init__(
            file_path_prefix,
            coder=ToBytesCoder(),
            file_name_suffix=file_name_suffix,
            shard_name_template=shard_name_template,
            mime_type="text/plain",
            compression_type=CompressionTypes.AUTO,
        )
        self._header = header
        self._footer = footer

    def open(self, temp_path: str) -> Any:
        handle = super().open(temp_path)
        if self._header is not None:
            self.write_encoded_record(handle, ToBytesCoder().encode(self._header))
        return handle

    def write_encoded_record(self, file_handle: Any, encoded_value: bytes) -> None:
        file_handle.write(encoded_value)
        file_handle.write(b"\n")

    def close(self, file_handle: Any) -> None:
        if self._footer is not None:
            self.write_encoded_record(file_handle, ToBytesCoder().encode(self._footer))
        super().close(file_handle)


DEFLATE_LEVEL = 1
"""zlib level of the Avro blocks: 1 writes 2.5x faster than Beam's 6, 20% larger."""
SYNC_INTERVAL = 256 * 1024
"""Bytes per Avro block: bigger blocks win back some of level 1's size."""


class _DeflateAvroSink(_ClosingSink):
    """Beam's fastavro sink (``WriteToAvro``'s) at level 1, by ISA-L if installed.

    Records are encoded by :mod:`crawllib.avro.encode` (fastavro's bytes, at
    half the cost or less) into the blocks fastavro's ``Writer`` would make;
    the ``Writer`` writes the header and frames each block.
    """

    def __init__(
        self,
        file_path_prefix: str,
        schema: dict[str, Any],
        codec: str,
        file_name_suffix: str,
        num_shards: int,
        shard_name_template: str,
        mime_type: str,
    ) -> None:
        super().__init__(
            file_path_prefix,
            coder=None,
            file_name_suffix=file_name_suffix,
            num_shards=num_shards,
            shard_name_template=shard_name_template,
            mime_type=mime_type,
            # the codec compresses each block; the file itself is not
            compression_type=CompressionTypes.UNCOMPRESSED,
        )
        self._schema = schema
        self._codec = codec

    def display_data(self) -> dict[str, Any]:
        return {
            **super().display_data(),
            "codec": self._codec,
            "schema": str(self._schema),
        }

    def open(self, temp_path: str) -> avroencode.EncodedBlocks:
        handle = super().open(temp_path)
        writer = fastavro.write.Writer(
            handle,
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
            blocks.writer.flush()
            super().close(cast(Any, blocks.writer).fo)


@contextlib.contextmanager
def _closed_on_failure(handle: Any) -> Iterator[None]:
    """The file closed if the block fails (a full disk): Beam leaves it open."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(OSError):  # the buffer it cannot write
            handle.close()
        raise
