import dataclasses
import pickle
import sys

import pytest

from crawllib.config import ParseConfig, load_properties
from crawllib.errors import ConfigError
from crawllib.parse import Outlink
from crawllib.parse.outlinks import OutlinkFilter
from crawllib.urls.domain import domain_of, host_of
from crawllib.urls.linkpolicy import (
    Link,
    LinkKind,
    LinkPolicy,
    NutchLinkPolicy,
    as_link_policy,
    link_kind,
    load_link_policy,
    without_query,
)
from crawllib.urls.linkrules import LinkRules

PAGE = "http://www.a.com/dir/page.html"
NEWS_FILE = "tests/data/linkpolicies/news_links.py"
INTERNAL, EXTERNAL, OTHER = LinkKind.INTERNAL, LinkKind.EXTERNAL, LinkKind.OTHER


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("http://www.a.com/x", INTERNAL),
        ("http://www.a.com", INTERNAL),
        ("http://www.a.com?q=1", INTERNAL),
        ("http://www.a.com#top", INTERNAL),
        ("http://www.a.com:8080/x", INTERNAL),  # the host, not the port
        ("https://www.a.com/x", INTERNAL),
        ("HTTP://WWW.A.COM/x", INTERNAL),
        ("http://user:pw@www.a.com/x", INTERNAL),
        ("http://www.a.com@evil.org/", EXTERNAL),  # user-info, then the host
        ("http://www.a.com:80@evil.org/", EXTERNAL),
        ("http://www.a.com.evil.org/", EXTERNAL),
        ("http://www.a.community/", EXTERNAL),
        ("http://www.a.com./x", EXTERNAL),  # java.net.URL keeps the dot
        ("http://img.a.com/x", EXTERNAL),
        ("http://b.org/", EXTERNAL),
        ("http:///nohost", EXTERNAL),
        ("mailto:me@www.a.com", OTHER),
        ("ftp://www.a.com/file", OTHER),
        ("FTP://b.org/", OTHER),
        ("tel:+4930123", OTHER),
        ("file:///etc/passwd", OTHER),
        ("data:text/plain,hi", OTHER),
        ("no-scheme", OTHER),
    ],
)
def test_link_classes(url, kind):
    assert link_kind(url, PAGE) is kind


@pytest.mark.parametrize(
    ("page", "url", "kind"),
    [
        ("http://u:p@www.a.com/", "http://www.a.com/x", INTERNAL),
        ("http://www.a.com:8000/", "http://www.a.com:8000/x", INTERNAL),
        ("http://www.a.com:8000/", "http://www.a.com/x", INTERNAL),
        ("http://[::1]:8000/", "http://[::1]/x", INTERNAL),
        ("http://[::1]:8000/", "http://[::2]:8000/x", EXTERNAL),
        ("http://127.0.0.1:8000/", "http://127.0.0.2:8000/", EXTERNAL),
        ("HTTP://WWW.A.COM/", "http://www.a.com/", INTERNAL),
        ("file:/local/page.html", "http://www.a.com/", EXTERNAL),  # no host
        ("ftp://www.a.com/", "http://www.a.com/x", INTERNAL),
    ],
)
def test_link_classes_of_odd_pages(page, url, kind):
    assert link_kind(url, page) is kind


def test_internal_is_exactly_an_http_link_to_the_page_host():
    # host_of (java.net.URL's host) is the oracle; the classifier's shortcut
    # must never disagree with it
    pages = [PAGE, "http://www.a.com:8000/", "https://u@www.a.com/", "http://[::1]/"]
    targets = [
        f"{scheme}://{authority}{rest}"
        for scheme in ("http", "https", "HTTP")
        for authority in (
            "www.a.com", "WWW.A.com", "www.a.com:8000", "www.a.com:", "u@www.a.com",
            "www.a.com@b.org", "www.a.com:8000@b.org", "www.a.comm", "[::1]",
            "[::1]:8000", "b.org", "", "www.a.com:99999999999",
        )
        for rest in ("", "/", "/x?y", "?q", "#f", "\\x")
    ]  # fmt: skip
    for page in pages:
        for url in targets:
            same = bool(host_of(url)) and host_of(url) == host_of(page)
            assert (link_kind(url, page) is INTERNAL) == same, (page, url)


def _link(url, kind=None, anchor="a"):
    return Link(url, PAGE, kind or link_kind(url, PAGE), anchor)


def test_the_base_policy_keeps_every_link_as_it_is():
    policy = LinkPolicy()
    for url in ("http://www.a.com/x?q=1", "http://b.org/?q", "mailto:me@a.com"):
        assert policy.decide(_link(url)) == url


class _InternalOnly(LinkPolicy):
    remove_query = True

    def external(self, link):
        return False

    def other(self, link):
        return False


