"""The agent, HTTP and file: protocols, the address policy, and robots.txt."""

from __future__ import annotations

from crawllib.config.schema import (
    BOOLEAN,
    INTEGER,
    TEXT_LIST,
    Boolean,
    Integer,
    Property,
    Text,
    TextList,
)

AGENT_AND_HTTP = (
    Property(
        "http.agent.name",
        "",
        Text(label="header text"),
        "Your crawler's name: the first word of the User-Agent header and the "
        "first agent matched against robots.txt groups. Required for every step "
        "that fetches (fetch, crawl, parsechecker, sitemap): with none, the job "
        "stops before it starts, as Nutch's does.",
    ),
    Property(
        "http.agent.version",
        "Nutch-1.23-SNAPSHOT",
        Text(label="header text"),
        "Added to the agent name as `name/version` in the User-Agent header; "
        "empty: no version.",
    ),
    Property(
        "http.agent.description",
        "",
        Text(label="header text"),
        "Goes in the parentheses after the agent name and version, with the "
        "URL and e-mail. `beamcrawl warc` also writes it as warcinfo's "
        "`description`.",
    ),
    Property(
        "http.agent.url",
        "",
        Text(label="header text"),
        "A URL describing your crawler, in the User-Agent's parentheses.",
    ),
    Property(
        "http.agent.email",
        "",
        Text(label="header text"),
        "A contact address, in the User-Agent's parentheses. `beamcrawl warc` "
        "also writes it as warcinfo's `operator`.",
    ),
    Property(
        "http.agent.rotate",
        "false",
        BOOLEAN,
        "Nutch picks a User-Agent from a file for each request when set. "
        "Accepted, but beamcrawl always sends the one agent string.",
        used=False,
    ),
    Property(
        "http.timeout",
        "10000",
        Integer(label="int (ms)"),
        "Connect and read timeout of a request, in milliseconds; it must be "
        "positive. A body takes at most max(3 x this, 30 s) to read; what came "
        "until then is kept and flagged truncated (Nutch has no such cap).",
    ),
    Property(
        "http.content.limit",
        "1048576",
        Integer(label="int (bytes)"),
        "Bytes of a response body kept; -1: no limit. beamcrawl applies it to "
        "the decoded body (after gzip, br ...), where Nutch counts the bytes "
        "on the wire; a longer body is cut and flagged truncated.",
    ),
    Property(
        "http.max.header.size",
        "393216",
        Integer(label="int (bytes)"),
        "Bytes the status lines and headers of one response may take in all "
        "(interim 1xx responses included), in any number of lines; a larger "
        "head is an EXCEPTION. Firefox's limit. Must be 1 or more.",
        own=True,
    ),
    Property(
        "http.useHttp11",
        "true",
        BOOLEAN,
        "Nutch's protocol-http sends HTTP/1.0 requests when false. Accepted; "
        "beamcrawl always speaks HTTP/1.1 (and keeps connections alive).",
        used=False,
    ),
    Property(
        "http.accept.language",
        "en-us,en-gb,en;q=0.7,*;q=0.3",
        Text(label="header text"),
        "The Accept-Language header; empty: not sent.",
    ),
    Property(
        "http.accept",
        "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        Text(label="header text"),
        "The Accept header; empty: not sent.",
    ),
    Property(
        "http.accept.charset",
        "utf-8,iso-8859-1;q=0.7,*;q=0.7",
        Text(label="header text"),
        "The Accept-Charset header; empty: not sent.",
    ),
    Property(
        "http.store.responsetime",
        "true",
        BOOLEAN,
        "Store each fetch's response time (ms) in the page's metadata as `_rs_`.",
    ),
    Property(
        "store.ip.address",
        "true",
        BOOLEAN,
        "Store the address a page was fetched from in its metadata.",
        nutch_default="false",
        why="a WARC export (`beamcrawl warc`) needs the IP, the request and the "
        "response head of every fetch",
    ),
    Property(
        "store.http.request",
        "true",
        BOOLEAN,
        "Store the request as sent (request line and headers) with the page.",
        nutch_default="false",
        why="a WARC export writes the request record from it",
    ),
    Property(
        "store.http.headers",
        "true",
        BOOLEAN,
        "Store the response's status line and headers as received.",
        nutch_default="false",
        why="a WARC export writes the response record from it",
    ),
    Property(
        "http.enable.if.modified.since.header",
        "true",
        BOOLEAN,
        "Send If-Modified-Since with the page's modified time when it has "
        "one, so that an unchanged page can answer 304 (NOTMODIFIED).",
    ),
    Property(
        "http.enable.cookie.header",
        "true",
        BOOLEAN,
        "Nutch sends a cookie stored in a page's metadata. Accepted; beamcrawl "
        "sends no cookies.",
        used=False,
    ),
    Property(
        "http.redirect.max",
        "0",
        INTEGER,
        "Redirect hops the fetcher follows at once: 0 records the target as a "
        "link, fetched in a later round; N follows up to N hops, each target "
        "waiting its turn in its host's queue (Nutch fetches it at once, "
        "without the delay).",
    ),
    Property(
        "http.redirect.max.exceeded.skip",
        "false",
        BOOLEAN,
        "When a redirect chain is longer than `http.redirect.max`: drop the "
        "last target (true) or record it as a link for later (false).",
    ),
    Property(
        "http.max.delays",
        "100",
        INTEGER,
        "Nutch 1.x's limit on a fetch thread's waits for a busy host. "
        "Accepted; beamcrawl's queues never give up on a host for that.",
        used=False,
    ),
    Property(
        "http.proxy.host",
        "",
        Text(label="header text"),
        "An HTTP proxy's host; empty: no proxy.",
    ),
    Property("http.proxy.port", "8080", INTEGER, "The proxy's port."),
    Property(
        "http.proxy.exception.list",
        "",
        TEXT_LIST,
        "Hosts fetched directly, not through the proxy.",
    ),
    Property(
        "http.address.deny",
        "",
        TextList(label="list of addresses or CIDR ranges"),
        "Addresses never reached, whatever the URL's zone (the address policy; "
        'see "Crawling safely" in the docs).',
        own=True,
    ),
    Property(
        "http.address.allow",
        "",
        TextList(label="list of addresses or CIDR ranges"),
        "Addresses any URL may reach, whatever its zone, even in the ranges "
        "refused by default (private, loopback).",
        own=True,
    ),
    Property(
        "http.address.public",
        "",
        TextList(label="list of addresses or CIDR ranges"),
        "Addresses counted as public: reachable from anywhere, and the links "
        "found there are public too (tests make a loopback address play a "
        "public site with it).",
        own=True,
    ),
    Property(
        "file.content.limit",
        "1048576",
        Integer(label="int (bytes)"),
        "Bytes of a file: URL's content kept; -1: no limit. file: URLs are "
        "fetched only when `protocol-file` is in `plugin.includes`.",
    ),
    Property(
        "file.crawl.parent",
        "true",
        BOOLEAN,
        "A directory listing of a file: URL links its parent directory.",
    ),
    Property(
        "file.crawl.redirect_noncanonical",
        "true",
        BOOLEAN,
        "A file: URL that is not the file's canonical path (a symbolic link, "
        "`..`) is a redirect to the canonical one.",
    ),
)

