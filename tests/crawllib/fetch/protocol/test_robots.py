"""robots.txt rules and cache against real test servers (nutch-semantics §6.7)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from urllib.parse import urljoin, urlsplit

import pytest
import requests

from crawllib.config import HttpConfig, Properties, RobotsConfig
from crawllib.fetch.protocol import FetchResult
from crawllib.fetch.protocol.http import HttpProtocol
from crawllib.fetch.protocol.robots import (
    ALLOW_ALL,
    FORBID_ALL,
    Defer,
    RobotRules,
    RobotsCache,
    Rule,
    Unreachable,
    parse_robots,
    robots_key,
    verdict_for,
)
from crawllib.status import ProtocolStatus
from crawllib.urls.zone import Zone
from tests.sites import RobotsReply, Site, refused_url, set_robots_reply

FORBID_ROOT = RobotRules((Rule(False, "/"),))

_STATUS = {
    200: ProtocolStatus.SUCCESS,
    301: ProtocolStatus.MOVED,
    302: ProtocolStatus.TEMP_MOVED,
    303: ProtocolStatus.TEMP_MOVED,
    307: ProtocolStatus.TEMP_MOVED,
    308: ProtocolStatus.MOVED,
    401: ProtocolStatus.ACCESS_DENIED,
    404: ProtocolStatus.NOTFOUND,
    410: ProtocolStatus.GONE,
}


class _HttpProtocol:
    """A small real-HTTP Protocol for these tests: requests, no redirects followed.

    Counts its fetches, so a test can tell a cached answer from a new request
    even where no server sees one (connection refused).
    """

    def __init__(self) -> None:
        self._session = requests.Session()
        self._lock = threading.Lock()
        self.fetched: list[str] = []

    def fetch(
        self, url: str, modified_time_ms: int = 0, zone: Zone = Zone.LOCAL
    ) -> FetchResult:
        with self._lock:
            self.fetched.append(url)
        try:
            response = self._session.get(url, timeout=10, allow_redirects=False)
        except requests.RequestException as exc:
            return FetchResult(url, ProtocolStatus.EXCEPTION, (type(exc).__name__,))
        code = response.status_code
        status = _STATUS.get(code, ProtocolStatus.EXCEPTION)
        args: tuple[str, ...] = ()
        if status in (ProtocolStatus.MOVED, ProtocolStatus.TEMP_MOVED):
            args = (urljoin(url, response.headers.get("Location", url)),)
        return FetchResult(
            url,
            status,
            args,
            code,
            response.content,
            response.headers.get("Content-Type"),
        )

    def close(self) -> None:
        self._session.close()


@pytest.fixture
def http() -> Iterator[_HttpProtocol]:
    protocol = _HttpProtocol()
    yield protocol
    protocol.close()


def _cache(http: _HttpProtocol, *agents: str, **settings: object) -> RobotsCache:
    config = RobotsConfig(agents=agents or ("mybot",), **settings)  # type: ignore[arg-type]
    return RobotsCache(config, lambda url: http if url.startswith("http") else None)


def _rules(site: Site, http: _HttpProtocol, robots: str, *agents: str) -> RobotRules:
    """The rules a fresh cache reads from ``robots`` served by ``site``."""
    site.robots = robots
    verdict = _cache(http, *agents).rules_for(site.url("/"))
    assert isinstance(verdict, RobotRules)
    return verdict


def _allowed(rules: RobotRules, site: Site, *paths: str) -> list[bool]:
    return [rules.allowed(site.url(path)) for path in paths]


def _robots_requests(site: Site) -> int:
    return len(site.requests_for("/robots.txt"))


# --- matching -------------------------------------------------------------------


def test_nutch_longest_rule_wins_and_allow_wins_a_tie(site, http):
    rules = _rules(
        site,
        http,
        "User-agent: *\nDisallow: /a\nAllow: /a/b\nAllow: /p\nDisallow: /p\n",
    )
    assert _allowed(rules, site, "/a", "/a/x", "/a/b", "/a/b/c", "/p", "/z") == [
        False,
        False,
        True,
        True,
        True,
        True,
    ]


def test_nutch_wildcards_and_end_anchor(site, http):
    rules = _rules(
        site,
        http,
        "User-agent: *\nDisallow: /*.pdf$\nDisallow: /x/*/y\nDisallow: /$\n",
    )
    paths = ["/d.pdf", "/d.pdf?x=1", "/d.pdfx", "/x/1/2/y", "/x/y", "/", "/q"]
    assert _allowed(rules, site, *paths) == [
        False,
        True,
        True,
        False,
        True,
        False,
        True,
    ]


def test_nutch_empty_disallow_allows_everything(site, http):
    rules = _rules(site, http, "User-agent: *\nDisallow:\n")
    assert _allowed(rules, site, "/", "/private") == [True, True]


def test_nutch_empty_disallow_matches_nothing_and_the_rules_stand(site, http):
    # RFC 9309; crawler-commons 1.4+ ignores an empty Disallow/Allow (before,
    # it dropped the rules collected so far: a hostile robots.txt could undo
    # its own group)
    robots = "User-agent: *\nDisallow: /a\nDisallow:\nAllow:\nDisallow: /b\n"
    rules = _rules(site, http, robots)
    assert rules.rules == (Rule(False, "/a"), Rule(False, "/b"))
    assert _allowed(rules, site, "/a", "/b", "/c") == [False, False, True]


def test_nutch_robots_txt_itself_is_always_allowed(site, http):
    rules = _rules(site, http, "User-agent: *\nDisallow: /\n")
    assert _allowed(rules, site, "/robots.txt", "/", "/x") == [True, False, False]


def test_nutch_query_string_is_part_of_the_matched_path(site, http):
    rules = _rules(
        site, http, "User-agent: *\nDisallow: /*?sessionid=\nDisallow: /search?\n"
    )
    paths = ["/page?sessionid=1", "/page?id=1", "/search?q=x", "/search", "/page"]
    assert _allowed(rules, site, *paths) == [False, True, False, True, True]


def test_nutch_percent_encoding_is_compared_decoded(site, http):
    rules = _rules(
        site, http, "User-agent: *\nDisallow: /caf%C3%A9\nDisallow: /%7Ejoe\n"
    )
    paths = ["/café", "/caf%c3%a9", "/~joe/x", "/%7ejoe", "/cafe", "/joe"]
    assert _allowed(rules, site, *paths) == [False, False, False, False, True, True]


def test_nutch_allowing_index_html_also_allows_its_directory(site, http):
    # protego, Google and crawler-commons 1.4+ (GoogleRobotsTxtTest
    # GoogleOnly_IndexHTMLisDirectory) read "Allow: /d/index.html" as allowing /d/
    rules = _rules(site, http, "User-agent: *\nDisallow: /d/\nAllow: /d/index.html\n")
    assert _allowed(rules, site, "/d/", "/d/index.html", "/d/other") == [
        True,
        True,
        False,
    ]


def test_nutch_allow_all_and_forbid_all():
    assert ALLOW_ALL.allowed("http://h/anything") is True
    # crawler-commons ALLOW_NONE denies before looking at the path
    assert FORBID_ALL.allowed("http://h/robots.txt") is False
    assert FORBID_ALL.allowed("http://h/") is False


# --- agent names and groups ------------------------------------------------------


_GROUPS = """\
User-agent: *
Disallow: /everyone

