"""Seed lines to WebPages, and merging them into a crawldb: Nutch's Injector.

A seed line is ``url[<TAB>key=value...]`` (1.x ``Injector.InjectMapper``):
trimmed; empty and ``#`` lines skipped; each field split at its first ``=``,
fields without one ignored. ``nutch.score`` and ``nutch.fetchInterval``
(``nutch.fetchInterval.fixed`` too) set the page's score and interval; every
other key goes to ``metadata`` as UTF-8 bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from crawllib.config import InjectConfig
from crawllib.db.scoring import injected_score
from crawllib.javanum import f32
from crawllib.status import DISTANCE_MARKER, CrawlStatus, Mark
from crawllib.urls.zone import OPERATOR, ZONE_KEY, with_zone, zone_of
from crawllib.webpage import WebPage, new_page

SCORE_KEY = "nutch.score"
INTERVAL_KEY = "nutch.fetchInterval"
FIXED_INTERVAL_KEY = "nutch.fetchInterval.fixed"
FIXED_INTERVAL_METADATA = "fixedInterval"


@dataclass(frozen=True, slots=True)
class Seed:
    """One parsed seed line.

    Attributes:
        url: the URL as written (not yet normalized).
        line: the trimmed line.
        score: ``nutch.score`` as a Java float, if given and finite.
        fetch_interval_s: ``nutch.fetchInterval`` (or ``.fixed``), if valid.
        fixed_interval: whether the interval came from ``nutch.fetchInterval.fixed``.
        metadata: the other ``key=value`` fields, in line order.
        invalid_fields: fields given with a value that is not a valid number.
    """

    url: str
    line: str
    score: float | None = None
    fetch_interval_s: int | None = None
    fixed_interval: bool = False
    metadata: tuple[tuple[str, str], ...] = ()
    invalid_fields: tuple[str, ...] = ()


def parse_seed_line(line: str) -> Seed | None:
    """Parse a seed line; None for blank and ``#`` comment lines.

    A bad number in ``nutch.score`` / ``nutch.fetchInterval`` does not reject
    the line: as in Nutch the field is ignored, and it is listed in
    ``invalid_fields`` so the job can count and report it.
    """
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    url, *fields = text.split("\t")
    score: float | None = None
    interval: int | None = None
    fixed = False
    metadata: list[tuple[str, str]] = []
    invalid: list[str] = []
    for field in fields:
        key, sep, value = field.partition("=")
        if not sep:
            continue
        if key == SCORE_KEY:
            score = _parse_score(value)
            if score is None:
                invalid.append(field)
        elif key in (INTERVAL_KEY, FIXED_INTERVAL_KEY):
            parsed = _parse_interval(value)
            if parsed is None:
                invalid.append(field)
            elif parsed >= 0:
                interval, fixed = parsed, key == FIXED_INTERVAL_KEY
        else:
            metadata.append((key, value))
    return Seed(
        url=url.strip(),
        line=text,
        score=score,
        fetch_interval_s=interval,
        fixed_interval=fixed,
        metadata=tuple(metadata),
        invalid_fields=tuple(invalid),
    )


def _parse_score(value: str) -> float | None:
    """A Java ``float`` (Float.parseFloat); None if no number or not finite as one.

    ``1e39`` is a finite double but overflows a float: Nutch would store
    Infinity, and the WebPage score (an Avro ``float``) could not hold it.
    """
    try:
        score = f32(float(value))
    except ValueError:
        return None
    return score if math.isfinite(score) else None


def _parse_interval(value: str) -> int | None:
    """Whole seconds in int32 range; negative values are valid but ignored."""
    try:
        interval = int(value.strip())
    except ValueError:
        return None
    return interval if -(2**31) <= interval < 2**31 else None


def seed_page(seed: Seed, url: str, config: InjectConfig, now_ms: int) -> WebPage:
    """The injected record: UNFETCHED, due now, ``dist`` 0 and the inject mark.

    OPIC (2.x) gives it its score as cash (``metadata['_csh_']``). A seed is
    the operator's: its zone is ``local`` (:mod:`crawllib.urls.zone`) unless its
    line sets ``_zone_``.

    ``url`` is the normalized URL (``seed.url`` as written may differ).
    """
    metadata: dict[str, bytes | None] = {
        key: value.encode("utf-8") for key, value in seed.metadata
    }
    if seed.fixed_interval and seed.fetch_interval_s is not None:
        metadata[FIXED_INTERVAL_METADATA] = str(float(seed.fetch_interval_s)).encode()
    metadata.setdefault(ZONE_KEY, OPERATOR.label.encode())
    page = new_page(
        url,
        status=int(CrawlStatus.UNFETCHED),
        fetchTime=now_ms,
        fetchInterval=(
            config.fetch_interval_s
            if seed.fetch_interval_s is None
            else seed.fetch_interval_s
        ),
        score=config.score_injected if seed.score is None else seed.score,
        metadata=metadata,
        markers={Mark.INJECT.value: "y", DISTANCE_MARKER: "0"},
    )
    return injected_score(page)


def merge_injected(
    injected: WebPage | None, existing: WebPage | None, config: InjectConfig
) -> WebPage | None:
    """Merge an injected page with the crawldb's record (1.x ``InjectReducer``).

    With ``db.update.purge.404`` a GONE existing page is dropped first (as
    Nutch's mapper does). Then: only injected, the injected page; only
    existing, the existing page; both, the injected page with
    ``db.injector.overwrite``, else the existing page, which with
    ``db.injector.update`` takes the injected metadata, and the injected
    score and interval where they differ from the defaults. beamcrawl: a
    kept existing record takes the seed's zone when that is more inward
    (the operator named the URL).
    """
    if existing is not None and is_purged(existing, config):
        existing = None
    if existing is None or injected is None:
        return injected if existing is None else existing
    if config.overwrite:
        return injected
    if not config.update:
        if zone_of(injected) > zone_of(existing):
            return with_zone(existing, zone_of(injected))
        return existing
    merged: WebPage = {**existing, "metadata": {**existing["metadata"]}}
    merged["metadata"].update(injected["metadata"])
    if injected["score"] != config.score_injected:
        merged["score"] = injected["score"]
    if injected["fetchInterval"] != config.fetch_interval_s:
        merged["fetchInterval"] = injected["fetchInterval"]
    return merged


def is_purged(page: WebPage, config: InjectConfig) -> bool:
    """Whether ``db.update.purge.404`` removes this crawldb record (it is GONE)."""
    return config.purge_404 and page["status"] == CrawlStatus.GONE
