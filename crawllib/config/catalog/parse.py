"""Parsing: HTML, charsets, outlinks, link rules and signatures."""

from __future__ import annotations

from crawllib.config.schema import (
    BOOLEAN,
    INTEGER,
    NUMBER,
    TEXT,
    TEXT_LIST,
    Choice,
    ClassName,
    Number,
    Property,
    Text,
)

_LINE_SEPARATORS = (
    "article,aside,blockquote,canvas,dd,div,dl,dt,fieldset,figcaption,figure,"
    "footer,form,h1,h2,h3,h4,h5,h6,header,hr,li,main,nav,noscript,ol,output,"
    "p,pre,section,table,tfoot,ul,video"
)

PARSE = (
    Property(
        "parser.character.encoding.default",
        "windows-1252",
        TEXT,
        "The charset of a page that declares none (no BOM, header or meta) "
        "and is not valid UTF-8; beamcrawl reads an undeclared page that is "
        "valid UTF-8 as UTF-8, where Nutch uses this.",
    ),
    Property(
        "encodingdetector.charset.min.confidence",
        "-1",
        INTEGER,
        "The confidence (0-100) a charset detector's guess needs for an "
        "undeclared page; negative: no detector. A page's declaration still "
        "wins over the detector (in Nutch the guess can outvote it).",
    ),
    Property(
        "parser.caching.forbidden.policy",
        "content",
        TEXT,
        "The value recorded as `caching.forbidden` for a page whose robots "
        "meta says `noarchive`/`nocache`.",
    ),
    Property(
        "parser.html.impl",
        "neko",
        TEXT,
        "Nutch's choice of HTML DOM builder (neko or tagsoup). Accepted; "
        "beamcrawl's DOM is always libxml2's.",
        used=False,
    ),
    Property(
        "parser.html.form.use_action",
        "false",
        BOOLEAN,
        "Take a `<form action>` as an outlink. Set explicitly, it keeps forms' "
        "links even when `form` is among the ignored tags, as in Nutch.",
    ),
    Property(
        "parser.html.outlinks.ignore_tags",
        "",
        TEXT_LIST,
        "Tags whose links are not taken as outlinks (`img`, `script`, `form` ...).",
    ),
    Property(
        "parser.html.outlinks.htmlnode_metadata_name",
        "",
        TEXT,
        "Nutch records the tag each outlink came from under this metadata "
        "name. Accepted; beamcrawl's outlinks carry no metadata.",
        used=False,
    ),
    Property(
        "parser.html.line.separators",
        _LINE_SEPARATORS,
        TEXT_LIST,
        "Elements that end a line in a page's text (block elements).",
    ),
    Property(
        "parser.timeout",
        "30",
        Number(label="float (s)"),
        "Seconds one page may take to parse; a slower parse is stopped and "
        "the page fails to parse. 0 or less: no limit.",
    ),
    Property(
        "parse.filter.urls",
        "true",
        BOOLEAN,
        "Run the URL filters over outlinks.",
    ),
    Property(
        "parse.normalize.urls",
        "true",
        BOOLEAN,
        "Normalize outlinks (scope `outlink`).",
    ),
    Property(
        "parse.link.policy",
        "",
        Text(label="spec (package.module:name or file.py:name)"),
        "A link policy deciding which outlinks are kept, and as what URL: a "
        "`LinkPolicy`, its class, or a function of a `Link`, named as "
        "`package.module:name` or `path/file.py:name` (`--linkPolicy` sets "
        "it). Empty: the `db.ignore.*` rules, as in Nutch.",
        own=True,
    ),
    Property(
        "parser.skip.truncated",
        "true",
        BOOLEAN,
        "Do not parse a page whose content was cut (by `http.content.limit` "
        "or a timeout); it is recorded as fetched but not parsed.",
    ),
    Property(
        "parser.processes",
        "-1",
        INTEGER,
        "Worker processes that parse beside the job; 0: parse in the job's "
        "own threads; -1: the job chooses (one per core on the local runner, "
        "none elsewhere).",
        own=True,
    ),
    Property(
        "parser.delete.failed.parse",
        "false",
        BOOLEAN,
        "Nutch can mark pages that failed to parse in the crawldb. Accepted; "
        "beamcrawl records the parse status with the page and changes "
        "nothing else.",
        used=False,
    ),
    Property(
        "mime.type.magic",
        "true",
        BOOLEAN,
        "Nutch lets Tika guess a type from the content's first bytes. "
        "Accepted; beamcrawl's choice of parser does not read it.",
        used=False,
    ),
)

LINKS = (
    Property(
        "db.max.outlinks.per.page",
        "100",
        INTEGER,
        "Outlinks kept per page; negative: all.",
    ),
    Property(
        "db.max.outlink.length",
        "4096",
        INTEGER,
        "Longer outlinks (and redirect targets) are dropped; negative: any length.",
    ),
    Property(
        "db.ignore.internal.links",
        "false",
        BOOLEAN,
        "Drop outlinks to the page's own host (or domain, by "
        "`db.ignore.external.links.mode`).",
    ),
    Property(
        "db.ignore.external.links",
        "false",
        BOOLEAN,
        "Drop outlinks to other hosts (or domains): keeps a crawl on its seeds' sites.",
    ),
    Property(
        "db.ignore.external.links.mode",
        "byHost",
        Choice(values=("byHost", "byDomain")),
        "Whether `db.ignore.*` compares hosts or domains.",
    ),
    Property(
        "db.ignore.also.redirects",
        "true",
        BOOLEAN,
        "Apply the `db.ignore.*` rules to redirect targets too.",
    ),
)

SIGNATURES = (
    Property(
        "db.signature.class",
        "org.apache.nutch.crawl.MD5Signature",
        ClassName(values=("MD5Signature", "TextMD5Signature", "TextProfileSignature")),
        "How a page's signature (for dedup and not-modified) is computed: MD5 "
        "of the content, MD5 of the text, or TextProfileSignature's profile "
        "of the text's frequent words.",
    ),
    Property(
        "db.signature.text_profile.min_token_len",
        "2",
        INTEGER,
        "TextProfileSignature: shorter words are left out.",
    ),
    Property(
        "db.signature.text_profile.quant_rate",
        "0.01",
        NUMBER,
        "TextProfileSignature: word counts are rounded to this fraction of the "
        "highest count.",
    ),
    Property(
        "db.signature.text_profile.sec_sort_lex",
        "true",
        BOOLEAN,
        "TextProfileSignature: words of equal count are sorted alphabetically.",
    ),
)

AREAS = (
    ("Parsing", PARSE),
    ("Outlinks: limits and db.ignore", LINKS),
    ("Signatures", SIGNATURES),
)
