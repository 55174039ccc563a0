"""Outlinks through link policies: decisions, rewrites, tallies, parse processes."""

import dataclasses
import logging
from typing import Any

import pytest

from crawllib.config import ParseConfig, load_properties
from crawllib.errors import ConfigError
from crawllib.parse import Outlink
from crawllib.parse.outlinks import OutlinkFilter, link_policy_of
from crawllib.parse.parse import PageParser
from crawllib.parse.pool import ParseBatch, parse_without_content, shutdown_pool
from crawllib.status import CrawlStatus
from crawllib.urls.linkpolicy import (
    LinkPolicy,
    NutchLinkPolicy,
    as_link_policy,
    load_link_policy,
)
from crawllib.webpage import new_page

CONFIG = ParseConfig.from_properties(load_properties())
PAGE = "http://www.a.com/news/"
NEWS = "tests/data/linkpolicies/news_links.py"
OUTLINKS = [
    Outlink("http://www.a.com/news/1?utm_source=feed&utm_medium=rss", "one"),
    Outlink("http://www.a.com/news/1?utm_campaign=x", "one again"),
    Outlink("http://www.a.com/news/2", "two"),
    Outlink("http://www.a.com/news/logo.gif?utm_source=x", "logo"),
    Outlink("http://www.a.com/news/4?id=7", "four"),  # Nutch's filter: no "?"
    Outlink("http://www.a.com/about", "about"),
    Outlink(PAGE, "self"),
    Outlink("http://b.org/news/3", "b"),
    Outlink("mailto:desk@www.a.com", "mail"),
]


def _filter(policy, **changes):
    config = dataclasses.replace(
        CONFIG, link_policy=as_link_policy(policy) if policy else None, **changes
    )
    return OutlinkFilter(config)


def test_a_policy_decides_and_rewrites_before_normalizing_and_filtering():
    links = _filter(load_link_policy(f"{NEWS}:NewsOnly"))
    assert links.keep(PAGE, OUTLINKS) == {
        "http://www.a.com/news/1": "one",  # the first anchor wins
        "http://www.a.com/news/2": "two",
    }
    assert links.take_counts() == {
        "internal_kept": 5,  # news/1 twice, news/2, the .gif, news/4
        "internal_rewritten": 3,  # news/1 twice, the .gif
        "internal_filtered": 3,  # the .gif, news/4 (the URL filters), the self link
        "internal_dropped": 1,
        "external_dropped": 1,
        "other_dropped": 1,
    }
    assert links.take_counts() == {}


def test_the_default_policy_keeps_what_the_filters_let_through():
    links = _filter(None)
    assert links.keep(PAGE, OUTLINKS) == {
        "http://www.a.com/news/2": "two",
        "http://www.a.com/about": "about",
        "http://b.org/news/3": "b",
    }
    assert links.take_counts() == {
        "internal_kept": 6,
        "internal_filtered": 5,  # four by the URL filters, the self link
        "external_kept": 1,
        "other_kept": 1,
        "other_filtered": 1,
    }


def test_a_rewrite_cannot_escape_the_url_filters_or_the_length_limit():
    def to_gif(link):
        return link.url + ".gif" if link.url.endswith("2") else link.url + "x" * 50

    links = _filter(to_gif, max_outlink_length=60)
    assert links.keep(PAGE, OUTLINKS[2:3] + OUTLINKS[4:5]) == {}
    assert links.take_counts() == {
        "internal_kept": 2,
        "internal_rewritten": 2,
        "internal_filtered": 2,
    }


class _Recording(LinkPolicy):
    def __init__(self):
        self.seen = []

    def internal(self, link):
        self.seen.append(link.url)
        return True


def test_nutch_max_outlinks_per_page_stops_the_work():
    policy = _Recording()
    links = _filter(policy, max_outlinks=2)
    outlinks = [Outlink(f"http://www.a.com/{n}", "") for n in range(10)]
    assert list(links.keep(PAGE, outlinks)) == [
        "http://www.a.com/0",
        "http://www.a.com/1",
    ]
    assert policy.seen == ["http://www.a.com/0", "http://www.a.com/1"]
    assert links.take_counts() == {"internal_kept": 2}


