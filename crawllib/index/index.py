"""Which pages go into a search index, and their fields (Nutch 1.x IndexingJob).

:func:`decide` is ``IndexerMapReduce.IndexerReducer.reduce`` for one URL: the
crawldb record, the URL's latest fetch in the segments (its ``parse/``
record) and its linkdb inlinks in, one :class:`Verdict` out: an add (a
:class:`IndexDocument`), a delete by id, or a skip, each with the
``IndexerStatus`` counter Nutch counts it under. The document's fields are
index-basic's (``id``, ``url``, ``orig``, ``title``, ``content``, ``host``,
``site``, ``tstamp``), the indexer's (``digest``, ``boost``), index-anchor's
(``anchor``) and index-more's ``contentType``.

Where beamcrawl departs from Nutch (docs/nutch-departures.md, "Index and search"):

- a page dedup marked ``db_duplicate`` is never added; Nutch adds it unless
  ``-deleteGone`` deletes it;
- a meta-robots ``noindex`` page is never added; Nutch adds it with empty
  title and content unless ``indexer.delete.robots.noindex`` deletes it;
- a meta refresh counts as a redirect: beamcrawl's parse keeps no text for
  it, where Nutch 1.x indexes the page's text.
"""

from __future__ import annotations

import enum
import math
import re
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from crawllib.config import IndexConfig
from crawllib.parse.parse import ROBOTS_META
from crawllib.status import CrawlStatus, ParseMajor, ParseMinor
from crawllib.webpage import WebPage

_REDIRECTS = frozenset({CrawlStatus.REDIR_PERM, CrawlStatus.REDIR_TEMP})
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class Outcome(enum.Enum):
    """What happened to a URL; the value is Nutch's ``IndexerStatus`` counter."""

    INDEXED = "indexed (add/update)"
    DELETED_GONE = "deleted (gone)"
    DELETED_REDIRECTS = "deleted (redirects)"
    DELETED_DUPLICATES = "deleted (duplicates)"
    DELETED_NOINDEX = "deleted (robots=noindex)"
    SKIPPED_NOT_MODIFIED = "skipped (not modified)"
    # beamcrawl's: Nutch passes these over without a counter
    SKIPPED_NOT_IN_SEGMENTS = "skipped (not in segments)"
    SKIPPED_NOT_FETCHED = "skipped (fetch not successful)"
    SKIPPED_NOT_PARSED = "skipped (parse not successful)"
    SKIPPED_REDIRECTS = "skipped (redirects)"
    SKIPPED_DUPLICATES = "skipped (duplicates)"
    SKIPPED_NOINDEX = "skipped (robots=noindex)"

    @property
    def deletes(self) -> bool:
        """Whether the outcome removes the URL's document from the index."""
        return self.name.startswith("DELETED")


@dataclass(frozen=True, slots=True)
class IndexDocument:
    """One document, Nutch's NutchDocument with the basic and anchor fields.

    ``title``, ``digest``, ``content_type`` and ``orig`` are None where Nutch
    adds no such field; ``tstamp_ms`` is the fetch time.
    """

    id: str
    url: str
    content: str
    host: str
    tstamp_ms: int
    boost: float
    title: str | None = None
    digest: str | None = None
    content_type: str | None = None
    orig: str | None = None
    anchor: tuple[str, ...] = ()

    @property
    def site(self) -> str:
        """index-basic's un-tokenized ``site``: the host (Nutch 2.x and older 1.x)."""
        return self.host


@dataclass(frozen=True, slots=True)
class Verdict:
    """The outcome for one URL: an add carries its document."""

    url: str
    outcome: Outcome
    document: IndexDocument | None = None


def latest_fetch(records: Iterable[WebPage]) -> WebPage | None:
    """The URL's latest fetch among the segments' records (by ``fetchTime``).

    NOTMODIFIED fetches are left out, as IndexerReducer drops the fetch
    datum of an unmodified (empty) page.
    """
    fetches = [r for r in records if r["status"] != CrawlStatus.NOTMODIFIED]
    return max(fetches, key=lambda r: r["fetchTime"], default=None)


def decide(
    url: str,
    db: WebPage | None,
    fetched: WebPage | None,
    inlinks: Mapping[str, str | None],
    config: IndexConfig,
) -> Verdict:
    """IndexerReducer's checks, in its order, for one URL.

    ``db`` and ``fetched`` are the crawldb and the latest segment record (or
    None); ``inlinks`` the linkdb's source URL -> anchor.
    """
    if fetched is None:
        return Verdict(url, Outcome.SKIPPED_NOT_IN_SEGMENTS)
    noindex = _noindex(fetched)
    if noindex and config.delete_robots_noindex:
        return Verdict(url, Outcome.DELETED_NOINDEX)
    outcome = _unwanted(db, fetched, config)
    if outcome is not None:
        return Verdict(url, outcome)
    if noindex:
        return Verdict(url, Outcome.SKIPPED_NOINDEX)
    document = build_document(url, db, fetched, inlinks, config)
    return Verdict(url, Outcome.INDEXED, document)


