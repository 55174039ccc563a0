import dataclasses

from crawllib.config import ParseConfig, load_properties
from crawllib.parse import Outlink
from crawllib.parse.outlinks import OutlinkFilter
from crawllib.urls.linkrules import LinkRules

CONFIG = ParseConfig.from_properties(load_properties())
PAGE = "http://www.a.com/dir/page.html"


def _keep(outlinks, **changes):
    config = dataclasses.replace(CONFIG, **changes)
    return OutlinkFilter(config).keep(PAGE, [Outlink(u, a) for u, a in outlinks])


def test_nutch_outlinks_are_normalized_filtered_and_self_links_dropped():
    kept = _keep([
        ("HTTP://WWW.A.COM:80/x/../y.html#frag", "Y"),
        ("http://www.a.com/logo.gif", "logo"),
        ("http://www.a.com/search?q=1", "query"),
        (PAGE, "self"),
        ("mailto:me@a.com", "mail"),
        ("http://b.org/", "B"),
    ])  # fmt: skip
    assert kept == {"http://www.a.com/y.html": "Y", "http://b.org/": "B"}


def test_duplicate_targets_keep_the_first_anchor():
    kept = _keep([("http://b.org/", "first"), ("http://B.org:80/", "second")])
    assert kept == {"http://b.org/": "first"}


def test_nutch_max_outlinks_counts_kept_links():
    links = [("http://www.a.com/x.gif", "")] * 5 + [
        (f"http://c{i}.org/", "") for i in range(5)
    ]
    assert list(_keep(links, max_outlinks=3)) == [f"http://c{i}.org/" for i in range(3)]
    assert len(_keep(links, max_outlinks=-1)) == 5


def test_nutch_max_outlink_length():
    long = "http://b.org/" + "x" * 100
    assert _keep([(long, "")], max_outlink_length=50) == {}
    assert _keep([(long, "")], max_outlink_length=-1) == {long: ""}


def test_nutch_ignore_external_and_internal_links():
    outlinks = [
        ("http://www.a.com/in", ""),
        ("http://img.a.com/sub", ""),
        ("http://b.org/", ""),
    ]
    external = LinkRules(ignore_external=True)
    assert list(_keep(outlinks, links=external)) == ["http://www.a.com/in"]
    by_domain = LinkRules(ignore_external=True, by_domain=True)
    assert list(_keep(outlinks, links=by_domain)) == [
        "http://www.a.com/in",
        "http://img.a.com/sub",
    ]
    assert list(_keep(outlinks, links=LinkRules(ignore_internal=True))) == [
        "http://img.a.com/sub",
        "http://b.org/",
    ]


def test_parse_normalize_and_filter_can_be_turned_off():
    links = [("HTTP://B.org/x.gif", "")]
    assert _keep(links, normalize_urls=False, filter_urls=False) == {
        "HTTP://B.org/x.gif": ""
    }
