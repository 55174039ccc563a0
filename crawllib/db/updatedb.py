"""UpdateDb for one URL: Nutch 1.x CrawlDbReducer's state transitions on 2.x records.

For each URL updatedb brings together the crawldb record (``old``), the
segment's record of its fetch (``fetched``: the parse record when there is
one, else the fetch record) and the links pointing at it (``inlinks``, with
their OPIC shares). :func:`update_page` returns the new crawldb record, or
None when the URL leaves the crawldb. :func:`links_from` turns a segment
record into its outgoing links and takes its OPIC cash away.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from crawllib.config import UpdateConfig
from crawllib.db.generate import GENERATE_TIME_KEY, PARTITION_MARKER
from crawllib.db.schedule import (
    Modified,
    force_refetch,
    initialize,
    set_fetch_schedule,
    set_page_gone_schedule,
    set_page_retry_schedule,
)
from crawllib.db.scoring import distribute_to_outlinks, initial_score, update_score
from crawllib.fetch.records import REDIRECT_DISCOVERED, TRUNCATED, WIRE_METADATA
from crawllib.status import DISTANCE_MARKER, CrawlStatus, Mark, ParseMajor
from crawllib.urls.cleaner import UrlCleaner
from crawllib.urls.zone import (
    FOUND_ZONE_KEY,
    ZONE_KEY,
    Zone,
    found_zone,
    with_zone,
    zone_of,
)
from crawllib.webpage import WebPage, new_page

_SEGMENT_MARKS = (Mark.GENERATE.value, Mark.FETCH.value, PARTITION_MARKER)
_SEGMENT_METADATA = (
    GENERATE_TIME_KEY,
    REDIRECT_DISCOVERED,
    TRUNCATED,
    FOUND_ZONE_KEY,
    *WIRE_METADATA,
)
_NO_DISTANCE = 2**31 - 1


class Inlink(NamedTuple):
    """A link to a URL from a page of the segments, with its OPIC share.

    ``zone`` is the zone the link gives its target (:mod:`crawllib.urls.zone`):
    the class of the address the linking page came from, as a number.
    A NamedTuple rather than a dataclass: pipelines ship millions of these
    as plain tuples, which Beam encodes several times faster.
    """

    source: str
    anchor: str
    score: float
    distance: int
    zone: int = Zone.PUBLIC


def links_from(
    record: WebPage, config: UpdateConfig
) -> tuple[WebPage, list[tuple[str, Inlink]]]:
    """A segment record's outlinks as (target, Inlink), and the record after.

    Every outlink is a link, cash or not. OPIC (2.x DbUpdateMapper): the
    page's cash is shared over its outlinks (internal and external factors),
    and its own cash becomes 0. Each link carries the zone of the address
    the page came from.
    """
    targets = list(record["outlinks"])
    distributed, shares = distribute_to_outlinks(
        record, targets, len(targets), config.scoring
    )
    scores = dict(shares)
    distance = _distance(record)
    source = record["url"]
    zone = int(found_zone(record))
    links = [
        (
            target,
            Inlink(source, anchor or "", scores.get(target, 0.0), distance, zone),
        )
        for target, anchor in record["outlinks"].items()
    ]
    return distributed, links


def choose_record(records: Iterable[WebPage]) -> WebPage | None:
    """Of one URL's segment records, the latest fetch; its parse record if any.

    Ties are broken by the whole record, so every runner picks the same one.
    """
    group = list(records)
    if not group:
        return None
    best = max(_rank(record) for record in group)
    tied = [record for record in group if _rank(record) == best]
    if len(tied) == 1:
        return tied[0]
    return max(tied, key=lambda record: repr(sorted(record.items())))


class ChosenRecord(NamedTuple):
    """A URL's chosen segment record and the links out of it, normalized."""

    record: WebPage
    links: list[tuple[str, Inlink]]
    """``(target as the cleaner gives it, inlink)``."""
    rejected: int
    """Targets the cleaner rejected."""


def link_cleaner(config: UpdateConfig) -> UrlCleaner:
    """The normalizers and filters updatedb puts new link targets through."""
    return UrlCleaner(
        config.urls,
        "crawldb",
        normalize=config.normalize,
        filter_urls=config.filter_urls,
    )


def choose_and_link(
    records: Iterable[WebPage], config: UpdateConfig, cleaner: UrlCleaner
) -> ChosenRecord | None:
    """One URL's segment records chosen from and linked out of; None if none.

    :func:`choose_record`, then :func:`links_from`, each target cleaned by
    ``cleaner`` (:func:`link_cleaner`).
    """
    record = choose_record(records)
    if record is None:
        return None
    record, links = links_from(record, config)
    kept = []
    for target, inlink in links:
        cleaned = cleaner.clean(target)
        if isinstance(cleaned, str):
            kept.append((cleaned, inlink))
    return ChosenRecord(record, kept, len(links) - len(kept))


def _rank(record: WebPage) -> tuple[int, bool]:
    return record["fetchTime"], record["parseStatus"] is not None


