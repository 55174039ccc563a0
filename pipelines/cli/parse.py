"""The command line of ``beamcrawl parse``, without Beam: its parser and request.

:mod:`pipelines.parse` runs the request (``run_request``).
"""

from __future__ import annotations

from dataclasses import dataclass

from crawllib.config import ParseConfig, Properties
from crawllib.parse.outlinks import link_policy_of
from pipelines.runtime.arguments import add_link_policy_argument
from pipelines.runtime.options import (
    ArgumentParser,
    Job,
    JobArgs,
    job_parser,
)


def parse_config(properties: Properties, job: Job) -> ParseConfig:
    """The job's parse settings; ``parser.processes`` -1 chosen for its runner.

    See :meth:`ParseConfig.for_runner`. The ``parse.link.policy`` spec is
    loaded once here, so that a bad one is one line before any job.

    Raises:
        ConfigError: a bad property, or a link policy spec that cannot be loaded.
    """
    config = checked_link_policy(ParseConfig.from_properties(properties))
    return config.for_runner(job.is_local())


def checked_link_policy(config: ParseConfig) -> ParseConfig:
    """``config``, once its link policy loads: a bad spec is one line, not a job.

    Raises:
        ConfigError: ``parse.link.policy`` names no loadable policy.
    """
    link_policy_of(config)
    return config


@dataclass(frozen=True)
class ParseRequest:
    """``beamcrawl parse``: which segment, with which settings."""

    segment: str
    config: ParseConfig
    resume: bool = False
    """Keep the pages an earlier, interrupted parse of the segment wrote."""
    force: bool = False
    """With ``resume``: parse every page again."""


def request(cli: JobArgs) -> ParseRequest:
    """The request a parsed ``beamcrawl parse`` command line makes."""
    args = cli.args
    config = parse_config(cli.properties, cli)
    return ParseRequest(args.segment, config, resume=args.resume, force=args.force)


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl parse``."""
    parser = job_parser("beamcrawl parse", "Parse a fetched segment.")
    parser.add_argument("segment")
    parser.add_argument("--resume", action="store_true", help="keep earlier parses")
    parser.add_argument("--force", action="store_true", help="with --resume: parse all")
    add_link_policy_argument(parser)
    return parser