def test_a_policy_dispatches_by_class_and_rewrites_kept_links():
    policy = _InternalOnly()
    assert policy.decide(_link("http://www.a.com/x?q=1#f")) == "http://www.a.com/x#f"
    assert policy.decide(_link("http://b.org/?q=1")) is None
    assert policy.decide(_link("mailto:me@www.a.com")) is None


def test_without_query():
    assert without_query("http://a.org/x?q=1&r=2") == "http://a.org/x"
    assert without_query("http://a.org/x?q=1#frag") == "http://a.org/x#frag"
    assert without_query("http://a.org/x#frag?not-a-query") == (
        "http://a.org/x#frag?not-a-query"
    )
    assert without_query("http://a.org/x") == "http://a.org/x"


def test_function_policies():
    def verdict(link):
        return {"keep": True, "drop": False, "none": None}.get(
            link.url.rsplit("/", 1)[-1], "http://www.a.com/rewritten"
        )

    policy = as_link_policy(verdict)
    assert policy.decide(_link("http://www.a.com/keep")) == "http://www.a.com/keep"
    assert policy.decide(_link("http://www.a.com/drop")) is None
    assert policy.decide(_link("http://www.a.com/none")) is None
    assert policy.decide(_link("http://www.a.com/x")) == "http://www.a.com/rewritten"
    with pytest.raises(TypeError, match="returned int"):
        as_link_policy(lambda link: 1).decide(_link("http://www.a.com/"))


def test_as_link_policy_takes_instances_classes_and_functions():
    instance = _InternalOnly()
    assert as_link_policy(instance) is instance
    assert as_link_policy(_InternalOnly) == _InternalOnly()
    assert isinstance(as_link_policy(_InternalOnly), _InternalOnly)
    with pytest.raises(TypeError, match="not a LinkPolicy"):
        as_link_policy(dict)
    with pytest.raises(TypeError, match="a str is not a link policy"):
        as_link_policy("module:name")


def test_load_link_policy_by_module_and_by_file():
    assert (
        load_link_policy("crawllib.urls.linkpolicy:NutchLinkPolicy")
        == NutchLinkPolicy()
    )
    news = load_link_policy(f"{NEWS_FILE}:NewsOnly")
    assert type(news).__name__ == "NewsOnly"
    assert news.decide(_link("http://www.a.com/news/1?utm_source=x&id=2")) == (
        "http://www.a.com/news/1?id=2"
    )
    assert news.decide(_link("http://www.a.com/about")) is None
    function = load_link_policy(f"{NEWS_FILE}:news_only")
    assert function.decide(_link("http://www.a.com/news/?utm_medium=m")) == (
        "http://www.a.com/news/"
    )


def test_load_link_policy_puts_a_file_on_the_path_for_parse_processes(tmp_path):
    (tmp_path / "my_policy_zz.py").write_text(
        "from crawllib.urls.linkpolicy import LinkPolicy\n"
        "class Q(LinkPolicy):\n    remove_query = True\n"
    )
    policy = load_link_policy(f"{tmp_path}/my_policy_zz.py:Q")
    assert str(tmp_path) in sys.path
    assert policy.decide(_link("http://b.org/?q")) == "http://b.org/"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_colon_here", "expected package.module:name or path/file.py:name"),
        ("crawllib.urls.linkpolicy:", "expected package.module"),
        (":NewsOnly", "expected package.module"),
        ("no_such_zz:x", "ModuleNotFoundError: No module named 'no_such_zz'"),
        ("crawllib.urls.linkpolicy:Nope", "crawllib.urls.linkpolicy has no Nope"),
        ("crawllib.urls.linkpolicy:WEB_SCHEMES", "a frozenset is not a link policy"),
        ("crawllib.urls.linkpolicy:Link", "Link is a class but not a LinkPolicy"),
        ("crawllib.urls.linkpolicy:LinkKind.OTHER", "a LinkKind is not a link policy"),
        (
            "crawllib.urls.linkpolicy:LinkKind.NO",
            "crawllib.urls.linkpolicy has no LinkKind.NO",
        ),
        ("crawllib.urls.linkpolicy:LinkClassifier", "is a class but not a LinkPolicy"),
        ("tests/data/no_such_file.py:x", "no file tests/data/no_such_file.py"),
        ("not a module:x", "'not a module' is not a module name"),
    ],
)  # fmt: skip
def test_load_link_policy_rejects_bad_specs_in_one_line(spec, message):
    with pytest.raises(ConfigError) as caught:
        load_link_policy(spec)
    text = str(caught.value)
    assert text.startswith(f"link policy {spec!r}: ")
    assert message in text
    assert "\n" not in text


