"""Outlink post-processing: what a parse's raw links become in ``WebPage.outlinks``.

Nutch 1.x ParseOutputFormat, in page order: a target longer than
``db.max.outlink.length`` is skipped; one equal to the page's URL is
dropped; the link policy decides the rest (:mod:`crawllib.urls.linkpolicy`; the
default, :class:`~crawllib.urls.linkpolicy.NutchLinkPolicy`, is Nutch's
``db.ignore.external.links`` / ``db.ignore.internal.links``, by host or by
domain); what it keeps, possibly rewritten, is normalized (scope
``outlink``, ``parse.normalize.urls``) and filtered (``parse.filter.urls``).
A target already kept is skipped (the first anchor wins: the map holds one
entry per target, as in 2.x), and the loop stops once
``db.max.outlinks.per.page`` targets are kept (1.x counts kept links).

Each link considered is tallied by class (``internal``, ``external``,
``other``) and outcome, for the ``Links`` counters: ``kept`` or ``dropped``
by the policy, ``rewritten`` (kept as another URL), ``filtered`` (too long, a
self link, or kept by the policy and then rejected by the normalizers or
filters); ``policy_errors`` counts links whose policy raised (they count
as dropped too).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable

from crawllib.config import ParseConfig
from crawllib.logonce import warn_first
from crawllib.parse import Outlink
from crawllib.urls.cleaner import UrlCleaner
from crawllib.urls.linkkind import KINDS, LinkClassifier
from crawllib.urls.linkpolicy import Link, LinkPolicy, NutchLinkPolicy, load_link_policy

_LOG = logging.getLogger(__name__)

POLICY_ERRORS = "policy_errors"
"""The tally of links whose policy raised an exception."""
_OUTCOMES = ("kept", "dropped", "rewritten", "filtered")
# a page's tallies go to a flat list, at kind index (0-2) + outcome offset
_KEPT, _DROPPED, _REWRITTEN, _FILTERED = (3 * n for n in range(len(_OUTCOMES)))
_ERRORS = 3 * len(_OUTCOMES)
_HOSTS_CACHED = 1 << 16
"""How many targets' hosts an OutlinkFilter remembers (as UrlCleaner does)."""
_TALLY_NAMES = (
    *(f"{kind.value}_{outcome}" for outcome in _OUTCOMES for kind in KINDS),
    POLICY_ERRORS,
)


class OutlinkFilter:
    """Apply the rules above to one page's outlinks; build once per worker."""

    def __init__(self, config: ParseConfig) -> None:
        self._clean = UrlCleaner(
            config.urls,
            "outlink",
            normalize=config.normalize_urls,
            filter_urls=config.filter_urls,
        ).clean
        # negative: no limit
        self._max_outlinks = _or_unlimited(config.max_outlinks)
        self._max_length = _or_unlimited(config.max_outlink_length)
        self._links = config.links
        policy = link_policy_of(config)
        self._policy = policy
        self._keeps_all = type(policy) is NutchLinkPolicy and policy.keeps_all
        self._tally = [0] * len(_TALLY_NAMES)
        self._hosts: dict[str, str | None] = {}

    def keep(self, page_url: str, outlinks: Iterable[Outlink]) -> dict[str, str | None]:
        """The kept targets of ``page_url``'s outlinks, mapped to their anchors."""
        if self._keeps_all:
            return self._keep_all(page_url, outlinks)
        limit, max_length = self._max_outlinks, self._max_length
        kind_index = self._classifier(page_url).kind_index
        clean, tally = self._clean, self._tally
        kept: dict[str, str | None] = {}
        for link in outlinks:
            if len(kept) >= limit:
                break
            target = link.url
            kind = kind_index(target)
            if len(target) > max_length or target == page_url:
                tally[kind + _FILTERED] += 1
                continue
            decided = self._decide(Link(target, page_url, KINDS[kind], link.anchor))
            if decided is None:
                tally[kind + _DROPPED] += 1
                continue
            tally[kind + _KEPT] += 1
            if decided != target:
                tally[kind + _REWRITTEN] += 1
                if len(decided) > max_length:
                    tally[kind + _FILTERED] += 1
                    continue
            cleaned = clean(decided)
            if not isinstance(cleaned, str):
                tally[kind + _FILTERED] += 1
            elif cleaned not in kept:
                kept[cleaned] = link.anchor
        return kept

    def _keep_all(
        self, page_url: str, outlinks: Iterable[Outlink]
    ) -> dict[str, str | None]:
        """:meth:`keep` for a policy that keeps every link: the parse's hot loop.

        Internal links on the page's own ``scheme://host[:port]`` (most links)
        are classified inline and counted once per page: ``internal_kept`` is
        the links that reached the policy less the others' ``kept``.
        """
        limit, max_length = self._max_outlinks, self._max_length
        classifier = self._classifier(page_url)
        kind_index, prefix = classifier.kind_index, classifier.internal_prefix
        clean, tally = self._clean, self._tally
        kept: dict[str, str | None] = {}
        reached = 0  # links that reached the policy
        others_kept = 0
        for link in outlinks:
            if len(kept) >= limit:
                break
            target = link.url
            # internal on the page's scheme://host[:port]/: kind_index's first
            # check, without a call
            kind = 0 if prefix and target.startswith(prefix) else kind_index(target)
            if len(target) > max_length or target == page_url:
                tally[kind + _FILTERED] += 1
                continue
            reached += 1
            if kind:
                others_kept += 1
                tally[kind + _KEPT] += 1
            cleaned = clean(target)
            if not isinstance(cleaned, str):
                tally[kind + _FILTERED] += 1
            elif cleaned not in kept:
                kept[cleaned] = link.anchor
        tally[_KEPT] += reached - others_kept
        return kept

    def _classifier(self, page_url: str) -> LinkClassifier:
        if len(self._hosts) >= _HOSTS_CACHED:
            self._hosts.clear()  # bounded; a crawl refills it at once
        return self._links.classifier(page_url, self._hosts)

    def _decide(self, link: Link) -> str | None:
        """The policy's decision; a policy that raises drops the link."""
        try:
            decided = self._policy.decide(link)
            if decided is None or isinstance(decided, str):
                return decided
            raise TypeError(f"decide gave a {type(decided).__name__}, not a URL")
        except Exception as exc:  # noqa: BLE001 - the user's policy must not fail the parse
            self._tally[_ERRORS] += 1
            warn_first(
                _LOG,
                POLICY_ERRORS,
                "link policy %r failed on %s (the link is dropped)",
                self._policy,
                link.url,
                cause=exc,
                counter=f"Links/{POLICY_ERRORS}",
            )
            return None

    def take_counts(self) -> dict[str, int]:
        """The tallies since the last call (``internal_kept``: 12 ...), then reset."""
        tally, self._tally = self._tally, [0] * len(_TALLY_NAMES)
        return {name: n for name, n in zip(_TALLY_NAMES, tally, strict=True) if n}


def link_policy_of(config: ParseConfig) -> LinkPolicy:
    """The policy that decides ``config``'s outlinks, loaded here from a spec.

    ``config.link_policy`` as given, the policy its ``module:name`` spec
    names (``parse.link.policy``), or else Nutch's ``db.ignore.*`` rules.

    Raises:
        ConfigError: the spec names no loadable policy (one line naming it).
    """
    policy = config.link_policy
    if policy is None:
        return NutchLinkPolicy.from_rules(config.links)
    if isinstance(policy, str):
        return load_link_policy(policy)
    return policy


def _or_unlimited(limit: int) -> int:
    return limit if limit >= 0 else sys.maxsize
