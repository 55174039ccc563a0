"""``beamcrawl parse SEGMENT [--force] [--resume]``: parse a segment (ParserJob).

:class:`Parse` turns fetched pages into parsed ones (``crawllib.parse.parse``);
the job reads ``SEGMENT/fetch`` and writes ``SEGMENT/parse`` (renamed into
place when done). Parsed records carry no content: it stays in ``fetch/``.
With ``--resume`` the pages an earlier parse already parsed (parse mark in
``SEGMENT/parse``) keep that parse, unless ``--force``.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection, TaggedOutput
from apache_beam.runners.runner import PipelineResult
from apache_beam.transforms.window import GlobalWindows
from apache_beam.utils.windowed_value import WindowedValue

from crawllib.config import CrawlConfig, ParseConfig, step_config
from crawllib.errors import CrawlError
from crawllib.parse.parse import PageParser, ParseSkip, skip_reason
from crawllib.parse.pool import (
    EncodedParse,
    EncodedParseBatch,
    ParseBatch,
    parse_without_content,
)
from crawllib.status import Mark, ParseMajor
from crawllib.webpage import WebPage
from pipelines.cli.parse import ParseRequest as ParseRequest
from pipelines.cli.parse import checked_link_policy, parser, request
from pipelines.cli.parse import parse_config as parse_config
from pipelines.runtime.hints import NoExpandHints
from pipelines.runtime.options import (
    Job,
    counters,
    describe,
    parse_job_args,
)
from pipelines.runtime.tagged import Tagged
from pipelines.storage import fs, io, partfiles
from pipelines.storage.segments import FETCH, PARSE, install_parts, staged_part

_LOG = logging.getLogger(__name__)
NAMESPACE = "ParserStatus"
SKIP_NAMESPACE = "Parser"
LINKS_NAMESPACE = "Links"
"""Outlinks by class and outcome: ``internal_kept``, ``external_dropped`` ..."""
_PARSED = "parsed"


class Parse(beam.PTransform[PCollection[WebPage], PCollection[WebPage]]):
    """Fetched pages to parsed pages (without content), as ParserJob writes them.

    Pages not fetched in this segment, and truncated ones with
    ``parser.skip.truncated``, are not written. Counters: ``ParserStatus``
    by major code (``success``, ``failed``, ``notparsed``); ``Parser`` by
    skip reason; ``Links`` by outlink class and the link policy's decision
    (``internal_kept``, ``external_dropped``, ``other_filtered`` ...;
    ``crawllib.parse.outlinks``).
    """

    def __init__(
        self,
        config: ParseConfig | CrawlConfig,
        resume: bool = False,
        force: bool = False,
    ):
        super().__init__()
        self._config = checked_link_policy(step_config(config, ParseConfig))
        self._resume = resume
        self._force = force

    def expand(self, pages: PCollection[WebPage]) -> PCollection[WebPage]:
        return pages | "ParsePages" >> beam.ParDo(
            _ParseFn(self._config, self._resume, self._force)
        )


class ParseForUpdate(
    NoExpandHints,
    beam.PTransform[
        PCollection[WebPage], tuple[PCollection[WebPage], PCollection[WebPage]]
    ],
):
    """Fetched pages to ``(parsed, for_update)``, for a round in one pipeline.

    ``parsed`` is what :class:`Parse` gives; ``for_update`` holds each
    fetched page's record for updatedb: its parse, or the page itself when
    it is not parsed. It stands for the fetched and the parsed pages
    together (updatedb prefers a page's parse record) without a Flatten,
    which a local runner pays for by encoding every record.

    ``keep_content``: parsed records keep the raw content (parsing then runs
    in the runner's threads, whatever ``parser.processes`` says).
    """

    def __init__(
        self, config: ParseConfig | CrawlConfig, keep_content: bool = False
    ) -> None:
        super().__init__()
        self._config = checked_link_policy(step_config(config, ParseConfig))
        self._keep_content = keep_content

    def expand(
        self, pages: PCollection[WebPage]
    ) -> tuple[PCollection[WebPage], PCollection[WebPage]]:
        outputs = pages | "ParsePages" >> beam.ParDo(
            _ParseFn(
                self._config,
                resume=False,
                force=False,
                for_update=True,
                keep_content=self._keep_content,
            )
        ).with_outputs(_PARSED, main="for_update")
        return outputs[_PARSED], outputs.for_update


class _ParseForPart(beam.PTransform[PCollection[WebPage], PCollection[Any]]):
    """:class:`Parse` for a job that only writes the parse part.

    Where worker processes parse, each parsed page comes back as its Avro
    record (``bytes``, which :class:`~pipelines.storage.io.WriteWebPages` writes as
    it is): this process neither unpickles nor encodes it. Elsewhere the
    pages are :class:`Parse`'s.
    """

    def __init__(self, config: ParseConfig, force: bool) -> None:
        super().__init__()
        self._config = config
        self._force = force

    def expand(self, pages: PCollection[WebPage]) -> PCollection[Any]:
        return pages | "ParsePages" >> beam.ParDo(
            _ParseFn(self._config, resume=False, force=self._force, encoded=True)
        )


class _ParseFn(beam.DoFn):
    """Parses in this thread, or in ``config.processes`` worker processes.

    ``for_update``: parsed pages go to the ``parsed`` output and the main
    output, pages not parsed to the main output. ``keep_content``: parsed
    pages keep their content, and are parsed in this thread. ``encoded``:
    pages parsed by worker processes are output as their Avro record.
    """

    def __init__(
        self,
        config: ParseConfig,
        resume: bool,
        force: bool,
        for_update: bool = False,
        keep_content: bool = False,
        encoded: bool = False,
    ) -> None:
        self._config = config
        self._resume = resume
        self._force = force
        self._for_update = for_update
        self._keep_content = keep_content
        self._encoded = encoded and not for_update and not keep_content
        self._status_counters: dict[int, Metrics.DelegatingCounter] = {}

    def setup(self) -> None:
        self._parser = PageParser(self._config)

    def start_bundle(self) -> None:
        processes = 0 if self._keep_content else self._config.processes
        batch = EncodedParseBatch if self._encoded else ParseBatch
        self._batch = batch(self._config, processes) if processes > 0 else None
        self._parser.take_link_counts()  # none left over from a failed bundle

    def process(self, page: WebPage) -> Iterator[WebPage | bytes | Tagged]:
        reason = skip_reason(page, self._config, self._resume, self._force)
        if reason is not None:
            Metrics.counter(SKIP_NAMESPACE, reason.name.lower()).inc()
            if self._for_update:
                yield page
            return
        parsed: Iterable[WebPage | EncodedParse]
        if self._keep_content:
            parsed = [self._parser.parse_page(page)]
        elif self._batch is None:
            parsed = [parse_without_content(self._parser, page)]
        else:
            parsed = self._batch.submit(page)
        for done in map(self._counted, parsed):
            if self._for_update:
                yield TaggedOutput(_PARSED, done)
            yield done

    def finish_bundle(self) -> Iterator[WindowedValue | Tagged]:
        if self._batch is not None:
            for done in map(self._counted, self._batch.drain()):
                value = GlobalWindows.windowed_value(done)
                if self._for_update:
                    yield TaggedOutput(_PARSED, value)
                yield value
            _count_links(self._batch.take_link_counts())
        _count_links(self._parser.take_link_counts())

    def teardown(self) -> None:
        self._parser.close()

    def _counted(self, parsed: WebPage | EncodedParse) -> WebPage | bytes:
        """``ParserStatus`` counted; the page to output (an EncodedParse's record)."""
        if isinstance(parsed, EncodedParse):
            self._count(parsed.major)
            return parsed.record
        status = parsed["parseStatus"]
        self._count(None if status is None else status["majorCode"])
        return parsed

    def _count(self, major: int | None) -> None:
        if major is None:
            return
        counter = self._status_counters.get(major)
        if counter is None:
            label = ParseMajor(major).label
            counter = self._status_counters[major] = Metrics.counter(NAMESPACE, label)
        counter.inc()


def _count_links(counts: dict[str, int]) -> None:
    for name, count in counts.items():
        Metrics.counter(LINKS_NAMESPACE, name).inc(count)


class _KeepParsedFn(beam.DoFn):
    """--resume: an earlier parse of a page wins unless --force."""

    def __init__(self, force: bool) -> None:
        self._force = force

    def process(
        self, joined: tuple[str, dict[str, Iterable[WebPage]]]
    ) -> Iterator[tuple[str, WebPage]]:
        _, groups = joined
        earlier = next(iter(groups["parsed"]), None)
        for page in groups["fetched"]:
            if earlier is not None and _parsed_before(earlier) and not self._force:
                Metrics.counter(
                    SKIP_NAMESPACE, ParseSkip.ALREADY_PARSED.name.lower()
                ).inc()
                yield "keep", earlier
            else:
                yield "parse", page


def _parsed_before(page: WebPage) -> bool:
    return bool(page["markers"].get(Mark.PARSE.value))


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl parse SEGMENT``: write ``SEGMENT/parse``; print a summary."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: ParseRequest, job: Job) -> int:
    """Run a request the command line built and checked (``pipelines.cli``)."""
    values = execute(request, job)
    print(f"Parser: {describe(values)}", file=sys.stderr)
    return 0


def execute(request: ParseRequest, job: Job) -> dict[str, int]:
    """Parse the request's segment into ``SEGMENT/parse``; returns the counters."""
    config, segment = request.config, request.segment
    PageParser(config).close()  # a bad rule file fails here, not on a worker
    source = FileSystems.join(segment, FETCH)
    if not partfiles.has_parts(source):
        raise CrawlError(f"segment {segment} is not fetched (no {source})")
    target = FileSystems.join(segment, PARSE)
    resume = request.resume and partfiles.has_parts(target)
    staging = staged_part(segment, PARSE)
    fs.remove_dir(staging)
    try:
        with job.pipeline() as pipeline:
            fetched = pipeline | "ReadFetched" >> io.ReadWebPages(
                partfiles.parts_pattern(source)
            )
            if resume:
                earlier = pipeline | "ReadParsed" >> io.ReadWebPages(
                    partfiles.parts_pattern(target)
                )
                parsed = _resume(fetched, earlier, config, request.force)
            else:
                parsed = fetched | "Parse" >> _ParseForPart(config, request.force)
            _ = parsed | "WriteParsed" >> io.WriteWebPages(staging)
        install_parts(segment, {PARSE: staging})
    finally:
        fs.remove_dir(staging)
    result = pipeline.result
    return {
        **counters(result, NAMESPACE),
        **counters(result, SKIP_NAMESPACE),
        **link_counters(result),
    }


def link_counters(result: PipelineResult) -> dict[str, int]:
    """The ``Links`` counters as ``Links/internal_kept`` ..., for job summaries."""
    links = counters(result, LINKS_NAMESPACE)
    return {f"{LINKS_NAMESPACE}/{name}": count for name, count in links.items()}


def _resume(
    fetched: PCollection[WebPage],
    earlier: PCollection[WebPage],
    config: ParseConfig,
    force: bool,
) -> PCollection[WebPage]:
    routed = (
        {
            "fetched": fetched | "KeyFetched" >> beam.Map(lambda p: (p["url"], p)),
            "parsed": earlier | "KeyParsed" >> beam.Map(lambda p: (p["url"], p)),
        }
        | "JoinByUrl" >> beam.CoGroupByKey()
        | "KeepParsed" >> beam.ParDo(_KeepParsedFn(force))
    )
    kept = (
        routed
        | "Kept" >> beam.Filter(lambda kv: kv[0] == "keep")
        | "KeptPages" >> beam.Values()
    )
    to_parse = (
        routed | "ToParse" >> beam.Filter(lambda kv: kv[0] == "parse") | beam.Values()
    )
    parsed = to_parse | "Parse" >> Parse(config, force=force)
    return (kept, parsed) | "Together" >> beam.Flatten()


if __name__ == "__main__":  # as `beamcrawl parse`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["parse", *sys.argv[1:]]))
