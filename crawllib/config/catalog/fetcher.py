"""The fetcher: threads, per-host queues, politeness and limits."""

from __future__ import annotations

from crawllib.config.schema import (
    BOOLEAN,
    INTEGER,
    Choice,
    Integer,
    Number,
    Property,
)

_SECONDS = Number(label="float (s)")
_NOT_IN_THE_FETCHER = (
    "Accepted; beamcrawl's fetcher does not have this feature, so the value "
    "changes nothing."
)

FETCHER = (
    Property(
        "fetcher.server.delay",
        "5.0",
        _SECONDS,
        "Seconds between two requests to one queue (host, by default) when "
        "`fetcher.threads.per.queue` is 1. At 5 s a host gives 12 pages a "
        "minute: lower it for a site you run or may crawl faster. A robots.txt "
        "`Crawl-delay` replaces it for its host.",
    ),
    Property(
        "fetcher.server.min.delay",
        "0.0",
        _SECONDS,
        "Seconds between requests to one queue when it has more than one "
        "thread (`fetcher.threads.per.queue` > 1).",
    ),
    Property(
        "fetcher.max.crawl.delay",
        "30",
        _SECONDS,
        "A robots.txt `Crawl-delay` longer than this skips the host's pages "
        "(ROBOTS_DENIED); -1: always wait as asked.",
    ),
    Property(
        "fetcher.min.crawl.delay",
        "${fetcher.server.delay}",
        _SECONDS,
        "The shortest robots.txt `Crawl-delay` honoured: a shorter one is "
        "raised to it.",
    ),
    Property(
        "fetcher.threads.fetch",
        "10",
        INTEGER,
        "Fetcher threads in all (`--threads` of fetch and crawl sets it); 1 or more.",
    ),
    Property(
        "fetcher.threads.per.queue",
        "1",
        INTEGER,
        "Requests in flight at once to one queue; 1 or more. Above 1, "
        "`fetcher.server.min.delay` is the delay.",
    ),
    Property(
        "fetcher.threads.start.delay",
        "10",
        Integer(label="int (ms)"),
        "Nutch staggers the start of its fetcher threads by this. "
        + _NOT_IN_THE_FETCHER,
        used=False,
    ),
    Property(
        "fetcher.queue.mode",
        "byHost",
        Choice(values=("byHost", "byDomain", "byIP")),
        "What one politeness queue holds: the URLs of one host, one domain or "
        "one IP address.",
    ),
    Property(
        "fetcher.queue.depth.multiplier",
        "50",
        INTEGER,
        "URLs kept queued in memory: threads x this (at least 1 x).",
    ),
    Property(
        "fetcher.parse",
        "false",
        BOOLEAN,
        "Parse pages in the fetch job, as `fetch --parse` does.",
    ),
    Property(
        "fetcher.store.content",
        "true",
        BOOLEAN,
        "Keep each page's raw content in the segment's `fetch/` records.",
    ),
    Property(
        "fetcher.store.robotstxt",
        "false",
        BOOLEAN,
        "Nutch can store the robots.txt files it read. " + _NOT_IN_THE_FETCHER,
        used=False,
    ),
    Property(
        "fetcher.signature",
        "false",
        BOOLEAN,
        "Nutch can compute the signature in the fetcher when it does not "
        "parse. Accepted; beamcrawl computes signatures when parsing.",
        used=False,
    ),
    Property(
        "fetcher.timelimit.mins",
        "-1",
        Number(label="float (minutes)"),
        "Stop fetching after this many minutes: the URLs still queued are "
        "dropped from this fetch (counted `hit_by_timelimit`) and stay in the "
        "crawldb as they were. 0 or less: no limit.",
    ),
    Property(
        "fetcher.max.exceptions.per.queue",
        "5",
        INTEGER,
        "After this many exceptions (timeouts, refused connections) on one "
        "queue, its other URLs are dropped for this fetch; before that each "
        "exception backs the queue off. -1: never drop.",
    ),
    Property(
        "fetcher.exceptions.per.queue.delay",
        "${fetcher.server.delay}",
        _SECONDS,
        "Back-off after an exception: this many seconds, doubled with each "
        "further exception of the queue; 0: none.",
    ),
    Property(
        "fetcher.exceptions.per.queue.clear.after",
        "1800",
        Integer(label="int (s)"),
        "Nutch forgets a queue's exceptions after this long. " + _NOT_IN_THE_FETCHER,
        used=False,
    ),
    Property(
        "fetcher.throughput.threshold.pages",
        "-1",
        INTEGER,
        "Nutch stops a fetch slower than this many pages a second. "
        + _NOT_IN_THE_FETCHER,
        used=False,
    ),
    Property(
        "fetcher.throughput.threshold.retries",
        "5",
        INTEGER,
        "Nutch's checks below the throughput threshold before it stops. "
        + _NOT_IN_THE_FETCHER,
        used=False,
    ),
    Property(
        "fetcher.throughput.threshold.check.after",
        "5",
        Integer(label="int (minutes)"),
        "When Nutch starts checking the throughput. " + _NOT_IN_THE_FETCHER,
        used=False,
    ),
    Property(
        "fetcher.follow.outlinks.depth",
        "-1",
        INTEGER,
        "Nutch can follow outlinks within the fetch job. " + _NOT_IN_THE_FETCHER,
        used=False,
    ),
    Property(
        "fetcher.redirect.dedupcache.seconds",
        "-1",
        Integer(label="int (s)"),
        "Nutch's cache of redirect targets already followed. " + _NOT_IN_THE_FETCHER,
        used=False,
    ),
    Property(
        "fetcher.filter.urls",
        "false",
        BOOLEAN,
        "Nutch can filter fetch-list URLs again as they are queued. Accepted; "
        "beamcrawl filters them in generate (and redirect targets always).",
        used=False,
    ),
    Property(
        "fetcher.normalize.urls",
        "false",
        BOOLEAN,
        "Nutch can normalize fetch-list URLs again as they are queued. "
        "Accepted; beamcrawl normalizes them in generate (and redirect "
        "targets always).",
        used=False,
    ),
)

AREAS = (("Fetcher", FETCHER),)
