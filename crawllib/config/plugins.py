"""Nutch's plugin ids and what beamcrawl does when ``plugin.includes`` selects one.

``plugin.includes`` is a regex over plugin ids (Nutch's ``PluginRepository``
keeps a plugin when its id matches it whole and does not match
``plugin.excludes``). beamcrawl matches it against :data:`NUTCH_PLUGINS`, the
ids of Nutch 1.x (up to 1.22) and 2.x, each classified as one of
:class:`Support`:

- ``IMPLEMENTED``: beamcrawl runs its own port of the plugin (the URL filters
  and normalizers below);
- ``ACCEPTED``: beamcrawl has an equivalent built in (``protocol-http``,
  ``parse-html``, ``scoring-opic`` ...) or the plugin does not apply to it
  (indexing, index writers, libraries, parse filters, other scoring filters):
  selecting it changes nothing, so it is accepted;
- ``MISSING``: a plugin that would change which URLs are kept or how they
  look, which beamcrawl does not have. Selecting one is a
  :class:`~crawllib.errors.ConfigError`, since the crawl would quietly differ
  from Nutch's.

A literal alternative of ``plugin.includes`` that names an unknown
``urlfilter-*`` or ``urlnormalizer-*`` plugin (a third-party one) is rejected
too.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable

from crawllib.errors import ConfigError


class Support(enum.Enum):
    """What beamcrawl does with a Nutch plugin that ``plugin.includes`` selects."""

    IMPLEMENTED = "implemented"
    ACCEPTED = "accepted"
    MISSING = "missing"


_IMPLEMENTED = (
    "urlfilter-domain",
    "urlfilter-domaindenylist",
    "urlfilter-prefix",
    "urlfilter-regex",
    "urlfilter-suffix",
    "urlfilter-validator",
    "urlnormalizer-basic",
    "urlnormalizer-pass",  # passes every URL on unchanged
    "urlnormalizer-regex",
)
_MISSING = (
    "scoring-depth",  # drops the outlinks of pages deeper than scoring.depth.max
    "scoring-orphan",  # marks pages without inlinks gone
    "urlfilter-automaton",
    "urlfilter-domainblacklist",  # urlfilter-domaindenylist's former name
    "urlfilter-fast",
    "urlfilter-ignoreexempt",
    "urlnormalizer-ajax",
    "urlnormalizer-host",
    "urlnormalizer-protocol",
    "urlnormalizer-querystring",
    "urlnormalizer-slash",
)
# beamcrawl has these built in (fetcher, parser, OPIC scoring), or they act on
# what beamcrawl does not do (indexing) or only add data to records.
_ACCEPTED = (
    "any23",
    "creativecommons",
    "exchange-jexl",
    "feed",
    "headings",
    "index-anchor",
    "index-arbitrary",
    "index-basic",
    "index-geoip",
    "index-jexl-filter",
    "index-links",
    "index-metadata",
    "index-more",
    "index-replace",
    "index-static",
    "indexer-cloudsearch",
    "indexer-csv",
    "indexer-dummy",
    "indexer-elastic",
    "indexer-elastic-rest",
    "indexer-kafka",
    "indexer-opensearch-1x",
    "indexer-rabbit",
    "indexer-solr",
    "language-identifier",
    "lib-htmlunit",
    "lib-http",
    "lib-nekohtml",
    "lib-rabbitmq",
    "lib-regex-filter",
    "lib-selenium",
    "lib-xml",
    "microformats-reltag",
    "mimetype-filter",
    "nutch-extensionpoints",
    "parse-ext",
    "parse-html",
    "parse-js",
    "parse-metatags",
    "parse-swf",
    "parse-tika",
    "parse-zip",
    "parsefilter-debug",
    "parsefilter-naivebayes",
    "parsefilter-regex",
    "protocol-file",
    "protocol-foo",
    "protocol-ftp",
    "protocol-htmlunit",
    "protocol-http",
    "protocol-httpclient",
    "protocol-interactiveselenium",
    "protocol-okhttp",
    "protocol-selenium",
    "protocol-sftp",
    "publish-rabbitmq",
    "scoring-adaptive",
    "scoring-link",
    "scoring-metadata",
    "scoring-opic",
    "scoring-similarity",
    "subcollection",
    "tld",
    "urlmeta",
)

NUTCH_PLUGINS: dict[str, Support] = {
    **dict.fromkeys(_ACCEPTED, Support.ACCEPTED),
    **dict.fromkeys(_IMPLEMENTED, Support.IMPLEMENTED),
    **dict.fromkeys(_MISSING, Support.MISSING),
}
"""Every Nutch 1.x/2.x plugin id, with what beamcrawl does when it is selected."""

NUTCH_URL_CLASSES: dict[str, str] = {
    "RegexURLFilter": "urlfilter-regex",
    "DomainURLFilter": "urlfilter-domain",
    "DomainDenylistURLFilter": "urlfilter-domaindenylist",
    "DomainBlacklistURLFilter": "urlfilter-domainblacklist",
    "PrefixURLFilter": "urlfilter-prefix",
    "SuffixURLFilter": "urlfilter-suffix",
    "UrlValidator": "urlfilter-validator",
    "AutomatonURLFilter": "urlfilter-automaton",
    "FastURLFilter": "urlfilter-fast",
    "ExemptionUrlFilter": "urlfilter-ignoreexempt",
    "BasicURLNormalizer": "urlnormalizer-basic",
    "RegexURLNormalizer": "urlnormalizer-regex",
    "PassURLNormalizer": "urlnormalizer-pass",
    "AjaxURLNormalizer": "urlnormalizer-ajax",
    "HostURLNormalizer": "urlnormalizer-host",
    "ProtocolURLNormalizer": "urlnormalizer-protocol",
    "QuerystringURLNormalizer": "urlnormalizer-querystring",
    "SlashURLNormalizer": "urlnormalizer-slash",
}
"""Simple class names of Nutch's URL filters and normalizers, by plugin id.