User-agent: MyBot
Disallow: /mine

User-agent: otherbot
Disallow: /other
Crawl-delay: 7
"""


def test_nutch_agent_name_matches_case_insensitively(site, http):
    config = RobotsConfig.from_properties(Properties({"http.agent.name": "MYBOT"}))
    site.robots = _GROUPS
    rules = RobotsCache(config, lambda url: http).rules_for(site.url("/"))
    assert isinstance(rules, RobotRules)
    assert _allowed(rules, site, "/mine", "/everyone", "/other") == [False, True, True]


def test_nutch_http_robots_agents_select_groups_too(site, http):
    props = Properties({"http.agent.name": "nobot", "http.robots.agents": "OtherBot"})
    config = RobotsConfig.from_properties(props)
    site.robots = _GROUPS
    rules = RobotsCache(config, lambda url: http).rules_for(site.url("/"))
    assert isinstance(rules, RobotRules)
    assert _allowed(rules, site, "/other", "/mine", "/everyone") == [False, True, True]
    assert rules.crawl_delay_s == 7.0


def test_nutch_groups_of_all_agent_names_are_merged(site, http):
    for agents in [("mybot", "otherbot"), ("otherbot", "mybot")]:
        rules = _rules(site, http, _GROUPS, *agents)
        assert _allowed(rules, site, "/mine", "/other", "/everyone") == [
            False,
            False,
            True,
        ]
        assert rules.crawl_delay_s == 7.0


def test_nutch_wildcard_group_only_without_a_named_match(site, http):
    rules = _rules(site, http, _GROUPS, "nobot")
    assert _allowed(rules, site, "/everyone", "/mine") == [False, True]
    assert rules.crawl_delay_s is None


def test_nutch_named_group_drops_the_wildcard_rules_and_delay_before_it(site, http):
    robots = (
        "User-agent: *\nCrawl-delay: 3\nDisallow: /a\n\n"
        "User-agent: mybot\nDisallow: /b\n"
    )
    rules = _rules(site, http, robots)
    assert rules.rules == (Rule(False, "/b"),)
    assert rules.crawl_delay_s is None


def test_nutch_agent_token_with_version_matches_but_a_longer_name_does_not(site, http):
    robots = (
        "User-agent: MyBot/2.1\nDisallow: /versioned\n\n"
        "User-agent: mybotx\nDisallow: /longer\n\n"
        "User-agent: my\nDisallow: /prefix\n"
    )
    rules = _rules(site, http, robots)
    assert _allowed(rules, site, "/versioned", "/longer", "/prefix") == [
        False,
        True,
        True,
    ]


def test_nutch_consecutive_agent_lines_share_a_group(site, http):
    robots = (
        "User-agent: a\nUser-agent: mybot\nDisallow: /shared\n"
        "User-agent: b\nDisallow: /b-only\n"
    )
    rules = _rules(site, http, robots)
    assert _allowed(rules, site, "/shared", "/b-only") == [False, True]


def test_nutch_crawl_delay_seconds_and_decimals(site, http):
    assert _rules(site, http, "User-agent: *\nCrawl-delay: 10\n").crawl_delay_s == 10.0
    assert _rules(site, http, "User-agent: *\nCrawl-delay: 0.5\n").crawl_delay_s == 0.5
    assert (
        _rules(site, http, "User-agent: *\nCrawl-delay: soon\n").crawl_delay_s is None
    )
    assert _rules(site, http, "User-agent: *\nDisallow: /\n").crawl_delay_s is None


def test_nutch_a_crawl_delay_past_a_java_int_is_ignored():
    # found by fuzzing: int() of more than 4,300 digits raised ValueError
    for value in ("2147483648", "9" * 5000, "-" + "1" * 5000):
        robots = f"User-agent: *\nCrawl-delay: {value}\nDisallow: /x\n".encode()
        rules = parse_robots(robots, ["bot"])
        assert (rules.crawl_delay_s, rules.rules) == (None, (Rule(False, "/x"),))


def test_nutch_shortest_crawl_delay_of_the_merged_groups(site, http):
    robots = (
        "User-agent: mybot\nDisallow: /a\nCrawl-delay: 9\n\n"
        "User-agent: otherbot\nDisallow: /b\nCrawl-delay: 4\n"
    )
    assert _rules(site, http, robots, "mybot", "otherbot").crawl_delay_s == 4.0
    assert _rules(site, http, robots, "mybot").crawl_delay_s == 9.0


def test_nutch_crawl_delay_applies_to_the_agent_lines_before_it(site, http):
    # crawler-commons 1.5 (crawl-delay-group-merging.txt): only Allow/Disallow
    # end a run of User-agent lines, so "otherbot" shares mybot's rules, but
    # a Crawl-delay belongs to the agent lines since the previous Crawl-delay
    robots = (
        "User-agent: mybot\nCrawl-delay: 9\nUser-agent: otherbot\nCrawl-delay: 4\n"
        "Disallow: /shared\n"
    )
    mine = _rules(site, http, robots, "mybot")
    assert (mine.crawl_delay_s, mine.rules) == (9.0, (Rule(False, "/shared"),))
    assert _rules(site, http, robots, "otherbot").crawl_delay_s == 4.0


def test_sitemaps_are_collected_from_the_whole_file(site, http):
    robots = (
        "Sitemap: http://example.com/a.xml\nUser-agent: otherbot\n"
        "Sitemap: /relative.xml\nDisallow: /\n"
    )
    assert _rules(site, http, robots).sitemaps == (
        "http://example.com/a.xml",
        site.url("/relative.xml"),
    )


def test_nutch_non_utf8_body_is_decoded_leniently(site, http):
    body = (
        b"# caf\xe9 \xff\xfe\nUser-agent: *\nDisallow: /caf\xe9\nDisallow: /private\n"
    )
    set_robots_reply(site, RobotsReply(200, body))
    rules = _cache(http).rules_for(site.url("/"))
    assert isinstance(rules, RobotRules)
    assert rules.rules == (Rule(False, "/caf\ufffd"), Rule(False, "/private"))
    assert _allowed(rules, site, "/private", "/ok") == [False, True]


def test_nutch_byte_order_marks_are_honoured():
    text = "User-agent: *\nDisallow: /x\n"
    for body in [
        b"\xef\xbb\xbf" + text.encode(),
        b"\xff\xfe" + text.encode("utf-16-le"),
    ]:
        assert parse_robots(body, ["mybot"]).rules == (Rule(False, "/x"),)


def test_nutch_html_served_as_robots_txt(site, http):
    page = b"<html><body>Disallow: /x</body></html>"
    set_robots_reply(site, RobotsReply(200, page, "text/html"))
    assert _cache(http).rules_for(site.url("/")) == ALLOW_ALL
    tagged = b"<html><body><p>User-agent: *</p>\n<p>Disallow: /x</p></body></html>"
    assert parse_robots(tagged, ["mybot"], "text/html").rules == (Rule(False, "/x"),)


# --- the response table ----------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "settings", "expected"),
    [
        (403, {}, ALLOW_ALL),
        (403, {"allow_403": False}, FORBID_ALL),
        (404, {}, ALLOW_ALL),
        (410, {}, ALLOW_ALL),
        (401, {}, ALLOW_ALL),
        (400, {"allow_403": False}, ALLOW_ALL),
    ],
)
def test_nutch_client_errors_are_cached(site, http, code, settings, expected):
    site.robots, site.robots_status = "User-agent: *\nDisallow: /\n", code
    cache = _cache(http, **settings)
    assert cache.rules_for(site.url("/a")) == expected
    assert cache.rules_for(site.url("/b")) == expected
    assert cache.cached(site.url("/")) == expected
    assert _robots_requests(site) == 1


@pytest.mark.parametrize("code", [500, 503, 429])
def test_nutch_server_errors_defer_visits_uncached(site, http, code):
    site.robots, site.robots_status = "User-agent: *\nDisallow: /\n", code
    cache = _cache(http)
    assert cache.rules_for(site.url("/a")) == Defer(code)
    assert cache.rules_for(site.url("/b")) == Defer(code)
    assert cache.cached(site.url("/")) is None
    assert _robots_requests(site) == 2


@pytest.mark.parametrize("code", [500, 503, 429])
def test_nutch_server_errors_without_defer_allow_all_uncached(site, http, code):
    site.robots, site.robots_status = "User-agent: *\nDisallow: /\n", code
    cache = _cache(http, defer_5xx=False)
    assert cache.rules_for(site.url("/a")) == ALLOW_ALL
    assert cache.rules_for(site.url("/b")) == ALLOW_ALL
    assert _robots_requests(site) == 2


def test_nutch_network_error_allows_all_uncached_with_unreachable_allow(http):
    url = refused_url()
    cache = _cache(http, unreachable_allow=True)
    assert cache.rules_for(url) == ALLOW_ALL
    assert cache.rules_for(url) == ALLOW_ALL
    assert cache.cached(url) is None
    robots = urlsplit(url)._replace(path="/robots.txt").geturl()
    assert http.fetched == [robots, robots]


def test_beamcrawl_rfc9309_unreachable_robots_txt_is_complete_disallow_uncached(http):
    # RFC 9309 2.3.1.4: a robots.txt unreachable through a network error
    # means complete disallow; asked again next time (it may come back)
    url = refused_url()
    cache = _cache(http)
    assert cache.rules_for(url) == Unreachable("ConnectionError")
    assert cache.rules_for(url) == Unreachable("ConnectionError")
    assert cache.cached(url) is None
    robots = urlsplit(url)._replace(path="/robots.txt").geturl()
    assert http.fetched == [robots, robots]


def test_beamcrawl_a_robots_txt_whose_body_breaks_off_is_unreachable():
    result = FetchResult(
        "http://a.example/robots.txt",
        ProtocolStatus.EXCEPTION,
        ("ProtocolError: Connection reset by peer",),
        200,
    )
    config = RobotsConfig(agents=("mybot",))
    assert verdict_for(result, config) == (
        Unreachable("ProtocolError: Connection reset by peer"),
        False,
    )
    nutch = RobotsConfig(agents=("mybot",), unreachable_allow=True)
    assert verdict_for(result, nutch) == (ALLOW_ALL, False)


def test_nutch_200_is_parsed_and_cached(site, http):
    site.robots = "User-agent: *\nDisallow: /private\n"
    cache = _cache(http)
    first = cache.rules_for(site.url("/private"))
    assert isinstance(first, RobotRules)
    assert first.allowed(site.url("/private")) is False
    assert cache.rules_for(site.url("/other")) is first
    assert _robots_requests(site) == 1


def test_verdict_for_a_200_without_content_allows_all():
    result = FetchResult("http://h/robots.txt", ProtocolStatus.SUCCESS, http_code=200)
    assert verdict_for(result, RobotsConfig(agents=("mybot",))) == (ALLOW_ALL, True)


# --- redirects -------------------------------------------------------------------


def _redirect(site: Site, code: int, target: str) -> None:
    set_robots_reply(site, RobotsReply(code, b"moved", headers=(("Location", target),)))


def test_nutch_redirect_to_robots_on_another_host_is_followed_and_cached_there(
    sites, http
):
    a, b = (
        sites("127.0.0.2"),
        sites("127.0.0.3", robots="User-agent: *\nDisallow: /b\n"),
    )
    _redirect(a, 301, b.url("/robots.txt"))
    cache = _cache(http)
    rules = cache.rules_for(a.url("/x"))
    assert isinstance(rules, RobotRules)
    assert rules.allowed(a.url("/b")) is False
    assert cache.rules_for(b.url("/x")) is rules
    assert (_robots_requests(a), _robots_requests(b)) == (1, 1)


@pytest.mark.parametrize("code", [302, 303, 307, 308])
def test_nutch_every_redirect_code_is_followed(sites, http, code):
    a, b = sites("127.0.0.2"), sites("127.0.0.3", robots="User-agent: *\nDisallow: /\n")
    _redirect(a, code, b.url("/robots.txt"))
    assert _cache(http).rules_for(a.url("/x")) == RobotRules((Rule(False, "/"),))


def test_nutch_redirect_chain_within_and_beyond_the_limit(sites, http):
    a, b = sites("127.0.0.2"), sites("127.0.0.3")
    c = sites("127.0.0.4", robots="User-agent: *\nDisallow: /\n")
    _redirect(a, 301, b.url("/robots.txt"))
    _redirect(b, 302, c.url("/robots.txt"))
    within = _cache(http, redirect_max=2)
    assert within.rules_for(a.url("/x")) == RobotRules((Rule(False, "/"),))
    assert within.cached(b.url("/")) == within.cached(c.url("/")) != ALLOW_ALL
    assert _robots_requests(c) == 1

    beyond = _cache(http, redirect_max=1)
    assert beyond.rules_for(a.url("/x")) == ALLOW_ALL
    assert beyond.cached(a.url("/")) == ALLOW_ALL
    assert _robots_requests(c) == 1  # not asked again
    assert _cache(http, redirect_max=0).rules_for(a.url("/x")) == ALLOW_ALL


def test_nutch_redirect_loop_allows_all_cached(site, http):
    _redirect(site, 302, "/loop/0")
    cache = _cache(http)
    assert cache.rules_for(site.url("/x")) == ALLOW_ALL
    assert cache.cached(site.url("/")) == ALLOW_ALL
    assert len(site.requests_for("/loop/")) == 5  # http.robots.redirect.max hops


def test_nutch_redirect_to_another_path_is_not_cached_for_its_host(sites, http):
    a, b = sites("127.0.0.2"), sites("127.0.0.3", robots="User-agent: *\nDisallow: /\n")
    b.files["rules"] = ("text/plain", b"User-agent: *\nDisallow: /moved\n")
    _redirect(a, 301, b.url("/bytes/rules"))
    cache = _cache(http)
    assert cache.rules_for(a.url("/x")) == RobotRules((Rule(False, "/moved"),))
    assert cache.cached(b.url("/")) is None
    assert cache.rules_for(b.url("/x")) == RobotRules((Rule(False, "/"),))


@pytest.mark.parametrize(("code", "expected"), [(404, ALLOW_ALL), (503, Defer(503))])
def test_nutch_redirect_chain_ending_in_an_error(sites, http, code, expected):
    a, b = sites("127.0.0.2"), sites("127.0.0.3", robots="x")
    b.robots_status = code
    _redirect(a, 301, b.url("/robots.txt"))
    cache = _cache(http)
    assert cache.rules_for(a.url("/x")) == expected
    assert (cache.cached(a.url("/")) is not None) == (code == 404)


def test_beamcrawl_redirect_to_cached_robots_reuses_them_without_a_request(sites, http):
    # Nutch fetches the target again before finding it in the cache.
    a, b = sites("127.0.0.2"), sites("127.0.0.3", robots="User-agent: *\nDisallow: /\n")
    _redirect(a, 301, b.url("/robots.txt"))
    cache = _cache(http)
    known = cache.rules_for(b.url("/x"))
    assert cache.rules_for(a.url("/x")) is known
    assert _robots_requests(b) == 1


# --- the cache -------------------------------------------------------------------


def test_nutch_robots_key_is_scheme_host_port_with_default_port():
    assert robots_key("http://Example.COM/a?b") == "http:example.com:80"
    assert robots_key("HTTPS://example.com/") == "https:example.com:443"
    assert robots_key("http://example.com:8080/") == "http:example.com:8080"
    assert robots_key("https://example.com:80/") == "https:example.com:80"
    assert robots_key("http://[::1]/") == "http:[::1]:80"
    with pytest.raises(ValueError, match="no host"):
        robots_key("mailto:someone")


def test_nutch_http_and_https_have_separate_entries(site, http):
    class _HttpsOverHttp:
        """https: URLs fetched from the plain test server (no TLS needed)."""

        def fetch(
            self, url: str, modified_time_ms: int = 0, zone: Zone = Zone.LOCAL
        ) -> FetchResult:
            return replace(http.fetch(url.replace("https:", "http:", 1)), url=url)

        def close(self) -> None:
            pass

    https = _HttpsOverHttp()
    site.robots = "User-agent: *\nDisallow: /\n"
    config = RobotsConfig(agents=("mybot",))
    cache = RobotsCache(config, lambda url: https if url.startswith("https:") else http)
    secure = site.url("/x").replace("http:", "https:")
    assert cache.rules_for(site.url("/x")) == cache.rules_for(secure) != ALLOW_ALL
    assert cache.cached(site.url("/")) is not cache.cached(secure)
    assert cache.rules_for(secure) is cache.cached(secure)
    assert _robots_requests(site) == 2


def test_nutch_robots_txt_fetched_once_for_twenty_threads(site, http):
    site.robots = "User-agent: *\nDisallow: /private\n"
    cache = _cache(http)
    barrier = threading.Barrier(20)
    verdicts: list[object] = []

    def ask(n: int) -> None:
        barrier.wait()
        verdicts.append(cache.rules_for(site.url(f"/page/{n}")))

    threads = [threading.Thread(target=ask, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert _robots_requests(site) == 1
    assert len(verdicts) == 20
    assert all(verdict is verdicts[0] for verdict in verdicts)


def test_one_slow_host_does_not_hold_up_another(sites, http):
    slow, fast = sites("127.0.0.2"), sites("127.0.0.3")
    entered, release = threading.Event(), threading.Event()

    class _Gated:
        def fetch(
            self, url: str, modified_time_ms: int = 0, zone: Zone = Zone.LOCAL
        ) -> FetchResult:
            if urlsplit(url).hostname == slow.host:
                entered.set()
                release.wait(10)
            return http.fetch(url)

        def close(self) -> None:
            pass

    cache = RobotsCache(RobotsConfig(agents=("mybot",)), lambda url: _Gated())
    blocked = threading.Thread(target=cache.rules_for, args=(slow.url("/"),))
    blocked.start()
    assert entered.wait(10)
    assert cache.rules_for(fast.url("/")) == ALLOW_ALL
    assert blocked.is_alive()  # still waiting for the slow robots.txt
    release.set()
    blocked.join()
    assert (_robots_requests(slow), _robots_requests(fast)) == (1, 1)


def test_nutch_allowlisted_hosts_are_not_asked(sites, http):
    site = sites("127.0.0.2", robots="User-agent: *\nDisallow: /\n")
    by_ip = _cache(http, allowlist=("127.0.0.2",))
    assert by_ip.rules_for(site.url("/x")) == ALLOW_ALL
    by_name = _cache(http, allowlist=("host",))  # suffix match on the host name
    localhost = f"http://localhost:{site.port}/x"
    assert by_name.rules_for(localhost) == ALLOW_ALL
    assert _robots_requests(site) == 0
    partial_ip = _cache(http, allowlist=("0.0.2",))  # IPs match exactly only
    assert partial_ip.rules_for(site.url("/x")) == RobotRules((Rule(False, "/"),))
    assert _robots_requests(site) == 1


def test_nutch_file_urls_and_unknown_schemes_allow_all(http):
    cache = _cache(http)
    assert cache.rules_for("file:///etc/passwd") == ALLOW_ALL
    assert cache.rules_for("ftp://example.com/x") == ALLOW_ALL  # no protocol
    assert cache.rules_for("http:///no-host") == ALLOW_ALL
    assert http.fetched == []


# --- with the project's protocol-http --------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected", "cached"),
    [
        (RobotsReply(200, b"User-agent: *\nDisallow: /\n"), FORBID_ROOT, True),
        (RobotsReply(403), ALLOW_ALL, True),
        (RobotsReply(404), ALLOW_ALL, True),
        (RobotsReply(503), Defer(503), False),
        (RobotsReply(429), Defer(429), False),
        (RobotsReply(302, headers=(("Location", "/loop/0"),)), ALLOW_ALL, True),
        (RobotsReply(301, headers=(("Location", "/bytes/r"),)), FORBID_ROOT, True),
    ],
)
def test_the_table_through_http_protocol(site, reply, expected, cached):
    site.files["r"] = ("text/plain", b"User-agent: *\nDisallow: /\n")
    set_robots_reply(site, reply)
    protocol = HttpProtocol(HttpConfig(user_agent="mybot/1.0", agent_name="mybot"))
    try:
        cache = RobotsCache(RobotsConfig(agents=("mybot",)), lambda url: protocol)
        assert cache.rules_for(site.url("/x")) == expected
        assert (cache.cached(site.url("/")) is not None) == cached
    finally:
        protocol.close()


def test_network_error_through_http_protocol():
    protocol = HttpProtocol(HttpConfig(user_agent="mybot/1.0", agent_name="mybot"))
    try:
        cache = RobotsCache(RobotsConfig(agents=("mybot",)), lambda url: protocol)
        verdict = cache.rules_for(refused_url())
        assert isinstance(verdict, Unreachable)
        assert "Connection refused" in verdict.message
        assert cache.cached(refused_url()) is None
    finally:
        protocol.close()
