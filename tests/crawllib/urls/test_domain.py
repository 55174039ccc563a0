import pytest

from crawllib.urls.domain import domain_of, domain_of_host, host_of


# Nutch 1.x TestURLUtil.testGetDomainName.
@pytest.mark.parametrize(
    ("url", "domain"),
    [
        ("http://lucene.apache.org/", "apache.org"),
        ("http://lucene.apache.org./", "apache.org"),
        ("http://www.example.co.uk:8080/", "example.co.uk"),
        ("http://com/", "com"),
        ("http://www.example.co.uk.com/", "uk.com"),
        ("http://example.com.nn/", "example.com.nn"),
        ("http://140.211.11.130/foo", "140.211.11.130"),
        ("http://www.example.2000.hu/", "example.2000.hu"),
        ("file:/path/index.html", ""),
    ],
)
def test_nutch_url_util_get_domain_name(url, domain):
    assert domain_of(url) == domain


@pytest.mark.parametrize(
    ("host", "domain"),
    [
        ("lucene.apache.org", "apache.org"),
        ("lucene.apache.org.", "apache.org"),
        ("com", "com"),
        ("co.uk", "co.uk"),
        ("www.example.co.uk.com", "uk.com"),
        ("example.com.nn", "example.com.nn"),
        ("140.211.11.130", "140.211.11.130"),
        ("www.example.2000.hu", "example.2000.hu"),
        ("", ""),
    ],
)
def test_nutch_domain_of_host(host, domain):
    assert domain_of_host(host) == domain


def test_nutch_private_suffixes_are_ignored():
    # crawler-commons getAssignedDomain(host, false, excludePrivate=true)
    assert domain_of_host("alice.github.io") == "github.io"
    assert domain_of_host("foo.blogspot.com") == "blogspot.com"


def test_nutch_wildcard_and_exception_rules():
    # *.kawasaki.jp with the exception !city.kawasaki.jp
    assert domain_of_host("a.b.kawasaki.jp") == "a.b.kawasaki.jp"
    assert domain_of_host("b.kawasaki.jp") == "b.kawasaki.jp"
    assert domain_of_host("www.city.kawasaki.jp") == "city.kawasaki.jp"


def test_nutch_domain_is_lowercased():
    assert domain_of_host("WWW.Apache.ORG") == "apache.org"
    assert domain_of("http://WWW.Apache.ORG/") == "apache.org"


def test_nutch_empty_label_gives_the_host():
    assert domain_of_host("a..example.com") == "a..example.com"


def test_idn_hosts():
    assert domain_of_host("www.xn--80ak6aa92e.com") == "xn--80ak6aa92e.com"
    assert domain_of_host("www.пример.рф") == "пример.рф"


def test_ipv6_host_is_returned_as_is():
    assert domain_of_host("::1") == "::1"
    assert domain_of_host("[2001:DB8::1]") == "[2001:db8::1]"
    assert domain_of("http://[2001:db8::1]:8080/") == "2001:db8::1"


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://Www.Example.COM:8080/a", "www.example.com"),
        ("http://user:pw@host.com/", "host.com"),
        ("https://example.com?q=1", "example.com"),
        ("https://example.com#top", "example.com"),
        ("http://[::1]:8080/", "::1"),
        ("file:/path/index.html", ""),
        ("file:///var/www", ""),
        ("mailto:someone@example.com", ""),
        ("www.example.com/no-scheme", ""),
        ("http://example.com:port/", ""),
        ("", ""),
    ],
)
def test_host_of(url, host):
    assert host_of(url) == host


def test_domain_lookups_are_cached():
    domain_of_host.cache_clear()

    for _ in range(3):
        domain_of_host("cached.example.org")

    info = domain_of_host.cache_info()
    assert (info.hits, info.misses) == (2, 1)
