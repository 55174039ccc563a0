"""``beamcrawl readseg (SEGMENT... | --dir SEGMENTS) (--list | --dump OUT_DIR)``.

Nutch's SegmentReader as Beam transforms. ``--list`` prints one line per
segment, as ``SegmentReader -list`` does (tab-separated, times local)::

    NAME            GENERATED   FETCHER START        FETCHER END          FETCHED PARSED
    20240102030405  10          2024-01-02T03:04:10  2024-01-02T03:04:59  9       7

It shows the records in ``generate/``; the
earliest and latest ``fetchTime`` and the number of records in ``fetch/``
(every fetch attempt, whatever its status, as Nutch counts ``crawl_fetch``
entries); and the pages the parser ran on in ``parse/`` (FETCHED records,
whether their parse succeeded or failed, as Nutch counts ``parse_data``
entries; the redirects and errors that ``parse/`` also carries through are
not counted). A part the segment does not have shows ``?``. The figures are
computed by :class:`SegmentStats` and read back from a scratch directory.

``--dump OUT_DIR`` writes every record of one segment as a line of JSON:
``OUT_DIR/generate/part-*.jsonl``, ``OUT_DIR/fetch/...`` and
``OUT_DIR/parse/...``, content as text when it is UTF-8, else base64.
"""

from __future__ import annotations

import json
import os
import posixpath
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import GoogleCloudOptions
from apache_beam.pvalue import PCollection

from crawllib.errors import ConfigError, CrawlError
from crawllib.status import CrawlStatus
from crawllib.terminal import printable
from crawllib.webpage import WebPage, to_json_line
from pipelines.cli.readseg import ReadSegRequest as ReadSegRequest
from pipelines.cli.readseg import parser, request
from pipelines.runtime.options import (
    Job,
    parse_job_args,
)
from pipelines.storage import fs, io, partfiles, paths
from pipelines.storage.segments import FETCH, GENERATE, PARSE, PARTS, list_segments

HEADER = "NAME\t\tGENERATED\tFETCHER START\t\tFETCHER END\t\tFETCHED\tPARSED"
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S"

Counts = tuple[int, int, int | None, int | None, int]
"""(generated, fetched, earliest fetchTime, latest fetchTime, parsed)."""


class SegmentStats(
    beam.PTransform[PCollection[tuple[str, str, WebPage]], PCollection[dict[str, Any]]]
):
    """``(segment, part, page)`` to one dict of figures per segment.

    ``part`` is ``generate``, ``fetch`` or ``parse``. The dict has
    ``segment``, ``generated``, ``fetched``, ``fetch_start`` and
    ``fetch_end`` (ms, None without fetch records) and ``parsed``; see the
    module doc for what is counted.
    """

    def expand(
        self, records: PCollection[tuple[str, str, WebPage]]
    ) -> PCollection[dict[str, Any]]:
        return (
            records
            | "Measure" >> beam.Map(_measure)
            | "Sum" >> beam.CombinePerKey(beam.CombineFn.from_callable(combine_counts))
            | "ToDict" >> beam.MapTuple(_as_dict)
        )


def _measure(record: tuple[str, str, WebPage]) -> tuple[str, Counts]:
    segment, part, page = record
    if part == GENERATE:
        return segment, (1, 0, None, None, 0)
    if part == FETCH:
        fetch_time = page["fetchTime"]
        return segment, (0, 1, fetch_time, fetch_time, 0)
    return segment, (0, 0, None, None, int(page["status"] == CrawlStatus.FETCHED))


def combine_counts(values: Iterable[Counts]) -> Counts:
    """Add counts up: sums, and the earliest and latest fetch times."""
    generated = fetched = parsed = 0
    start: int | None = None
    end: int | None = None
    for gen, fet, first, last, par in values:
        generated, fetched, parsed = generated + gen, fetched + fet, parsed + par
        if first is not None:
            start = first if start is None else min(start, first)
        if last is not None:
            end = last if end is None else max(end, last)
    return generated, fetched, start, end, parsed


def _as_dict(segment: str, counts: Counts) -> dict[str, Any]:
    generated, fetched, start, end, parsed = counts
    return {
        "segment": segment,
        "generated": generated,
        "fetched": fetched,
        "fetch_start": start,
        "fetch_end": end,
        "parsed": parsed,
    }


