"""Per-job settings read from the properties: inject, readdb --stats ..."""

from __future__ import annotations

from dataclasses import dataclass

from crawllib.config.properties import Properties, bad_value, optional_int
from crawllib.config.urls import UrlConfig


@dataclass(frozen=True, slots=True)
class InjectConfig:
    """Inject settings (Nutch's Injector properties and flags).

    ``keep_backup`` is ``db.preserve.backup``; ``fixed_time_ms`` is
    ``injector.current.time``, the job's clock when set (reproducible runs).

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
        )


@dataclass(frozen=True, slots=True)
class StatsConfig:
    """``readdb --stats`` settings: the score quantiles to print."""

    quantiles: tuple[float, ...] = ()

    @classmethod
    def from_properties(cls, props: Properties) -> StatsConfig:
        """Read ``db.stats.score.quantiles`` (each strictly between 0 and 1)."""
        quantiles = []
        for item in props.get_list("db.stats.score.quantiles"):
            try:
                value = float(item)
            except ValueError:
                raise bad_value("db.stats.score.quantiles", item, "numbers") from None
            if not 0 < value < 1:
                raise bad_value("db.stats.score.quantiles", item, "values in (0, 1)")
            quantiles.append(value)
        return cls(quantiles=tuple(sorted(set(quantiles))))
