"""A link policy for tests: follow only /news/ paths, strip utm_* parameters.

Loaded by file (``tests/data/linkpolicies/news_links.py:NewsOnly``), as a
user's policy would be.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from crawllib.urls.linkpolicy import Link, LinkPolicy


class NewsOnly(LinkPolicy):
    """Internal links under /news/, without utm_* query parameters."""

    def internal(self, link: Link) -> bool:
        return urlsplit(link.url).path.startswith("/news/")

    def external(self, link: Link) -> bool:
        return False

    def other(self, link: Link) -> bool:
        return False

    def rewrite(self, link: Link) -> str:
        head, hash_sign, ref = link.url.partition("#")
        base, _, query = head.partition("?")
        kept = [p for p in query.split("&") if p and not p.startswith("utm_")]
        return base + ("?" + "&".join(kept) if kept else "") + hash_sign + ref


def news_only(link: Link) -> str | None:
    """The same as a function: a str keeps the link as that URL, None drops it."""
    return NewsOnly().decide(link)


def broken(link: Link) -> bool:
    """A policy with a bug: every external link raises."""
    if link.kind == "external":
        raise ValueError(f"cannot judge {link.url}")
    return True
