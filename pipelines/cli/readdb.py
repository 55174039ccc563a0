"""The command line of ``beamcrawl readdb``, without Beam: its parser and request.

:mod:`pipelines.readdb` runs the request (``run_request``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from crawllib.config import CrawlConfig
from crawllib.errors import ConfigError
from pipelines.runtime.options import (
    ArgumentParser,
    JobArgs,
    job_parser,
)

MODES = ("stats", "dump", "url", "path", "verify", "rollback", "salvage")
"""What ``readdb`` does, one per call: the command line's mutually exclusive flags."""


@dataclass(frozen=True)
class ReadDbRequest:
    """``beamcrawl readdb``: which crawldb, and what to read of it."""

    crawldb: str
    mode: str
    """One of :data:`MODES`."""
    target: str | None = None
    """``--dump``'s OUT_DIR, ``--url``'s URL or ``--salvage``'s OUT_CRAWLDB."""
    as_json: bool = False
    """``--stats`` as JSON."""
    force: bool = False
    """With ``--rollback``: remove a lock a killed job left."""
    config: CrawlConfig = field(default_factory=lambda: CrawlConfig.from_dict({}))
    """The properties (statistics' settings, normalizers for ``--url``)."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ConfigError(f"beamcrawl readdb: no mode {self.mode!r}")
        if self.as_json and self.mode != "stats":
            raise ConfigError("beamcrawl readdb: --json goes with --stats")
        if self.force and self.mode != "rollback":
            raise ConfigError("beamcrawl readdb: --force goes with --rollback")


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl readdb``."""
    parser = job_parser(
        "beamcrawl readdb", "Read a crawldb: statistics, dump, one URL."
    )
    parser.add_argument("crawldb")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--stats", action="store_true", help="print statistics")
    mode.add_argument("--dump", metavar="OUT_DIR", help="write records as JSON lines")
    mode.add_argument("--url", help="print the record of one URL")
    mode.add_argument(
        "--path",
        action="store_true",
        help="print the directory of the current version (for other tools)",
    )
    mode.add_argument(
        "--verify",
        action="store_true",
        help="read every part file of the current version and its backup; "
        "exit 2 if one is damaged",
    )
    mode.add_argument(
        "--rollback",
        action="store_true",
        help="make the backup version current again (the current one its backup)",
    )
    mode.add_argument(
        "--salvage",
        metavar="OUT_CRAWLDB",
        help="write the readable records of the current version into a new crawldb",
    )
    parser.add_argument("--json", action="store_true", help="--stats as JSON")
    parser.add_argument(
        "--force",
        action="store_true",
        help="with --rollback: remove a lock a killed job left",
    )
    return parser


def request(cli: JobArgs) -> ReadDbRequest:
    """The request a parsed ``beamcrawl readdb`` command line makes."""
    args = cli.args
    mode = next(name for name in MODES if getattr(args, name) not in (None, False))
    target = {"dump": args.dump, "url": args.url, "salvage": args.salvage}.get(mode)
    return ReadDbRequest(
        args.crawldb,
        mode,
        target,
        as_json=args.json,
        force=args.force,
        config=CrawlConfig.from_properties(cli.properties),
    )