def update_page(
    url: str,
    old: WebPage | None,
    fetched: WebPage | None,
    inlinks: Sequence[Inlink],
    config: UpdateConfig,
    now_ms: int,
) -> WebPage | None:
    """The new crawldb record of ``url`` (1.x CrawlDbReducer), or None to drop it.

    Only old: unchanged (GONE records dropped with ``db.update.purge.404``).
    Only links: an existing record keeps its state and gains score and
    inlinks; a new URL enters UNFETCHED with score 0 (if additions are
    allowed). A fetch: the transition of its status (see
    :func:`_after_fetch`). Then OPIC adds the inlinks' shares to the score,
    the inlinks and link distance are recorded, the URL takes the innermost
    zone its links give it (beamcrawl, :mod:`crawllib.urls.zone`), and the
    segment's marks are cleared (2.x DbUpdateReducer: the parse mark becomes
    the updatedb mark).
    """
    if old is not None and config.purge_404 and old["status"] == CrawlStatus.GONE:
        old = None  # CrawlDbFilter drops it before the reducer sees it
    if fetched is None and not inlinks:
        return old
    if fetched is not None:
        page = _after_fetch(old, fetched, config, now_ms)
    elif old is not None:
        page = old
    elif not config.additions_allowed:
        return None
    else:
        page = initialize(
            initial_score(new_page(url, status=int(CrawlStatus.UNFETCHED))),
            now_ms,
            config.schedule,
        )
    return _finish(page, inlinks, config)


def _after_fetch(
    old: WebPage | None, fetched: WebPage, config: UpdateConfig, now_ms: int
) -> WebPage:
    """The state transition for a fetched URL (TestCrawlDbStates' matrix)."""
    page = _merged(old, fetched)
    status = fetched["status"]
    schedule = config.schedule
    old_signature = old["signature"] if old is not None else None
    old_modified = old["modifiedTime"] if old is not None else 0
    if status in (CrawlStatus.FETCHED, CrawlStatus.NOTMODIFIED):
        state = (
            _modified(old_signature, fetched)
            if status == CrawlStatus.FETCHED
            else Modified.NOTMODIFIED
        )
        page = _schedule_fetched(page, fetched, old_modified, state, config)
        if state is Modified.NOTMODIFIED:  # 1.x: the last real change stays
            unchanged = {"signature": old_signature, "modifiedTime": old_modified}
            page = {**page, **unchanged, "status": int(CrawlStatus.NOTMODIFIED)}  # type: ignore[typeddict-item]
    elif status in (CrawlStatus.REDIR_TEMP, CrawlStatus.REDIR_PERM):
        page = _schedule_fetched(page, fetched, old_modified, Modified.UNKNOWN, config)
    elif status == CrawlStatus.RETRY:
        page = set_page_retry_schedule(page, fetched["fetchTime"], schedule)
        if page["retriesSinceFetch"] < config.retry_max:
            page = {**page, "status": int(CrawlStatus.UNFETCHED)}
        else:
            page = {**page, "status": int(CrawlStatus.GONE)}
            page = set_page_gone_schedule(page, fetched["fetchTime"], schedule)
    elif status == CrawlStatus.GONE:
        page = set_page_gone_schedule(page, fetched["fetchTime"], schedule)
    else:  # generated but not fetched: nothing to learn
        return old if old is not None else page
    return page


def _merged(old: WebPage | None, fetched: WebPage) -> WebPage:
    """The fetched record over the old one: old metadata under the new."""
    if old is None:
        return {**fetched}
    return {
        **fetched,
        "metadata": {**old["metadata"], **fetched["metadata"]},
        "inlinks": old["inlinks"],
        "modifiedTime": fetched["modifiedTime"] or old["modifiedTime"],
    }


def _modified(old_signature: bytes | None, fetched: WebPage) -> Modified:
    """MODIFIED or NOTMODIFIED by signature, when this fetch was parsed."""
    parse = fetched["parseStatus"]
    new_signature = fetched["signature"]
    if (
        parse is None
        or parse["majorCode"] != ParseMajor.SUCCESS
        or old_signature is None
        or new_signature is None
    ):
        return Modified.UNKNOWN
    return Modified.NOTMODIFIED if new_signature == old_signature else Modified.MODIFIED


def _schedule_fetched(
    page: WebPage,
    fetched: WebPage,
    old_modified: int,
    state: Modified,
    config: UpdateConfig,
) -> WebPage:
    page = set_fetch_schedule(
        page,
        fetched["prevFetchTime"],
        old_modified,
        fetched["fetchTime"],
        page["modifiedTime"],
        state,
        config.schedule,
    )
    if page["fetchInterval"] > config.schedule.max_interval_s:
        page = force_refetch(page, fetched["fetchTime"], False, config.schedule)
    return page


def _finish(page: WebPage, inlinks: Sequence[Inlink], config: UpdateConfig) -> WebPage:
    """OPIC score, inlinks, distance, zone; segment marks and bulky fields cleared."""
    if inlinks:
        zone = Zone(max(link.zone for link in inlinks))
        if zone > zone_of(page) or ZONE_KEY not in page["metadata"]:
            page = with_zone(page, max(zone, zone_of(page)))
        page = update_score(page, (link.score for link in inlinks))
        best = sorted(inlinks, key=lambda link: (-link.score, link.source, link.anchor))
        kept = {link.source: link.anchor for link in best[: config.max_inlinks]}
        page = {**page, "inlinks": dict(kept)}
        nearest = min(link.distance for link in inlinks)
        if nearest < _NO_DISTANCE and nearest + 1 < _distance(page):
            page = {
                **page,
                "markers": {**page["markers"], DISTANCE_MARKER: str(nearest + 1)},
            }
    markers = {k: v for k, v in page["markers"].items() if k not in _SEGMENT_MARKS}
    parse_mark = markers.pop(Mark.PARSE.value, None)
    if parse_mark is not None:
        markers[Mark.UPDATEDB.value] = parse_mark
    metadata = {k: v for k, v in page["metadata"].items() if k not in _SEGMENT_METADATA}
    return {
        **page,
        "markers": markers,
        "metadata": metadata,
        "content": None,
        "text": None,
        "outlinks": {},
    }


def _distance(page: WebPage) -> int:
    raw = page["markers"].get(DISTANCE_MARKER)
    try:
        return int(raw) if raw else _NO_DISTANCE
    except ValueError:
        return _NO_DISTANCE
