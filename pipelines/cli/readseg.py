"""The command line of ``beamcrawl readseg``, without Beam: its parser and request.

:mod:`pipelines.readseg` runs the request (``run_request``).
"""

from __future__ import annotations

from dataclasses import dataclass

from crawllib.errors import ConfigError
from pipelines.runtime.options import (
    ArgumentParser,
    JobArgs,
    add_segment_arguments,
    job_parser,
)


@dataclass(frozen=True)
class ReadSegRequest:
    """``beamcrawl readseg``: which segments, listed or dumped."""

    segments: tuple[str, ...]
    segment_dirs: tuple[str, ...] = ()
    """Directories whose every segment is read too (``--dir``)."""
    dump: str | None = None
    """Write the one segment's records here (``--dump OUT_DIR``); else list."""

    def __post_init__(self) -> None:
        if not self.segments and not self.segment_dirs:
            raise ConfigError("beamcrawl readseg: give a SEGMENT or --dir SEGMENTS_DIR")


def request(cli: JobArgs) -> ReadSegRequest:
    """The request a parsed ``beamcrawl readseg`` command line makes."""
    args = cli.args
    return ReadSegRequest(tuple(args.segments), tuple(args.dir), dump=args.dump)


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl readseg``."""
    parser = job_parser("beamcrawl readseg", "List or dump segments.")
    add_segment_arguments(parser, "every segment in this directory (with --list)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--list", action="store_true", help="one line per segment")
    mode.add_argument("--dump", metavar="OUT_DIR", help="write records as JSON lines")
    return parser
