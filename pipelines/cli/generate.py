"""The command line of ``beamcrawl generate``, without Beam: its parser and request.

:mod:`pipelines.generate` runs the request (``run_request``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from crawllib.config import GenerateConfig, Properties
from pipelines.runtime.options import ArgumentParser, JobArgs, job_parser


@dataclass(frozen=True)
class GenerateRequest:
    """``beamcrawl generate``: which crawldb, where the segments go, and how."""

    crawldb: str
    segments_dir: str
    config: GenerateConfig
    add_days: int = 0
    """Days added to the current time: select what is due by then."""
    force: bool = False
    """Override an existing crawldb lock."""


def request(cli: JobArgs) -> GenerateRequest:
    """The request a parsed ``beamcrawl generate`` command line makes."""
    args = cli.args
    config = generate_config(
        cli.properties,
        top_n=args.topN,
        num_fetchers=args.numFetchers,
        max_num_segments=args.maxNumSegments,
        filter_urls=not args.noFilter,
        normalize=not args.noNorm,
    )
    return GenerateRequest(
        args.crawldb, args.segments, config, add_days=args.adddays, force=args.force
    )


def generate_config(
    properties: Properties,
    *,
    top_n: int | None = None,
    num_fetchers: int = 1,
    max_num_segments: int = 1,
    filter_urls: bool = True,
    normalize: bool = True,
) -> GenerateConfig:
    """Generate's settings: the properties, with the command line's choices.

    Raises:
        ConfigError: a value out of range.
    """
    config = GenerateConfig.from_properties(properties)
    return dataclasses.replace(
        config,
        filter_urls=config.filter_urls and filter_urls,
        normalize=config.normalize and normalize,
        top_n=top_n,
        num_fetchers=num_fetchers,
        max_num_segments=max_num_segments,
    ).check()


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl generate``."""
    parser = job_parser("beamcrawl generate", "Generate fetch lists from a crawldb.")
    parser.add_argument("crawldb")
    parser.add_argument("segments", help="the directory new segments go in")
    parser.add_argument("--topN", type=int, help="URLs per segment (all lists)")
    parser.add_argument("--numFetchers", type=int, default=1, help="fetch lists")
    parser.add_argument("--adddays", type=int, default=0, help="days added to now")
    parser.add_argument("--maxNumSegments", type=int, default=1)
    parser.add_argument("--noFilter", action="store_true", help="no URL filters")
    parser.add_argument("--noNorm", action="store_true", help="no URL normalizers")
    parser.add_argument("--force", action="store_true", help="override a lock")
    return parser
