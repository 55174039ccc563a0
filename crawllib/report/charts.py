"""The report's charts, each built from :class:`~crawllib.report.figures.CrawlFigures`.

One function per chart; each returns a :class:`Section`: the chart (or none,
when the crawl directory lacks what it needs) and a sentence on what it shows
or why it is missing. ``docs/report.md`` describes every chart.
"""

from __future__ import annotations

import collections
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from crawllib.report.figures import (
    UNKNOWN_DEPTH,
    CrawlFigures,
    RoundFacts,
    SegmentFigures,
    is_error,
)
from crawllib.report.hosts import HostTally
from crawllib.report.svg import Chart, Series
from crawllib.status import ProtocolStatus, protocol_status_label

TOP_HOSTS = 20
"""Hosts shown in each host chart."""
SCORE_BINS = 20
"""Bins of the score histogram."""
LOG_RATIO = 100.0
"""Scores whose greatest is this many times their least get log-scale bins."""
TIMELINE_POINTS = 60
"""Points of the fetch-rate line, at most."""

STATUS_COLORS = {
    "SUCCESS": "#59a14f",
    "status_fetched": "#59a14f",
    "status_unfetched": "#bab0ac",
    "NOTFOUND": "#e15759",
    "status_gone": "#e15759",
    "EXCEPTION": "#b07aa1",
    "not fetched": "#d3d3d3",
    "success": "#59a14f",
}
"""Fixed colours of the commonest statuses, the same in every chart."""


@dataclass(frozen=True, slots=True)
class Section:
    """One chart of the report and what it says (or why it is missing)."""

    key: str
    title: str
    text: str
    chart: Chart | None = None


def sections(figures: CrawlFigures) -> list[Section]:
    """Every chart of the report, in page order."""
    return [
        status_by_round(figures),
        fetches_by_segment(figures),
        parses_by_segment(figures),
        fetch_rate(figures),
        crawldb_growth(figures),
        hosts_by_pages(figures),
        hosts_by_errors(figures),
        host_fetch_status(figures),
        host_http_codes(figures),
        depths(figures),
        scores(figures),
    ]


def _series(
    names: Sequence[str], value: Callable[[str, int], float], count: int
) -> tuple[Series, ...]:
    return tuple(
        Series(
            name, tuple(value(name, i) for i in range(count)), STATUS_COLORS.get(name)
        )
        for name in names
    )


def _ordered(counters: Sequence[Mapping[str, int]]) -> list[str]:
    """Every key of ``counters``, largest overall first (ties by name)."""
    totals: collections.Counter[str] = collections.Counter()
    for counter in counters:
        totals.update(counter)
    return sorted(totals, key=lambda name: (-totals[name], name))


def status_by_round(figures: CrawlFigures) -> Section:
    """The crawldb by status after each round; the current crawldb without rounds."""
    title = "URLs by status over the rounds"
    if figures.rounds:
        counters = [r.crawldb for r in figures.rounds]
        categories = tuple(f"round {r.round}" for r in figures.rounds)
        text = "The crawldb's records by status after each round (round records)."
    elif figures.has_crawldb:
        counters = [figures.crawldb.by_status]
        categories = ("now",)
        text = (
            "No round records: the crawldb by status as it is now, one bar "
            "(its state after each round is not kept)."
        )
    else:
        return Section("status-by-round", title, "No crawldb and no round records.")
    names = _ordered(counters)
    chart = Chart(
        "status-by-round", "bars", title, categories,
        _series(names, lambda n, i: counters[i].get(n, 0), len(categories)),
        "round", "URLs in the crawldb",
    )  # fmt: skip
    return Section(chart.key, title, text, chart)


def _segment_label(figures: CrawlFigures, segment: SegmentFigures) -> str:
    for record in figures.rounds:
        if record.segment.rstrip("/").rsplit("/", 1)[-1] == segment.name:
            return f"round {record.round}"
    return segment.name


def fetches_by_segment(figures: CrawlFigures) -> Section:
    """Each segment's fetch records by protocol status, and its URLs unfetched."""
    title = "Fetch outcomes by round"
    fetched = [s for s in figures.segments.values() if s.fetched or s.generated]
    if not fetched:
        return Section("fetch-by-segment", title, "No segment has fetch records.")
    unfetched = [max(0, s.generated - sum(s.fetched.values())) for s in fetched]
    counters = [
        {**s.fetched, **({"not fetched": u} if u else {})}
        for s, u in zip(fetched, unfetched, strict=True)
    ]
    names = _ordered(counters)
    chart = Chart(
        "fetch-by-segment", "bars", title,
        tuple(_segment_label(figures, s) for s in fetched),
        _series(names, lambda n, i: counters[i].get(n, 0), len(fetched)),
        "segment", "fetch records",
    )  # fmt: skip
    text = (
        "Each segment's fetch records by protocol status (a followed redirect "
        "is a record of its own); 'not fetched': generated URLs without one."
    )
    return Section(chart.key, title, text, chart)


