"""robots.txt for the fetcher: fetched once per host for a run, then cached.

Nutch 1.x ``RobotRulesParser`` / ``HttpRobotRulesParser`` (nutch-semantics
§6.7). :class:`RobotsCache` fetches ``/robots.txt`` once per
``scheme:host:port``, following redirects, and shares the answer between
threads; :func:`verdict_for` turns the last response into rules (parsed by
:mod:`crawllib.protocol.robotrules`) or a :class:`Defer`, and says whether
the answer may be cached.
"""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TypeAlias
from urllib.parse import SplitResult, urlsplit

from crawllib.config.fetch import RobotsConfig
from crawllib.protocol import FetchResult, Protocol
from crawllib.protocol.robotrules import (
    ALLOW_ALL,
    FORBID_ALL,
    RobotRules,
    Rule,
    parse_robots,
)
from crawllib.status import ProtocolStatus

__all__ = [
    "ALLOW_ALL",
    "FORBID_ALL",
    "Defer",
    "RobotRules",
    "RobotsCache",
    "RobotsVerdict",
    "Rule",
    "parse_robots",
    "robots_key",
    "verdict_for",
]

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


RobotsVerdict: TypeAlias = RobotRules | Defer
"""What a robots.txt lookup answers: rules, or "come back later"."""


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
    code, a redirect chain not ending in 200 included, allow all; no response
    (network error) allow all, not cached.
    """
    code = result.http_code
    if code == 0 or (code == 200 and result.status != ProtocolStatus.SUCCESS):
        return ALLOW_ALL, False
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
        self._lock = threading.Lock()
        self._rules: dict[str, RobotRules] = {}
        self._pending: dict[str, Future[RobotsVerdict]] = {}

    def rules_for(self, url: str) -> RobotsVerdict:
        """The rules for ``url``'s host, fetching its robots.txt if not yet known.

        file: URLs, allow-listed hosts (``http.robot.rules.allowlist``) and
        URLs without a host are allowed without a fetch.
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
        return self._lookup(key, _robots_url(parts))

    def cached(self, url: str) -> RobotRules | None:
        """The cached rules for ``url``'s host, without fetching; None if none.

        Raises:
            ValueError: ``url`` has no host or a bad port (see :func:`robots_key`).
        """
        with self._lock:
            return self._rules.get(robots_key(url))

    def _lookup(self, key: str, robots_url: str) -> RobotsVerdict:
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
            verdict = self._fetch(key, robots_url)
        except BaseException as exc:  # a bug: the waiting threads raise it too
            pending.set_exception(exc)
            raise
        finally:
            with self._lock:
                del self._pending[key]
        pending.set_result(verdict)
        return verdict

    def _fetch(self, key: str, robots_url: str) -> RobotsVerdict:
        """Fetch robots.txt, following up to ``http.robots.redirect.max`` hops."""
        url = robots_url
        result = self._get(url)
        also_keys: list[str] = []
        hops = 0
        while (
            result is not None
            and result.http_code in _REDIRECT_CODES
            and hops < self._config.redirect_max
        ):
            target = result.redirect_target
            if not target or target == url:
                break  # no Location: the chain ends on this redirect
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
            result = self._get(url)
        if result is None:
            return ALLOW_ALL  # no protocol for the scheme: as a failed fetch
        verdict, cacheable = verdict_for(result, self._config)
        if cacheable and isinstance(verdict, RobotRules):
            with self._lock:
                self._rules[key] = verdict
                for other in also_keys:
                    self._rules.setdefault(other, verdict)
        return verdict

    def _get(self, url: str) -> FetchResult | None:
        protocol = self._protocol_for(url)
        return None if protocol is None else protocol.fetch(url)


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