These are the names ``urlfilter.order`` and ``urlnormalizer.order`` list.
"""

_URL_PLUGIN = re.compile(r"url(?:filter|normalizer)-[\w-]+")
_LITERAL = re.compile(r"[\w-]+")


def check_plugin_includes(includes: str, active: Callable[[str], bool]) -> None:
    """Reject a ``plugin.includes`` that selects a plugin beamcrawl lacks.

    Args:
        includes: the ``plugin.includes`` regex, as written.
        active: whether a plugin id is selected (matches ``plugin.includes``
            and not ``plugin.excludes``).

    Raises:
        ConfigError: one line naming the plugins (all of them) that
            ``plugin.includes`` selects and beamcrawl does not have.
    """
    missing = [
        plugin
        for plugin, support in NUTCH_PLUGINS.items()
        if support is Support.MISSING and active(plugin)
    ]
    if missing:
        them = "it" if len(missing) == 1 else "them"
        renamed = (
            " (urlfilter-domaindenylist is urlfilter-domainblacklist's new name)"
            if "urlfilter-domainblacklist" in missing
            else ""
        )
        raise ConfigError(
            f"plugin.includes selects {_join(sorted(missing))}, which beamcrawl "
            f"does not have: remove {them} from plugin.includes or match {them} "
            f"with plugin.excludes{renamed}"
        )
    unknown = [
        name
        for name in _literal_alternatives(includes)
        if name not in NUTCH_PLUGINS and _URL_PLUGIN.fullmatch(name) and active(name)
    ]
    if unknown:
        raise ConfigError(
            f"plugin.includes selects {_join(unknown)}, which is not a Nutch "
            "URL filter or normalizer that beamcrawl knows"
        )


def _literal_alternatives(pattern: str) -> list[str]:
    """The top-level ``|`` alternatives of ``pattern`` that are plain ids."""
    depth = 0
    start = 0
    escaped = False
    parts: list[str] = []
    for index, char in enumerate(pattern):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:index])
            start = index + 1
    parts.append(pattern[start:])
    return [part.strip() for part in parts if _LITERAL.fullmatch(part.strip())]


def _join(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]
