"""The command line of ``beamcrawl bucketdb``, without Beam: its parser and request.

:mod:`pipelines.bucketdb` runs the request (``run_request``).
"""

from __future__ import annotations

from dataclasses import dataclass

from crawllib.config import UpdateConfig
from crawllib.config.schema import BucketCount
from pipelines.runtime.options import (
    ArgumentParser,
    JobArgs,
    job_parser,
)


@dataclass(frozen=True)
class BucketDbRequest:
    """``beamcrawl bucketdb``: which crawldb or linkdb, into how many buckets."""

    db: str
    buckets: int = 0
    """A power of two; 0 chooses from the version's size."""
    keep_backup: bool = True
    """Keep the version before as ``old`` (``db.preserve.backup``)."""
    force: bool = False
    """Override an existing lock."""


def request(cli: JobArgs) -> BucketDbRequest:
    """The request a parsed ``beamcrawl bucketdb`` command line makes.

    Raises:
        ConfigError: ``--buckets`` is not 0 or a power of two up to 65536.
    """
    args = cli.args
    return BucketDbRequest(
        args.db,
        BucketCount().parse("--buckets", str(args.buckets)),
        keep_backup=UpdateConfig.from_properties(cli.properties).keep_backup,
        force=args.force,
    )


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl bucketdb``."""
    parser = job_parser(
        "beamcrawl bucketdb",
        "Rewrite a crawldb or linkdb as sorted hash buckets (or into another "
        "bucket count). updatedb and invertlinks convert an unbucketed one on "
        "their next run anyway; this does it now.",
    )
    parser.add_argument("db", help="a crawldb or linkdb directory")
    parser.add_argument(
        "--buckets",
        default="0",
        metavar="N",
        help="a power of two up to 65536 (default 0: about 50,000 URLs a bucket)",
    )
    parser.add_argument("--force", action="store_true", help="override a lock")
    return parser
