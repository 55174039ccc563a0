"""Tests for crawllib.urls.domainfilter (urlfilter-domain, urlfilter-domaindenylist).

The ``test_nutch_*`` vectors are those of Nutch's TestDomainURLFilter and
TestDomainDenylistURLFilter, with their sample list ``data/hosts.txt``.
"""

import pytest

from crawllib.urls.domainfilter import (
    DomainDenylistUrlFilter,
    DomainUrlFilter,
    domain_suffix,
    read_domain_list,
)

# src/plugin/urlfilter-domain(denylist)/data/hosts.txt
HOSTS_TXT = "# comments start with the pound sign\nnet\napache.org\nbe\nwww.yahoo.com"

# TestDomainURLFilter.testFilter: (url, kept by urlfilter-domain)
NUTCH_VECTORS = [
    ("http://lucene.apache.org", True),
    ("http://hadoop.apache.org", True),
    ("http://www.apache.org", True),
    ("http://www.google.com", False),
    ("http://mail.yahoo.com", False),
    ("http://www.foobar.net", True),
    ("http://www.foobas.net", True),
    ("http://www.yahoo.com", True),
    ("http://www.foobar.be", True),
    ("http://www.adobe.com", False),
]


@pytest.mark.parametrize(("url", "kept"), NUTCH_VECTORS)
def test_nutch_domain_filter_keeps_listed_suffixes_domains_and_hosts(url, kept):
    # TestDomainURLFilter.testFilter
    assert DomainUrlFilter(HOSTS_TXT).accepts(url) is kept


@pytest.mark.parametrize(("url", "kept"), NUTCH_VECTORS)
def test_nutch_domain_denylist_drops_what_the_domain_filter_keeps(url, kept):
    # TestDomainDenylistURLFilter.testFilter: the same list, the reverse verdicts
    assert DomainDenylistUrlFilter(HOSTS_TXT).accepts(url) is not kept


def test_nutch_empty_domain_list_keeps_every_url():
    # NUTCH-2189: the domain filter deactivates itself without entries
    empty = DomainUrlFilter("# only a comment\n\n")

    assert empty.accepts("http://www.adobe.com/")
    assert empty.accepts("not a url")


def test_nutch_empty_denylist_keeps_parsable_urls_only():
    empty = DomainDenylistUrlFilter("")

    assert empty.accepts("http://www.adobe.com/")
    assert not empty.accepts("not a url")


def test_nutch_unparsable_url_is_dropped_by_both_filters():
    assert not DomainUrlFilter("com").accepts("www.example.com/no-scheme")
    assert not DomainDenylistUrlFilter("org").accepts("www.example.com/no-scheme")


def test_nutch_domain_list_lines_are_trimmed_and_lowercased():
    text = "  Apache.ORG  \r\n#www.google.com\n\t\nWWW.Yahoo.com\r"

    assert read_domain_list(text) == {"apache.org", "www.yahoo.com"}


def test_nutch_only_a_leading_hash_makes_a_comment():
    # " #x" is not a comment (the line is checked before trimming): entry "#x"
    assert read_domain_list(" #x\n# y\n") == {"#x"}


def test_nutch_host_is_matched_without_port_user_info_or_case():
    domains = DomainUrlFilter("www.yahoo.com")

    assert domains.accepts("http://user@WWW.Yahoo.COM:8080/x")
    assert not domains.accepts("http://mail.yahoo.com/")


def test_nutch_domain_entry_covers_hosts_below_it_but_host_entry_does_not():
    domains = DomainUrlFilter("apache.org\nnews.bbc.co.uk")

    assert domains.accepts("http://a.b.apache.org/")
    assert domains.accepts("http://news.bbc.co.uk/")
    assert not domains.accepts("http://sport.bbc.co.uk/")
    assert not domains.accepts("http://x.news.bbc.co.uk/")


def test_nutch_multi_label_domain_suffix_is_an_entry():
    domains = DomainUrlFilter("co.uk")

    assert domains.accepts("http://www.bbc.co.uk/")
    assert not domains.accepts("http://www.bbc.com/")


def test_nutch_ip_address_matches_as_host_only():
    domains = DomainUrlFilter("192.168.1.1")

    assert domains.accepts("http://192.168.1.1/")
    assert not domains.accepts("http://192.168.1.2/")


@pytest.mark.parametrize(
    ("host", "suffix"),
    [
        ("www.apache.org", "org"),
        ("www.bbc.co.uk", "co.uk"),
        ("bbc.co.uk", "co.uk"),
        ("co.uk", "uk"),  # never the host itself when it has a dot
        ("com", "com"),  # a host without a dot is its own candidate
        ("localhost", None),
        ("192.168.1.1", None),
        ("example.com.nn", None),  # TLD not in the list
        ("a..example.com", None),
        ("[::1]", None),
    ],
)
def test_nutch_domain_suffix_is_the_longest_listed_suffix(host, suffix):
    # URLUtil.getDomainSuffix walks the suffixes after each dot, longest first
    assert domain_suffix(host) == suffix


def test_beamcrawl_domain_suffix_ignores_private_suffixes():
    # the ICANN section only, as for domain names: github.io is no suffix
    assert domain_suffix("user.github.io") == "io"
    assert DomainUrlFilter("io").accepts("https://user.github.io/")
