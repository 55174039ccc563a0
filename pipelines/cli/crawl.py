"""The command line of ``beamcrawl crawl``, without Beam: its parser and request.

:func:`request` builds and checks every step's settings (:class:`StepSettings`:
agent name, delays, threads, link policy, topN ...), so that a bad one is
one line before Beam is imported or any data is touched.
:mod:`pipelines.crawl` runs the request (``run_request``).
"""

from __future__ import annotations

import dataclasses
from argparse import Namespace
from dataclasses import dataclass

from crawllib.config import (
    CrawlConfig,
    FetcherConfig,
    GenerateConfig,
    InjectConfig,
    LinkDbConfig,
    ParseConfig,
    UpdateConfig,
)
from crawllib.config.fetch import checked_threads
from crawllib.db.dedup import DedupConfig
from crawllib.db.invertlinks import check_config as check_linkdb_config
from crawllib.errors import ConfigError
from pipelines.cli.fetch import fetch_config
from pipelines.cli.generate import generate_config
from pipelines.cli.inject import check_seeds
from pipelines.cli.parse import parse_config
from pipelines.runtime.arguments import add_link_policy_argument
from pipelines.runtime.options import ArgumentParser, Job, JobArgs, job_parser
from pipelines.storage import pathnames


@dataclass(frozen=True)
class CrawlRequest:
    """``beamcrawl crawl``: seeds, a crawl directory, rounds, and the settings."""

    crawl_dir: str
    seeds: str
    rounds: int
    config: CrawlConfig
    """The crawl's properties (and a library user's link policy)."""
    top_n: int | None = None
    """URLs per round (``--topN``); none: all that are due."""
    num_fetchers: int = 1
    """Fetch lists per segment (``--numFetchers``)."""
    threads: int | None = None
    """Fetcher threads (``--threads``); none: ``fetcher.threads.fetch``."""
    separate_jobs: bool = False
    """Run fetch, updatedb and dedup as separate jobs on a local runner too."""
    force: bool = False
    """Remove a lock a killed job left (``--force``), at every step that locks."""
    child_flags: tuple[str, ...] = ()
    """The ``-D`` and ``--conf`` flags that give a step run in a child process
    (invertlinks beside the loop) the same properties."""

    def __post_init__(self) -> None:
        if self.rounds < 1:
            raise ConfigError(f"ROUNDS {self.rounds} is invalid: expected 1 or more")
        if self.threads is not None:
            checked_threads(self.threads, "--threads")

    @property
    def crawldb(self) -> str:
        return pathnames.join(self.crawl_dir, "crawldb")

    @property
    def segments_dir(self) -> str:
        return pathnames.join(self.crawl_dir, "segments")

    @property
    def linkdb(self) -> str:
        return pathnames.join(self.crawl_dir, "linkdb")


@dataclass(frozen=True)
class StepSettings:
    """Every step's settings, built once from the crawl's properties."""

    inject: InjectConfig
    generate: GenerateConfig
    fetch: FetcherConfig
    parse: ParseConfig
    update: UpdateConfig
    linkdb: LinkDbConfig
    dedup: DedupConfig

    @classmethod
    def of(cls, request: CrawlRequest, job: Job) -> StepSettings:
        """Raises ConfigError (or CrawlError) for a bad one: before any step."""
        config = request.config
        properties = config.properties
        parsing = parse_config(properties, job)
        if config.link_policy is not None:
            parsing = dataclasses.replace(parsing, link_policy=config.link_policy)
        return cls(
            inject=config.inject,
            generate=generate_config(
                properties, top_n=request.top_n, num_fetchers=request.num_fetchers
            ),
            fetch=fetch_config(properties, threads=request.threads, with_parse=True),
            parse=parsing,
            update=config.update,
            linkdb=check_linkdb_config(config.linkdb),
            dedup=DedupConfig.from_args(),
        )


def request(cli: JobArgs) -> CrawlRequest:
    """The request a parsed ``beamcrawl crawl`` command line makes.

    Every step's settings are built and checked here (:class:`StepSettings`),
    before Beam is imported or the crawl directory touched.

    Raises:
        ConfigError: ROUNDS below 1, or a bad setting of a step.
        CrawlError: no agent name (``http.agent.name``).
    """
    args = cli.args
    crawl = CrawlRequest(
        args.crawl_dir,
        args.seeds,
        args.rounds,
        CrawlConfig.from_properties(cli.properties),
        top_n=args.topN,
        num_fetchers=args.numFetchers if args.numFetchers is not None else 1,
        threads=args.threads,
        separate_jobs=args.separateJobs,
        force=args.force,
        child_flags=tuple(property_flags(cli.args)),
    )
    StepSettings.of(crawl, cli)  # every step's settings, checked before any step
    check_seeds(crawl.seeds)
    return crawl


def property_flags(args: Namespace) -> list[str]:
    """The ``-D`` and ``--conf`` flags of a parsed command line, as given."""
    flags = [f"-D{define}" for define in args.defines]
    for conf in args.conf_files:
        flags += ["--conf", conf]
    return flags


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl crawl``."""
    parser = job_parser("beamcrawl crawl", "Crawl: inject, then rounds of the loop.")
    parser.add_argument("--seeds", required=True, help="seed file or directory")
    parser.add_argument("crawl_dir", metavar="CRAWL_DIR")
    parser.add_argument(
        "rounds",
        metavar="ROUNDS",
        type=int,
        help="rounds in all for CRAWL_DIR: run again, the crawl goes on from the "
        "round after the last one done",
    )
    parser.add_argument("--topN", type=int, help="URLs per round")
    parser.add_argument("--numFetchers", type=int, help="fetch lists per segment")
    parser.add_argument("--threads", type=int, help="fetcher threads")
    parser.add_argument(
        "--separateJobs",
        action="store_true",
        help="run fetch, updatedb and dedup as separate jobs also on a local "
        "runner (there they are one pipeline by default)",
    )
    parser.add_argument(
        "--force", action="store_true", help="remove a lock a killed job left"
    )
    add_link_policy_argument(parser)
    return parser