ROBOTS = (
    Property(
        "http.robots.agents",
        "",
        TEXT_LIST,
        "More agent names matched against robots.txt groups, after "
        "`http.agent.name` (`*` is ignored: every crawler obeys the `*` group).",
    ),
    Property(
        "http.robots.403.allow",
        "true",
        BOOLEAN,
        "A robots.txt that answers 403 allows everything (true) or nothing.",
    ),
    Property(
        "http.robots.503.defer.visits",
        "true",
        BOOLEAN,
        "A robots.txt answering 5xx or 429 defers the host's pages (they are "
        "tried again later in the fetch) instead of allowing everything.",
    ),
    Property(
        "http.robots.503.defer.visits.delay",
        "300000",
        Integer(label="int (ms)"),
        "How long a deferred host waits before its robots.txt is asked again.",
    ),
    Property(
        "http.robots.503.defer.visits.retries",
        "3",
        INTEGER,
        "How many times a host is deferred before its pages are given up for "
        "this fetch.",
    ),
    Property(
        "http.robots.redirect.max",
        "5",
        INTEGER,
        "Redirects followed to read a robots.txt. beamcrawl normalizes and "
        "filters their targets (Nutch follows them unfiltered).",
    ),
    Property(
        "http.robot.rules.allowlist",
        "",
        TEXT_LIST,
        "Hosts whose robots.txt is not read (everything allowed): for sites "
        "you run yourself.",
    ),
    Property(
        "http.robots.unreachable.allow",
        "false",
        Boolean(),
        "A robots.txt that cannot be reached (connection refused or reset, "
        "timeout): true allows everything, as Nutch does; false (the default) "
        "fetches nothing of the host until it can be read, as RFC 9309 says.",
        own=True,
        why="a host that resets one connection would otherwise be crawled "
        "without its rules",
    ),
)

AREAS = (
    ("Agent, HTTP and file: URLs", AGENT_AND_HTTP),
    ("robots.txt", ROBOTS),
)
