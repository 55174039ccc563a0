"""A crawl's figures, counted record by record in bounded memory.

The command streams the crawldb's records through :meth:`CrawlFigures.add_crawldb_page`
and each segment's through :meth:`CrawlFigures.add_segment_page`; nothing is
kept per URL. What grows with the crawl is capped: hosts
(:class:`~crawllib.report.hosts.HostTable`), distinct scores
(:class:`ScoreValues`) and the fetch timeline (:class:`FetchTimeline`).
"""

from __future__ import annotations

import collections
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from crawllib.fetch.records import RESPONSE_HEADERS, RESPONSE_TIME
from crawllib.report.hosts import HostTable, host_of
from crawllib.status import (
    DISTANCE_MARKER,
    ParseMajor,
    ParseMinor,
    ProtocolStatus,
    crawl_status_label,
    protocol_status_label,
)
from crawllib.webpage import WebPage

GENERATE, FETCH, PARSE = "generate", "fetch", "parse"
"""The segment parts, as named on disk."""

NOT_ERRORS = frozenset(
    {
        ProtocolStatus.SUCCESS,
        ProtocolStatus.MOVED,
        ProtocolStatus.TEMP_MOVED,
        ProtocolStatus.NOTMODIFIED,
    }
)
"""Protocol statuses that are not errors: a page, a redirect or 'not modified'."""

NO_RESPONSE = "none"
"""HTTP code label of a fetch that got no HTTP response (refused, robots, file:)."""
NOT_STORED = "not stored"
"""HTTP code label of a response whose status line was not kept (store.http.headers)."""
UNKNOWN_DEPTH = "unknown"
"""Depth label of a record without a readable ``dist`` marker."""


def is_error(code: int) -> bool:
    """Whether a fetch with protocol status ``code`` brought no page nor redirect."""
    return code not in NOT_ERRORS


def http_code(page: WebPage) -> str:
    """The HTTP status code of a fetch record, from its ``_response.headers_``."""
    head = page["metadata"].get(RESPONSE_HEADERS)
    if head:
        status_line = head.split(b"\r\n", 1)[0].split(b" ")
        if len(status_line) > 1 and status_line[1].isdigit():
            return status_line[1].decode("ascii")
    if page["metadata"].get(RESPONSE_TIME):  # written only for an HTTP response
        return NOT_STORED
    return NO_RESPONSE


def parse_label(page: WebPage) -> str:
    """``success``, ``failed/exception`` ...: a parse record's status by name."""
    status = page["parseStatus"]
    if status is None:
        return ParseMajor.NOTPARSED.label
    try:
        major = ParseMajor(status["majorCode"]).label
    except ValueError:
        major = f"major_{status['majorCode']}"
    if status["minorCode"] == ParseMinor.OK:
        return major
    try:
        minor = ParseMinor(status["minorCode"]).label
    except ValueError:
        minor = f"minor_{status['minorCode']}"
    return f"{major}/{minor}"


def depth_label(page: WebPage) -> str:
    """The page's link distance from the seeds (``markers['dist']``) as text."""
    raw = page["markers"].get(DISTANCE_MARKER)
    if raw is None or not raw.strip().isdigit():
        return UNKNOWN_DEPTH
    return str(int(raw))


