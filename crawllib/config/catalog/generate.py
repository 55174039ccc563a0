"""Generate: which URLs are due and how they are split into fetch lists."""

from __future__ import annotations

from crawllib.config.schema import (
    BOOLEAN,
    INTEGER,
    TEXT,
    Choice,
    Integer,
    OptionalInteger,
    OptionalNumber,
    Property,
)

GENERATE = (
    Property(
        "generate.max.count",
        "-1",
        INTEGER,
        "URLs of one host (or domain, see `generate.count.mode`) per segment; "
        "0 or less: no limit. A host that a full segment (`--topN`) pushes to "
        "the next segment starts counting again there, as in Nutch.",
    ),
    Property(
        "generate.count.mode",
        "host",
        Choice(values=("host", "domain")),
        "What `generate.max.count` counts per: the host or the domain.",
    ),
    Property(
        "generate.update.crawldb",
        "false",
        BOOLEAN,
        "Mark generated URLs in the crawldb (`_ngt_`, the generate time), so "
        "that a second generate before updatedb does not select them again "
        "until `crawl.gen.delay` has passed.",
    ),
    Property(
        "generate.min.score",
        "0",
        OptionalNumber(),
        "URLs whose sort value (the score) is below this are not generated; "
        "empty or NaN: no minimum.",
    ),
    Property(
        "generate.min.interval",
        "-1",
        Integer(label="int (s)"),
        "Only URLs whose fetch interval is at most this many seconds are "
        "generated; -1: any interval.",
    ),
    Property(
        "generate.restrict.status",
        "",
        TEXT,
        "Only URLs of this status are generated (a 2.x name such as "
        "`status_unfetched`, or a 1.x one such as `db_unfetched`); empty: any.",
    ),
    Property(
        "generate.max.distance",
        "-1",
        INTEGER,
        "Only URLs at most this many links from a seed are generated (Nutch "
        "2.x); -1: any distance.",
    ),
    Property(
        "generate.filter",
        "true",
        BOOLEAN,
        "Run the URL filters over the crawldb's URLs when generating "
        "(`--noFilter` turns it off).",
    ),
    Property(
        "generate.normalise",
        "true",
        BOOLEAN,
        "Normalize URLs (scope `generate_host_count`) to find the host they "
        "count for (`--noNorm` turns it off).",
    ),
    Property(
        "partition.url.mode",
        "byHost",
        Choice(values=("byHost", "byDomain", "byIP")),
        "How URLs are split between a segment's fetch lists (`--numFetchers`): "
        "all of one host, domain or IP address in the same list.",
    ),
    Property(
        "partition.url.seed",
        "0",
        INTEGER,
        "The hash seed of the partitioning; set another to move hosts between "
        "fetch lists. Nutch draws a random seed for every segment; beamcrawl "
        "uses this one, so that a run can be repeated.",
    ),
    Property(
        "crawl.gen.delay",
        "604800000",
        Integer(label="long (ms)"),
        "How long a URL marked generated (`generate.update.crawldb`) is not "
        "generated again without an updatedb; `readdb`'s URL states count it "
        "as running that long.",
    ),
    Property(
        "generate.curTime",
        "",
        OptionalInteger(label="long (epoch ms), or empty"),
        "Generate's clock (and so the segment's name); empty: the wall clock "
        "when the job starts. Set it for runs that repeat exactly. `readdb "
        "--stats` uses it for its URL states.",
    ),
)

AREAS = (("Generate and partition", GENERATE),)
