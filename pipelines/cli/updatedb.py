"""The command line of ``beamcrawl updatedb``, without Beam: its parser and request.

:mod:`pipelines.updatedb` runs the request (``run_request``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from crawllib.config import UpdateConfig
from pipelines.runtime.options import (
    ArgumentParser,
    JobArgs,
    job_parser,
)


@dataclass(frozen=True)
class UpdateRequest:
    """``beamcrawl updatedb``: fold which segments into which crawldb, and how."""

    crawldb: str
    segments: tuple[str, ...]
    config: UpdateConfig
    segment_dirs: tuple[str, ...] = ()
    """Directories whose every fetched segment is folded in too (``--dir``)."""
    force: bool = False
    """Override an existing crawldb lock."""


def request(cli: JobArgs) -> UpdateRequest:
    """The request a parsed ``beamcrawl updatedb`` command line makes."""
    args = cli.args
    config = UpdateConfig.from_properties(cli.properties)
    if args.noAdditions:
        config = dataclasses.replace(config, additions_allowed=False)
    return UpdateRequest(
        args.crawldb,
        tuple(args.segments),
        config,
        segment_dirs=(args.dir,) if args.dir else (),
        force=args.force,
    )


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl updatedb``."""
    parser = job_parser("beamcrawl updatedb", "Update a crawldb from fetched segments.")
    parser.add_argument("crawldb")
    parser.add_argument("segments", nargs="*", help="segment directories")
    parser.add_argument("--dir", help="a directory of segments: all of them")
    parser.add_argument("--noAdditions", action="store_true", help="add no new URLs")
    parser.add_argument("--force", action="store_true", help="override a lock")
    return parser
