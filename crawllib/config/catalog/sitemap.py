"""``beamcrawl sitemap``: Nutch's SitemapProcessor properties and limits.

Nutch's defaults for these are in its code (``SitemapProcessor``), not in
``nutch-default.xml``.
"""

from __future__ import annotations

from crawllib.config.schema import BOOLEAN, Integer, Property

SITEMAP = (
    Property(
        "sitemap.strict.parsing",
        "true",
        BOOLEAN,
        "Keep only URLs under the sitemap's own directory (`--noStrict` turns it off).",
    ),
    Property(
        "sitemap.url.filter",
        "true",
        BOOLEAN,
        "Run the URL filters over the URLs a sitemap lists (`--noFilter`).",
    ),
    Property(
        "sitemap.url.normalize",
        "true",
        BOOLEAN,
        "Normalize the URLs a sitemap lists (`--noNormalize`).",
    ),
    Property(
        "sitemap.url.default.sitemap.xml",
        "true",
        BOOLEAN,
        "A host whose robots.txt names no sitemap gets `/sitemap.xml` tried.",
    ),
    Property(
        "sitemap.url.overwrite.existing",
        "false",
        BOOLEAN,
        "A URL already in the crawldb takes the sitemap's values (modified "
        "time, priority, interval).",
    ),
    Property(
        "sitemap.redir.max",
        "3",
        Integer(label="int (0 or more)"),
        "Redirects followed to fetch one sitemap.",
    ),
    Property(
        "sitemap.size.max",
        "52428800",
        Integer(label="int (bytes)"),
        "Bytes of one sitemap, after decoding (a `.gz` file's expanded size); "
        "a larger one is dropped (Nutch truncates it, which breaks the XML).",
    ),
    Property(
        "sitemap.urls.max",
        "50000",
        Integer(label="int (1 or more)"),
        "URLs kept of one sitemap file; the rest are counted "
        "(`urls_over_limit`). crawler-commons' fixed limit, as a property.",
        own=True,
    ),
    Property(
        "sitemap.index.max.depth",
        "3",
        Integer(label="int (0 or more)"),
        "How deep nested sitemap indexes are followed (a sitemap listed "
        "directly is at depth 0).",
        own=True,
        why="Nutch follows nested indexes without a limit, and an index that "
        "lists itself never ends",
    ),
)

AREAS = (("Sitemaps", SITEMAP),)
