"""Nutch's ``db.ignore.*`` link rules: one decider for outlinks and redirects.

``db.ignore.external.links``, ``db.ignore.internal.links``,
``db.ignore.external.links.mode`` (byHost or byDomain) and
``db.ignore.also.redirects`` are read once (by
:func:`crawllib.config.urls.read_link_rules`) into a :class:`LinkRules`, which
the parse step's default link policy
(:class:`~crawllib.urls.linkpolicy.NutchLinkPolicy`, Nutch's
ParseOutputFormat) and the fetcher's redirect handling (Nutch's
FetcherThread.handleRedirect) both ask. It also classifies a link relative to
its page (internal, external or other, :mod:`crawllib.urls.linkkind`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from crawllib.urls.domain import domain_of, host_of
from crawllib.urls.linkkind import LinkClassifier, LinkKind


@dataclass(frozen=True, slots=True)
class LinkRules:
    """Which links and redirect targets ``db.ignore.*`` drops.

    Attributes:
        ignore_external: ``db.ignore.external.links``.
        ignore_internal: ``db.ignore.internal.links``.
        by_domain: ``db.ignore.external.links.mode`` is byDomain (else byHost).
        also_redirects: ``db.ignore.also.redirects``: the two flags apply to
            redirect targets too.
    """

    ignore_external: bool = False
    ignore_internal: bool = False
    by_domain: bool = False
    also_redirects: bool = True

    @property
    def keeps_all(self) -> bool:
        """Whether neither flag is set, so that every link is kept."""
        return not (self.ignore_external or self.ignore_internal)

    def classifier(
        self, page_url: str, hosts: dict[str, str | None] | None = None
    ) -> LinkClassifier:
        """A classifier of ``page_url``'s outlinks (see :class:`LinkClassifier`)."""
        return LinkClassifier(page_url, hosts)

    def kind(self, url: str, page_url: str) -> LinkKind:
        """The class of ``url`` as an outlink of ``page_url``."""
        return LinkClassifier(page_url).kind(url)

    def keeps_link(self, url: str, page_url: str, kind: LinkKind) -> bool:
        """Whether an outlink is kept (ParseOutputFormat's ``db.ignore.*`` checks).

        A link is dropped when ``ignore_internal`` is set and its host
        (domain, with ``by_domain``) is the page's, or ``ignore_external`` is
        set and it is another. Links of every class are judged by their host
        (``mailto:`` has none, so counts as another); a page without a host
        has every link kept. ``kind`` is the link's class, which has already
        compared the hosts of http(s) links.
        """
        if self.keeps_all:
            return True
        source = _page_unit(page_url, self.by_domain)
        if not source:
            return True
        if self.by_domain:
            same = domain_of(url) == source
        elif kind is LinkKind.OTHER:
            same = host_of(url) == source
        else:  # the class already compared the hosts
            same = kind is LinkKind.INTERNAL
        return not (self.ignore_internal if same else self.ignore_external)

    def keeps_redirect(self, source: str, target: str) -> bool:
        """Whether a redirect target is kept (FetcherThread.handleRedirect).

        Only with ``also_redirects``: ``ignore_external`` drops a target on
        another host (domain, with ``by_domain``), ``ignore_internal`` one on
        the source's host.
        """
        if not self.also_redirects:
            return True
        if self.ignore_external:
            unit = domain_of if self.by_domain else host_of
            if unit(target) != unit(source):
                return False
        return not (self.ignore_internal and host_of(target) == host_of(source))


NUTCH_RULES = LinkRules()
"""Nutch's defaults: no link is ignored."""


@functools.lru_cache(maxsize=256)
def _page_unit(page_url: str, by_domain: bool) -> str:
    """The page's host or domain (a page's links come one after another)."""
    return domain_of(page_url) if by_domain else host_of(page_url)
