import dataclasses
import itertools

import pytest

from crawllib.config import LinkDbConfig, UrlConfig, load_properties
from crawllib.db.invertlinks import (
    EXISTING_TIME_MS,
    InlinkSet,
    LinkInverter,
    LinkSkip,
    check_config,
    cut_anchor,
    is_link_source,
    linkdb_page,
)
from crawllib.errors import ConfigError
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page

CONFIG = LinkDbConfig(urls=UrlConfig.from_properties(load_properties()))
RAW = dataclasses.replace(CONFIG, normalize=False, filter_urls=False)


def _invert(config, source, outlinks, time_ms=7):
    return list(LinkInverter(config).invert(source, outlinks, time_ms))


def test_nutch_internal_links_are_ignored_by_default():
    found = _invert(
        CONFIG,
        "http://a.com/",
        {"http://A.com/x": "same host", "http://b.com/": "b", "http://w.a.com/": "w"},
    )
    assert found == [
        LinkSkip.INTERNAL,
        ("http://b.com/", ("http://a.com/", "b", 7)),
        ("http://w.a.com/", ("http://a.com/", "w", 7)),  # another host
    ]


def test_nutch_ignore_external_keeps_only_same_host_links():
    config = dataclasses.replace(CONFIG, ignore_internal=False, ignore_external=True)
    found = _invert(
        config, "http://a.com/", {"http://a.com/x": "x", "http://b.com/": ""}
    )
    assert found == [("http://a.com/x", ("http://a.com/", "x", 7)), LinkSkip.EXTERNAL]


def test_nutch_neither_ignored_keeps_every_link():
    config = dataclasses.replace(RAW, ignore_internal=False)
    found = _invert(
        config, "http://a.com/", {"http://a.com/x": "x", "http://b.com/": ""}
    )
    assert [target for target, _ in found] == ["http://a.com/x", "http://b.com/"]


def test_nutch_unparsable_target_is_skipped_in_either_mode():
    external = dataclasses.replace(RAW, ignore_internal=False, ignore_external=True)
    assert _invert(RAW, "http://a.com/", {"no-scheme": ""}) == [LinkSkip.INTERNAL]
    assert _invert(external, "http://a.com/", {"no-scheme": ""}) == [LinkSkip.EXTERNAL]


def test_nutch_hostless_target_is_another_host():
    # java.net.URL gives mailto: an empty host, not null: only the filter drops it
    target = "mailto:me@a.com"
    assert _invert(RAW, "http://a.com/", {target: "m"}) == [
        (target, ("http://a.com/", "m", 7))
    ]
    assert _invert(CONFIG, "http://a.com/", {target: "m"}) == [LinkSkip.TARGET_REJECTED]


def test_nutch_anchor_is_cut_to_max_anchor_length():
    config = dataclasses.replace(RAW, max_anchor_length=5)
    found = _invert(config, "http://a.com/", {"http://b.com/": "0123456789"})
    assert found == [("http://b.com/", ("http://a.com/", "01234", 7))]
    assert _invert(RAW, "http://a.com/", {"http://b.com/": "x" * 150})[0][1][1] == (
        "x" * 100
    )


def test_missing_anchor_is_empty():
    found = _invert(RAW, "http://a.com/", {"http://b.com/": None})
    assert found == [("http://b.com/", ("http://a.com/", "", 7))]


def test_anchor_cut_counts_utf16_units_and_keeps_pairs_whole():
    assert cut_anchor("ab\U0001f600cd", 3) == "ab"
    assert cut_anchor("ab\U0001f600cd", 4) == "ab\U0001f600"
    assert cut_anchor("abc", 0) == ""
    assert cut_anchor(None, 10) == ""


def test_nutch_rejected_source_drops_all_its_links():
    outlinks = {"http://b.com/": "b", "http://c.com/": "c"}
    assert _invert(CONFIG, "http://a.com/?id=1", outlinks) == [LinkSkip.SOURCE_REJECTED]
    assert len(_invert(RAW, "http://a.com/?id=1", outlinks)) == 2


def test_nutch_source_and_target_are_normalized():
    found = _invert(CONFIG, "HTTP://A.com:80/x/../", {"http://B.com/a/./b#top": "t"})
    assert found == [("http://b.com/a/b", ("http://a.com/", "t", 7))]


