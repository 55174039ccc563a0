"""Fetch settings: protocol-http, protocol-file, robots.txt and the fetcher."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from crawllib.config.properties import Properties, bad_value, plugin_active
from crawllib.config.urls import UrlConfig, read_link_rules
from crawllib.errors import ConfigError
from crawllib.urls.addresses import NO_SETTINGS, AddressPolicy
from crawllib.urls.linkrules import NUTCH_RULES, LinkRules


@dataclass(frozen=True, slots=True)
class HttpConfig:
    """protocol-http settings (Nutch's HttpBase).

    Attributes:
        user_agent: the User-Agent string built from ``http.agent.*``.
        agent_name: ``http.agent.name``.
        accept, accept_language, accept_charset: ``http.accept*`` headers
            ("" = not sent).
        timeout_s: ``http.timeout`` (connect and read), in seconds.
        content_limit: ``http.content.limit`` on the decoded body, bytes;
            -1 = none.
        max_header_size: ``http.max.header.size`` (beamcrawl's): bytes a
            response's status lines and headers may take in all.
        if_modified_since: ``http.enable.if.modified.since.header``.
        store_response_time: ``http.store.responsetime``.
        store_ip_address: ``store.ip.address`` (beamcrawl: on by default).
        store_http_request: ``store.http.request`` (beamcrawl: on by default).
        store_http_headers: ``store.http.headers`` (beamcrawl: on by default).
        proxy_host, proxy_port: ``http.proxy.host`` / ``http.proxy.port``.
        proxy_exceptions: ``http.proxy.exception.list`` hosts, not proxied.
        file_content_limit: ``file.content.limit`` for file: URLs.
        file_crawl_parent: ``file.crawl.parent``.
        file_redirect_noncanonical: ``file.crawl.redirect_noncanonical``.
        file_enabled: ``protocol-file`` is in ``plugin.includes`` (as in
            Nutch, off by default): file: URLs are fetched only then.
        address_policy: ``http.address.deny`` / ``.allow`` / ``.public``:
            which addresses URLs of each zone may reach.
    """

    user_agent: str
    agent_name: str
    accept: str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    accept_language: str = "en-us,en-gb,en;q=0.7,*;q=0.3"
    accept_charset: str = "utf-8,iso-8859-1;q=0.7,*;q=0.7"
    timeout_s: float = 10.0
    content_limit: int = 1_048_576
    max_header_size: int = 393_216
    if_modified_since: bool = True
    store_response_time: bool = True
    store_ip_address: bool = True
    store_http_request: bool = True
    store_http_headers: bool = True
    proxy_host: str = ""
    proxy_port: int = 8080
    proxy_exceptions: tuple[str, ...] = ()
    file_content_limit: int = 1_048_576
    file_crawl_parent: bool = True
    file_redirect_noncanonical: bool = True
    file_enabled: bool = False
    address_policy: AddressPolicy = NO_SETTINGS

    @classmethod
    def from_properties(cls, props: Properties) -> HttpConfig:
        """Read ``http.*`` and ``file.*``; no agent name is a user error (as Nutch)."""
        name = props.get_str("http.agent.name")
        if not name:
            raise ConfigError(
                "Fetcher: No agents listed in 'http.agent.name' property; "
                "set it with -D http.agent.name=<your crawler's name>"
            )
        timeout_ms = props.get_int("http.timeout")
        if timeout_ms <= 0:
            raise bad_value("http.timeout", str(timeout_ms), "a positive number of ms")
        header_size = props.get_int("http.max.header.size")
        if header_size <= 0:
            raise bad_value("http.max.header.size", str(header_size), "1 or more bytes")
        for header_property in _HEADER_PROPERTIES:
            _check_header_text(props, header_property)
        return cls(
            user_agent=agent_string(props),
            agent_name=name,
            accept=props.get_str("http.accept"),
            accept_language=props.get_str("http.accept.language"),
            accept_charset=props.get_str("http.accept.charset"),
            timeout_s=timeout_ms / 1000,
            content_limit=props.get_int("http.content.limit"),
            max_header_size=header_size,
            if_modified_since=props.get_bool("http.enable.if.modified.since.header"),
            store_response_time=props.get_bool("http.store.responsetime"),
            store_ip_address=props.get_bool("store.ip.address"),
            store_http_request=props.get_bool("store.http.request"),
            store_http_headers=props.get_bool("store.http.headers"),
            proxy_host=props.get_str("http.proxy.host"),
            proxy_port=props.get_int("http.proxy.port"),
            proxy_exceptions=tuple(props.get_list("http.proxy.exception.list")),
            file_content_limit=props.get_int("file.content.limit"),
            file_crawl_parent=props.get_bool("file.crawl.parent"),
            file_redirect_noncanonical=props.get_bool(
                "file.crawl.redirect_noncanonical"
            ),
            file_enabled=plugin_active(props, "protocol-file"),
            address_policy=AddressPolicy.from_lists(
                props.get_list("http.address.deny"),
                props.get_list("http.address.allow"),
                props.get_list("http.address.public"),
            ),
        )


_HEADER_PROPERTIES = (
    "http.agent.name",
    "http.agent.version",
    "http.agent.description",
    "http.agent.url",
    "http.agent.email",
    "http.accept",
    "http.accept.language",
    "http.accept.charset",
    "http.proxy.host",
)
"""Properties whose value goes into every request's head (a header or the proxy)."""
_NOT_IN_A_HEADER = re.compile(r"[\x00-\x1f\x7f-\x9f]|[^\x00-\xff]")


def _check_header_text(props: Properties, name: str) -> None:
    """Refuse a value that would break every request: a CR, LF or other control.

    A CR or LF would end the header early (and could smuggle another one);
    other control characters and characters outside Latin-1 (what HTTP/1.1
    header bytes can carry) make the HTTP library refuse each request.

    Raises:
        ConfigError: naming the property, its value (escaped) and why.
    """
    raw = props.get_str(name)
    found = _NOT_IN_A_HEADER.search(raw)
    if found is None:
        return
    kind = "character outside Latin-1" if ord(found[0]) > 0xFF else "control character"
    raise bad_value(
        name,
        raw,
        f"text that can go in an HTTP header (it holds the {kind} {found[0]!r})",
    )


def agent_string(props: Properties) -> str:
    """Nutch's HttpBase.getAgentString: ``name/version (description; url; email)``."""
    agent = props.get_str("http.agent.name")
    version = props.get_str("http.agent.version")
    if version:
        agent += "/" + version
    extras = [
        props.get_str(name)
        for name in ("http.agent.description", "http.agent.url", "http.agent.email")
    ]
    extras = [extra for extra in extras if extra]
    if extras:
        agent += " (" + "; ".join(extras) + ")"
    return agent


@dataclass(frozen=True, slots=True)
class RobotsConfig:
    """robots.txt settings (1.x RobotRulesParser / HttpRobotRulesParser).

    Attributes:
        agents: the names matched against ``User-agent`` lines, lowercased:
            ``http.agent.name`` first, then ``http.robots.agents``.
        allow_403: ``http.robots.403.allow``.
        defer_5xx: ``http.robots.503.defer.visits``.
        defer_delay_s: ``http.robots.503.defer.visits.delay`` in seconds.
        defer_retries: ``http.robots.503.defer.visits.retries``.
        redirect_max: ``http.robots.redirect.max``.
        allowlist: ``http.robot.rules.allowlist`` hosts (robots.txt ignored).
        unreachable_allow: ``http.robots.unreachable.allow`` (beamcrawl's):
            a robots.txt that cannot be reached (connection refused, reset,
            timeout) allows all, as in Nutch; false (the default): nothing
            of the host is fetched until it can be read (RFC 9309).
        urls: the normalizers (scope ``fetcher``) and filters a robots.txt
            redirect target goes through; None: none (hand-built configs).
    """

    agents: tuple[str, ...]
    allow_403: bool = True
    defer_5xx: bool = True
    defer_delay_s: float = 300.0
    defer_retries: int = 3
    redirect_max: int = 5
    allowlist: tuple[str, ...] = ()
    unreachable_allow: bool = False
    urls: UrlConfig | None = None

    @classmethod
    def from_properties(cls, props: Properties) -> RobotsConfig:
        """Read the ``http.robots.*`` properties and the agent names."""
        name = props.get_str("http.agent.name").lower()
        agents = [name] if name and name != "*" else []
        for extra in props.get_list("http.robots.agents"):
            extra = extra.lower()
            if extra != "*" and extra not in agents:
                agents.append(extra)
        return cls(
            agents=tuple(agents),
            allow_403=props.get_bool("http.robots.403.allow"),
            defer_5xx=props.get_bool("http.robots.503.defer.visits"),
            defer_delay_s=props.get_int("http.robots.503.defer.visits.delay") / 1000,
            defer_retries=props.get_int("http.robots.503.defer.visits.retries"),
            redirect_max=props.get_int("http.robots.redirect.max"),
            allowlist=tuple(
                h.lower() for h in props.get_list("http.robot.rules.allowlist")
            ),
            unreachable_allow=props.get_bool("http.robots.unreachable.allow"),
            urls=UrlConfig.from_properties(props),
        )


THREADS_PROPERTY = "fetcher.threads.fetch"
"""The property of the fetcher's thread count (``--threads`` on the command line)."""


def checked_threads(threads: int, source: str) -> int:
    """``threads`` if it is 1 or more: the one rule for the fetcher's thread count.

    With none a fetch would start no thread and wait forever. Every path
    that sets the count (the property, ``--threads`` of fetch and crawl, a
    library user's :class:`FetcherConfig`) checks it here.

    Args:
        threads: fetcher threads in all.
        source: what gave it, as the one-line error names it: a flag
            (``--threads``), :data:`THREADS_PROPERTY`, or anything else
            (``FetcherConfig threads``), shown as ``source=N``.

    Raises:
        ConfigError: ``threads`` below 1.
    """
    if threads >= 1:
        return threads
    if source == THREADS_PROPERTY:
        raise bad_value(source, str(threads), "1 or more")
    if source.startswith("-"):
        raise ConfigError(f"{source} {threads} is invalid: expected 1 or more")
    raise ConfigError(f"{source}={threads} is invalid: expected 1 or more")


@dataclass(frozen=True, slots=True)
class FetcherConfig:
    """The fetcher's queues, threads and limits (1.x Fetcher, FetchItemQueues).

    Attributes:
        http: protocol settings.
        robots: robots.txt settings.
        urls: normalizers and filters, for redirect targets.
        threads: ``fetcher.threads.fetch``, worker threads in all.
        threads_per_queue: ``fetcher.threads.per.queue``.
        queue_mode: ``fetcher.queue.mode``: byHost, byDomain or byIP.
        server_delay_s: ``fetcher.server.delay``.
        server_min_delay_s: ``fetcher.server.min.delay``.
        max_crawl_delay_s: ``fetcher.max.crawl.delay``; -1 = always wait.
        min_crawl_delay_s: ``fetcher.min.crawl.delay``.
        queue_depth: items kept queued: threads x ``fetcher.queue.depth.multiplier``.
        time_limit_s: ``fetcher.timelimit.mins`` in seconds; None = none.
        max_exceptions_per_queue: ``fetcher.max.exceptions.per.queue``; -1 = off.
        exception_delay_s: ``fetcher.exceptions.per.queue.delay``.
        redirect_max: ``http.redirect.max``: 0 = record, N = follow N hops.
        redirect_exceeded_skip: ``http.redirect.max.exceeded.skip``.
        links: the ``db.ignore.*`` rules, as applied to redirect targets.
        max_outlink_length: ``db.max.outlink.length``.
        store_content: ``fetcher.store.content``.
        parse: ``fetcher.parse``.
    """

    http: HttpConfig
    robots: RobotsConfig
    urls: UrlConfig
    threads: int = 10
    threads_per_queue: int = 1
    queue_mode: str = "byHost"
    server_delay_s: float = 5.0
    server_min_delay_s: float = 0.0
    max_crawl_delay_s: float = 30.0
    min_crawl_delay_s: float = 5.0
    queue_depth: int = 500
    time_limit_s: float | None = None
    max_exceptions_per_queue: int = 5
    exception_delay_s: float = 5.0
    redirect_max: int = 0
    redirect_exceeded_skip: bool = False
    links: LinkRules = NUTCH_RULES
    max_outlink_length: int = 4096
    store_content: bool = True
    parse: bool = False

    def __post_init__(self) -> None:
        checked_threads(self.threads, "FetcherConfig threads")

    def with_threads(self, threads: int, source: str = "threads") -> FetcherConfig:
        """This config with ``threads`` fetcher threads (checked: 1 or more).

        Args:
            threads: the new thread count.
            source: what gave it, for the error (see :func:`checked_threads`).

        Raises:
            ConfigError: ``threads`` below 1.
        """
        return dataclasses.replace(self, threads=checked_threads(threads, source))

    @classmethod
    def from_properties(cls, props: Properties) -> FetcherConfig:
        """Read the ``fetcher.*`` properties and their companions."""
        threads = checked_threads(props.get_int(THREADS_PROPERTY), THREADS_PROPERTY)
        per_queue = props.get_int("fetcher.threads.per.queue")
        if per_queue <= 0:
            raise bad_value("fetcher.threads.per.queue", str(per_queue), "1 or more")
        minutes = props.get_float("fetcher.timelimit.mins")
        return cls(
            http=HttpConfig.from_properties(props),
            robots=RobotsConfig.from_properties(props),
            urls=UrlConfig.from_properties(props),
            threads=threads,
            threads_per_queue=per_queue,
            queue_mode=props.get_choice("fetcher.queue.mode"),
            server_delay_s=props.get_float("fetcher.server.delay"),
            server_min_delay_s=props.get_float("fetcher.server.min.delay"),
            max_crawl_delay_s=props.get_float("fetcher.max.crawl.delay"),
            min_crawl_delay_s=props.get_float("fetcher.min.crawl.delay"),
            queue_depth=threads
            * max(1, props.get_int("fetcher.queue.depth.multiplier")),
            time_limit_s=minutes * 60 if minutes > 0 else None,
            max_exceptions_per_queue=props.get_int("fetcher.max.exceptions.per.queue"),
            exception_delay_s=props.get_float("fetcher.exceptions.per.queue.delay"),
            redirect_max=props.get_int("http.redirect.max"),
            redirect_exceeded_skip=props.get_bool("http.redirect.max.exceeded.skip"),
            links=read_link_rules(props),
            max_outlink_length=props.get_int("db.max.outlink.length"),
            store_content=props.get_bool("fetcher.store.content"),
            parse=props.get_bool("fetcher.parse"),
        )
