"""Plugins, URL normalizers and URL filters."""

from __future__ import annotations

from crawllib.config.plugins import NUTCH_URL_CLASSES
from crawllib.config.schema import (
    BOOLEAN,
    INTEGER,
    Boolean,
    Choice,
    ClassNames,
    Pattern,
    Property,
    Text,
)

NORMALIZER_SCOPES = (
    "default",
    "partition",
    "generate_host_count",
    "fetcher",
    "crawldb",
    "linkdb",
    "inject",
    "outlink",
    "indexer",
)
"""Where URLs are normalized; each may have its own regex-normalize file."""

_FILE = Text(label="file")


def _classes(prefix: str) -> tuple[str, ...]:
    """Simple names of Nutch's URL classes whose plugin id starts with ``prefix``."""
    return tuple(
        sorted(
            name
            for name, plugin in NUTCH_URL_CLASSES.items()
            if plugin.startswith(prefix)
        )
    )


PLUGINS = (
    Property(
        "plugin.includes",
        "protocol-http|urlfilter-regex|parse-(html|tika)|index-(basic|anchor)"
        "|indexer-solr|scoring-opic|urlnormalizer-(pass|regex|basic)",
        Pattern(),
        "The active Nutch plugins: a regex that a plugin id must match whole. "
        "beamcrawl runs its own URL filters and normalizers by it, fetches "
        "file: URLs only with `protocol-file`, and indexes anchors and the "
        "OPIC boost with `index-anchor` and `scoring-opic`; other plugins are "
        "built in or do not apply. Selecting a URL plugin beamcrawl does not "
        'have stops the job (see "Configuration" in the docs).',
    ),
    Property(
        "plugin.excludes",
        "",
        Pattern(),
        "Plugins turned off even if `plugin.includes` selects them (a regex "
        "matched whole); empty: none.",
    ),
)

_NORMALIZER_ORDER = (
    "org.apache.nutch.net.urlnormalizer.basic.BasicURLNormalizer"
    " org.apache.nutch.net.urlnormalizer.regex.RegexURLNormalizer"
)

NORMALIZERS = (
    Property(
        "urlnormalizer.order",
        _NORMALIZER_ORDER,
        ClassNames(values=_classes("urlnormalizer-"), what="URL normalizer"),
        "The order active normalizers run in (Nutch class names, full or "
        "simple); active ones it does not name follow.",
    ),
    Property(
        "urlnormalizer.loop.count",
        "1",
        INTEGER,
        "How many times the normalizer chain runs over a URL while it changes; "
        "at least 1.",
    ),
    Property(
        "urlnormalizer.regex.file",
        "regex-normalize.xml",
        _FILE,
        "The regex normalizer's rules: a file looked up as given, then next to "
        "the `--conf` file, then among the bundled ones (Nutch's rules).",
    ),
    *(
        Property(
            f"urlnormalizer.regex.file.{scope}",
            "",
            _FILE,
            f"The regex normalizer's rules for the `{scope}` scope only; empty: "
            "`urlnormalizer.regex.file`.",
        )
        for scope in NORMALIZER_SCOPES
    ),
    Property(
        "urlnormalizer.basic.host.idn",
        "",
        Choice(values=("", "toAscii", "toUnicode")),
        "The basic normalizer writes international host names in ASCII "
        "(punycode) or Unicode; empty: as they are.",
    ),
    Property(
        "urlnormalizer.basic.host.idna2008",
        "false",
        BOOLEAN,
        "Convert host names by IDNA 2008 rather than IDNA 2003.",
    ),
    Property(
        "urlnormalizer.basic.host.trim-trailing-dot",
        "false",
        Boolean(),
        "Drop a trailing dot of the host name (`example.com.`).",
    ),
)

_FILTER_FILES = {
    "regex": "`+`/`-` regex rules, the first match decides",
    "domain": "hosts, domains or suffixes to keep (an empty list keeps all)",
    "domaindenylist": "hosts, domains or suffixes to drop",
    "prefix": "URL prefixes to keep",
    "suffix": "URL suffixes to keep or drop",
}

FILTERS = (
    *(
        prop
        for name, what in _FILTER_FILES.items()
        for prop in (
            Property(
                f"urlfilter.{name}.file",
                f"{name}-urlfilter.txt",
                _FILE,
                f"urlfilter-{name}'s rules ({what}): a file looked up as given, "
                "then next to the `--conf` file, then among the bundled ones.",
            ),
            Property(
                f"urlfilter.{name}.rules",
                "",
                Text(label="rules text"),
                f"urlfilter-{name}'s rules inline; set, they win over "
                f"`urlfilter.{name}.file`.",
            ),
        )
    ),
    Property(
        "urlfilter.order",
        "",
        ClassNames(values=_classes("urlfilter-"), what="URL filter"),
        "The URL filters that run, in this order (Nutch class names); empty: "
        "every active filter, cheap ones first (validator, prefix, suffix, "
        "domain, domaindenylist, regex).",
    ),
)

AREAS = (
    ("Plugins", PLUGINS),
    ("URL normalizers", NORMALIZERS),
    ("URL filters", FILTERS),
)
