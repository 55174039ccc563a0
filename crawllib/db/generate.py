"""Generate's selection, Nutch 1.x ``Generator.Selector``: which URLs, in which segment.

The map side (:class:`Selector`) decides per crawldb record whether it may be
fetched and with what sort value. The reduce side (:class:`SegmentAssigner`)
walks the candidates from the highest sort value down and puts each in a
segment or skips it, exactly as ``SelectorReducer`` does, with ``--topN`` as
the limit per segment over all fetch lists. :func:`generated_page` makes the
fetch-list record.
"""

from __future__ import annotations

import enum
import math

from crawllib.config import GenerateConfig
from crawllib.db.schedule import should_fetch
from crawllib.db.scoring import generator_sort_value
from crawllib.status import DISTANCE_MARKER, Mark
from crawllib.urls.domain import domain_of, host_of
from crawllib.urls.filter import UrlFilters
from crawllib.urls.normalize import UrlNormalizers
from crawllib.webpage import WebPage

GENERATE_TIME_KEY = "_ngt_"
"""``metadata['_ngt_']``: when a generate last selected the page (1.x).

Written as the epoch milliseconds in decimal ASCII (Nutch 1.x keeps a
LongWritable); only reaches the crawldb with ``generate.update.crawldb``.
"""
PARTITION_MARKER = "_partition_"
"""``markers['_partition_']``: the fetch list (partition) of a generated page."""


class GenerateSkip(enum.Enum):
    """Why generate passed a URL over; the value is the ``Generator`` counter."""

    FILTERED = "URL_FILTERS_REJECTED"
    NOT_DUE = "SCHEDULE_REJECTED"
    WAIT_FOR_UPDATE = "WAIT_FOR_UPDATE"
    STATUS = "STATUS_REJECTED"
    SCORE_TOO_LOW = "SCORE_TOO_LOW"
    INTERVAL = "INTERVAL_REJECTED"
    DISTANCE = "DISTANCE_REJECTED"
    MALFORMED = "MALFORMED_URL"


class Selector:
    """The map side of 1.x ``Generator.Selector``, in Nutch's order of checks.

    Filter (``generate.filter``), fetch schedule, generate delay
    (``_ngt_`` + ``crawl.gen.delay``), status (``generate.restrict.status``),
    minimum score, minimum interval, then the 2.x ``generate.max.distance``.
    Build once per worker; :meth:`select` per record.
    """

    def __init__(self, config: GenerateConfig, cur_time_ms: int) -> None:
        self._config = config
        self._cur_time_ms = cur_time_ms
        self._filters = UrlFilters(config.urls) if config.filter_urls else None
        self._normalizers = (
            UrlNormalizers(config.urls, "generate_host_count")
            if config.normalize
            else None
        )

    def select(self, page: WebPage) -> float | GenerateSkip:
        """The page's sort value if it is to be generated, else why not."""
        config = self._config
        if self._filters is not None and self._filters.filter(page["url"]) is None:
            return GenerateSkip.FILTERED
        due, page = should_fetch(page, self._cur_time_ms, config.max_interval_s)
        if not due:
            return GenerateSkip.NOT_DUE
        generated_ms = generate_time(page)
        if generated_ms is not None and (
            generated_ms + config.gen_delay_ms > self._cur_time_ms
        ):
            return GenerateSkip.WAIT_FOR_UPDATE
        sort = generator_sort_value(page)
        if (
            config.restrict_status is not None
            and page["status"] != config.restrict_status
        ):
            return GenerateSkip.STATUS
        if config.min_score is not None and sort < config.min_score:
            return GenerateSkip.SCORE_TOO_LOW
        if (
            config.min_interval_s != -1
            and page["fetchInterval"] > config.min_interval_s
        ):
            return GenerateSkip.INTERVAL
        if config.max_distance > -1 and _distance(page) > config.max_distance:
            return GenerateSkip.DISTANCE
        return sort

    def count_key(self, url: str) -> str | None:
        """The host or domain ``generate.max.count`` counts, lowercased.

        The URL is normalized (scope ``generate_host_count``) only to find it;
        None when it is malformed.
        """
        if self._normalizers is not None:
            normalized = self._normalizers.normalize(url)
            if normalized is None:
                return None
            url = normalized
        key = domain_of(url) if self._config.count_by_domain else host_of(url)
        return key or None


