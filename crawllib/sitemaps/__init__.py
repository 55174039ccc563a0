"""Sitemaps: Nutch 1.x ``SitemapProcessor`` and crawler-commons' ``SiteMapParser``.

- :mod:`~crawllib.sitemaps.formats`: sitemap files (XML, index, RSS, Atom,
  text, gzip) to entries, with the limits and strict mode;
- :mod:`~crawllib.sitemaps.dates`: ``lastmod`` and ``pubDate`` to epoch ms;
- :mod:`~crawllib.sitemaps.walker`: fetching them (robots.txt, politeness,
  redirects, nested indexes);
- :mod:`~crawllib.sitemaps.records`: entries to crawldb records and the merge.
"""

from crawllib.sitemaps.formats import (
    ChangeFreq,
    Kind,
    ParsedSitemap,
    SitemapEntry,
    SitemapFormatError,
    UrlDrop,
    parse_sitemap,
)
from crawllib.sitemaps.records import Merge, merge, preferred, sitemap_page
from crawllib.sitemaps.walker import Count, Found, SitemapWalker, Tally

__all__ = [
    "ChangeFreq",
    "Count",
    "Found",
    "Kind",
    "Merge",
    "ParsedSitemap",
    "SitemapEntry",
    "SitemapFormatError",
    "SitemapWalker",
    "Tally",
    "UrlDrop",
    "merge",
    "parse_sitemap",
    "preferred",
    "sitemap_page",
]
