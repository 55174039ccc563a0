"""The crawldb: inject, updatedb, fetch schedules and OPIC scoring."""

from __future__ import annotations

from crawllib.config.schema import (
    BOOLEAN,
    INTEGER,
    NUMBER,
    TEXT_LIST,
    BucketCount,
    ClassName,
    Integer,
    Number,
    OptionalInteger,
    Property,
)

CRAWLDB = (
    Property(
        "db.fetch.interval.default",
        "2592000",
        Integer(label="int (s)"),
        "The fetch interval of a new URL (30 days): when it is due again after "
        "a fetch. Must be positive.",
    ),
    Property(
        "db.fetch.interval.max",
        "7776000",
        Integer(label="int (s)"),
        "The longest interval (90 days): a page not fetched for longer is due "
        "whatever its own interval says. Must be positive.",
    ),
    Property(
        "db.fetch.schedule.class",
        "org.apache.nutch.crawl.DefaultFetchSchedule",
        ClassName(values=("DefaultFetchSchedule", "AdaptiveFetchSchedule")),
        "The fetch schedule: DefaultFetchSchedule keeps each page's interval; "
        "AdaptiveFetchSchedule shortens it when a page changed and lengthens "
        "it when it did not (full Nutch class name or simple name).",
    ),
    Property(
        "db.fetch.schedule.adaptive.inc_rate",
        "0.4",
        NUMBER,
        "AdaptiveFetchSchedule: the interval grows by this fraction when a "
        "page was not modified.",
    ),
    Property(
        "db.fetch.schedule.adaptive.dec_rate",
        "0.2",
        NUMBER,
        "AdaptiveFetchSchedule: the interval shrinks by this fraction when a "
        "page was modified.",
    ),
    Property(
        "db.fetch.schedule.adaptive.min_interval",
        "60.0",
        Number(label="float (s)"),
        "AdaptiveFetchSchedule: the shortest interval.",
    ),
    Property(
        "db.fetch.schedule.adaptive.max_interval",
        "31536000.0",
        Number(label="float (s)"),
        "AdaptiveFetchSchedule: the longest interval (a year).",
    ),
    Property(
        "db.fetch.schedule.adaptive.sync_delta",
        "true",
        BOOLEAN,
        "AdaptiveFetchSchedule: move the next fetch towards the time the page "
        "is thought to have changed.",
    ),
    Property(
        "db.fetch.schedule.adaptive.sync_delta_rate",
        "0.3",
        NUMBER,
        "AdaptiveFetchSchedule: how far to move it, as a fraction of the delta.",
    ),
    Property(
        "db.fetch.retry.max",
        "3",
        INTEGER,
        "Transient fetch failures (exceptions, 5xx) a URL may have before it "
        "is marked gone.",
    ),
    Property(
        "db.update.additions.allowed",
        "true",
        BOOLEAN,
        "Let updatedb add the new URLs found in outlinks; false: only known "
        "URLs are updated.",
    ),
    Property(
        "db.update.max.inlinks",
        "10000",
        INTEGER,
        "Inlinks updatedb keeps in a URL's record, those passing the highest "
        "scores first (every inlink still adds to the score).",
    ),
    Property(
        "db.buckets",
        "0",
        BucketCount(),
        "Hash buckets of the crawldb (beamcrawl): each bucket one part file, "
        "sorted by URL, so that updatedb (and inject and sitemap into an "
        "existing crawldb) merges bucket by bucket instead of shuffling the "
        "crawldb. 0 chooses from the crawldb's size (about 50,000 "
        "URLs a bucket), keeping a bucketed crawldb's count until its buckets "
        "hold four times that; else a power of two up to 65536.",
    ),
    Property(
        "db.update.purge.404",
        "false",
        BOOLEAN,
        "Drop URLs whose status is gone from the crawldb, in updatedb and inject.",
    ),
    Property(
        "db.update.purge.orphans",
        "false",
        BOOLEAN,
        "Nutch drops URLs marked orphan (scoring-orphan). Accepted; beamcrawl "
        "does not mark orphans, so there is nothing to drop.",
        used=False,
    ),
    Property(
        "db.injector.overwrite",
        "false",
        BOOLEAN,
        "Inject: a seed already in the crawldb replaces the record there "
        "(`--overwrite`).",
    ),
    Property(
        "db.injector.update",
        "false",
        BOOLEAN,
        "Inject: a seed already in the crawldb adds its metadata to the "
        "record, and its score and interval where given (`--update`).",
    ),
    Property(
        "db.score.injected",
        "1.0",
        NUMBER,
        "The score of an injected seed (OPIC).",
    ),
    Property(
        "db.score.link.external",
        "1.0",
        NUMBER,
        "OPIC: the factor of the score a page passes to a link to another host.",
    ),
    Property(
        "db.score.link.internal",
        "1.0",
        NUMBER,
        "OPIC: the factor of the score a page passes to a link to its own host.",
    ),
    Property(
        "db.score.count.filtered",
        "false",
        BOOLEAN,
        "OPIC: divide a page's score among all its outlinks, filtered ones "
        "included, instead of the kept ones.",
    ),
    Property(
        "db.parsemeta.to.crawldb",
        "",
        TEXT_LIST,
        "Nutch copies these parse metadata keys into the crawldb. Accepted "
        "but not read: beamcrawl copies no keys by this list.",
        used=False,
    ),
    Property(
        "db.stats.score.quantiles",
        ".01,.05,.1,.2,.25,.3,.4,.5,.6,.7,.75,.8,.9,.95,.99",
        TEXT_LIST,
        "The score quantiles `readdb --stats` prints: numbers strictly "
        "between 0 and 1.",
    ),
    Property(
        "db.preserve.backup",
        "true",
        BOOLEAN,
        "Keep the crawldb's previous version when a job publishes a new one "
        "(the `old` link), to go back to.",
    ),
    Property(
        "injector.current.time",
        "",
        OptionalInteger(label="long (epoch ms), or empty"),
        "Inject's (and sitemap's) clock; empty: the wall clock when the job "
        "starts. Set it for runs that repeat exactly.",
    ),
    Property(
        "crawldb.inject.filter.normalize.all",
        "false",
        BOOLEAN,
        "Inject: normalize and filter the URLs already in the crawldb too, "
        "not only the seeds.",
    ),
)

AREAS = (("CrawlDb: inject, updatedb, schedules, scores", CRAWLDB),)
