"""The command line of ``beamcrawl fetch``, without Beam: its parser and request.

:mod:`pipelines.fetch` runs the request (``run_request``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from crawllib.config import FetcherConfig, ParseConfig, Properties
from crawllib.errors import CrawlError
from pipelines.cli.parse import parse_config
from pipelines.runtime.arguments import add_link_policy_argument
from pipelines.runtime.options import (
    ArgumentParser,
    JobArgs,
    job_parser,
)
from pipelines.storage import pathnames


@dataclass(frozen=True)
class FetchRequest:
    """``beamcrawl fetch``: which segment, how to fetch it, and whether to parse."""

    segment: str
    config: FetcherConfig
    parse: ParseConfig | None = None
    """Parse the fetched pages too (``--parse``), with these settings."""


def request(cli: JobArgs) -> FetchRequest:
    """The request a parsed ``beamcrawl fetch`` command line makes."""
    config = fetch_config(
        cli.properties, threads=cli.args.threads, with_parse=cli.args.parse
    )
    parsing = parse_config(cli.properties, cli) if config.parse else None
    check_fetch_list(cli.args.segment)
    return FetchRequest(cli.args.segment, config, parsing)


def check_fetch_list(segment: str) -> None:
    """A local segment without a fetch list: one line before any job.

    Raises:
        CrawlError: no ``SEGMENT/generate`` on this machine's disk.
    """
    source = pathnames.join(segment, "generate")  # pipelines.storage.segments.GENERATE
    if pathnames.missing_here(source):
        raise CrawlError(f"no fetch list at {source}")


def fetch_config(
    properties: Properties, *, threads: int | None = None, with_parse: bool = False
) -> FetcherConfig:
    """The fetcher's settings: the properties, with the command line's choices.

    Raises:
        CrawlError: no agent name, or ``threads`` below 1.
    """
    config = FetcherConfig.from_properties(properties)
    if with_parse:
        config = dataclasses.replace(config, parse=True)
    if threads is not None:
        config = config.with_threads(threads, "--threads")
    return config


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl fetch``."""
    parser = job_parser("beamcrawl fetch", "Fetch the fetch lists of a segment.")
    parser.add_argument("segment")
    parser.add_argument("--threads", type=int, help="fetcher.threads.fetch")
    parser.add_argument(
        "--parse", action="store_true", help="parse as well (fetcher.parse)"
    )
    add_link_policy_argument(parser)
    return parser