def test_the_policy_sees_class_page_and_anchor():
    seen = []

    def record(link):
        seen.append(link)
        return True

    links = _filter(record)
    links.keep(PAGE, OUTLINKS[7:])
    assert [
        (link.url, link.page_url, link.kind.value, link.anchor) for link in seen
    ] == [
        ("http://b.org/news/3", PAGE, "external", "b"),
        ("mailto:desk@www.a.com", PAGE, "other", "mail"),
    ]


def test_a_policy_that_raises_drops_the_link_and_is_counted(caplog):
    links = _filter(load_link_policy(f"{NEWS}:broken"))
    with caplog.at_level(logging.WARNING):
        kept = links.keep(PAGE, [*OUTLINKS, Outlink("http://c.org/", "c")])
    assert "http://b.org/news/3" not in kept
    assert "http://c.org/" not in kept
    assert "http://www.a.com/news/2" in kept
    counts = links.take_counts()
    assert counts["policy_errors"] == 2  # and dropped
    assert counts["external_dropped"] == 2
    assert "external_kept" not in counts
    assert caplog.text.count("link policy") == 1  # the first only
    assert "ValueError: cannot judge http://b.org/news/3" in caplog.text


def test_a_decide_that_gives_no_url_is_a_policy_error():
    class Wrong(LinkPolicy):
        def decide(self, link):
            return True

    links = _filter(Wrong())
    assert links.keep(PAGE, OUTLINKS[:1]) == {}
    assert links.take_counts() == {"policy_errors": 1, "internal_dropped": 1}


def test_parse_link_policy_property_is_loaded_where_links_are_filtered():
    props = load_properties(defines=[f"parse.link.policy={NEWS}:NewsOnly"])
    config = ParseConfig.from_properties(props)
    assert config.link_policy == f"{NEWS}:NewsOnly"  # reading runs no user code
    assert type(link_policy_of(config)).__name__ == "NewsOnly"
    assert OutlinkFilter(config).keep(PAGE, OUTLINKS[2:3]) == {
        "http://www.a.com/news/2": "two"
    }
    default = ParseConfig.from_properties(load_properties())
    assert default.link_policy is None
    assert link_policy_of(default) == NutchLinkPolicy()
    bad = ParseConfig.from_properties(
        load_properties(defines=["parse.link.policy=nowhere"])
    )
    with pytest.raises(ConfigError, match="link policy 'nowhere'"):
        OutlinkFilter(bad)


def _page(n):
    html = (
        f"<html><head><title>News {n}</title></head><body>"
        f'<a href="/news/{n + 1}?utm_campaign=c">next</a>'
        f'<a href="/about">about</a><a href="http://b.org/">b</a>'
        f'<a href="mailto:desk@a.com">mail</a></body></html>'
    ).encode()
    return new_page(
        f"http://a.com/news/{n}",
        content=html,
        status=CrawlStatus.FETCHED,
        contentType="text/html",
        markers={"_gnmrk_": "s1", "_ftcmrk_": "s1"},
    )


@pytest.fixture
def _fresh_pool():
    shutdown_pool()
    yield
    shutdown_pool()


@pytest.mark.usefixtures("_fresh_pool")
def test_parse_processes_send_their_tallies_back():
    config = dataclasses.replace(
        CONFIG, link_policy=load_link_policy(f"{NEWS}:NewsOnly")
    )
    pages = [_page(n) for n in range(20)]
    parser = PageParser(config)
    try:
        expected = [parse_without_content(parser, page) for page in pages]
        expected_counts = parser.take_link_counts()
    finally:
        parser.close()
    assert expected_counts == {
        "internal_kept": 20,
        "internal_rewritten": 20,
        "internal_dropped": 20,
        "external_dropped": 20,
        "other_dropped": 20,
    }
    assert expected[0]["outlinks"] == {"http://a.com/news/1": "next"}
    batch = ParseBatch(config, processes=2, max_pending=8)
    given: list[Any] = []
    for page in pages:
        given += batch.submit(page)
    given += batch.drain()
    assert given == expected
    assert batch.take_link_counts() == expected_counts
    assert batch.take_link_counts() == {}
