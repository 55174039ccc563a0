"""Sitemaps: Nutch 1.x ``SitemapProcessor`` and crawler-commons' ``SiteMapParser``.

- :mod:`~crawllib.sitemaps.formats`: sitemap files (XML, index, RSS, Atom,
  text, gzip) to entries: what the bytes are, the limits;
- :mod:`~crawllib.sitemaps.handlers`: the XML handlers (urlset, index, RSS,
  Atom), element by element as crawler-commons' SAX handlers;
- :mod:`~crawllib.sitemaps.entries`: what a sitemap lists (entries, their
  checks and strict mode, priority and changefreq);
- :mod:`~crawllib.sitemaps.dates`: ``lastmod`` and ``pubDate`` to epoch ms;
- :mod:`~crawllib.sitemaps.walker`: fetching them (robots.txt, politeness,
  redirects, nested indexes, zones);
- :mod:`~crawllib.sitemaps.sitemapurls`: checking a sitemap's own URL (as if
  not gzipped: ``sitemap.xml.gz`` is read under the default rules);
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