def test_nutch_host_check_uses_the_urls_as_found():
    # normalized, source and target share the host a.com; as found they do not
    found = _invert(CONFIG, "http://%61.com/", {"http://a.com/x": "x"})
    assert found == [("http://a.com/x", ("http://a.com/", "x", 7))]


def test_nutch_target_filtered():
    found = _invert(CONFIG, "http://a.com/", {"http://b.com/pic.gif": "", "x:": ""})
    assert found == [LinkSkip.TARGET_REJECTED, LinkSkip.TARGET_REJECTED]


def test_recheck_normalizes_and_filters_existing_inlinks():
    inverter = LinkInverter(CONFIG)
    inlinks = {"http://A.com/": "a", "http://c.com/?q=1": "c"}
    assert list(inverter.recheck("http://B.com/", inlinks)) == [
        ("http://b.com/", ("http://a.com/", "a", EXISTING_TIME_MS)),
        LinkSkip.EXISTING_REJECTED,
    ]
    assert list(inverter.recheck("http://b.com/x.gif", inlinks)) == [
        LinkSkip.EXISTING_REJECTED,
        LinkSkip.EXISTING_REJECTED,
    ]
    assert list(LinkInverter(RAW).recheck("http://B.com/", inlinks)) == [
        ("http://B.com/", ("http://A.com/", "a", EXISTING_TIME_MS)),
        ("http://B.com/", ("http://c.com/?q=1", "c", EXISTING_TIME_MS)),
    ]


def test_only_pages_parsed_here_are_link_sources():
    def page(status=CrawlStatus.FETCHED, major=1):
        parse_status = {"majorCode": major, "minorCode": 0, "args": []}
        return new_page("http://a.com/", status=status, parseStatus=parse_status)

    assert is_link_source(page())
    assert not is_link_source(page(major=2))
    assert not is_link_source(new_page("http://a.com/", status=CrawlStatus.FETCHED))
    assert not is_link_source(page(status=CrawlStatus.REDIR_PERM))


def test_inlink_set_unites_and_keeps_the_newest_anchor():
    links = InlinkSet(10)
    links.add(("http://s.com/1", "old", EXISTING_TIME_MS))
    links.add(("http://s.com/1", "new", 5))
    links.add(("http://s.com/1", "older", 4))
    links.add(("http://s.com/2", "zz", 5))
    links.add(("http://s.com/2", "aa", 5))  # same time: the smaller anchor
    assert links.inlinks() == {"http://s.com/1": "new", "http://s.com/2": "aa"}


def test_beamcrawl_cap_keeps_the_smallest_sources():
    links = InlinkSet(3)
    for n in (9, 1, 8, 2, 7, 3, 6, 4, 5):
        links.add((f"http://s.com/{n}", str(n), 0))
    assert links.inlinks() == {f"http://s.com/{n}": str(n) for n in (1, 2, 3)}


def test_inlink_set_merges_to_the_same_result_in_any_order():
    inlinks = [(f"http://s.com/{n % 7}", f"a{n}", n % 3) for n in range(20)]
    expected = InlinkSet(4)
    for inlink in inlinks:
        expected.add(inlink)
    for split in itertools.combinations(range(1, 20), 2):
        parts = [inlinks[: split[0]], inlinks[split[0] : split[1]], inlinks[split[1] :]]
        sets = []
        for part in reversed(parts):
            one = InlinkSet(4)
            for inlink in part:
                one.add(inlink)
            sets.append(one)
        assert sets[0].merge(sets[1:]).inlinks() == expected.inlinks()


def test_zero_max_inlinks_keeps_nothing():
    links = InlinkSet(0)
    links.add(("http://s.com/", "a", 0))
    assert links.inlinks() == {}


def test_negative_anchor_length_is_a_config_error():
    with pytest.raises(ConfigError, match=r"linkdb\.max\.anchor\.length"):
        check_config(dataclasses.replace(CONFIG, max_anchor_length=-1))
    assert check_config(CONFIG) is CONFIG


def test_linkdb_page_is_a_webpage_with_inlinks():
    page = linkdb_page("http://t.com/", {"http://s.com/": "s"})
    assert page == new_page("http://t.com/", inlinks={"http://s.com/": "s"})
