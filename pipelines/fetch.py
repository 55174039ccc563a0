"""``beamcrawl fetch SEGMENT [--threads N] [--parse]``: fetch a segment's fetch lists.

:class:`Fetch` groups the fetch list by its partition, so one partition is
one fetcher (as Nutch maps a fetch list to a fetcher task); each fetcher runs
:class:`~crawllib.fetch.fetch.Fetcher`'s polite queues and worker threads and
yields pages as they complete. The segment's ``fetch/`` part is written
beside it and renamed into place when the job succeeded; with ``--parse``
(``fetcher.parse``) the fetched pages are parsed in the same pipeline and
``parse/`` is written too.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Iterator, Sequence, Sized

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection

from crawllib.config import (
    CrawlConfig,
    FetcherConfig,
    step_config,
)
from crawllib.db.generate import PARTITION_MARKER
from crawllib.fetch import plan, unfetched
from crawllib.fetch.fetch import Fetcher
from crawllib.fetch.protocol.registry import Protocols
from crawllib.fetch.protocol.robots import RobotsCache
from crawllib.status import protocol_status_label
from crawllib.webpage import WebPage
from pipelines import parse
from pipelines.cli.fetch import FetchRequest as FetchRequest
from pipelines.cli.fetch import fetch_config as fetch_config
from pipelines.cli.fetch import parser, request
from pipelines.parse import NAMESPACE as PARSE_NAMESPACE
from pipelines.parse import Parse
from pipelines.runtime import progress
from pipelines.runtime.options import (
    Job,
    counters,
    describe,
    parse_job_args,
)
from pipelines.storage import io, partfiles
from pipelines.storage.segments import (
    FETCH,
    GENERATE,
    PARSE,
    install_parts,
    remove_staged,
    staged_parts,
)

_LOG = logging.getLogger(__name__)
STATUS_NAMESPACE = "FetcherStatus"
NAMESPACE = "Fetcher"


class Fetch(beam.PTransform[PCollection[WebPage], PCollection[WebPage]]):
    """Fetch-list pages to fetched pages, one fetcher per fetch-list partition.

    Counters: namespace ``FetcherStatus``, one per ProtocolStatus name
    (``SUCCESS``, ``NOTFOUND``, ``ROBOTS_DENIED`` ...); namespace ``Fetcher``:
    ``bytes_downloaded`` and the items dropped unwritten
    (``hit_by_timelimit``, ``above_exception_threshold``,
    ``robots_defer_visits_dropped``, ``dns_lookup_failed``), and the pages
    of redirects followed within the fetch (``redirect_hops``, and by status
    ``redirect_hop_SUCCESS`` ...): :mod:`crawllib.fetch.unfetched` adds
    them up to the fetch list's size.

    Progress: on the ``fetch`` line of the process's board
    (``pipelines.runtime.progress``) when it is live, else in the fetcher's log lines.
    """

    def __init__(self, config: FetcherConfig | CrawlConfig) -> None:
        super().__init__()
        self._config = step_config(config, FetcherConfig)

    def expand(self, pages: PCollection[WebPage]) -> PCollection[WebPage]:
        return (
            pages
            | "KeyByPartition" >> beam.Map(_partition_key)
            | "GroupByPartition" >> beam.GroupByKey()
            | "FetchPartition" >> beam.ParDo(_FetchFn(self._config))
        )


def _partition_key(page: WebPage) -> tuple[str, WebPage]:
    return page["markers"].get(PARTITION_MARKER) or "0", page


def fetch_counts(generated: int, counters: dict[str, int]) -> unfetched.FetchCounts:
    """The ``generated`` URLs by what the fetch did, from its counters.

    Args:
        generated: URLs in the fetch lists (generate's ``GENERATED``).
        counters: the ``FetcherStatus`` and ``Fetcher`` counters by name, in
            one mapping (as :func:`execute` returns them; others are ignored).
    """
    statuses = {name: count for name, count in counters.items() if name.isupper()}
    return unfetched.fetch_counts(generated, statuses, counters)


def _warn_if_slow(urls: Iterable[str], config: FetcherConfig) -> None:
    warning = plan.slow_queue_warning(plan.largest_queue(urls, config))
    if warning is not None:
        _LOG.warning("%s", warning)


class _FetchFn(beam.DoFn):
    """Runs one fetcher over one partition; protocols and robots live per worker."""

    def __init__(self, config: FetcherConfig) -> None:
        self._config = config

    def setup(self) -> None:
        self._protocols = Protocols(self._config.http)
        self._robots = RobotsCache(self._config.robots, self._protocols.for_url)

    def process(self, keyed: tuple[str, Iterable[WebPage]]) -> Iterator[WebPage]:
        partition, pages = keyed
        _LOG.info("fetching partition %s", partition)
        fetcher = Fetcher(
            self._config,
            self._protocols.for_url,
            self._robots,
            on_progress=progress.fetch_hook(),
        )
        total = None
        if isinstance(pages, Sized):  # a list: it can be read twice
            total = len(pages)
            _warn_if_slow((page["url"] for page in pages), self._config)
        for page in fetcher.run(pages, total):
            status = page["protocolStatus"]
            code = status["code"] if status else 0
            Metrics.counter(STATUS_NAMESPACE, protocol_status_label(code)).inc()
            yield page
        for name, count in unfetched.fetcher_counters(fetcher.stats).items():
            Metrics.counter(NAMESPACE, name).inc(count)

    def teardown(self) -> None:
        self._protocols.close()


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl fetch SEGMENT``: write ``SEGMENT/fetch``; print a summary."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: FetchRequest, job: Job) -> int:
    """Run a request the command line built and checked (``pipelines.cli``)."""
    values = execute(request, job)
    print(f"Fetcher: {describe(values)}", file=sys.stderr)
    return 0


def execute(request: FetchRequest, job: Job) -> dict[str, int]:
    """Fetch the request's segment (and parse it); returns the counters."""
    config, segment, parse_config = request.config, request.segment, request.parse
    stages = staged_parts(segment, (FETCH, PARSE) if parse_config else (FETCH,))
    fetch_list = partfiles.parts_pattern(FileSystems.join(segment, GENERATE))
    try:
        with progress.shown() as board, job.pipeline() as pipeline:
            if board.live:
                board.expect("fetch", progress.count_records(fetch_list))
            fetched = (
                pipeline
                | "ReadFetchList" >> io.ReadWebPages(fetch_list)
                | "Fetch" >> Fetch(config)
            )
            _ = fetched | "WriteFetched" >> io.WriteWebPages(stages[FETCH])
            if parse_config is not None:
                _ = (
                    fetched
                    | "Parse" >> Parse(parse_config)
                    | "WriteParsed" >> io.WriteWebPages(stages[PARSE])
                )
        install_parts(segment, stages)
    finally:
        remove_staged(stages)
    result = pipeline.result
    values = {**counters(result, STATUS_NAMESPACE), **counters(result, NAMESPACE)}
    if parse_config is not None:
        values.update(counters(result, PARSE_NAMESPACE))
        values.update(parse.link_counters(result))
    return values


if __name__ == "__main__":  # as `beamcrawl fetch`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["fetch", *sys.argv[1:]]))