def generate_time(page: WebPage) -> int | None:
    """The page's ``_ngt_`` (last generate time, ms), if it has a readable one."""
    raw = page["metadata"].get(GENERATE_TIME_KEY)
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        return None


def _distance(page: WebPage) -> int:
    """The ``dist`` marker; a page without a readable one passes (as 2.x)."""
    raw = page["markers"].get(DISTANCE_MARKER)
    try:
        return int(raw) if raw else 0
    except ValueError:
        return 0


def rank_key(sort: float, url: str) -> tuple[float, str]:
    """Candidates in Nutch's order: highest sort value first, then by URL.

    Nutch leaves equal sort values in no defined order; beamcrawl breaks ties
    by URL (as 2.x does), so every run selects the same URLs.
    """
    return (-sort, url)


def host_cap(max_count: int, max_num_segments: int) -> int | None:
    """How many of one host's best candidates can possibly be generated.

    In :class:`SegmentAssigner` a host puts at most ``max_count + 1`` URLs in
    one segment (a segment filled by topN moves it on with its counter at 0),
    and once it skips one URL it skips all later ones; so candidates ranked
    past this cap are skipped anyway and may be dropped early. None = no cap.
    """
    return (max_count + 1) * max_num_segments if max_count > 0 else None


class SegmentAssigner:
    """The reduce side of 1.x ``Generator.SelectorReducer``, one reducer wide.

    Feed candidates in :func:`rank_key` order to :meth:`assign`. ``limit`` is
    ``--topN`` (None = unlimited); Nutch divides it over its reducers,
    beamcrawl applies it to the whole segment.
    """

    def __init__(
        self, limit: int | None, max_count: int, max_num_segments: int
    ) -> None:
        self._limit = math.inf if limit is None else limit
        self._max_count = max_count
        self._max_segments = max_num_segments
        self._count = 0
        self._segment = 1
        self._segment_counts = [0] * max_num_segments
        self._hosts: dict[str, list[int]] = {}
        self.done = False
        """The last segment is full: no later candidate can be placed."""
        self.skipped = 0
        """Candidates skipped because their host was over its limit."""
        self.overflowed: set[str] = set()
        """Hosts (domains) that had a candidate skipped."""

    def assign(self, key: str) -> int | None:
        """The segment (1-based) for the next candidate, of host/domain ``key``.

        None when it is skipped (host overflow) or the segments are full.
        """
        if self._count == self._limit:
            if self._segment >= self._max_segments:
                self.done = True
                return None
            self._count = 0
            self._segment += 1
        if self._max_count > 0:
            segment = self._host_segment(key)
            if segment is None:
                return None
        else:
            segment = self._segment
        self._segment_counts[segment - 1] += 1
        self._count += 1
        return segment

    def _host_segment(self, key: str) -> int | None:
        pair = self._hosts.setdefault(key, [1, 0])
        pair[1] += 1
        while (
            self._segment_counts[pair[0] - 1] >= self._limit
            and pair[0] < self._max_segments
        ):
            pair[0] += 1
            pair[1] = 0
        if pair[1] > self._max_count:
            if pair[0] < self._max_segments:
                pair[0] += 1
                pair[1] = 1
            else:
                self.overflowed.add(key)
                self.skipped += 1
                return None
        return pair[0]


def generated_page(
    page: WebPage,
    config: GenerateConfig,
    cur_time_ms: int,
    generate_time_ms: int,
    batch_id: str,
    partition: int,
) -> WebPage:
    """The fetch-list record of a selected page.

    As the Selector writes it: the schedule's adjustment of an overdue page,
    ``_ngt_`` = this generate's time, the generate mark and ``batchId`` (the
    segment name), and the page's fetch list in ``markers['_partition_']``.
    """
    _, page = should_fetch(page, cur_time_ms, config.max_interval_s)
    return {
        **page,
        "metadata": {
            **page["metadata"],
            GENERATE_TIME_KEY: str(generate_time_ms).encode(),
        },
        "markers": {
            **page["markers"],
            Mark.GENERATE.value: batch_id,
            PARTITION_MARKER: str(partition),
        },
        "batchId": batch_id,
    }


def with_generate_time(page: WebPage, generate_time_ms: int) -> WebPage:
    """The crawldb record of a selected page with ``generate.update.crawldb``."""
    return {
        **page,
        "metadata": {
            **page["metadata"],
            GENERATE_TIME_KEY: str(generate_time_ms).encode(),
        },
    }
