"""The command line of ``beamcrawl demo``, without Beam: its parser and checks.

:func:`request` checks the command line before Beam is imported or the
sample site served: not Dataflow (its workers cannot reach this machine's
loopback), and every crawl step's settings, the demo's properties under
the user's ``-D``. :mod:`pipelines.demo` runs it (``run_request``).
"""

from __future__ import annotations

from crawllib.config import CrawlConfig
from crawllib.config.properties import parse_define
from crawllib.errors import ConfigError
from pipelines.cli.crawl import CrawlRequest, StepSettings, property_flags
from pipelines.runtime.arguments import add_link_policy_argument
from pipelines.runtime.options import ArgumentParser, JobArgs, job_parser

DEMO_PROPERTIES = [
    "http.agent.name=beamcrawl-demo",
    "fetcher.server.delay=0.2",
    "fetcher.threads.fetch=4",
]


def crawl_request(cli: JobArgs, crawl_dir: str, seeds: str) -> CrawlRequest:
    """The crawl of the sample site: the demo's properties under the user's -D."""
    demo = dict(parse_define(define) for define in DEMO_PROPERTIES)
    user = dict(parse_define(define) for define in cli.args.defines)
    return CrawlRequest(
        crawl_dir,
        seeds,
        cli.args.rounds,
        CrawlConfig.from_properties(cli.properties.with_values({**demo, **user})),
        force=cli.args.force,
        child_flags=(
            *(f"-D{define}" for define in DEMO_PROPERTIES),
            *property_flags(cli.args),
        ),
    )


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl demo``."""
    parser = job_parser("beamcrawl demo", "Crawl a bundled sample site on loopback.")
    parser.add_argument("--dir", help="crawl directory (default: a new temporary one)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--force", action="store_true", help="remove a lock a killed job left"
    )
    add_link_policy_argument(parser)
    return parser


def request(cli: JobArgs) -> JobArgs:
    """The command line, checked: the demo's request is the command line itself.

    Raises:
        ConfigError: Dataflow, a bad property or a bad ``--rounds``.
        CrawlError: a step's setting the crawl refuses.
    """
    if cli.is_dataflow():
        raise ConfigError(
            "beamcrawl demo: the sample site is served on this machine's loopback, "
            "which Dataflow's workers cannot reach; crawl a site of yours with "
            "beamcrawl crawl and gs:// paths instead"
        )
    StepSettings.of(crawl_request(cli, "demo", "seeds.txt"), cli)
    return cli
