"""The report's charts, each built from :class:`~crawllib.report.figures.CrawlFigures`.

One function per chart (the host charts are in
:mod:`~crawllib.report.hostcharts`); each returns a
:class:`~crawllib.report.section.Section`: the chart (or none, when the crawl
directory lacks what it needs) and a sentence on what it shows or why it is
missing. ``docs/report.md`` describes every chart.
"""

from __future__ import annotations

import collections
import math
import time
from collections.abc import Mapping, Sequence

from crawllib.report.figures import (
    UNKNOWN_DEPTH,
    CrawlFigures,
    RoundFacts,
    SegmentFigures,
)
from crawllib.report.hostcharts import (
    host_fetch_status,
    host_http_codes,
    hosts_by_errors,
    hosts_by_pages,
)
from crawllib.report.section import Section, ordered, series_of
from crawllib.report.svg import Chart, Series

SCORE_BINS = 20
"""Bins of the score histogram."""
LOG_RATIO = 100.0
"""Scores whose greatest is this many times their least get log-scale bins."""
TIMELINE_POINTS = 60
"""Points of the fetch-rate line, at most."""


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
    names = ordered(counters)
    chart = Chart(
        "status-by-round", "bars", title, categories,
        series_of(names, lambda n, i: counters[i].get(n, 0), len(categories)),
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
    names = ordered(counters)
    chart = Chart(
        "fetch-by-segment", "bars", title,
        tuple(_segment_label(figures, s) for s in fetched),
        series_of(names, lambda n, i: counters[i].get(n, 0), len(fetched)),
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
    names = ordered(counters)
    chart = Chart(
        "parse-by-segment", "bars", title,
        tuple(_segment_label(figures, s) for s in parsed),
        series_of(names, lambda n, i: counters[i].get(n, 0), len(parsed)),
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