def _unwanted(
    db: WebPage | None, fetched: WebPage, config: IndexConfig
) -> Outcome | None:
    """Gone, redirected, duplicate, unmodified or unsuccessful: not added."""
    db_status = db["status"] if db is not None else None
    refresh = _is_refresh(fetched)
    if config.delete:
        if CrawlStatus.GONE in (fetched["status"], db_status):
            return Outcome.DELETED_GONE
        if refresh or {fetched["status"], db_status} & _REDIRECTS:
            return Outcome.DELETED_REDIRECTS
    if db_status == CrawlStatus.DUPLICATE:
        if config.delete:
            return Outcome.DELETED_DUPLICATES
        return Outcome.SKIPPED_DUPLICATES
    if config.skip_not_modified and db_status == CrawlStatus.NOTMODIFIED:
        return Outcome.SKIPPED_NOT_MODIFIED
    if fetched["status"] != CrawlStatus.FETCHED:
        return Outcome.SKIPPED_NOT_FETCHED
    if refresh:
        return Outcome.SKIPPED_REDIRECTS
    parse = fetched["parseStatus"]
    if parse is None or parse["majorCode"] != ParseMajor.SUCCESS:
        return Outcome.SKIPPED_NOT_PARSED
    return None


def _is_refresh(page: WebPage) -> bool:
    parse = page["parseStatus"]
    return (
        parse is not None
        and parse["majorCode"] == ParseMajor.SUCCESS
        and parse["minorCode"] == ParseMinor.REDIRECT
    )


def _noindex(page: WebPage) -> bool:
    """Meta robots said noindex (the parse's ``robots`` metadata)."""
    value = page["metadata"].get(ROBOTS_META)
    return value is not None and b"noindex" in value.lower()


def build_document(
    url: str,
    db: WebPage | None,
    fetched: WebPage,
    inlinks: Mapping[str, str | None],
    config: IndexConfig,
) -> IndexDocument:
    """The document's fields, as index-basic, index-anchor and the indexer set them."""
    repr_url = db["reprUrl"] if db is not None else fetched["reprUrl"]
    shown = repr_url or url
    signature = fetched["signature"]
    return IndexDocument(
        id=url,
        url=shown,
        orig=url if repr_url else None,
        host=urlsplit(shown).hostname or "",
        content=clean_field(_cut(fetched["text"] or "", config.max_content_length)),
        title=clean_field(_cut(fetched["title"] or "", config.max_title_length))
        or None,
        tstamp_ms=fetched["fetchTime"],
        digest=signature.hex() if signature else None,
        boost=index_boost(db, config),
        content_type=fetched["contentType"] or None,
        anchor=anchors(inlinks, config.deduplicate_anchors) if config.anchors else (),
    )


def _cut(text: str, limit: int) -> str:
    return text[:limit] if limit > -1 else text


def clean_field(text: str) -> str:
    """Nutch's ``StringUtil.cleanField``: drop characters XML 1.0 forbids."""
    return _NOT_XML.sub("", text)


def index_boost(db: WebPage | None, config: IndexConfig) -> float:
    """scoring-opic's indexerScore: ``score ^ indexer.score.power`` as a Java float.

    1.0 without a crawldb record or without scoring-opic. A negative score
    (NaN in Nutch) gives 0.
    """
    if db is None or not config.opic_boost:
        return 1.0
    boost = math.pow(max(db["score"], 0.0), config.score_power)
    return float(struct.unpack("f", struct.pack("f", boost))[0])


def anchors(inlinks: Mapping[str, str | None], deduplicate: bool) -> tuple[str, ...]:
    """index-anchor over 1.x ``Inlinks.getAnchors``: one anchor text per host.

    Empty anchors are skipped; the same text from two pages of one host
    counts once; ``anchorIndexingFilter.deduplicate`` also drops texts
    equal but for case. Inlinks are taken in source URL order.
    """
    seen_by_host: dict[str | None, set[str]] = {}
    seen_lower: set[str] = set()
    found: list[str] = []
    for source in sorted(inlinks):
        anchor = inlinks[source] or ""
        if not anchor:
            continue
        seen = seen_by_host.setdefault(_host(source), set())
        if anchor in seen:
            continue
        seen.add(anchor)
        if deduplicate:
            if anchor.lower() in seen_lower:
                continue
            seen_lower.add(anchor.lower())
        found.append(anchor)
    return tuple(found)


def _host(url: str) -> str | None:
    try:
        return urlsplit(url).hostname
    except ValueError:
        return None
