"""Per-job settings read from the properties: inject, readdb --stats ..."""

from __future__ import annotations

from dataclasses import dataclass, field

from crawllib.config.properties import Properties, bad_value, optional_int
from crawllib.config.schema import BucketCount, OptionalNumber
from crawllib.config.urls import PartitionConfig, UrlConfig
from crawllib.errors import ConfigError
from crawllib.status import CrawlStatus, crawl_status_from_label


@dataclass(frozen=True, slots=True)
class InjectConfig:
    """Inject settings (Nutch's Injector properties and flags).

    ``keep_backup`` is ``db.preserve.backup``; ``fixed_time_ms`` is
    ``injector.current.time``, the job's clock when set (reproducible runs);
    ``buckets`` is ``db.buckets``, the bucket count of an existing crawldb's
    new version (0: from its size).

    ``normalize`` / ``filter_urls`` are the command's ``--noNormalize`` /
    ``--noFilter``; ``overwrite`` / ``update`` can also come from
    ``--overwrite`` / ``--update``.
    """

    urls: UrlConfig
    normalize: bool = True
    filter_urls: bool = True
    score_injected: float = 1.0
    fetch_interval_s: int = 2592000
    overwrite: bool = False
    update: bool = False
    purge_404: bool = False
    filter_normalize_all: bool = False
    keep_backup: bool = True
    fixed_time_ms: int | None = None
    buckets: int = 0

    @classmethod
    def from_properties(cls, props: Properties) -> InjectConfig:
        """Read ``db.score.injected``, ``db.fetch.interval.default`` and friends."""
        interval = props.get_int("db.fetch.interval.default")
        if interval <= 0:
            raise bad_value(
                "db.fetch.interval.default", str(interval), "a positive int"
            )
        return cls(
            urls=UrlConfig.from_properties(props),
            score_injected=props.get_float("db.score.injected"),
            fetch_interval_s=interval,
            overwrite=props.get_bool("db.injector.overwrite"),
            update=props.get_bool("db.injector.update"),
            purge_404=props.get_bool("db.update.purge.404"),
            filter_normalize_all=props.get_bool("crawldb.inject.filter.normalize.all"),
            keep_backup=props.get_bool("db.preserve.backup"),
            fixed_time_ms=optional_int(props, "injector.current.time"),
            buckets=props.parse("db.buckets", BucketCount()),
        )


@dataclass(frozen=True, slots=True)
class StatsConfig:
    """``readdb --stats`` settings.

    Attributes:
        quantiles: ``db.stats.score.quantiles``, the score quantiles to print.
        gen_delay_ms: ``crawl.gen.delay``: a generated URL counts as running
            this long (the URL states, ``crawllib.db.urlstates``).
        fixed_time_ms: ``generate.curTime``: the URL states' clock when set.
    """

    quantiles: tuple[float, ...] = ()
    gen_delay_ms: int = 604_800_000
    fixed_time_ms: int | None = None

    @classmethod
    def from_properties(cls, props: Properties) -> StatsConfig:
        """Read the quantiles (each strictly between 0 and 1) and the clock."""
        quantiles = []
        for item in props.get_list("db.stats.score.quantiles"):
            try:
                value = float(item)
            except ValueError:
                raise bad_value("db.stats.score.quantiles", item, "numbers") from None
            if not 0 < value < 1:
                raise bad_value("db.stats.score.quantiles", item, "values in (0, 1)")
            quantiles.append(value)
        return cls(
            quantiles=tuple(sorted(set(quantiles))),
            gen_delay_ms=props.get_int("crawl.gen.delay"),
            fixed_time_ms=optional_int(props, "generate.curTime"),
        )


