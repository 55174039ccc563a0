"""robots.txt for the fetcher: fetched once per host for a run, then cached.

Nutch 1.x ``RobotRulesParser`` / ``HttpRobotRulesParser`` (nutch-semantics
§6.7). :class:`RobotsCache` fetches ``/robots.txt`` once per
``scheme:host:port``, following redirects, and shares the answer between
threads; :func:`verdict_for` turns the last response into rules (parsed by
:mod:`crawllib.fetch.protocol.robotrules`), a :class:`Defer` or an
:class:`Unreachable`, and says whether the answer may be cached.

Where beamcrawl departs from Nutch, on purpose:

* A robots.txt that cannot be reached (connection refused or reset, a
  timeout, a body cut off) is :class:`Unreachable`: nothing of the host is
  fetched until it can be read, as RFC 9309 (2.3.1.4) asks; Nutch allows
  all. ``http.robots.unreachable.allow=true`` brings Nutch's rule back.
* Redirect targets go through the URL normalizers (scope ``fetcher``) and
  filters, and are fetched under the address policy with the zone of the
  address that redirected (:mod:`crawllib.urls.zone`): a robots.txt cannot lead
  the crawler to an internal address or a local file. A target refused
  either way ends the chain there, as a redirect without ``Location``.
"""

from __future__ import annotations

import ipaddress
import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TypeAlias
from urllib.parse import SplitResult, urlsplit

from crawllib.config.fetch import RobotsConfig
from crawllib.fetch.protocol import FetchResult, Protocol
from crawllib.fetch.protocol.robotrules import (
    ALLOW_ALL,
    FORBID_ALL,
    RobotRules,
    Rule,
    parse_robots,
)
from crawllib.status import ProtocolStatus
from crawllib.urls.cleaner import UrlCleaner
from crawllib.urls.zone import OPERATOR, Zone

__all__ = [
    "ALLOW_ALL",
    "FORBID_ALL",
    "Defer",
    "RobotRules",
    "RobotsCache",
    "RobotsVerdict",
    "Rule",
    "Unreachable",
    "parse_robots",
    "robots_key",
    "verdict_for",
]

_LOG = logging.getLogger(__name__)
_DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21}
_REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True, slots=True)
class Defer:
    """robots.txt answered 5xx or 429 and ``http.robots.503.defer.visits`` is on.

    The fetcher delays the host's queue by ``http.robots.503.defer.visits.delay``
    and asks again, at most ``...retries`` times, then drops the queue. Never
    cached, so the next lookup fetches robots.txt again.
    """

    http_code: int


@dataclass(frozen=True, slots=True)
class Unreachable:
    """robots.txt could not be read: no response, or its body broke off.

    RFC 9309: the crawler must assume complete disallow. The fetcher
    records the page's fetch as an EXCEPTION naming the cause (retried as
    any failed fetch, and counted against the host's queue); never cached.
    """

    message: str


RobotsVerdict: TypeAlias = RobotRules | Defer | Unreachable
"""What a robots.txt lookup answers: rules, "come back later", or "cannot read"."""


def robots_key(url: str) -> str:
    """Nutch's robots cache key ``scheme:host:port``, lowercased, default port filled.

    Raises:
        ValueError: ``url`` has no host or a bad port.
    """
    parts = urlsplit(url)
    host = parts.hostname
    if not host:
        raise ValueError(f"no host in {url!r}")
    if ":" in host:
        host = f"[{host}]"  # IPv6, bracketed as Java's URL.getHost() gives it
    scheme = parts.scheme.lower()
    port = parts.port if parts.port is not None else _DEFAULT_PORTS.get(scheme, -1)
    return f"{scheme}:{host}:{port}"


def verdict_for(
    result: FetchResult, config: RobotsConfig
) -> tuple[RobotsVerdict, bool]:
    """The verdict for the last robots.txt response, and whether to cache it.

    The table of nutch-semantics §6.7 (1.x HttpRobotRulesParser): 200 parsed;
    403 allow or forbid all by ``http.robots.403.allow``; 5xx and 429 defer
    (``http.robots.503.defer.visits``) or allow all, not cached; any other
    code, a redirect chain not ending in 200 included, allow all. No
    response, or a 200 whose body broke off: :class:`Unreachable` (RFC 9309;
    Nutch allows all, as ``http.robots.unreachable.allow`` does), not
    cached. A request the address policy refused allows all, not cached:
    the page's own request is refused as well.
    """
    code = result.http_code
    if result.status == ProtocolStatus.ADDRESS_DENIED:
        return ALLOW_ALL, False
    if code == 0 or (code == 200 and result.status != ProtocolStatus.SUCCESS):
        if config.unreachable_allow:
            return ALLOW_ALL, False
        cause = result.args[0] if result.args else result.status.name
        return Unreachable(cause), False
    if code == 200:
        rules = parse_robots(
            result.content or b"", config.agents, result.content_type, result.url
        )
        return rules, True
    if code == 403 and not config.allow_403:
        return FORBID_ALL, True
    if code >= 500 or code == 429:
        return (Defer(code) if config.defer_5xx else ALLOW_ALL), False
    return ALLOW_ALL, True


