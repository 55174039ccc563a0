"""The command line of ``beamcrawl dedup``, without Beam: its parser and request.

:mod:`pipelines.dedup` runs the request (``run_request``).
"""

from __future__ import annotations

from dataclasses import dataclass

from crawllib.config import UpdateConfig
from crawllib.db.dedup import DEFAULT_COMPARE_ORDER, DedupConfig
from pipelines.runtime.options import (
    ArgumentParser,
    JobArgs,
    job_parser,
)


@dataclass(frozen=True)
class DedupRequest:
    """``beamcrawl dedup``: which crawldb, compared how."""

    crawldb: str
    config: DedupConfig
    keep_backup: bool = True
    """Keep the version before as ``old`` (``db.preserve.backup``)."""
    force: bool = False
    """Override an existing crawldb lock."""


def request(cli: JobArgs) -> DedupRequest:
    """The request a parsed ``beamcrawl dedup`` command line makes."""
    args = cli.args
    return DedupRequest(
        args.crawldb,
        DedupConfig.from_args(args.group, args.compareOrder),
        keep_backup=UpdateConfig.from_properties(cli.properties).keep_backup,
        force=args.force,
    )


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl dedup``."""
    parser = job_parser("beamcrawl dedup", "Mark duplicate pages in a crawldb.")
    parser.add_argument("crawldb")
    parser.add_argument(
        "--group",
        default="none",
        choices=["none", "host", "domain"],
        help="compare only pages of one host or domain (default none)",
    )
    parser.add_argument(
        "--compareOrder",
        default=DEFAULT_COMPARE_ORDER,
        metavar="ORDER",
        help="criteria in order: score, fetchTime, urlLength, "
        f"optionally httpsOverHttp (default {DEFAULT_COMPARE_ORDER})",
    )
    parser.add_argument("--force", action="store_true", help="override a lock")
    return parser
