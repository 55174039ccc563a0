"""NewsOnly: a link policy that follows only ``/news/`` pages, without ``utm_*``.

Use it from the command line::

    beamcrawl crawl --seeds SEEDS CRAWL_DIR 3 \
        --linkPolicy examples/news_policy/policy.py:NewsOnly ...

or in Python: ``config.with_link_policy(NewsOnly())``.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from crawllib.urls.linkpolicy import Link, LinkPolicy


class NewsOnly(LinkPolicy):
    """Keep links to the same host's ``/news/`` pages, with no ``utm_*`` parameter.

    Links to other hosts and mailto:/ftp: links are dropped; a kept link loses
    its ``utm_*`` query parameters and keeps the others (``?year=2025``).
    """

    def internal(self, link: Link) -> bool:
        return urlsplit(link.url).path.startswith("/news/")

    def external(self, link: Link) -> bool:
        return False

    def other(self, link: Link) -> bool:
        return False

    def rewrite(self, link: Link) -> str:
        return without_utm(link.url)


def without_utm(url: str) -> str:
    """``url`` without its ``utm_*`` query parameters, the others kept in order."""
    parts = urlsplit(url)
    if "utm_" not in parts.query:
        return url
    kept = [
        (name, value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
        if not name.startswith("utm_")
    ]
    return urlunsplit(parts._replace(query=urlencode(kept)))
