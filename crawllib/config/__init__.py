"""Configuration by Nutch property name: defaults, site files, ``-D`` overrides.

:class:`Properties` is the resolved map (Nutch defaults < ``--conf`` files in
order < ``-D name=value``) with typed getters that reject bad values with one
line naming the property. Each job then takes a frozen config built from it
(``UrlConfig.from_properties`` ...); transforms never see the raw map.
Property names are read only in this package; ``-D`` and ``--conf`` come in
through :func:`load_properties`. Library users hold one :class:`CrawlConfig`
and every transform takes it (:func:`step_config`).
"""

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
    "load_properties",
    "parse_define",
    "plugin_active",
    "read_site_file",
    "step_config",
]