def parses_by_segment(figures: CrawlFigures) -> Section:
    """Each segment's parse records by parse status."""
    title = "Parse outcomes by round"
    parsed = [s for s in figures.segments.values() if s.parsed]
    if not parsed:
        return Section("parse-by-segment", title, "No segment has parse records.")
    counters = [s.parsed for s in parsed]
    names = _ordered(counters)
    chart = Chart(
        "parse-by-segment", "bars", title,
        tuple(_segment_label(figures, s) for s in parsed),
        _series(names, lambda n, i: counters[i].get(n, 0), len(parsed)),
        "segment", "parse records",
    )  # fmt: skip
    text = (
        "Each segment's parse records by parse status (major, then minor "
        "code when not ok): pages that were not fetched are not parsed."
    )
    return Section(chart.key, title, text, chart)


def fetch_rate(figures: CrawlFigures) -> Section:
    """Fetches over time, from the fetch records' fetch times."""
    title = "Fetch rate over time"
    counts = figures.timeline.counts
    if not counts:
        return Section("fetch-rate", title, "No fetch records, so no fetch times.")
    bucket = figures.timeline.bucket_ms
    first, last = min(counts), max(counts)
    span = last - first + bucket
    width = bucket * max(1, -(-span // (bucket * TIMELINE_POINTS)))
    bins: collections.Counter[int] = collections.Counter()
    for start, count in counts.items():
        bins[(start - first) // width] += count
    n = (last - first) // width + 1
    categories = tuple(_clock(first + i * width) for i in range(n))
    per = f"{width // 1000} s" if width % 60_000 else f"{width // 60_000} min"
    chart = Chart(
        "fetch-rate", "line", title, categories,
        (Series("fetches", tuple(float(bins[i]) for i in range(n))),),
        "time (UTC)", f"fetches per {per}",
    )  # fmt: skip
    text = (
        f"Fetch records by the time their fetch ended, per {per}; the gaps are "
        "the time between rounds (generate, parse, update)."
    )
    return Section(chart.key, title, text, chart)


def _clock(epoch_ms: int) -> str:
    return time.strftime("%H:%M:%S", time.gmtime(epoch_ms / 1000))


def crawldb_growth(figures: CrawlFigures) -> Section:
    """The crawldb's size and the new URLs of each round (round records only)."""
    title = "The crawldb's growth"
    if not figures.rounds:
        now = figures.crawldb.records
        return Section(
            "crawldb-growth", title,
            f"Needs the round records that crawl writes; this directory has none, "
            f"so only the current size is known: {now} URLs.",
        )  # fmt: skip
    rounds: Sequence[RoundFacts] = figures.rounds
    chart = Chart(
        "crawldb-growth", "line", title,
        tuple(f"round {r.round}" for r in rounds),
        (
            Series("URLs in the crawldb", tuple(float(_size(r)) for r in rounds)),
            Series("new URLs", tuple(float(r.new_urls) for r in rounds)),
        ),
        "round", "URLs",
    )  # fmt: skip
    text = "The crawldb's records after each round, and the URLs each round added."
    return Section(chart.key, title, text, chart)


def _size(record: RoundFacts) -> int:
    return sum(record.crawldb.values())


def _host_chart(
    key: str,
    title: str,
    ranked: list[tuple[str, HostTally]],
    counter: Callable[[HostTally], Mapping[str, int]],
    x_label: str,
) -> Chart:
    counters = [counter(tally) for _, tally in ranked]
    names = _ordered(counters)
    return Chart(
        key, "hbars", title, tuple(host for host, _ in ranked),
        _series(names, lambda n, i: counters[i].get(n, 0), len(ranked)),
        x_label,
    )  # fmt: skip


def _host_note(figures: CrawlFigures) -> str:
    dropped = figures.hosts.dropped
    if not dropped:
        return ""
    return (
        f" The crawl has more hosts than the report keeps: {dropped} with few "
        "pages were let go along the way, so these counts may be low."
    )


def hosts_by_pages(figures: CrawlFigures) -> Section:
    """The hosts with the most crawldb records, by status."""
    title = f"The {TOP_HOSTS} hosts with the most pages"
    ranked = figures.hosts.top(TOP_HOSTS, lambda t: t.pages)
    if not ranked:
        return Section("hosts-pages", title, "No crawldb records.")
    chart = _host_chart(
        "hosts-pages", title, ranked, lambda t: t.pages_by_status, "URLs in the crawldb"
    )
    text = "Crawldb records per host, by status." + _host_note(figures)
    return Section(chart.key, title, text, chart)


def hosts_by_errors(figures: CrawlFigures) -> Section:
    """The hosts with the most failed fetches, by protocol status."""
    title = f"The {TOP_HOSTS} hosts with the most errors"
    ranked = figures.hosts.top(TOP_HOSTS, lambda t: t.errors)
    if not ranked:
        return Section("hosts-errors", title, "No fetch failed: no host had an error.")

    def errors(tally: HostTally) -> dict[str, int]:
        return {
            name: count
            for name, count in tally.fetch_statuses.items()
            if is_error(_code(name))
        }

    chart = _host_chart("hosts-errors", title, ranked, errors, "failed fetches")
    text = (
        "Fetches that brought neither a page, a redirect nor 'not modified', "
        "per host, by protocol status." + _host_note(figures)
    )
    return Section(chart.key, title, text, chart)


def _code(label: str) -> int:
    try:
        return int(ProtocolStatus[label])
    except KeyError:
        return 0


def host_fetch_status(figures: CrawlFigures) -> Section:
    """Fetch records by protocol status for the most fetched hosts."""
    title = "Fetch status by host"
    ranked = figures.hosts.top(TOP_HOSTS, lambda t: t.fetches)
    if not ranked:
        return Section("host-fetch-status", title, "No fetch records.")
    chart = _host_chart(
        "host-fetch-status", title, ranked, lambda t: t.fetch_statuses, "fetch records"
    )
    text = (
        f"The {TOP_HOSTS} most fetched hosts: their fetch records (all rounds) by "
        f"protocol status ({protocol_status_label(1)} is a page)." + _host_note(figures)
    )
    return Section(chart.key, title, text, chart)


def host_http_codes(figures: CrawlFigures) -> Section:
    """Fetch records by HTTP status code for the most fetched hosts."""
    title = "HTTP status code by host"
    ranked = figures.hosts.top(TOP_HOSTS, lambda t: t.fetches)
    if not ranked:
        return Section("host-http-codes", title, "No fetch records.")
    chart = _host_chart(
        "host-http-codes", title, ranked, lambda t: t.http_codes, "fetch records"
    )
    text = (
        "The same hosts' fetch records by the HTTP code of the response "
        "('none': no HTTP response, as for a refused connection or a robots.txt "
        "denial; 'not stored': store.http.headers was off)." + _host_note(figures)
    )
    return Section(chart.key, title, text, chart)


def depths(figures: CrawlFigures) -> Section:
    """Crawldb records by link distance from the seeds."""
    title = "Depth: link distance from the seeds"
    counts = figures.crawldb.depths
    if not counts:
        return Section("depth", title, "No crawldb records.")
    known = sorted(int(d) for d in counts if d != UNKNOWN_DEPTH)
    labels = [str(d) for d in known] + (
        [UNKNOWN_DEPTH] if UNKNOWN_DEPTH in counts else []
    )
    chart = Chart(
        "depth", "bars", title, tuple(labels),
        (Series("URLs", tuple(float(counts[label]) for label in labels)),),
        "links from a seed", "URLs in the crawldb",
    )  # fmt: skip
    text = (
        "Crawldb records by their 'dist' marker: 0 for a seed, one more than "
        "the nearest page linking to it for the others."
    )
    if UNKNOWN_DEPTH in counts:
        text += " 'unknown': records without the marker (made before it was kept)."
    return Section(chart.key, title, text, chart)


def score_bins(
    values: Mapping[float, int], bins: int = SCORE_BINS
) -> tuple[list[tuple[float, float, int]], bool]:
    """(low, high, count) of ``bins`` bins from the least to the greatest value.

    The bins are equal on a log scale (the second value: True) when every
    value is positive and the greatest is at least :data:`LOG_RATIO` times
    the least, as OPIC scores are (a seed has 1, a page deep down 10^-5);
    else they are equal in width.
    """
    if not values:
        return [], False
    low, high = min(values), max(values)
    if high == low:
        return [(low, high, sum(values.values()))], False
    log = low > 0 and high / low >= LOG_RATIO
    scale = math.log10 if log else float
    start, width = scale(low), (scale(high) - scale(low)) / bins
    counts = [0] * bins
    for value, count in values.items():
        counts[min(int((scale(value) - start) / width), bins - 1)] += count
    edges = [start + i * width for i in range(bins + 1)]
    if log:
        edges = [10**edge for edge in edges]
    edges[0], edges[-1] = low, high
    return [(edges[i], edges[i + 1], counts[i]) for i in range(bins)], log


def scores(figures: CrawlFigures) -> Section:
    """A histogram of the crawldb's scores."""
    title = "Score distribution"
    values = figures.crawldb.scores
    binned, log = score_bins(values.counts)
    if not binned:
        return Section("score", title, "No crawldb records with a score.")
    chart = Chart(
        "score", "bars", title,
        tuple(f"{low:.3g}\u2013{high:.3g}" for low, high, _ in binned),
        (Series("URLs", tuple(float(count) for _, _, count in binned)),),
        "score", "URLs in the crawldb",
    )  # fmt: skip
    scale = "on a log scale (the scores span decades)" if log else "in width"
    text = f"Crawldb records by score, in {len(binned)} bins equal {scale}."
    if values.nan:
        text += f" {values.nan} records have no finite score (NaN) and are not shown."
    if not values.exact:
        text += " Scores were rounded to bound memory: bins are approximate."
    return Section(chart.key, title, text, chart)
