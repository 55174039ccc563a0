"""Redirects: which targets to keep, and the representative URL (chooseRepr).

Used for protocol redirects by the fetcher and for meta refresh by the parser.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from crawllib.config import UrlConfig
from crawllib.urls.cleaner import UrlCleaner
from crawllib.urls.domain import domain_of, host_of
from crawllib.urls.linkrules import NUTCH_RULES, LinkRules


def choose_repr(src: str, dst: str, temp: bool) -> str:
    """The URL to represent a redirect pair (1.x ``URLUtil.chooseRepr``).

    Different domains: ``dst``. Permanent: ``src`` if it is a root URL, else
    ``dst``. Temporary: a root ``src`` wins over a non-root ``dst`` and the
    other way round; two non-roots on one host: fewer path parts wins, then
    the shorter path (``src`` on ties); otherwise fewer host labels wins
    (``src`` on ties).
    """
    if domain_of(src) != domain_of(dst):
        return dst
    src_file, dst_file = _file(src), _file(dst)
    src_root, dst_root = src_file in ("", "/"), dst_file in ("", "/")
    if not temp:
        return src if src_root else dst
    if src_root and not dst_root:
        return src
    if dst_root and not src_root:
        return dst
    if not src_root and not dst_root and host_of(src) == host_of(dst):
        src_parts, dst_parts = len(src_file.split("/")), len(dst_file.split("/"))
        if src_parts != dst_parts:
            return dst if dst_parts < src_parts else src
        return dst if len(dst_file) < len(src_file) else src
    src_labels, dst_labels = len(host_of(src).split(".")), len(host_of(dst).split("."))
    return dst if dst_labels < src_labels else src


def _file(url: str) -> str:
    """java.net.URL.getFile(): path plus ``?query``."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


class RedirectTargets:
    """Which redirect targets to keep (1.x FetcherThread.handleRedirect).

    Drop a target longer than ``db.max.outlink.length``, one the normalizers
    (scope ``fetcher``) or filters reject, one equal to its source, and one
    the ``db.ignore.*`` rules drop (:meth:`LinkRules.keeps_redirect`).
    """

    def __init__(
        self, urls: UrlConfig, max_length: int = 4096, links: LinkRules = NUTCH_RULES
    ) -> None:
        self._cleaner = UrlCleaner(urls, "fetcher")
        self._max_length = max_length
        self._links = links

    def keep(self, source: str, target: str) -> str | None:
        """The cleaned target, or None when it is to be dropped."""
        if self._max_length >= 0 and len(target) > self._max_length:
            return None
        cleaned = self._cleaner.clean(target)
        if not isinstance(cleaned, str) or cleaned == source:
            return None
        return cleaned if self._links.keeps_redirect(source, cleaned) else None
