"""``beamcrawl invertlinks LINKDB (SEGMENT... | --dir SEGMENTS)``: the 1.x LinkDb.

:class:`InvertLinks` turns the outlinks of the segments' parsed pages into
inlinks of their targets (:mod:`crawllib.db.invertlinks`), unites them with the
existing linkdb's and writes one WebPage per target: ``url`` the target,
``inlinks`` source URL -> anchor. The linkdb is a directory like a
crawldb::

    <linkdb>/current/part-*.avro   the live version
    <linkdb>/.locked               held while invertlinks runs

and a new version is installed the same way (without keeping ``old``, as
Nutch's ``LinkDb.install``). Inlinks are merged with a combiner, so a
popular target's links are reduced before the shuffle.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Iterator, Sequence

import apache_beam as beam
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection
from apache_beam.runners.runner import PipelineResult

from crawllib.config import CrawlConfig, LinkDbConfig, step_config
from crawllib.db import invertlinks as linkdb
from crawllib.db.invertlinks import Inlink, InlinkSet, LinkInverter
from crawllib.webpage import WebPage
from pipelines.cli.invertlinks import InvertLinksRequest as InvertLinksRequest
from pipelines.cli.invertlinks import parser, request
from pipelines.runtime.options import (
    Job,
    counters,
    describe,
    parse_job_args,
)
from pipelines.storage import bucketfiles, io, partfiles, versions
from pipelines.storage.segments import PARSE, part_dirs
from pipelines.transforms.bucketlinks import (
    INVERTED as INVERTED,
)
from pipelines.transforms.bucketlinks import (
    NAMESPACE,
    WRITTEN,
    BucketedInvertLinks,
    InvertFn,
    RecheckFn,
)

_LOG = logging.getLogger(__name__)

Inputs = PCollection[WebPage] | tuple[PCollection[WebPage], PCollection[WebPage]]


class InvertLinks(beam.PTransform[Inputs, PCollection[WebPage]]):
    """Parsed pages, or ``(parsed pages, current linkdb)``, to linkdb records.

    Only pages parsed successfully give links
    (:func:`~crawllib.db.invertlinks.is_link_source`). A target keeps at most
    ``linkdb.max.inlinks`` inlinks; one left with none is not written.

    Counters, namespace ``LinkDb``: ``inlinks_inverted`` (new inlinks out
    of the segments), one per :class:`~crawllib.db.invertlinks.LinkSkip`
    (``sources_rejected``, ``internal_links_ignored``,
    ``external_links_ignored``, ``targets_rejected``,
    ``existing_inlinks_rejected``) and ``urls_written``.
    """

    def __init__(self, config: LinkDbConfig | CrawlConfig) -> None:
        super().__init__()
        self._config = step_config(config, LinkDbConfig)

    def expand(self, inputs: Inputs) -> PCollection[WebPage]:
        parsed, current = inputs if isinstance(inputs, tuple) else (inputs, None)
        inlinks = parsed | "Invert" >> beam.ParDo(InvertFn(self._config))
        if current is not None:
            kept = current | "Recheck" >> beam.ParDo(RecheckFn(self._config))
            inlinks = (inlinks, kept) | "Together" >> beam.Flatten()
        return (
            inlinks
            | "MergeInlinks" >> beam.CombinePerKey(_InlinksFn(self._config.max_inlinks))
            | "ToLinkDb" >> beam.ParDo(_ToPageFn())
        )


class _InlinksFn(beam.CombineFn):
    def __init__(self, max_inlinks: int) -> None:
        self._max_inlinks = max_inlinks

    def create_accumulator(self) -> InlinkSet:
        return InlinkSet(self._max_inlinks)

    def add_input(self, inlinks: InlinkSet, inlink: Inlink) -> InlinkSet:
        inlinks.add(inlink)
        return inlinks

    def merge_accumulators(self, accumulators: Iterable[InlinkSet]) -> InlinkSet:
        parts = iter(accumulators)
        return next(parts).merge(parts)

    def extract_output(self, inlinks: InlinkSet) -> dict[str, str]:
        return inlinks.inlinks()


class _ToPageFn(beam.DoFn):
    written = Metrics.counter(NAMESPACE, WRITTEN)

    def process(self, merged: tuple[str, dict[str, str]]) -> Iterator[WebPage]:
        target, inlinks = merged
        if inlinks:
            self.written.inc()
            yield linkdb.linkdb_page(target, inlinks)


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl invertlinks``: update the linkdb; print a one-line summary."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: InvertLinksRequest, job: Job) -> int:
    """Run a request the command line built and checked (``pipelines.cli``)."""
    values = execute(request, job)
    print(f"LinkDb: {describe(values)}", file=sys.stderr)
    return 0


def execute(request: InvertLinksRequest, job: Job) -> dict[str, int]:
    """Invert the request's segments' links into its linkdb; returns the counters.

    With both ``linkdb.ignore.internal.links`` and
    ``linkdb.ignore.external.links`` there is nothing to do: the linkdb is
    left alone and no counters come back, as Nutch exits early.
    """
    config = request.config
    if config.ignore_internal and config.ignore_external:
        _LOG.warning("internal and external links are ignored: nothing to do")
        return {}
    sources = part_dirs(
        list(request.segments), list(request.segment_dirs), PARSE, "invertlinks"
    )
    LinkInverter(config)  # a bad rule file fails here, not on a worker
    with versions.replacing(
        request.linkdb, keep_backup=False, force=request.force, create=True
    ) as linkdb:
        result = _invert(job, config, sources, linkdb)
    return counters(result, NAMESPACE)


def _invert(
    job: Job, config: LinkDbConfig, sources: list[str], linkdb: versions.Replacement
) -> PipelineResult:
    """The new linkdb, merged bucket by bucket (``BucketedInvertLinks``)."""
    for source in sources:
        partfiles.check_parts(partfiles.parts_pattern(source))
    current = linkdb.current_dir
    if current is None:  # a new linkdb: as many buckets as its sources need
        layout = bucketfiles.next_layout_for_new(config.buckets, sources)
    else:
        layout = bucketfiles.next_layout(config.buckets, current)
    with bucketfiles.sorted_runs(linkdb.new_dir) as runs, job.pipeline() as pipeline:
        parsed = tuple(
            pipeline
            | f"ReadParse{n}" >> io.ReadWebPages(partfiles.parts_pattern(source))
            for n, source in enumerate(sources)
        )
        _ = parsed | "InvertLinks" >> BucketedInvertLinks(
            config, current, linkdb.new_dir, layout, runs
        )
    bucketfiles.write_layout(
        linkdb.new_dir, layout, bucketfiles.records_written(pipeline.result)
    )
    return pipeline.result


if __name__ == "__main__":  # as `beamcrawl invertlinks`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["invertlinks", *sys.argv[1:]]))