def test_load_link_policy_reports_the_users_errors_in_one_line(tmp_path):
    (tmp_path / "raises_zz.py").write_text("raise RuntimeError('no\\nway')\n")
    (tmp_path / "needs_args_zz.py").write_text(
        "from crawllib.urls.linkpolicy import LinkPolicy\n"
        "class P(LinkPolicy):\n    def __init__(self, x):\n        self.x = x\n"
    )
    (tmp_path / "bad-name.py").write_text("")
    with pytest.raises(ConfigError, match=r"RuntimeError: no way$"):
        load_link_policy(f"{tmp_path}/raises_zz.py:P")
    with pytest.raises(ConfigError, match=r"TypeError: .*missing 1 required"):
        load_link_policy(f"{tmp_path}/needs_args_zz.py:P")
    with pytest.raises(ConfigError, match=r"bad-name\.py is not a Python module name"):
        load_link_policy(f"{tmp_path}/bad-name.py:P")


def test_a_file_shadowed_by_another_module_is_refused(tmp_path):
    (tmp_path / "json.py").write_text("P = 1\n")
    with pytest.raises(ConfigError, match="another module named json comes first"):
        load_link_policy(f"{tmp_path}/json.py:P")


def test_policies_pickle_and_compare_by_value():
    policies = [
        NutchLinkPolicy(ignore_external_links=True, ignore_by_domain=True),
        load_link_policy(f"{NEWS_FILE}:NewsOnly"),
        load_link_policy(f"{NEWS_FILE}:news_only"),
        LinkPolicy(),
    ]
    for policy in policies:
        copy = pickle.loads(pickle.dumps(policy))
        assert copy == policy
        assert hash(copy) == hash(policy)
    assert NutchLinkPolicy() != NutchLinkPolicy(ignore_internal_links=True)
    assert LinkPolicy() != _InternalOnly()
    config = dataclasses.replace(CONFIG, link_policy=policies[1])
    assert pickle.loads(pickle.dumps(config)) == config


CONFIG = ParseConfig.from_properties(load_properties())
LINKS = [
    "http://www.a.com/in",
    "http://WWW.A.COM:8080/in2",
    "https://www.a.com/secure",
    "http://img.a.com/sub",
    "http://b.org/",
    "http://www.a.com@b.org/trick",
    "mailto:me@www.a.com",
    "ftp://www.a.com/file",
    "ftp://b.org/file",
    "tel:+4930123",
    "http://www.a.com:bad/x",
    PAGE,
]


def _old_keep(config, page_url, outlinks):
    """OutlinkFilter.keep before link policies (commit 435c85e), the oracle."""
    from crawllib.urls.cleaner import UrlCleaner

    cleaner = UrlCleaner(
        config.urls, "outlink", config.normalize_urls, config.filter_urls
    )
    limit = config.max_outlinks
    rules = config.links
    unit = domain_of if rules.by_domain else host_of
    source_unit = (
        unit(page_url) if (rules.ignore_external or rules.ignore_internal) else ""
    )
    kept: dict[str, str | None] = {}
    for link in outlinks:
        if 0 <= limit <= len(kept):
            break
        target = link.url
        if 0 <= config.max_outlink_length < len(target) or target == page_url:
            continue
        if source_unit:
            same = unit(target) == source_unit
            if (same and rules.ignore_internal) or (not same and rules.ignore_external):
                continue
        cleaned = cleaner.clean(target)
        if isinstance(cleaned, str) and cleaned not in kept:
            kept[cleaned] = link.anchor
    return kept


@pytest.mark.parametrize("external", [False, True])
@pytest.mark.parametrize("internal", [False, True])
@pytest.mark.parametrize("by_domain", [False, True])
@pytest.mark.parametrize("filters", [False, True])
def test_nutch_ignore_links_default_policy_keeps_what_it_kept_before(
    external, internal, by_domain, filters
):
    # ParseOutputFormat's db.ignore.external.links, db.ignore.internal.links
    # and db.ignore.external.links.mode, with the URL filters on and off
    config = dataclasses.replace(
        CONFIG,
        links=LinkRules(
            ignore_external=external, ignore_internal=internal, by_domain=by_domain
        ),
        filter_urls=filters,
        normalize_urls=filters,
    )
    outlinks = [Outlink(url, str(n)) for n, url in enumerate(LINKS)]
    for page in (PAGE, "file:/no/host.html", "http://www.a.com:8000/"):
        expected = _old_keep(config, page, outlinks)
        assert OutlinkFilter(config).keep(page, outlinks) == expected, page


def test_nutch_ignore_external_links_by_host_and_by_domain():
    by_host = NutchLinkPolicy(ignore_external_links=True)
    by_domain = NutchLinkPolicy(ignore_external_links=True, ignore_by_domain=True)
    kept = [url for url in LINKS if by_host.decide(_link(url))]
    assert kept == [
        "http://www.a.com/in",
        "http://WWW.A.COM:8080/in2",
        "https://www.a.com/secure",
        "ftp://www.a.com/file",
        PAGE,
    ]
    kept = [url for url in LINKS if by_domain.decide(_link(url))]
    assert kept == [
        "http://www.a.com/in",
        "http://WWW.A.COM:8080/in2",
        "https://www.a.com/secure",
        "http://img.a.com/sub",
        "ftp://www.a.com/file",
        PAGE,
    ]