@dataclass(frozen=True, slots=True)
class GenerateConfig:
    """Generate settings: Nutch's Generator properties and command-line flags.

    Attributes:
        urls: normalizer and filter settings.
        filter_urls: ``generate.filter`` (``--noFilter`` turns it off).
        normalize: ``generate.normalise`` (``--noNorm`` turns it off).
        top_n: ``--topN``, URLs per segment over all fetch lists; None = all.
        num_fetchers: ``--numFetchers``, fetch lists (partitions) per segment.
        max_num_segments: ``--maxNumSegments``.
        max_count: ``generate.max.count``, URLs per host or domain per
            segment; 0 or less = no limit.
        count_by_domain: ``generate.count.mode`` is ``domain``.
        update_crawldb: ``generate.update.crawldb``.
        min_score: ``generate.min.score``; None = no minimum.
        min_interval_s: ``generate.min.interval``; -1 = off.
        restrict_status: ``generate.restrict.status``; None = any status.
        max_distance: ``generate.max.distance`` (2.x); -1 = off.
        gen_delay_ms: ``crawl.gen.delay``.
        max_interval_s: ``db.fetch.interval.max``.
        partition: ``partition.url.mode`` and ``partition.url.seed``.
        keep_backup: ``db.preserve.backup``.
        fixed_time_ms: ``generate.curTime``, the job's clock when set.
    """

    urls: UrlConfig
    filter_urls: bool = True
    normalize: bool = True
    top_n: int | None = None
    num_fetchers: int = 1
    max_num_segments: int = 1
    max_count: int = -1
    count_by_domain: bool = False
    update_crawldb: bool = False
    min_score: float | None = 0.0
    min_interval_s: int = -1
    restrict_status: CrawlStatus | None = None
    max_distance: int = -1
    gen_delay_ms: int = 604_800_000
    max_interval_s: int = 7_776_000
    partition: PartitionConfig = field(default_factory=PartitionConfig)
    keep_backup: bool = True
    fixed_time_ms: int | None = None

    @classmethod
    def from_properties(cls, props: Properties) -> GenerateConfig:
        """Read the ``generate.*`` properties and their companions."""
        return cls(
            urls=UrlConfig.from_properties(props),
            filter_urls=props.get_bool("generate.filter"),
            normalize=props.get_bool("generate.normalise"),
            max_count=props.get_int("generate.max.count"),
            count_by_domain=props.get_choice("generate.count.mode") == "domain",
            update_crawldb=props.get_bool("generate.update.crawldb"),
            min_score=_optional_float(props, "generate.min.score"),
            min_interval_s=props.get_int("generate.min.interval"),
            restrict_status=_status(props, "generate.restrict.status"),
            max_distance=props.get_int("generate.max.distance"),
            gen_delay_ms=props.get_int("crawl.gen.delay"),
            max_interval_s=_positive(props, "db.fetch.interval.max"),
            partition=PartitionConfig.from_properties(props),
            keep_backup=props.get_bool("db.preserve.backup"),
            fixed_time_ms=optional_int(props, "generate.curTime"),
        )

    def check(self) -> GenerateConfig:
        """Reject command-line numbers out of range; returns self."""
        for flag, value in [
            ("--topN", 1 if self.top_n is None else self.top_n),
            ("--numFetchers", self.num_fetchers),
            ("--maxNumSegments", self.max_num_segments),
        ]:
            if value <= 0:
                raise ConfigError(f"{flag} {value} is invalid: expected 1 or more")
        return self


def _optional_float(props: Properties, name: str) -> float | None:
    """The property as a float; None when empty or NaN (Nutch's "off")."""
    return props.parse(name, OptionalNumber())


def _positive(props: Properties, name: str) -> int:
    value = props.get_int(name)
    if value <= 0:
        raise bad_value(name, str(value), "a positive int")
    return value


def _status(props: Properties, name: str) -> CrawlStatus | None:
    raw = props.get_str(name)
    if not raw:
        return None
    try:
        return crawl_status_from_label(raw)
    except ValueError:
        raise bad_value(name, raw, "a status name such as db_unfetched") from None