class RobotsCache:
    """robots.txt rules per ``scheme:host:port`` for one fetch run; thread-safe.

    Nutch's RobotRulesParser cache: each key is fetched once, however many
    threads ask at the same moment (the first fetches, the others wait for its
    answer; other hosts are not held up). Answers that must not be cached
    (Defer, network errors) are shared with the threads that waited only.

    Args:
        config: the robots.txt settings.
        protocol_for: the protocol for a URL's scheme, None if there is none
            (then the URL's host is treated as having no robots.txt).
    """

    def __init__(
        self, config: RobotsConfig, protocol_for: Callable[[str], Protocol | None]
    ) -> None:
        self._config = config
        self._protocol_for = protocol_for
        self._cleaner = (
            None if config.urls is None else UrlCleaner(config.urls, "fetcher")
        )
        self._lock = threading.Lock()
        self._rules: dict[str, RobotRules] = {}
        self._found_zones: dict[str, Zone] = {}
        self._pending: dict[str, Future[RobotsVerdict]] = {}

    def rules_for(self, url: str, zone: Zone = OPERATOR) -> RobotsVerdict:
        """The rules for ``url``'s host, fetching its robots.txt if not yet known.

        ``zone`` is the URL's: robots.txt is fetched under the same address
        policy as the URL itself. file: URLs, allow-listed hosts
        (``http.robot.rules.allowlist``) and URLs without a host are allowed
        without a fetch.
        """
        try:
            parts = urlsplit(url)
            if parts.scheme.lower() == "file":
                return ALLOW_ALL
            key = robots_key(url)
        except ValueError:
            return ALLOW_ALL
        if _allowlisted(parts.hostname or "", self._config.allowlist):
            return ALLOW_ALL
        return self._lookup(key, _robots_url(parts), zone)

    def cached(self, url: str) -> RobotRules | None:
        """The cached rules for ``url``'s host, without fetching; None if none.

        Raises:
            ValueError: ``url`` has no host or a bad port (see :func:`robots_key`).
        """
        with self._lock:
            return self._rules.get(robots_key(url))

    def found_zone(self, url: str) -> Zone:
        """Where the cached robots.txt of ``url``'s host came from (PUBLIC if none).

        The class of its address: the zone of the sitemaps it lists.
        """
        try:
            key = robots_key(url)
        except ValueError:
            return Zone.PUBLIC
        with self._lock:
            return self._found_zones.get(key, Zone.PUBLIC)

    def _lookup(self, key: str, robots_url: str, zone: Zone) -> RobotsVerdict:
        with self._lock:
            cached = self._rules.get(key)
            if cached is not None:
                return cached
            pending = self._pending.get(key)
            if pending is None:
                pending = self._pending[key] = Future()
                owner = True
            else:
                owner = False
        if not owner:
            return pending.result()
        try:
            verdict = self._fetch(key, robots_url, zone)
        except BaseException as exc:  # a bug: the waiting threads raise it too
            pending.set_exception(exc)
            raise
        finally:
            with self._lock:
                del self._pending[key]
        pending.set_result(verdict)
        return verdict

    def _fetch(self, key: str, robots_url: str, zone: Zone) -> RobotsVerdict:
        """Fetch robots.txt, following up to ``http.robots.redirect.max`` hops."""
        url = robots_url
        result = self._get(url, zone)
        also_keys: list[str] = []
        hops = 0
        while (
            result is not None
            and result.http_code in _REDIRECT_CODES
            and hops < self._config.redirect_max
        ):
            target = self._target(url, result.redirect_target)
            if target is None:
                break  # the chain ends on this redirect
            hops += 1
            url = target
            target_key = _robots_txt_key(url)
            if target_key is not None:
                with self._lock:
                    known = self._rules.get(target_key)
                    if known is not None:
                        self._rules[key] = known
                        return known
                also_keys.append(target_key)
            hop = self._get(url, result.found_zone)
            if hop is not None and hop.status == ProtocolStatus.ADDRESS_DENIED:
                _LOG.warning("robots.txt redirect refused: %s", hop.args[0])
                break  # as a target the filters reject
            result = hop
        if result is None:
            return ALLOW_ALL  # no protocol for the scheme: as a failed fetch
        verdict, cacheable = verdict_for(result, self._config)
        if cacheable and isinstance(verdict, RobotRules):
            with self._lock:
                self._rules[key] = verdict
                self._found_zones[key] = result.found_zone
                for other in also_keys:
                    if other not in self._rules:
                        self._rules[other] = verdict
                        self._found_zones[other] = result.found_zone
        return verdict

    def _target(self, url: str, target: str | None) -> str | None:
        """The redirect target to follow: normalized, filtered; None for none."""
        if not target or target == url:
            return None  # no Location
        if self._cleaner is None:
            return target
        cleaned = self._cleaner.clean(target)
        return cleaned if isinstance(cleaned, str) and cleaned != url else None

    def _get(self, url: str, zone: Zone) -> FetchResult | None:
        protocol = self._protocol_for(url)
        return None if protocol is None else protocol.fetch(url, zone=zone)


def _robots_url(parts: SplitResult) -> str:
    """``/robots.txt`` on the URL's authority (Java ``new URL(url, "/robots.txt")``)."""
    return f"{parts.scheme}://{parts.netloc}/robots.txt"


def _robots_txt_key(url: str) -> str | None:
    """The cache key of ``url`` if its path plus query is exactly ``/robots.txt``."""
    try:
        without_fragment = url.partition("#")[0]
        if urlsplit(without_fragment).path != "/robots.txt" or "?" in without_fragment:
            return None
        return robots_key(url)
    except ValueError:
        return None


def _allowlisted(host: str, allowlist: Sequence[str]) -> bool:
    """``http.robot.rules.allowlist``: an IP host exactly, a name by suffix (1.x)."""
    host = host.lower()
    if not host or not allowlist:
        return False
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return any(host.endswith(entry) for entry in allowlist if entry)
    return host in allowlist
