"""The command line of ``beamcrawl sitemap``, without Beam: its parser and request.

:mod:`pipelines.sitemap` runs the request (``run_request``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from crawllib.config import SitemapConfig
from crawllib.errors import ConfigError
from pipelines.runtime.options import (
    ArgumentParser,
    JobArgs,
    job_parser,
)

_NO_SOURCE = "beamcrawl sitemap: give --sitemapUrls DIR or --fromRobots"


@dataclass(frozen=True)
class SitemapRequest:
    """``beamcrawl sitemap``: which sitemaps into which crawldb, and how."""

    crawldb: str
    config: SitemapConfig
    sitemap_urls: str | None = None
    """A file or directory of sitemap URLs or host names, one a line."""
    from_robots: bool = False
    """Read the sitemaps the robots.txt of the crawldb's hosts list."""
    force: bool = False
    """Override an existing crawldb lock."""

    def __post_init__(self) -> None:
        if not self.sitemap_urls and not self.from_robots:
            raise ConfigError(_NO_SOURCE)


def request(cli: JobArgs) -> SitemapRequest:
    """The request a parsed ``beamcrawl sitemap`` command line makes.

    Raises:
        ConfigError: neither ``--sitemapUrls`` nor ``--fromRobots``.
    """
    args = cli.args
    if not args.sitemapUrls and not args.fromRobots:
        raise ConfigError(_NO_SOURCE)
    config = SitemapConfig.from_properties(cli.properties)
    config = dataclasses.replace(
        config,
        strict=config.strict and not args.noStrict,
        filter_urls=config.filter_urls and not args.noFilter,
        normalize=config.normalize and not args.noNormalize,
    )
    return SitemapRequest(
        args.crawldb,
        config,
        sitemap_urls=args.sitemapUrls,
        from_robots=args.fromRobots,
        force=args.force,
    )


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl sitemap``."""
    parser = job_parser(
        "beamcrawl sitemap", "Inject the URLs of sitemaps into a crawldb."
    )
    parser.add_argument("crawldb")
    parser.add_argument(
        "--sitemapUrls",
        metavar="DIR",
        help="a file or directory of sitemap URLs or host names, one a line",
    )
    flags = {
        "--fromRobots": "read the sitemaps listed in the robots.txt of the "
        "crawldb's hosts",
        "--noStrict": "keep URLs outside the sitemap's own directory",
        "--noFilter": "do not filter URLs",
        "--noNormalize": "do not normalize URLs",
        "--force": "override an existing crawldb lock",
    }
    for flag, help_ in flags.items():
        parser.add_argument(flag, action="store_true", help=help_)
    return parser
