"""Configuration by Nutch property name: defaults, site files, ``-D`` overrides.

:class:`Properties` is the resolved map (Nutch defaults < ``--conf`` files in
order < ``-D name=value``) with typed getters that reject bad values with one
line naming the property. Each job then takes a frozen config built from it
(``UrlConfig.from_properties`` ...); transforms never see the raw map.
Property names are read only in this package, and every one is described in
the registry (:mod:`crawllib.config.registry`); ``-D`` and ``--conf`` come in
through :func:`load_properties`, which checks them for the command line
(:mod:`crawllib.config.checks`; :func:`declare_properties` keeps your own
code's properties from being warned about). Library users hold one :class:`CrawlConfig`
and every transform takes it (:func:`step_config`).
"""

from crawllib.config.checks import declare_properties
from crawllib.config.crawl import CrawlConfig, step_config
from crawllib.config.fetch import FetcherConfig, HttpConfig, RobotsConfig
from crawllib.config.index import IndexConfig
from crawllib.config.jobs import GenerateConfig, InjectConfig, StatsConfig
from crawllib.config.parse import HtmlConfig, ParseConfig
from crawllib.config.properties import (
    Properties,
    load_properties,
    parse_define,
    plugin_active,
    read_site_file,
)
from crawllib.config.sitemap import SitemapConfig
from crawllib.config.update import (
    LinkDbConfig,
    ScheduleConfig,
    ScoringConfig,
    UpdateConfig,
)
from crawllib.config.urls import NORMALIZER_SCOPES, PartitionConfig, UrlConfig

__all__ = [
    "NORMALIZER_SCOPES",
    "CrawlConfig",
    "FetcherConfig",
    "GenerateConfig",
    "HtmlConfig",
    "HttpConfig",
    "IndexConfig",
    "InjectConfig",
    "LinkDbConfig",
    "ParseConfig",
    "PartitionConfig",
    "Properties",
    "RobotsConfig",
    "ScheduleConfig",
    "ScoringConfig",
    "SitemapConfig",
    "StatsConfig",
    "UpdateConfig",
    "UrlConfig",
    "declare_properties",
    "load_properties",
    "parse_define",
    "plugin_active",
    "read_site_file",
    "step_config",
]
