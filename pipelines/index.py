"""``beamcrawl index INDEX_DIR CRAWLDB SEGMENT...``: Nutch 1.x's IndexingJob.

:class:`IndexPages` joins the crawldb, the segments' parsed pages and the
linkdb by URL and decides, per URL, an add or a delete
(:mod:`crawllib.index.index`); the command does the same bucket by bucket
(:class:`~pipelines.transforms.bucketindex.BucketedIndexPages`: only the
segments' records are sorted, the crawldb and linkdb merged as they are).
Where they go depends on ``--format``:

- ``tantivy`` (default): an embedded index in the local directory
  INDEX_DIR. The pipeline writes the actions to a scratch directory and the
  launcher applies them in one tantivy writer (:mod:`crawllib.index.search`):
  a URL indexed again replaces its document.
- ``solr``: :class:`WriteIndexFiles` writes Solr JSON update files
  ``INDEX_DIR/part-SSSSS-of-NNNNN.json``, to post to ``/update``.
- ``elasticsearch``: bulk NDJSON ``INDEX_DIR/part-*.ndjson`` for
  Elasticsearch's or OpenSearch's ``_bulk`` (index ``elastic.index``).

Solr and Elasticsearch files may go to any Beam filesystem (``gs://`` ...).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import GoogleCloudOptions
from apache_beam.pvalue import PCollection
from apache_beam.runners.runner import PipelineResult

from crawllib.config import CrawlConfig, IndexConfig, step_config
from crawllib.errors import ConfigError, CrawlDbMissingError, CrawlError
from crawllib.index import formats as indexformats
from crawllib.index import search as searchindex
from crawllib.terminal import printable
from crawllib.webpage import WebPage
from pipelines.cli.index import (
    ELASTICSEARCH,
    FORMATS,
    SOLR,
    TANTIVY,
    parser,
    request,
)
from pipelines.cli.index import IndexRequest as IndexRequest
from pipelines.runtime import progress
from pipelines.runtime.options import (
    Job,
    counters,
    describe,
    parse_job_args,
)
from pipelines.storage import fs, io, partfiles, paths, versions
from pipelines.storage.segments import PARSE, part_dirs
from pipelines.transforms.bucketindex import NAMESPACE as NAMESPACE
from pipelines.transforms.bucketindex import (
    Action,
    BucketedIndexPages,
    Decider,
    db_item,
    fetch_item,
)

_SUFFIXES = {TANTIVY: ".ndjson", SOLR: ".json", ELASTICSEARCH: ".ndjson"}

Inputs = (
    tuple[PCollection[WebPage], PCollection[WebPage]]
    | tuple[PCollection[WebPage], PCollection[WebPage], PCollection[WebPage]]
)


class IndexPages(beam.PTransform[Inputs, PCollection[Action]]):
    """``(crawldb, parsed segment pages[, linkdb])`` to index actions.

    The three are joined by URL; a URL's latest fetch in the segments wins.
    Counters, namespace ``IndexerStatus``, one per
    :class:`~crawllib.index.index.Outcome`: ``indexed (add/update)``,
    ``deleted (gone)``, ``deleted (redirects)``, ``deleted (duplicates)``,
    ``deleted (robots=noindex)``, ``skipped (...)``.
    """

    def __init__(self, config: IndexConfig | CrawlConfig) -> None:
        super().__init__()
        self._config = step_config(config, IndexConfig)

    def expand(self, inputs: Inputs) -> PCollection[Action]:
        crawldb, parsed, *linkdb = inputs
        keyed = {
            "db": crawldb | "KeyCrawlDb" >> beam.Map(_key_db),
            "fetch": parsed | "KeyFetches" >> beam.Map(_key_fetch),
        }
        if linkdb:
            keyed["links"] = linkdb[0] | "KeyInlinks" >> beam.Map(_inlinks)
        return (
            keyed
            | "JoinByUrl" >> beam.CoGroupByKey()
            | "Decide" >> beam.ParDo(_DecideFn(self._config))
        )


def _key_db(page: WebPage) -> tuple[str, WebPage]:
    """Keyed by URL, without what the indexer does not read (less to shuffle)."""
    url, _, stripped = db_item(page)
    return url, stripped


def _key_fetch(page: WebPage) -> tuple[str, WebPage]:
    url, _, stripped = fetch_item(page)
    return url, stripped


def _inlinks(page: WebPage) -> tuple[str, dict[str, str | None]]:
    return page["url"], page["inlinks"]


class _DecideFn(beam.DoFn):
    def __init__(self, config: IndexConfig) -> None:
        self._config = config

    def setup(self) -> None:
        self._decider = Decider(self._config)

    def process(self, joined: tuple[str, dict[str, Iterable[Any]]]) -> Iterator[Action]:
        url, groups = joined
        db = next(iter(groups["db"]), None)
        inlinks: dict[str, str | None] = next(iter(groups.get("links", ())), {})
        yield from self._decider.actions(url, db, groups["fetch"], inlinks)


class WriteIndexFiles(beam.PTransform[PCollection[Action], PCollection[str]]):
    """Actions to ``<directory>/part-SSSSS-of-NNNNN`` files; yields their names.

    ``fmt`` ``solr``: Solr JSON update files (each one JSON object of
    commands, ending with a commit); ``elasticsearch``: bulk NDJSON naming
    ``index``; ``tantivy``: the staging lines :mod:`crawllib.index.search`
    applies.
    """

    def __init__(self, directory: str, fmt: str, index: str = "nutch") -> None:
        super().__init__()
        if fmt not in FORMATS:
            raise ConfigError(f"unknown index format {fmt!r}: one of {FORMATS}")
        self._directory = directory
        self._fmt = fmt
        self._index = index

    def expand(self, actions: PCollection[Action]) -> PCollection[str]:
        solr = self._fmt == SOLR
        return (
            actions
            | "Encode" >> beam.MapTuple(_encoder(self._fmt, self._index))
            | "WriteFiles"
            >> io.WriteText(
                FileSystems.join(self._directory, partfiles.PART_PREFIX),
                suffix=_SUFFIXES[self._fmt],
                shard_name_template="-SSSSS-of-NNNNN",
                header=indexformats.SOLR_HEADER if solr else None,
                footer=indexformats.SOLR_FOOTER if solr else None,
            )
        )


def _encoder(fmt: str, index: str) -> Any:
    if fmt == SOLR:
        return indexformats.solr_line
    if fmt == ELASTICSEARCH:
        return partial(indexformats.elastic_lines, index=index)
    return indexformats.action_line


def read_actions(directory: str) -> Iterator[Action]:
    """The actions in the staging files :class:`WriteIndexFiles` wrote (tantivy)."""
    for path, _ in partfiles.part_paths(paths.under(directory, "part-*")):
        with fs.open_raw(path) as stream:
            for raw in stream.read().decode("utf-8").splitlines():
                if raw.strip():
                    yield indexformats.read_action_line(raw)


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl index``: index the segments; print a one-line summary."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: IndexRequest, job: Job) -> int:
    """Run a request the command line built and checked (``pipelines.cli``)."""
    values = execute(request, job)
    print(f"Indexer: {describe(values)}", file=sys.stderr)
    if request.format == TANTIVY:
        count = searchindex.document_count(request.index_dir)
        where = printable(request.index_dir)
        print(f"Indexer: {count} documents in {where}", file=sys.stderr)
    return 0


def execute(request: IndexRequest, job: Job) -> dict[str, int]:
    """Index the request's segments; returns the job's counters."""
    config, fmt, index_dir = request.config, request.format, request.index_dir
    _check_target(fmt, index_dir)
    versions.require(request.crawldb)  # none: one line
    crawldb = versions.current_version(request.crawldb)
    assert crawldb is not None
    linkdb = _linkdb(request.linkdb)
    sources = part_dirs(
        list(request.segments), list(request.segment_dirs), PARSE, "index"
    )
    for source in sources:
        partfiles.check_parts(partfiles.parts_pattern(source))
    stores = (crawldb, sources, linkdb)
    temp = job.pipeline_options().view_as(GoogleCloudOptions).temp_location
    if fmt != TANTIVY:
        with fs.new_output(index_dir), fs.scratch(temp) as runs:
            result = _index(job, config, fmt, stores, (index_dir, runs))
        return counters(result, NAMESPACE)
    with fs.scratch(temp) as staging, fs.scratch(temp) as runs:
        result = _index(job, config, fmt, stores, (staging, runs))
        searchindex.apply_actions(index_dir, read_actions(staging))
    return counters(result, NAMESPACE)


def _index(
    job: Job,
    config: IndexConfig,
    fmt: str,
    stores: tuple[str, list[str], str | None],
    dirs: tuple[str, str],
) -> PipelineResult:
    """Index (crawldb, parsed segments, linkdb) into part files.

    ``stores`` are the crawldb's and linkdb's current version directories
    and the segments' parse directories; ``dirs`` the part files'
    directory and the sorted runs' scratch directory.
    """
    crawldb, sources, linkdb = stores
    out_dir, runs = dirs
    with progress.shown(), job.pipeline() as pipeline:
        _ = (
            pipeline
            | "ListParses" >> beam.Create([partfiles.parts_pattern(s) for s in sources])
            | "ReadParses" >> io.read_all_avro()
            | "ShowProgress" >> progress.ShowProgress("index")
            | "IndexPages" >> BucketedIndexPages(config, crawldb, linkdb, runs)
            | "WriteIndex" >> WriteIndexFiles(out_dir, fmt, config.elastic_index)
        )
    return pipeline.result


def _check_target(fmt: str, index_dir: str) -> None:
    """A tantivy index is local; Solr/ES files must not mix with older ones."""
    if fmt == TANTIVY:
        if not fs.is_local(index_dir):
            raise ConfigError(
                f"beamcrawl index: a tantivy index must be on this machine's disk, "
                f"not {index_dir}; use --format solr or elasticsearch for a store"
            )
        return
    if partfiles.part_paths(paths.under(index_dir, "part-*")):
        raise CrawlError(
            f"beamcrawl index: {index_dir} already holds part files; "
            "post and remove them, or give another directory"
        )


def _linkdb(linkdb: str | None) -> str | None:
    if linkdb is None:
        return None
    current = versions.current_version(linkdb)
    if current is None:
        raise CrawlDbMissingError(f"no linkdb at {linkdb} (run invertlinks first)")
    return current


if __name__ == "__main__":  # as `beamcrawl index`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["index", *sys.argv[1:]]))