def list_line(name: str, figures: dict[str, Any] | None, parts: set[str]) -> str:
    """One ``-list`` line: ``?`` for a part the segment lacks or an unknown time.

    ``figures`` is :class:`SegmentStats`' dict, None when no record was read.
    """
    figures = figures or {}

    def count(part: str, key: str) -> str:
        return str(figures.get(key, 0)) if part in parts else "?"

    def when(key: str) -> str | None:
        value = figures.get(key)
        if value is None:
            return None
        return time.strftime(_TIME_FORMAT, time.localtime(value // 1000))

    start = when("fetch_start") or "?\t"  # Nutch's "?" for no start has a tab
    end = when("fetch_end") or "?"
    fetched, parsed = count(FETCH, "fetched"), count(PARSE, "parsed")
    return "\t".join(
        [name, count(GENERATE, "generated"), "", start, end, fetched, parsed]
    )


def segment_parts(segment: str) -> set[str]:
    """Which of ``generate``, ``fetch`` and ``parse`` the segment has."""
    return {
        part for part in PARTS if partfiles.has_parts(FileSystems.join(segment, part))
    }


def run(argv: Sequence[str] | None = None) -> int:
    """Run ``readseg``: ``--list`` prints to stdout, ``--dump`` writes files."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: ReadSegRequest, job: Job) -> int:
    """Run a request the command line built and checked (``pipelines.cli``)."""
    return execute(request, job)


def execute(request: ReadSegRequest, job: Job) -> int:
    """List or dump the request's segments; the exit code."""
    segments = list(request.segments)
    for directory in request.segment_dirs:
        found = list_segments(directory)
        if not found:
            raise CrawlError(f"no segments in {directory}")
        segments.extend(found)
    parts = {segment: segment_parts(segment) for segment in segments}
    for segment, present in parts.items():
        if not present:
            raise CrawlError(f"no segment at {segment} (no generate/, fetch/, parse/)")
    if request.dump is not None:
        if len(segments) != 1:
            raise ConfigError("beamcrawl readseg: --dump takes one segment")
        return _dump(job, segments[0], parts[segments[0]], request.dump)
    return _list(job, parts)


def _list(job: Job, parts: dict[str, set[str]]) -> int:
    with fs.scratch(_temp_location(job)) as scratch:
        with job.pipeline() as pipeline:
            _ = (
                _read_parts(pipeline, parts)
                | "Together" >> beam.Flatten()
                | "Stats" >> SegmentStats()
                | "ToJson" >> beam.Map(json.dumps)
                | "WriteStats" >> io.WriteText(FileSystems.join(scratch, "stats"))
            )
        lines = fs.read_lines(paths.under(scratch, "stats*"))
    rows = [json.loads(line) for line in lines]
    figures = {row["segment"]: row for row in rows}
    print(HEADER)
    for index, (segment, present) in enumerate(parts.items()):
        name = posixpath.basename(segment.rstrip("/"))
        print(list_line(printable(name), figures.get(str(index)), present))
    return 0


def _read_parts(
    pipeline: beam.Pipeline, parts: dict[str, set[str]]
) -> list[PCollection[tuple[str, str, WebPage]]]:
    """(segment's index, part, page) of every part of every segment."""
    records = []
    for index, (segment, present) in enumerate(parts.items()):
        for part in sorted(present):
            label = f"{part.capitalize()}{index}"
            pattern = partfiles.parts_pattern(FileSystems.join(segment, part))
            records.append(
                pipeline
                | f"Read{label}" >> io.ReadWebPages(pattern)
                | f"Key{label}"
                >> beam.Map(lambda page, key, part: (key, part, page), str(index), part)
            )
    return records


def _dump(job: Job, segment: str, present: set[str], out_dir: str) -> int:
    if _has_content(out_dir):
        raise ConfigError(f"beamcrawl readseg: output directory {out_dir} is not empty")
    with fs.new_output(out_dir), job.pipeline() as pipeline:
        for part in sorted(present):
            label = part.capitalize()
            _ = (
                pipeline
                | f"Read{label}"
                >> io.ReadWebPages(
                    partfiles.parts_pattern(FileSystems.join(segment, part))
                )
                | f"ToJson{label}" >> beam.Map(to_json_line)
                | f"Write{label}"
                >> io.WriteText(
                    FileSystems.join(out_dir, part, "part"),
                    suffix=".jsonl",
                    shard_name_template="-SSSSS-of-NNNNN",
                )
            )
    print(
        f"SegmentReader: dump of {printable(segment)} written to {printable(out_dir)}",
        file=sys.stderr,
    )
    return 0


def _has_content(path: str) -> bool:
    """Whether ``path`` is a file or a directory with anything in it."""
    if FileSystems.get_scheme(path) in (None, "file"):
        return os.path.isfile(path) or (os.path.isdir(path) and bool(os.listdir(path)))
    return bool(paths.match(paths.under(path, "**"), limit=1))


def _temp_location(job: Job) -> str | None:
    temp: str | None = job.pipeline_options().view_as(GoogleCloudOptions).temp_location
    return temp


if __name__ == "__main__":  # as `beamcrawl readseg`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["readseg", *sys.argv[1:]]))
