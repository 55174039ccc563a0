"""The command line of ``beamcrawl invertlinks``, without Beam: its parser and request.

:mod:`pipelines.invertlinks` runs the request (``run_request``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from crawllib.config import LinkDbConfig
from crawllib.db import invertlinks as linkdb
from pipelines.runtime.options import (
    ArgumentParser,
    JobArgs,
    add_segment_arguments,
    job_parser,
)


@dataclass(frozen=True)
class InvertLinksRequest:
    """``beamcrawl invertlinks``: which segments' links into which linkdb."""

    linkdb: str
    segments: tuple[str, ...]
    config: LinkDbConfig
    segment_dirs: tuple[str, ...] = ()
    """Directories whose every parsed segment is read too (``--dir``)."""
    force: bool = False
    """Override an existing linkdb lock."""


def request(cli: JobArgs) -> InvertLinksRequest:
    """The request a parsed ``beamcrawl invertlinks`` command line makes."""
    args = cli.args
    config = dataclasses.replace(
        LinkDbConfig.from_properties(cli.properties),
        normalize=not args.noNormalize,
        filter_urls=not args.noFilter,
    )
    return InvertLinksRequest(
        args.linkdb,
        tuple(args.segments),
        linkdb.check_config(config),
        segment_dirs=tuple(args.dir),
        force=args.force,
    )


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl invertlinks``."""
    parser = job_parser("beamcrawl invertlinks", "Build or update a linkdb.")
    parser.add_argument("linkdb")
    add_segment_arguments(parser, "every parsed segment in this directory")
    parser.add_argument("--noNormalize", action="store_true", help="no normalizers")
    parser.add_argument("--noFilter", action="store_true", help="no URL filters")
    parser.add_argument("--force", action="store_true", help="override a lock")
    return parser
