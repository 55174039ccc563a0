"""UpdateDb settings: fetch schedules, OPIC scoring, crawldb additions, linkdb."""

from __future__ import annotations

from dataclasses import dataclass

from crawllib.config.properties import Properties
from crawllib.config.schema import BucketCount
from crawllib.config.urls import UrlConfig

SCHEDULES = {"DefaultFetchSchedule": "default", "AdaptiveFetchSchedule": "adaptive"}


@dataclass(frozen=True, slots=True)
class ScheduleConfig:
    """Fetch schedule (``db.fetch.schedule.class`` and its properties).

    Attributes:
        kind: ``default`` (DefaultFetchSchedule) or ``adaptive``.
        default_interval_s: ``db.fetch.interval.default``.
        max_interval_s: ``db.fetch.interval.max``.
        inc_rate, dec_rate: ``db.fetch.schedule.adaptive.inc_rate`` / ``dec_rate``.
        min_adaptive_s, max_adaptive_s: ``db.fetch.schedule.adaptive.min_interval``
            / ``max_interval``.
        sync_delta, sync_delta_rate: ``db.fetch.schedule.adaptive.sync_delta*``.
    """

    kind: str = "default"
    default_interval_s: int = 2_592_000
    max_interval_s: int = 7_776_000
    inc_rate: float = 0.4
    dec_rate: float = 0.2
    min_adaptive_s: float = 60.0
    max_adaptive_s: float = 31_536_000.0
    sync_delta: bool = True
    sync_delta_rate: float = 0.3

    @classmethod
    def from_properties(cls, props: Properties) -> ScheduleConfig:
        """Read ``db.fetch.schedule.*`` and the interval properties."""
        simple = props.get_class("db.fetch.schedule.class")
        prefix = "db.fetch.schedule.adaptive."
        return cls(
            kind=SCHEDULES[simple],
            default_interval_s=props.get_int("db.fetch.interval.default"),
            max_interval_s=props.get_int("db.fetch.interval.max"),
            inc_rate=props.get_float(prefix + "inc_rate"),
            dec_rate=props.get_float(prefix + "dec_rate"),
            min_adaptive_s=props.get_float(prefix + "min_interval"),
            max_adaptive_s=props.get_float(prefix + "max_interval"),
            sync_delta=props.get_bool(prefix + "sync_delta"),
            sync_delta_rate=props.get_float(prefix + "sync_delta_rate"),
        )


@dataclass(frozen=True, slots=True)
class ScoringConfig:
    """OPIC scoring (scoring-opic): link factors and counting of filtered links.

    Attributes:
        internal, external: ``db.score.link.internal`` / ``db.score.link.external``.
        count_filtered: ``db.score.count.filtered``.
        injected: ``db.score.injected``.
    """

    internal: float = 1.0
    external: float = 1.0
    count_filtered: bool = False
    injected: float = 1.0

    @classmethod
    def from_properties(cls, props: Properties) -> ScoringConfig:
        """Read the ``db.score.*`` properties."""
        return cls(
            internal=props.get_float("db.score.link.internal"),
            external=props.get_float("db.score.link.external"),
            count_filtered=props.get_bool("db.score.count.filtered"),
            injected=props.get_float("db.score.injected"),
        )


@dataclass(frozen=True, slots=True)
class UpdateConfig:
    """UpdateDb (CrawlDbReducer / DbUpdateReducer) settings.

    Attributes:
        schedule, scoring: the fetch schedule and OPIC settings.
        urls: normalizers and filters (scope ``crawldb``) for new URLs.
        retry_max: ``db.fetch.retry.max``.
        additions_allowed: ``db.update.additions.allowed``.
        max_inlinks: ``db.update.max.inlinks``.
        purge_404: ``db.update.purge.404``.
        normalize, filter_urls: re-check new URLs (on by default in beamcrawl).
        keep_backup: ``db.preserve.backup``.
        buckets: ``db.buckets``: 0 chooses from the crawldb's size.
    """

    schedule: ScheduleConfig
    scoring: ScoringConfig
    urls: UrlConfig
    retry_max: int = 3
    additions_allowed: bool = True
    max_inlinks: int = 10_000
    purge_404: bool = False
    normalize: bool = True
    filter_urls: bool = True
    keep_backup: bool = True
    buckets: int = 0

    @classmethod
    def from_properties(cls, props: Properties) -> UpdateConfig:
        """Read the ``db.*`` properties updatedb uses."""
        return cls(
            schedule=ScheduleConfig.from_properties(props),
            scoring=ScoringConfig.from_properties(props),
            urls=UrlConfig.from_properties(props),
            retry_max=props.get_int("db.fetch.retry.max"),
            additions_allowed=props.get_bool("db.update.additions.allowed"),
            max_inlinks=props.get_int("db.update.max.inlinks"),
            purge_404=props.get_bool("db.update.purge.404"),
            keep_backup=props.get_bool("db.preserve.backup"),
            buckets=props.parse("db.buckets", BucketCount()),
        )


@dataclass(frozen=True, slots=True)
class LinkDbConfig:
    """invertlinks (LinkDb) settings.

    Attributes:
        max_inlinks: ``linkdb.max.inlinks``.
        max_anchor_length: ``linkdb.max.anchor.length``.
        ignore_internal: ``linkdb.ignore.internal.links``.
        ignore_external: ``linkdb.ignore.external.links``.
        urls: normalizers and filters (scope ``linkdb``).
        normalize, filter_urls: the command's ``--noNormalize`` / ``--noFilter``.
        buckets: ``linkdb.buckets``: 0 chooses from the linkdb's size.
    """

    urls: UrlConfig
    max_inlinks: int = 10_000
    max_anchor_length: int = 100
    ignore_internal: bool = True
    ignore_external: bool = False
    normalize: bool = True
    filter_urls: bool = True
    buckets: int = 0

    @classmethod
    def from_properties(cls, props: Properties) -> LinkDbConfig:
        """Read the ``linkdb.*`` properties."""
        return cls(
            urls=UrlConfig.from_properties(props),
            max_inlinks=props.get_int("linkdb.max.inlinks"),
            max_anchor_length=props.get_int("linkdb.max.anchor.length"),
            ignore_internal=props.get_bool("linkdb.ignore.internal.links"),
            ignore_external=props.get_bool("linkdb.ignore.external.links"),
            buckets=props.parse("linkdb.buckets", BucketCount()),
        )
