"""robots.txt rules: what a robots.txt says for our agent names, and matching.

crawler-commons 1.5 (``SimpleRobotRulesParser`` / ``SimpleRobotRules``) as
Nutch 1.x uses it (nutch-semantics §6.7), which follows RFC 9309.
:func:`parse_robots` picks the groups for our agent names and merges them
into one list of Allow/Disallow lines; protego matches URLs against that
list (longest rule first, Allow wins a tie, ``*`` and a final ``$``,
percent-encoding normalised on both sides). Fetching and caching are in
:mod:`crawllib.fetch.protocol.robots`.

Group selection, which protego's single best-matching group cannot express,
follows crawler-commons' state machine over the lines:

* Our names are lowercased, ``*`` and empty names dropped (Nutch does so
  before it calls crawler-commons).
* A ``User-agent`` value matches when, lowercased, it equals one of our names,
  or when it is not a bare product token (``[a-zA-Z_-]+``) and its leading
  token equals one (``MyBot/1.0`` matches ``mybot``; ``mybotx`` does not).
* The rules of every group matching one of our names are merged, in file
  order. ``*`` groups are used only while no such group was seen: the first
  named match drops the ``*`` rules and Crawl-delay collected before it.
* A group ends at a ``User-agent`` line that follows an Allow or Disallow
  line (Crawl-delay, Sitemap and unknown lines do not end the run of agent
  lines).
* An empty ``Disallow:`` or ``Allow:`` matches nothing and is ignored
  (RFC 9309): the rules around it stand.
* A ``Crawl-delay`` line applies to the matching agent lines since the
  previous Crawl-delay line of the group: in ``User-agent: a`` /
  ``Crawl-delay: 10`` / ``User-agent: b`` / ``Crawl-delay: 2``, ``a`` gets
  10 s and ``b`` 2 s although both share the group's rules. Several delays
  for our names: the shortest; a named group's delay beats the ``*`` one.
* Sitemaps are collected from the whole file, resolved against the URL the
  robots.txt came from, duplicates dropped; lines ``http:...sitemap...``
  (and ``https:``) count as Sitemap lines.
* Misspelt directives crawler-commons knows (``useragent``, ``dissallow``,
  ``crawl delay``, ``sitemaps``, ...) are read as the directive.
* An HTML body with no ``user-agent:`` allows all; with one, tags are removed.

protego reads ``Allow: /d/index.html`` as allowing ``/d/`` too, as Google
and crawler-commons 1.4+ do. Where beamcrawl departs from crawler-commons:
``/robots.txt`` is allowed whatever its query (protego); a Crawl-delay above
crawler-commons' 300 s does not forbid the host here
(``fetcher.max.crawl.delay`` decides, as with StormCrawler's parser); a bare
``https:`` sitemap line keeps its scheme. ``tests/crawllib/fetch/protocol/
test_robotrules_crawlercommons.py`` runs crawler-commons' own test vectors.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from protego import Protego

from crawllib.java import java_trim, parse_int

_AGENT = "beamcrawl"  # the merged rules sit in one "*" group: any name matches


@dataclass(frozen=True, slots=True)
class Rule:
    """One Allow or Disallow line of the selected groups, path as written."""

    allow: bool
    path: str


@dataclass(frozen=True, slots=True)
class RobotRules:
    """The rules for our agent names on one host (crawler-commons SimpleRobotRules).

    Attributes:
        rules: the merged Allow/Disallow lines, in file order; none = allow all.
        crawl_delay_s: ``Crawl-delay`` in seconds, None if not given. Values
            <= 0 mean no delay (Nutch applies it only when > 0).
        sitemaps: absolute ``Sitemap`` URLs, in file order, each once.
        forbid_all: deny every URL, /robots.txt included (crawler-commons
            ALLOW_NONE, used for a 403 with ``http.robots.403.allow=false``).
    """

    rules: tuple[Rule, ...] = ()
    crawl_delay_s: float | None = None
    sitemaps: tuple[str, ...] = ()
    forbid_all: bool = False
    _matcher: Protego | None = field(
        default=None, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if self.rules:
            lines = [
                f"{'Allow' if r.allow else 'Disallow'}: {r.path}" for r in self.rules
            ]
            text = "User-agent: *\n" + "\n".join(lines) + "\n"
            matcher = Protego.parse(text)
            matcher.can_fetch("/", _AGENT)  # build protego's lazy state before sharing
            object.__setattr__(self, "_matcher", matcher)

    def allowed(self, url: str) -> bool:
        """Whether ``url`` may be fetched; its path and query are matched."""
        if self.forbid_all:
            return False
        if self._matcher is None:
            return True
        return self._matcher.can_fetch(url, _AGENT)


ALLOW_ALL = RobotRules()
"""No robots.txt, or one that could not be read: everything is allowed."""

FORBID_ALL = RobotRules(forbid_all=True)
"""Everything is denied (robots.txt 403 with ``http.robots.403.allow=false``)."""


_USER_AGENT, _DISALLOW, _ALLOW, _DELAY, _SITEMAP, _HTTP, _HTTPS = range(7)
_SPELLINGS = {  # crawler-commons' directive names and the typos it takes
    _USER_AGENT: "user-agent useragent useg-agent ser-agent users-agent "
    "user_agent user-agnet user-agents",
    _DISALLOW: "disallow desallow dissallow dissalow disalow dssalow dsallow "
    "diasllow disallaw diallow disallows disllow",
    _ALLOW: "allow",
    _DELAY: "crawl-delay crawl_delay clawl-delay craw-delay crawl-deley",
    _SITEMAP: "sitemap sitemaps",
    _HTTP: "http",
    _HTTPS: "https",
}
_PREFIXES = tuple(  # "_" stands for a blank inside a name
    (name.replace("_", " "), directive)
    for directive, names in _SPELLINGS.items()
    for name in names.split()
)
_COLON_VALUE = re.compile(r"[ \t]*:[ \t]*(.*)", re.DOTALL)
_BLANK_VALUE = re.compile(r"[ \t]+(.*)", re.DOTALL)
_LINE_BREAKS = re.compile("[\n\r\x85\u2028\u2029]")
_HTML = re.compile(r"<(html|head|body)\s*>", re.IGNORECASE | re.DOTALL)
_HAS_USER_AGENT = re.compile("user-agent:", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
_PRODUCT_TOKEN = re.compile(r"[a-zA-Z_-]+")


def parse_robots(
    content: bytes,
    agents: Sequence[str],
    content_type: str | None = None,
    base_url: str = "",
) -> RobotRules:
    """Parse a robots.txt body for ``agents`` (crawler-commons parseContent).

    Args:
        content: the body; decoded as UTF-8 (or by its BOM), bad bytes replaced.
        agents: our agent names (lowercased here, ``*`` dropped); none: only
            ``*`` groups.
        content_type: the response's Content-Type (HTML is handled specially).
        base_url: the robots.txt URL, for relative Sitemap values.
    """
    text = _decode(content)
    has_html = (content_type or "").lower().startswith("text/html") or bool(
        _HTML.search(text)
    )
    if not text or (has_html and not _HAS_USER_AGENT.search(text)):
        return ALLOW_ALL
    names = frozenset(a.lower() for a in agents) - {"*", ""}
    selector = _GroupSelector(names)
    sitemaps: dict[str, None] = {}  # ordered, without duplicates
    for raw in _LINE_BREAKS.split(text):
        line = _TAG.sub("", raw) if has_html else raw
        token = _tokenize(java_trim(line.split("#", 1)[0]))
        if token is None:
            continue
        directive, value = token
        if directive == _SITEMAP:
            _add_sitemap(sitemaps, base_url, value)
        elif directive in (_HTTP, _HTTPS):
            if "sitemap" in value:  # a Sitemap line that lost its "Sitemap:"
                scheme = "https" if directive == _HTTPS else "http"
                _add_sitemap(sitemaps, base_url, f"{scheme}:{value}")
        else:
            selector.feed(directive, value)
    return RobotRules(tuple(selector.rules), selector.delay_s, tuple(sitemaps))


def _decode(content: bytes) -> str:
    if content.startswith(b"\xef\xbb\xbf"):
        return content[3:].decode("utf-8", "replace")
    if content.startswith(b"\xff\xfe"):
        return content[2:].decode("utf-16-le", "replace")
    if content.startswith(b"\xfe\xff"):
        return content[2:].decode("utf-16-be", "replace")
    return content.decode("utf-8", "replace")


def _tokenize(line: str) -> tuple[int, str] | None:
    """The directive and trimmed value of a line; None for blank or other lines.

    At most one spelling is followed by a separator, so the order of
    :data:`_PREFIXES` does not matter (crawler-commons tries its HashMap's).
    """
    lower = line.lower()
    for prefix, directive in _PREFIXES:
        if lower.startswith(prefix):
            rest = line[len(prefix) :]
            match = _COLON_VALUE.fullmatch(rest) or _BLANK_VALUE.fullmatch(rest)
            if match:
                return directive, java_trim(match.group(1))
    return None


def _add_sitemap(sitemaps: dict[str, None], base_url: str, value: str) -> None:
    try:
        url = urljoin(base_url, value) if base_url else value
        if urlsplit(url).hostname:
            sitemaps[url] = None
    except ValueError:
        pass  # crawler-commons drops an unparsable Sitemap value too


class _GroupSelector:
    """crawler-commons' ParseState: which lines apply to our agent names."""

    def __init__(self, agents: frozenset[str]) -> None:
        self._agents = agents
        self._matched_name = False
        self._matched_wildcard = False
        self._adding = False
        self._adding_delay = False  # agent lines matched since the last delay
        self._after_rules = False  # an Allow/Disallow line ended the agent lines
        self._delay_ms: int | None = None
        self._named_delay = False  # the delay was set while a named group matched
        self.rules: list[Rule] = []

    @property
    def delay_s(self) -> float | None:
        return None if self._delay_ms is None else self._delay_ms / 1000

    def feed(self, directive: int, value: str) -> None:
        if directive == _USER_AGENT:
            self._user_agent(value.lower())
        elif directive in (_ALLOW, _DISALLOW):
            self._after_rules = True
            if self._adding and value:  # an empty path matches nothing
                self.rules.append(Rule(directive == _ALLOW, value))
        elif directive == _DELAY:
            if self._adding_delay:
                self._set_delay(_delay_ms(value))
            self._adding_delay = False

    def _set_delay(self, delay_ms: int | None) -> None:
        """crawler-commons ParseState.setCrawlDelay: the shortest, named first."""
        if delay_ms is None:
            return
        shorter = self._delay_ms is None or delay_ms < self._delay_ms
        if self._matched_name:
            if shorter or not self._named_delay:
                self._delay_ms = delay_ms
            self._named_delay = True
        elif shorter:
            self._delay_ms = delay_ms

    def _user_agent(self, name: str) -> None:
        if self._adding and self._after_rules:
            self._adding = self._adding_delay = False
        self._after_rules = False
        if not name:
            return
        if name == "*":
            if not self._matched_name:
                self._matched_wildcard = self._adding = self._adding_delay = True
        elif name in self._agents or self._token_match(name):
            if self._matched_wildcard:
                self.rules.clear()
                self._delay_ms = None
            self._matched_name = self._adding = self._adding_delay = True
            self._matched_wildcard = False

    def _token_match(self, name: str) -> bool:
        if _PRODUCT_TOKEN.fullmatch(name):
            return False
        token = _PRODUCT_TOKEN.match(name)
        return token is not None and token.group() in self._agents


_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _delay_ms(value: str) -> int | None:
    """A Crawl-delay value in ms as crawler-commons reads it; None if unreadable.

    With a ``.`` it is a decimal (rounded to ms), otherwise a Java int.
    """
    if "." in value:
        if not _DECIMAL.fullmatch(value):
            return None
        delay = float(value) * 1000
        return math.floor(delay + 0.5) if math.isfinite(delay) else None
    delay_s = parse_int(value)
    return None if delay_s is None else delay_s * 1000
