"""Link inversion: Nutch 1.x ``LinkDb``, ``LinkDbMerger`` and ``LinkDbFilter``.

A parsed page's outlinks become inlinks of their targets
(:meth:`LinkInverter.invert`, the LinkDbMapper): the source must pass the
normalizers (scope ``linkdb``) and filters when they are on;
``linkdb.ignore.internal.links`` skips targets on the source's host, or
else ``linkdb.ignore.external.links`` targets on other hosts (hosts of the
URLs as found, read as ``java.net.URL`` does and lowercased; a target that
does not parse is skipped either way);
targets are normalized and filtered too, and anchors cut to
``linkdb.max.anchor.length``. Records of an existing linkdb are normalized
and filtered again when merged (:meth:`LinkInverter.recheck`, LinkDbFilter).

The inlinks of one target are merged by :class:`InlinkSet` (the
LinkDbMergeReducer), with two differences from Nutch that the record
forces or that make the result deterministic:

- ``WebPage.inlinks`` maps a source URL to one anchor, where Nutch keeps a
  set of (source, anchor) pairs. When a source has several anchors for one
  target, the anchor of the newest parse wins (the source page's
  ``fetchTime``; anything from the segments beats the existing linkdb),
  and among equally new ones the smallest anchor.
- Nutch stops adding at ``linkdb.max.inlinks`` in whatever order the
  shuffle delivers; beamcrawl keeps the smallest source URLs, so the same
  inputs give the same linkdb on every runner.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping

from crawllib.config import LinkDbConfig
from crawllib.config.properties import bad_value
from crawllib.status import CrawlStatus, ParseMajor
from crawllib.urls.cleaner import UrlCleaner
from crawllib.urls.javaurl import java_host
from crawllib.webpage import WebPage, new_page

Inlink = tuple[str, str, int]
"""One inlink of a target: (source URL, anchor, source's fetchTime in ms)."""

EXISTING_TIME_MS = -1
"""The time of inlinks read from an existing linkdb: older than any parse."""


class LinkSkip(enum.Enum):
    """Why a link did not make it into the linkdb; values are counter names."""

    SOURCE_REJECTED = "sources_rejected"
    """The source page's URL failed normalizing or filtering: all its links."""
    INTERNAL = "internal_links_ignored"
    """``linkdb.ignore.internal.links``: same host, or the target does not parse."""
    EXTERNAL = "external_links_ignored"
    """``linkdb.ignore.external.links``: another host, or the target does not parse."""
    TARGET_REJECTED = "targets_rejected"
    """The target URL failed normalizing or filtering."""
    EXISTING_REJECTED = "existing_inlinks_rejected"
    """An inlink of the existing linkdb whose target or source no longer passes."""


def check_config(config: LinkDbConfig) -> LinkDbConfig:
    """The config if usable (Nutch fails at run time on a negative anchor length).

    Raises:
        ConfigError: ``linkdb.max.anchor.length`` is negative.
    """
    if config.max_anchor_length < 0:
        raise bad_value(
            "linkdb.max.anchor.length", str(config.max_anchor_length), "an int >= 0"
        )
    return config


def is_link_source(page: WebPage) -> bool:
    """Whether a segment's ``parse/`` record gives links: parsed successfully here.

    Nutch inverts ``parse_data``, which holds only what the parser found.
    Records of pages not fetched successfully (redirects, gone ...) carry
    the fetcher's redirect target or an older parse's outlinks instead.
    """
    status = page["parseStatus"]
    return (
        page["status"] == CrawlStatus.FETCHED
        and status is not None
        and status["majorCode"] == ParseMajor.SUCCESS
    )


def cut_anchor(anchor: str | None, limit: int) -> str:
    """The anchor cut to ``limit`` UTF-16 code units (Java ``substring``).

    A surrogate pair that the cut would split is dropped whole.
    """
    text = anchor or ""
    if len(text) <= limit // 2:
        return text
    units = 0
    for index, char in enumerate(text):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > limit:
            return text[:index]
    return text


class LinkInverter:
    """LinkDbMapper (new links) and LinkDbFilter (existing ones) for one worker.

    Build once per worker: it compiles the normalizer and filter rules.
    """

    def __init__(self, config: LinkDbConfig) -> None:
        self._config = config
        self._cleaner = (
            UrlCleaner(
                config.urls,
                "linkdb",
                normalize=config.normalize,
                filter_urls=config.filter_urls,
            )
            if config.normalize or config.filter_urls
            else None
        )

    def clean(self, url: str) -> str | None:
        """The URL normalized and filtered as configured; None if rejected."""
        if self._cleaner is None:
            return url
        cleaned = self._cleaner.clean(url)
        return cleaned if isinstance(cleaned, str) else None

    def invert(
        self, source: str, outlinks: Mapping[str, str | None], time_ms: int
    ) -> Iterator[tuple[str, Inlink] | LinkSkip]:
        """Each outlink of ``source`` as (target, inlink), or why it was skipped.

        A rejected source yields one ``SOURCE_REJECTED`` for all its links.
        """
        from_host = _host(source)
        cleaned = self.clean(source)
        if cleaned is None:
            yield LinkSkip.SOURCE_REJECTED
            return
        limit = self._config.max_anchor_length
        for target, anchor in outlinks.items():
            skip = self._ignored(from_host, target)
            if skip is not None:
                yield skip
                continue
            to_url = self.clean(target)
            if to_url is None:
                yield LinkSkip.TARGET_REJECTED
                continue
            yield to_url, (cleaned, cut_anchor(anchor, limit), time_ms)

    def _ignored(self, from_host: str | None, target: str) -> LinkSkip | None:
        config = self._config
        if config.ignore_internal:
            to_host = _host(target)
            internal = to_host is None or to_host == from_host
            return LinkSkip.INTERNAL if internal else None
        if config.ignore_external:
            to_host = _host(target)
            external = to_host is None or to_host != from_host
            return LinkSkip.EXTERNAL if external else None
        return None

    def recheck(
        self, target: str, inlinks: Mapping[str, str | None]
    ) -> Iterator[tuple[str, Inlink] | LinkSkip]:
        """An existing linkdb record's inlinks, normalized and filtered again.

        Nutch's LinkDbFilter in the merge job: a rejected target drops all its
        inlinks, a rejected source only its own. Anchors stay as they are.
        """
        to_url = self.clean(target)
        for source, anchor in inlinks.items():
            from_url = None if to_url is None else self.clean(source)
            if to_url is None or from_url is None:
                yield LinkSkip.EXISTING_REJECTED
            else:
                yield to_url, (from_url, anchor or "", EXISTING_TIME_MS)


def _host(url: str) -> str | None:
    """LinkDb.getHost: ``new URL(url).getHost().toLowerCase()``, None if malformed.

    A URL without an authority (``mailto:``, ``file:/x``) has the host ``""``.
    """
    host = java_host(url)
    return None if host is None else host.lower()


class InlinkSet:
    """The inlinks of one target, merged and capped (LinkDbMergeReducer).

    One anchor per source, the newest (see the module doc); at most
    ``max_inlinks`` sources, the smallest URLs. While adding it keeps at most
    twice that many, so memory stays bounded however many links a target
    has, and partial sets merge to the same result in any order (a source
    dropped from a part has ``max_inlinks`` smaller ones beside it).
    """

    __slots__ = ("_best", "_max")

    def __init__(self, max_inlinks: int) -> None:
        self._max = max(max_inlinks, 0)
        self._best: dict[str, tuple[int, str]] = {}

    def add(self, inlink: Inlink) -> None:
        """Add one inlink."""
        if not self._max:
            return
        source, anchor, time_ms = inlink
        known = self._best.get(source)
        if known is None or _newer((time_ms, anchor), known):
            self._best[source] = (time_ms, anchor)
            if len(self._best) > 2 * self._max:
                self._prune()

    def merge(self, others: Iterable[InlinkSet]) -> InlinkSet:
        """Add the inlinks of ``others`` into this set; returns it."""
        for other in others:
            for source, (time_ms, anchor) in other._best.items():
                self.add((source, anchor, time_ms))
        return self

    def inlinks(self) -> dict[str, str]:
        """Source URL -> anchor, the smallest ``max_inlinks`` sources, in order."""
        sources = sorted(self._best)[: self._max]
        return {source: self._best[source][1] for source in sources}

    def _prune(self) -> None:
        for source in sorted(self._best)[self._max :]:
            del self._best[source]


def _newer(candidate: tuple[int, str], known: tuple[int, str]) -> bool:
    """A later parse wins; at the same time, the smaller anchor."""
    return candidate[0] > known[0] or (
        candidate[0] == known[0] and candidate[1] < known[1]
    )


def linkdb_page(target: str, inlinks: Mapping[str, str]) -> WebPage:
    """The linkdb record of ``target``: a WebPage whose ``inlinks`` are set."""
    return new_page(target, inlinks=dict(inlinks))
