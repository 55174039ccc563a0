"""robots.txt rules: what a robots.txt says for our agent names, and matching.

crawler-commons 1.x (``SimpleRobotRulesParser`` / ``SimpleRobotRules``) as
Nutch 1.x uses it (nutch-semantics §6.7). :func:`parse_robots` picks the
groups for our agent names and merges them into one list of Allow/Disallow
lines (RFC 9309); protego matches URLs against that list (longest rule first,
Allow wins a tie, ``*`` and a final ``$``, percent-encoding normalised on both
sides). Fetching and caching are in :mod:`crawllib.protocol.robots`.

Group selection, which protego's single best-matching group cannot express,
follows crawler-commons' state machine over the lines:

* A ``User-agent`` value matches when, lowercased, it equals one of our names,
  or when it is not a bare product token (``[a-zA-Z_-]+``) and its leading
  token equals one (``MyBot/1.0`` matches ``mybot``; ``mybotx`` does not).
* The rules of every group matching one of our names are merged, in file
  order. ``*`` groups are used only while no such group was seen: the first
  named match drops the ``*`` rules and Crawl-delay collected before it.
* A group ends at a ``User-agent`` line that follows an Allow or Disallow
  line (a Crawl-delay line does not end the run of agent lines).
* An empty ``Disallow:`` or ``Allow:`` drops the rules collected so far.
* The Crawl-delay is the shortest of the selected groups', None if none.
* Sitemaps are collected from the whole file, resolved against the URL the
  robots.txt came from; lines ``http:...sitemap...`` count as Sitemap lines.
* An HTML body with no ``user-agent:`` allows all; with one, tags are removed.

Where protego's matching differs from crawler-commons: ``Allow: /d/index.html``
also allows ``/d/`` (as Google does), and ``/robots.txt`` is allowed whatever
its query.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from protego import Protego

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
        sitemaps: absolute ``Sitemap`` URLs, in file order.
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


_USER_AGENT, _DISALLOW, _ALLOW, _DELAY, _SITEMAP, _HTTP = range(6)
_PREFIXES = (
    ("user-agent", _USER_AGENT),
    ("useragent", _USER_AGENT),
    ("useg-agent", _USER_AGENT),
    ("ser-agent", _USER_AGENT),
    ("disallow", _DISALLOW),
    ("desallow", _DISALLOW),
    ("dissalow", _DISALLOW),
    ("dssalow", _DISALLOW),
    ("dsallow", _DISALLOW),
    ("allow", _ALLOW),
    ("crawl-delay", _DELAY),
    ("crawl delay", _DELAY),
    ("sitemap", _SITEMAP),
    ("http", _HTTP),
)
_COLON_VALUE = re.compile(r"[ \t]*:[ \t]*(.*)", re.DOTALL)
_BLANK_VALUE = re.compile(r"[ \t]+(.*)", re.DOTALL)
_LINE_BREAKS = re.compile("[\n\r\x85\u2028\u2029]")
_HTML = re.compile(r"<(html|head|body)\s*>", re.IGNORECASE | re.DOTALL)
_HAS_USER_AGENT = re.compile("user-agent:", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
_PRODUCT_TOKEN = re.compile(r"[a-zA-Z_-]+")
_JAVA_SPACE = "".join(chr(c) for c in range(0x21))  # what Java's trim() removes


def parse_robots(
    content: bytes,
    agents: Sequence[str],
    content_type: str | None = None,
    base_url: str = "",
) -> RobotRules:
    """Parse a robots.txt body for ``agents`` (crawler-commons parseContent).

    Args:
        content: the body; decoded as UTF-8 (or by its BOM), bad bytes replaced.
        agents: our agent names (lowercased here); none: only ``*`` groups.
        content_type: the response's Content-Type (HTML is handled specially).
        base_url: the robots.txt URL, for relative Sitemap values.
    """
    text = _decode(content)
    has_html = (content_type or "").lower().startswith("text/html") or bool(
        _HTML.search(text)
    )
    if not text or (has_html and not _HAS_USER_AGENT.search(text)):
        return ALLOW_ALL
    selector = _GroupSelector(frozenset(a.lower() for a in agents))
    sitemaps: list[str] = []
    for raw in _LINE_BREAKS.split(text):
        line = _TAG.sub("", raw) if has_html else raw
        token = _tokenize(line.split("#", 1)[0].strip(_JAVA_SPACE))
        if token is None:
            continue
        directive, value = token
        if directive == _SITEMAP or (directive == _HTTP and "sitemap" in value):
            sitemap = value if directive == _SITEMAP else "http:" + value
            _add_sitemap(sitemaps, base_url, sitemap)
        elif directive != _HTTP:
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
    """The directive and trimmed value of a line; None for blank or other lines."""
    lower = line.lower()
    for prefix, directive in _PREFIXES:
        if lower.startswith(prefix):
            rest = line[len(prefix) :]
            match = _COLON_VALUE.fullmatch(rest) or _BLANK_VALUE.fullmatch(rest)
            if match:
                return directive, match.group(1).strip(_JAVA_SPACE)
    return None


def _add_sitemap(sitemaps: list[str], base_url: str, value: str) -> None:
    try:
        url = urljoin(base_url, value) if base_url else value
        if urlsplit(url).hostname:
            sitemaps.append(url)
    except ValueError:
        pass  # crawler-commons drops an unparsable Sitemap value too


class _GroupSelector:
    """crawler-commons' ParseState: which lines apply to our agent names."""

    def __init__(self, agents: frozenset[str]) -> None:
        self._agents = agents
        self._matched_name = False
        self._matched_wildcard = False
        self._adding = False
        self._after_rules = False  # an Allow/Disallow line ended the agent lines
        self._delay_ms: int | None = None
        self.rules: list[Rule] = []

    @property
    def delay_s(self) -> float | None:
        return None if self._delay_ms is None else self._delay_ms / 1000

    def feed(self, directive: int, value: str) -> None:
        if directive == _USER_AGENT:
            self._user_agent(value.lower())
        elif directive in (_ALLOW, _DISALLOW):
            self._after_rules = True
            if self._adding:
                if value:
                    self.rules.append(Rule(directive == _ALLOW, value))
                else:
                    self.rules.clear()
        elif directive == _DELAY and self._adding:
            delay_ms = _delay_ms(value)
            if delay_ms is not None and (
                self._delay_ms is None or delay_ms < self._delay_ms
            ):
                self._delay_ms = delay_ms

    def _user_agent(self, name: str) -> None:
        if self._adding and self._after_rules:
            self._adding = False
        self._after_rules = False
        if not name:
            return
        if name == "*" and not self._matched_name:
            self._matched_wildcard = self._adding = True
        elif name in self._agents or self._token_match(name):
            if self._matched_wildcard:
                self.rules.clear()
                self._delay_ms = None
            self._matched_name = self._adding = True
            self._matched_wildcard = False

    def _token_match(self, name: str) -> bool:
        if _PRODUCT_TOKEN.fullmatch(name):
            return False
        token = _PRODUCT_TOKEN.match(name)
        return token is not None and token.group() in self._agents


_INT = re.compile(r"[+-]?\d+")
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
    if not _INT.fullmatch(value):
        return None
    try:
        delay_s = int(value)
    except ValueError:  # more digits than int() takes: out of range anyway
        return None
    return delay_s * 1000 if -(2**31) <= delay_s < 2**31 else None
