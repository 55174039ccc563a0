"""The command line of ``beamcrawl index``, without Beam: its parser and request.

:mod:`pipelines.index` runs the request (``run_request``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from crawllib.config import IndexConfig
from pipelines.runtime.options import (
    ArgumentParser,
    JobArgs,
    add_segment_arguments,
    job_parser,
)

TANTIVY, SOLR, ELASTICSEARCH = "tantivy", "solr", "elasticsearch"
FORMATS = (TANTIVY, SOLR, ELASTICSEARCH)


@dataclass(frozen=True)
class IndexRequest:
    """``beamcrawl index``: which segments into which index, in which format."""

    index_dir: str
    crawldb: str
    segments: tuple[str, ...]
    config: IndexConfig
    segment_dirs: tuple[str, ...] = ()
    """Directories whose every parsed segment is indexed too (``--dir``)."""
    linkdb: str | None = None
    """Anchors from this linkdb."""
    format: str = TANTIVY
    """``tantivy`` (an index on this machine), ``solr`` or ``elasticsearch``."""


def request(cli: JobArgs) -> IndexRequest:
    """The request a parsed ``beamcrawl index`` command line makes."""
    args = cli.args
    config = IndexConfig.from_properties(cli.properties)
    if args.deleteGone:
        config = dataclasses.replace(config, delete=True)
    return IndexRequest(
        args.index_dir,
        args.crawldb,
        tuple(args.segments),
        config,
        segment_dirs=tuple(args.dir),
        linkdb=args.linkdb,
        format=args.format,
    )


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl index``."""
    parser = job_parser("beamcrawl index", "Index parsed segments for search.")
    parser.add_argument("index_dir", metavar="INDEX_DIR")
    parser.add_argument("crawldb", metavar="CRAWLDB")
    add_segment_arguments(parser, "every parsed segment in this directory")
    parser.add_argument("--linkdb", metavar="LINKDB", help="anchors from this linkdb")
    parser.add_argument(
        "--deleteGone",
        action="store_true",
        help="delete gone, redirected and duplicate pages (indexer.delete)",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default=TANTIVY,
        help="tantivy index (default), Solr JSON or Elasticsearch bulk files",
    )
    return parser
