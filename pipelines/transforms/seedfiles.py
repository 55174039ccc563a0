"""Reading seed files: each line with its file and number, the rejected ones reported.

:class:`ReadSeedLines` reads every seed file whole (the line numbers need
it), through Beam's filesystems: one worker a file, as Beam's text reader
reads a file under its 64 MB split size (no shuffle after: it cost 20% of
inject's time for 100,000 seeds on the local runner);
:class:`ReadSeeds` gives the lines as strings. :class:`ReportRejected` logs
the first rejected lines in full, in file and line order whichever worker
met them, then how many more (:mod:`crawllib.db.seedlines`); the reader
and ``Inject`` each report theirs. The counters are inject's (``injector``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PBegin, PCollection, TaggedOutput

from crawllib.db import seedlines
from crawllib.db.seedlines import RejectedLine, Rejections, SeedLine
from pipelines.runtime.tagged import Tagged

_LOG = logging.getLogger(__name__)
NAMESPACE = "injector"
REJECTED = "rejected"
"""The tag of the rejected lines' output (:class:`RejectedLine`)."""


class ReadSeedLines(beam.PTransform[PBegin, PCollection[SeedLine]]):
    """The seed files' lines, each with its file and line number.

    The files are those :func:`pipelines.inject.list_seed_files` lists.

    Each file is read whole, decompressed by its name's extension (``.gz``,
    ``.bz2`` ...), from any filesystem Beam has, and its lines numbered from
    1 (:func:`crawllib.db.seedlines.read_lines`). Lines that are not UTF-8
    are counted as ``injector/urls_rejected`` and dropped, never fatal; the
    first five are logged with file and line, then how many more.
    """

    def __init__(self, files: Sequence[str]) -> None:
        super().__init__()
        self._files = list(files)

    def expand(self, begin: PBegin) -> PCollection[SeedLine]:
        read = (
            begin
            | "ListFiles" >> beam.Create(self._files)
            | "ReadLines"
            >> beam.ParDo(_ReadLinesFn()).with_outputs(REJECTED, main="lines")
        )
        _ = read[REJECTED] | "ReportRejected" >> ReportRejected()
        return read.lines


class ReadSeeds(beam.PTransform[PBegin, PCollection[str]]):
    """The seed files' lines as strings: :class:`ReadSeedLines` without the places.

    Lines that are not UTF-8 are counted as ``injector/urls_rejected`` and
    dropped, never fatal.
    """

    def __init__(self, files: Sequence[str]) -> None:
        super().__init__()
        self._files = list(files)

    def expand(self, begin: PBegin) -> PCollection[str]:
        return (
            begin
            | "ReadLines" >> ReadSeedLines(self._files)
            | "Text" >> beam.Map(_text)
        )


class _ReadLinesFn(beam.DoFn):
    """A seed file to its lines; those not UTF-8 to the ``rejected`` output."""

    rejected = Metrics.counter(NAMESPACE, "urls_rejected")

    def process(self, path: str) -> Iterator[SeedLine | Tagged]:
        with FileSystems.open(path) as stream:
            for line in seedlines.read_lines(stream, path):
                if isinstance(line, RejectedLine):
                    self.rejected.inc()
                    yield TaggedOutput(REJECTED, line)
                else:
                    yield line


class ReportRejected(beam.PTransform[PCollection[RejectedLine], PCollection[None]]):
    """Log the first rejected lines in full, in file and line order, then a count."""

    def expand(self, rejected: PCollection[RejectedLine]) -> PCollection[None]:
        return (
            rejected
            | "FirstAndCount" >> beam.CombineGlobally(_RejectionsFn())
            | "Log" >> beam.FlatMap(_log_rejections)
        )


class _RejectionsFn(beam.CombineFn):
    def create_accumulator(self) -> Rejections:
        return Rejections()

    def add_input(self, rejections: Rejections, line: RejectedLine) -> Rejections:
        return rejections.add(line)

    def merge_accumulators(self, accumulators: Iterable[Rejections]) -> Rejections:
        return Rejections.merged(accumulators)

    def extract_output(self, rejections: Rejections) -> Rejections:
        return rejections


def _log_rejections(rejections: Rejections) -> list[None]:
    for line in seedlines.report(rejections, f"{NAMESPACE}/urls_rejected"):
        _LOG.warning("%s", line)
    return []


def _text(line: SeedLine) -> str:
    return line.text
