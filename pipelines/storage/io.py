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
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any, cast

import apache_beam as beam
import fastavro.write
from apache_beam.io import iobase
from apache_beam.io.avroio import ReadFromAvro, _FastAvroSink
from apache_beam.io.filebasedsink import FileBasedSink
from apache_beam.io.filesystems import FileSystems
from apache_beam.io.textio import _TextSink
from apache_beam.pvalue import PBegin, PCollection

from crawllib.avro import deflate as avrodeflate
from crawllib.avro import encode as avroencode
from crawllib.webpage import WebPage, schema
from pipelines.storage import partfiles, paths

_LOG = logging.getLogger(__name__)
avrodeflate.install_block_reader()  # every Avro file read here inflates by ISA-L


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
        return begin | "ReadAvro" >> ReadFromAvro(self._pattern)


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
