"""``readdb --stats``: crawldb statistics as Nutch's CrawlDbReader computes them.

:class:`DbStats` is a mergeable accumulator (a Beam CombineFn wraps it);
:func:`render_text` prints Nutch 1.x's report, :func:`to_json` the same
figures for scripts. Score quantiles come from outside (the pipeline computes
them approximately) and are passed in. Beyond Nutch, the same pass counts the
four URL states (:mod:`crawllib.db.urlstates`), printed after the statuses.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from crawllib.db.urlstates import UrlStateCounts
from crawllib.status import crawl_status_label
from crawllib.webpage import WebPage


@dataclass(slots=True)
class DbStats:
    """Running totals over crawldb records (a mutable accumulator)."""

    total: int = 0
    by_status: dict[int, int] = field(default_factory=dict)
    by_retry: dict[int, int] = field(default_factory=dict)
    score_nan: int = 0
    score_count: int = 0
    score_min: float = math.inf
    score_max: float = -math.inf
    score_sum: float = 0.0
    interval_min: int | None = None
    interval_max: int | None = None
    interval_sum: int = 0
    fetch_time_min: int | None = None
    fetch_time_max: int | None = None
    fetch_time_sum: int = 0
    states: UrlStateCounts = field(default_factory=UrlStateCounts)

    def add(self, page: WebPage, now_ms: int, gen_delay_ms: int) -> None:
        """Count one record; its URL state as at ``now_ms`` (``crawl.gen.delay``)."""
        self.total += 1
        self.states.add(page, now_ms, gen_delay_ms)
        status = page["status"]
        self.by_status[status] = self.by_status.get(status, 0) + 1
        retries = page["retriesSinceFetch"]
        self.by_retry[retries] = self.by_retry.get(retries, 0) + 1
        score = page["score"]
        if math.isnan(score):
            self.score_nan += 1
        else:
            self.score_count += 1
            self.score_sum += score
            self.score_min = min(self.score_min, score)
            self.score_max = max(self.score_max, score)
        interval = page["fetchInterval"]
        self.interval_sum += interval
        self.interval_min = _min(self.interval_min, interval)
        self.interval_max = _max(self.interval_max, interval)
        fetch_time = page["fetchTime"]
        self.fetch_time_sum += fetch_time
        self.fetch_time_min = _min(self.fetch_time_min, fetch_time)
        self.fetch_time_max = _max(self.fetch_time_max, fetch_time)

    def merge(self, other: DbStats) -> None:
        """Fold another accumulator into this one."""
        self.total += other.total
        for status, count in other.by_status.items():
            self.by_status[status] = self.by_status.get(status, 0) + count
        for retries, count in other.by_retry.items():
            self.by_retry[retries] = self.by_retry.get(retries, 0) + count
        self.score_nan += other.score_nan
        self.score_count += other.score_count
        self.score_sum += other.score_sum
        self.score_min = min(self.score_min, other.score_min)
        self.score_max = max(self.score_max, other.score_max)
        self.interval_sum += other.interval_sum
        self.interval_min = _min(self.interval_min, other.interval_min)
        self.interval_max = _max(self.interval_max, other.interval_max)
        self.fetch_time_sum += other.fetch_time_sum
        self.fetch_time_min = _min(self.fetch_time_min, other.fetch_time_min)
        self.fetch_time_max = _max(self.fetch_time_max, other.fetch_time_max)
        self.states.merge(other.states)


def _min(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else min(a, b)


def _max(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    return a if b is None else max(a, b)


def merge_all(parts: Iterable[DbStats]) -> DbStats:
    """One accumulator holding the sum of ``parts``."""
    merged = DbStats()
    for part in parts:
        merged.merge(part)
    return merged


def to_json(stats: DbStats, quantiles: Mapping[float, float]) -> dict[str, Any]:
    """The statistics as a JSON-able dict (``readdb --stats --json``).

    Status counts are keyed by status name; times are epoch milliseconds,
    intervals seconds. Score figures are null when no record has a score.
    ``states``: the four URL states and ``waiting_due``, always all five.
    """
    has_scores = stats.score_count > 0
    total = stats.total
    return {
        "total": total,
        "status": {
            crawl_status_label(code): count
            for code, count in sorted(stats.by_status.items())
        },
        "status_codes": {
            str(code): count for code, count in sorted(stats.by_status.items())
        },
        "retry": {str(r): count for r, count in sorted(stats.by_retry.items())},
        "score": {
            "min": stats.score_min if has_scores else None,
            "avg": stats.score_sum / stats.score_count if has_scores else None,
            "max": stats.score_max if has_scores else None,
            "nan": stats.score_nan,
            "quantiles": {_quantile_label(q): v for q, v in sorted(quantiles.items())},
        },
        "fetch_interval_s": {
            "min": stats.interval_min,
            "avg": stats.interval_sum / total if total else None,
            "max": stats.interval_max,
        },
        "fetch_time_ms": {
            "min": stats.fetch_time_min,
            "avg": stats.fetch_time_sum // total if total else None,
            "max": stats.fetch_time_max,
        },
        "states": stats.states.as_dict(),
    }


def render_text(crawldb: str, stats: DbStats, quantiles: Mapping[float, float]) -> str:
    """Nutch 1.x ``readdb -stats`` output (one ``label:<TAB>value`` per line).

    Departures: the average score divides by the records that have a score
    (Nutch divides by all, counting NaN as 0), and ``max score`` of a crawldb
    without scores is not printed as Nutch's ``1.4E-45``. Added: the URL
    states after the status lines (not for an empty crawldb).
    """
    lines = [f"Statistics for CrawlDb: {crawldb}", f"TOTAL urls:\t{stats.total}"]
    if stats.total:
        assert stats.interval_min is not None
        assert stats.interval_max is not None
        assert stats.fetch_time_min is not None
        assert stats.fetch_time_max is not None
        lines += [
            f"shortest fetch interval:\t{days_hms(stats.interval_min)}",
            f"avg fetch interval:\t{days_hms(stats.interval_sum // stats.total)}",
            f"longest fetch interval:\t{days_hms(stats.interval_max)}",
            f"earliest fetch time:\t{java_date(stats.fetch_time_min)}",
            f"avg of fetch times:\t{java_date(stats.fetch_time_sum // stats.total)}",
            f"latest fetch time:\t{java_date(stats.fetch_time_max)}",
        ]
    lines += [f"retry {r}:\t{n}" for r, n in sorted(stats.by_retry.items())]
    if stats.score_nan:
        lines.append(f"score == NaN:\t{stats.score_nan}")
    if stats.score_count:
        lines += [
            f"score quantile {_quantile_label(q)}:\t{_num(v)}"
            for q, v in sorted(quantiles.items())
        ]
        lines += [
            f"min score:\t{_num(stats.score_min)}",
            f"avg score:\t{_num(stats.score_sum / stats.score_count)}",
            f"max score:\t{_num(stats.score_max)}",
        ]
    lines += [
        f"status {code} ({crawl_status_label(code)}):\t{count}"
        for code, count in sorted(stats.by_status.items())
    ]
    if stats.total:
        lines += _state_lines(stats.states)
    lines.append("CrawlDb statistics: done")
    return "\n".join(lines)


def _state_lines(states: UrlStateCounts) -> list[str]:
    return [
        "URL states (waiting / running / error / complete):",
        f"waiting:\t{states.waiting}\t(due now: {states.waiting_due})",
        f"running:\t{states.running}",
        f"error:\t{states.error}",
        f"complete:\t{states.complete}",
    ]


def days_hms(seconds: int) -> str:
    """Nutch's TimingUtil.secondsToDaysHMS: ``D days, HH:MM:SS`` or ``HH:MM:SS``."""
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    hms = f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{days} days, {hms}" if days else hms


def java_date(epoch_ms: int) -> str:
    """A time as Java's ``Date.toString`` prints it (local time zone)."""
    local = time.localtime(epoch_ms / 1000)
    return time.strftime("%a %b %d %H:%M:%S %Z %Y", local)


def _quantile_label(q: float) -> str:
    return f"{q:g}"


def _num(value: float) -> str:
    return f"{value:.6g}"
