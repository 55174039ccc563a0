"""What a crawl gives: the linkdb, the index and WARC files."""

from __future__ import annotations

from crawllib.config.schema import (
    BOOLEAN,
    INTEGER,
    NUMBER,
    BucketCount,
    Integer,
    Property,
    Text,
)

LINKDB = (
    Property(
        "linkdb.buckets",
        "0",
        BucketCount(),
        "Hash buckets of the linkdb (beamcrawl), as db.buckets for the crawldb: "
        "each bucket one part file sorted by URL, merged bucket by bucket by "
        "invertlinks. 0 chooses from the linkdb's size.",
    ),
    Property(
        "linkdb.max.inlinks",
        "10000",
        INTEGER,
        "invertlinks: inlinks kept per URL.",
    ),
    Property(
        "linkdb.max.anchor.length",
        "100",
        INTEGER,
        "invertlinks: anchor texts are cut to this many characters; 0 or more.",
    ),
    Property(
        "linkdb.ignore.internal.links",
        "true",
        BOOLEAN,
        "invertlinks: leave out links from the same host.",
    ),
    Property(
        "linkdb.ignore.external.links",
        "false",
        BOOLEAN,
        "invertlinks: leave out links from other hosts.",
    ),
)

INDEX = (
    Property(
        "indexer.score.power",
        "0.5",
        NUMBER,
        "The exponent of the score in a document's boost (scoring-opic).",
    ),
    Property(
        "indexer.max.title.length",
        "100",
        INTEGER,
        "Titles are cut to this many characters; -1: not cut.",
    ),
    Property(
        "indexer.max.content.length",
        "-1",
        INTEGER,
        "Text is cut to this many characters; -1: not cut.",
    ),
    Property(
        "indexer.skip.notmodified",
        "false",
        BOOLEAN,
        "Leave out pages whose crawldb status is not-modified.",
    ),
    Property(
        "indexer.delete",
        "false",
        BOOLEAN,
        "Delete gone, redirected and duplicate pages from the index "
        "(`--deleteGone`); otherwise they are only left out.",
    ),
    Property(
        "indexer.delete.robots.noindex",
        "false",
        BOOLEAN,
        "Delete pages whose robots meta says `noindex` from the index.",
    ),
    Property(
        "anchorIndexingFilter.deduplicate",
        "false",
        BOOLEAN,
        "index-anchor: index each distinct anchor text once.",
    ),
    Property(
        "elastic.index",
        "nutch",
        Text(label="string (not empty)"),
        "The index named in the Elasticsearch bulk action lines `index` writes.",
    ),
)

WARC = (
    Property(
        "warc.export.max.size",
        "1000000000",
        Integer(label="long (bytes)"),
        "`beamcrawl warc` starts a new file once one holds this many bytes "
        "(compressed); 1 or more (`--maxSize` sets it).",
        own=True,
    ),
    Property(
        "warc.export.ispartof",
        "",
        Text(),
        "`beamcrawl warc`: the warcinfo record's `isPartOf` (the crawl's name).",
        own=True,
    ),
)

AREAS = (
    ("LinkDb", LINKDB),
    ("Indexing", INDEX),
    ("WARC export", WARC),
)
