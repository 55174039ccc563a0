"""The command line of ``beamcrawl inject``, without Beam: its parser and request.

:mod:`pipelines.inject` runs the request (``run_request``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from crawllib.config import InjectConfig
from crawllib.errors import SeedError
from pipelines.runtime.options import (
    ArgumentParser,
    JobArgs,
    job_parser,
)
from pipelines.storage import pathnames


@dataclass(frozen=True)
class InjectRequest:
    """``beamcrawl inject``: what to inject where, and how."""

    crawldb: str
    seeds: str
    """A seed file, or a directory of seed files."""
    config: InjectConfig
    force: bool = False
    """Override an existing crawldb lock."""


def request(cli: JobArgs) -> InjectRequest:
    """The request a parsed ``beamcrawl inject`` command line makes."""
    config = InjectConfig.from_properties(cli.properties)
    args = cli.args
    config = dataclasses.replace(
        config,
        overwrite=config.overwrite or args.overwrite,
        update=config.update or args.update,
        normalize=not args.noNormalize,
        filter_urls=not args.noFilter,
        filter_normalize_all=config.filter_normalize_all or args.filterNormalizeAll,
    )
    check_seeds(args.seeds)
    return InjectRequest(args.crawldb, args.seeds, config, force=args.force)


def check_seeds(seeds: str) -> None:
    """A local seed path that does not exist: one line before any job.

    Raises:
        SeedError: nothing at ``seeds`` on this machine's disk.
    """
    if pathnames.missing_here(seeds):
        raise SeedError(f"no seed files found at {seeds}")


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl inject``."""
    parser = job_parser("beamcrawl inject", "Inject seed URLs into a crawldb.")
    parser.add_argument("crawldb")
    parser.add_argument("seeds", help="a seed file, or a directory of seed files")
    flags = {
        "--overwrite": "replace existing records by injected ones",
        "--update": "update existing records with injected metadata, score, interval",
        "--noNormalize": "do not normalize injected URLs",
        "--noFilter": "do not filter injected URLs",
        "--filterNormalizeAll": "normalize and filter existing records too",
        "--force": "override an existing crawldb lock",
    }
    for flag, help_ in flags.items():
        parser.add_argument(flag, action="store_true", help=help_)
    return parser
