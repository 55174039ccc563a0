"""Outlink post-processing: what a parse's raw links become in ``WebPage.outlinks``.

Nutch 1.x ParseOutputFormat, in page order: a target longer than
``db.max.outlink.length`` is skipped; one equal to the page's URL is
dropped; ``db.ignore.external.links`` (by host, or domain with mode byDomain)
and ``db.ignore.internal.links`` (by host, or domain) drop those; the rest is
normalized (scope ``outlink``, ``parse.normalize.urls``) and filtered
(``parse.filter.urls``). A target already kept is skipped (the first anchor
wins: the map holds one entry per target, as in 2.x), and the loop stops once
``db.max.outlinks.per.page`` targets are kept (1.x counts kept links).
"""

from __future__ import annotations

from collections.abc import Iterable

from crawllib.config import ParseConfig
from crawllib.parse import Outlink
from crawllib.urls.cleaner import UrlCleaner
from crawllib.urls.domain import domain_of, host_of


class OutlinkFilter:
    """Apply the rules above to one page's outlinks; build once per worker."""

    def __init__(self, config: ParseConfig) -> None:
        self._config = config
        self._cleaner = UrlCleaner(
            config.urls,
            "outlink",
            normalize=config.normalize_urls,
            filter_urls=config.filter_urls,
        )

    def keep(self, page_url: str, outlinks: Iterable[Outlink]) -> dict[str, str | None]:
        """The kept targets of ``page_url``'s outlinks, mapped to their anchors."""
        config = self._config
        limit = config.max_outlinks
        unit = domain_of if config.ignore_by_domain else host_of
        source_unit = (
            unit(page_url)
            if (config.ignore_external_links or config.ignore_internal_links)
            else ""
        )
        kept: dict[str, str | None] = {}
        for link in outlinks:
            if 0 <= limit <= len(kept):
                break
            target = link.url
            if 0 <= config.max_outlink_length < len(target) or target == page_url:
                continue
            if source_unit:
                same = unit(target) == source_unit
                if (same and config.ignore_internal_links) or (
                    not same and config.ignore_external_links
                ):
                    continue
            cleaned = self._cleaner.clean(target)
            if isinstance(cleaned, str) and cleaned not in kept:
                kept[cleaned] = link.anchor
        return kept
