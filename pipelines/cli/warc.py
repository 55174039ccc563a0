"""The command line of ``beamcrawl warc``, without Beam: its parser and request.

:mod:`pipelines.warc` runs the request (``run_request``).
"""

from __future__ import annotations

from dataclasses import dataclass

from crawllib.config.warc import WarcConfig
from crawllib.errors import ConfigError
from pipelines.runtime.options import (
    ArgumentParser,
    JobArgs,
    add_segment_arguments,
    job_parser,
)


@dataclass(frozen=True)
class WarcRequest:
    """``beamcrawl warc``: which segments' fetches, into which directory."""

    out_dir: str
    segments: tuple[str, ...]
    config: WarcConfig
    segment_dirs: tuple[str, ...] = ()
    """Directories whose every fetched segment is exported too (``--dir``)."""
    num_shards: int = 1
    """Groups of URLs written in parallel, each to its own files."""

    def __post_init__(self) -> None:
        if self.num_shards < 1:
            raise ConfigError(f"--numShards {self.num_shards}: give 1 or more")


def request(cli: JobArgs) -> WarcRequest:
    """The request a parsed ``beamcrawl warc`` command line makes."""
    args = cli.args
    if args.numShards < 1:  # before the properties: the flag is the mistake
        raise ConfigError(f"--numShards {args.numShards}: give 1 or more")
    props = cli.properties
    if args.maxSize is not None:
        props = props.with_values({"warc.export.max.size": str(args.maxSize)})
    return WarcRequest(
        args.out_dir,
        tuple(args.segments),
        WarcConfig.from_properties(props),
        segment_dirs=tuple(args.dir),
        num_shards=args.numShards,
    )


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl warc``."""
    parser = job_parser("beamcrawl warc", "Write segments' fetches as WARC files.")
    parser.add_argument("out_dir", metavar="OUT_DIR")
    add_segment_arguments(parser, "every fetched segment in this directory")
    parser.add_argument(
        "--maxSize",
        type=int,
        default=None,
        metavar="BYTES",
        help="roll to a new file past this size (warc.export.max.size, ~1 GB)",
    )
    parser.add_argument(
        "--numShards",
        type=int,
        default=1,
        metavar="N",
        help="groups of URLs written in parallel, each to its own files",
    )
    return parser