class ScoreValues:
    """Scores and how often each occurs; rounded once ``capacity`` distinct ones.

    While there are at most ``capacity`` distinct scores each is kept as it
    is. Past that, scores are rounded to a multiple of a step, a
    ``capacity / 2``-th of their range, doubled as often as needed.
    """

    def __init__(self, capacity: int = 4096) -> None:
        self._capacity = max(2, capacity)
        self._step = 0.0  # 0: exact
        self.counts: collections.Counter[float] = collections.Counter()
        self.nan = 0
        """Scores left out: NaN or infinite."""

    @property
    def exact(self) -> bool:
        """Whether every score is kept as it is (no rounding was needed)."""
        return self._step == 0.0

    def add(self, score: float) -> None:
        """Count one score (a NaN or infinite one apart)."""
        if not math.isfinite(score):
            self.nan += 1
            return
        self.counts[self._round(score)] += 1
        while len(self.counts) > self._capacity:
            span = max(self.counts) - min(self.counts)
            self._step = max(self._step * 2, span / (self._capacity // 2))
            coarse: collections.Counter[float] = collections.Counter()
            for value, count in self.counts.items():
                coarse[self._round(value)] += count
            self.counts = coarse

    def _round(self, value: float) -> float:
        return value if self.exact else round(value / self._step) * self._step


@dataclass(slots=True)
class FetchTimeline:
    """Fetches counted per time bucket; buckets double when there are too many."""

    capacity: int = 4096
    bucket_ms: int = 1000
    counts: collections.Counter[int] = field(default_factory=collections.Counter)
    """Fetches by bucket start (epoch ms)."""

    def add(self, time_ms: int) -> None:
        """Count one fetch that ended at ``time_ms``."""
        self.counts[time_ms - time_ms % self.bucket_ms] += 1
        while len(self.counts) > self.capacity:
            self.bucket_ms *= 2
            wider: collections.Counter[int] = collections.Counter()
            for start, count in self.counts.items():
                wider[start - start % self.bucket_ms] += count
            self.counts = wider


@dataclass(slots=True)
class SegmentFigures:
    """One segment's records by part: generated, fetched, parsed."""

    name: str
    parts: set[str] = field(default_factory=set)
    """The parts that had records to read."""
    generated: int = 0
    fetched: collections.Counter[str] = field(default_factory=collections.Counter)
    """Fetch records by protocol status label."""
    http_codes: collections.Counter[str] = field(default_factory=collections.Counter)
    parsed: collections.Counter[str] = field(default_factory=collections.Counter)
    """Parse records by :func:`parse_label`."""
    first_fetch_ms: int | None = None
    last_fetch_ms: int | None = None


@dataclass(slots=True)
class CrawlDbFigures:
    """The current crawldb: records by status, depth and score."""

    records: int = 0
    by_status: collections.Counter[str] = field(default_factory=collections.Counter)
    """Records by status label, as ``readdb --stats --json`` names them."""
    depths: collections.Counter[str] = field(default_factory=collections.Counter)
    """Records by :func:`depth_label`."""
    scores: ScoreValues = field(default_factory=ScoreValues)


class RoundFacts(Protocol):
    """What the report reads of a round record (``pipelines/storage/rounds.py``)."""

    @property
    def round(self) -> int: ...
    @property
    def segment(self) -> str: ...
    @property
    def started_ms(self) -> int: ...
    @property
    def ended_ms(self) -> int: ...
    @property
    def generated(self) -> int: ...
    @property
    def fetched(self) -> Mapping[str, int]: ...
    @property
    def unfetched(self) -> Mapping[str, int]: ...
    @property
    def new_urls(self) -> int: ...
    @property
    def crawldb(self) -> Mapping[str, int]: ...
    @property
    def counters(self) -> Mapping[str, int]: ...


@dataclass
class CrawlFigures:
    """Everything a report shows, filled as the records stream by."""

    crawldb: CrawlDbFigures = field(default_factory=CrawlDbFigures)
    segments: dict[str, SegmentFigures] = field(default_factory=dict)
    hosts: HostTable = field(default_factory=HostTable)
    timeline: FetchTimeline = field(default_factory=FetchTimeline)
    rounds: list[RoundFacts] = field(default_factory=list)
    has_crawldb: bool = False
    fetch_errors: int = 0
    """Fetch records with an error status (:func:`is_error`), all segments."""
    notes: list[str] = field(default_factory=list)
    """What could not be read, one sentence each (shown on the report)."""

    def add_crawldb_page(self, page: WebPage) -> None:
        """Count one record of the crawldb's current version."""
        db = self.crawldb
        status = crawl_status_label(page["status"])
        db.records += 1
        db.by_status[status] += 1
        db.depths[depth_label(page)] += 1
        db.scores.add(page["score"])
        tally = self.hosts.tally(host_of(page["url"]))
        tally.pages += 1
        tally.pages_by_status[status] += 1

    def segment(self, name: str) -> SegmentFigures:
        """The figures of segment ``name`` (its directory's base name)."""
        found = self.segments.get(name)
        if found is None:
            found = self.segments[name] = SegmentFigures(name)
        return found

    def add_segment_page(self, name: str, part: str, page: WebPage) -> None:
        """Count one record of segment ``name``'s ``part`` (generate, fetch, parse)."""
        segment = self.segment(name)
        segment.parts.add(part)
        if part == GENERATE:
            segment.generated += 1
        elif part == FETCH:
            self._add_fetch(segment, page)
        elif part == PARSE:
            segment.parsed[parse_label(page)] += 1

    def _add_fetch(self, segment: SegmentFigures, page: WebPage) -> None:
        protocol = page["protocolStatus"]
        code = protocol["code"] if protocol else 0
        status = protocol_status_label(code)
        http = http_code(page)
        segment.fetched[status] += 1
        segment.http_codes[http] += 1
        when = page["fetchTime"]
        self.timeline.add(when)
        first, last = segment.first_fetch_ms, segment.last_fetch_ms
        segment.first_fetch_ms = when if first is None else min(first, when)
        segment.last_fetch_ms = when if last is None else max(last, when)
        tally = self.hosts.tally(host_of(page["url"]))
        tally.fetches += 1
        tally.fetch_statuses[status] += 1
        tally.http_codes[http] += 1
        if is_error(code):
            tally.errors += 1
            self.fetch_errors += 1
