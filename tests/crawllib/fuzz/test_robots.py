"""Property tests of the robots.txt parser (hypothesis): rules for any body.

Arbitrary bytes and robots.txt files of odd lines (misspelt directives, bad
separators, comments, HTML around them, every line break) always give
:class:`RobotRules` of the documented types, whose matcher answers any URL,
and :func:`verdict_for` answers any response. A sanity check: a group
for our agent that disallows ``/`` ends the rules, and without an Allow
line forbids every path.
"""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawllib.config import RobotsConfig
from crawllib.fetch.protocol import FetchResult
from crawllib.fetch.protocol.robots import (
    Defer,
    RobotRules,
    Rule,
    Unreachable,
    parse_robots,
    verdict_for,
)
from crawllib.status import ProtocolStatus
from tests.crawllib.fuzz.strategies import encoded, robots_documents

FUZZ = settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)

AGENTS = st.lists(
    st.one_of(st.sampled_from(["bot", "Bot", "other", "*", ""]), st.text(max_size=6)),
    max_size=3,
)
BODIES = st.one_of(st.binary(max_size=300), encoded(robots_documents()))
CONTENT_TYPES = st.sampled_from([None, "text/plain", "text/html", "TEXT/HTML; x", ""])
BASE_URLS = st.sampled_from(
    ["", "http://a.example/robots.txt", "https://[::1]:8443/robots.txt", "x", "//"]
)
PATHS = st.one_of(
    st.sampled_from(
        ["/", "/a", "/a?b=1", "/%zz", "/\u20ac", "http://a.example/x", "", "*", "$"]
    ),
    st.text(max_size=20),
)


def assert_rules(rules: RobotRules) -> None:
    """The documented shape of RobotRules."""
    assert isinstance(rules, RobotRules)
    for rule in rules.rules:
        assert isinstance(rule, Rule)
        assert type(rule.allow) is bool
        assert isinstance(rule.path, str)
        assert rule.path
    delay = rules.crawl_delay_s
    assert delay is None or (isinstance(delay, float) and math.isfinite(delay))
    assert all(isinstance(sitemap, str) for sitemap in rules.sitemaps)


@FUZZ
@given(BODIES, AGENTS, CONTENT_TYPES, BASE_URLS, st.lists(PATHS, max_size=4))
def test_any_robots_txt_gives_rules_that_answer_any_url(
    body, agents, content_type, base_url, paths
):
    rules = parse_robots(body, agents, content_type, base_url)
    assert_rules(rules)
    for path in paths:
        assert type(rules.allowed(path)) is bool


@FUZZ
@given(robots_documents(), st.sampled_from(["\n", "\r\n", "\r"]), PATHS)
def test_a_forbid_all_group_for_our_agent_forbids_every_path(body, end, path):
    text = f"{body}{end}User-agent: bot{end}Disallow: /{end}"
    rules = parse_robots(text.encode("utf-8", "replace"), ["bot"])
    assert_rules(rules)
    assert rules.rules[-1] == Rule(False, "/")
    if not any(rule.allow for rule in rules.rules):
        assert not rules.allowed("/")
        assert not rules.allowed("/page-" + path)


@FUZZ
@given(
    st.sampled_from(list(ProtocolStatus)),
    st.sampled_from([0, 200, 204, 301, 302, 403, 404, 429, 500, 503, 999]),
    st.one_of(st.none(), BODIES),
    CONTENT_TYPES,
    st.booleans(),
    st.booleans(),
)
def test_any_robots_response_gives_a_verdict(
    status, code, body, content_type, allow_403, defer_5xx
):
    result = FetchResult(
        "http://a.example/robots.txt", status, (), code, body, content_type
    )
    config = RobotsConfig(("bot",), allow_403=allow_403, defer_5xx=defer_5xx)
    verdict, cacheable = verdict_for(result, config)
    assert type(cacheable) is bool
    if isinstance(verdict, Defer):
        assert verdict.http_code == code
        assert not cacheable
    elif isinstance(verdict, Unreachable):
        assert code == 0 or (code == 200 and status != ProtocolStatus.SUCCESS)
        assert not cacheable
    else:
        assert_rules(verdict)
