"""Tests for crawllib.urls.validator (urlfilter-validator).

The ``test_nutch_vectors`` cases are those of Nutch's TestUrlValidator.
"""

import pytest

from crawllib.urls.validator import UrlValidator


@pytest.mark.parametrize(
    ("url", "valid"),
    [
        # TestUrlValidator.testFilter
        ("example.com/file[/].html", False),
        ("http://www.example.com/space here.html", False),
        ("/main.html", False),
        ("www.example.com/main.html", False),
        ("ftp:www.example.com/main.html", False),
        ("http://999.000.456.32/nutch/trunk/README.txt", False),
        (" http://www.example.com/ma|in\\toc.html", False),
        ("https://issues.apache.org/jira/NUTCH-1127", True),
        (
            "http://domain.tld/function.cgi?url=http://fonzi.com/&amp;name=Fonzi"
            "&amp;mood=happy&amp;coat=leather",
            True,
        ),
        (
            "http://validator.w3.org/feed/check.cgi?url=http%3A%2F%2F"
            "feeds.feedburner.com%2Fperishablepress",
            True,
        ),
        ("ftp://alfa.bravo.pi/mike/check/plan.pdf", True),
    ],
)
def test_nutch_vectors(url, valid):
    assert UrlValidator().accepts(url) is valid


@pytest.mark.parametrize(
    "url",
    [
        "http://192.168.0.1:8080/",
        "https://a-b.example.co.uk/x_y/(z);p=1,2!~*'$@:&+",
        "HTTP://EXAMPLE.COM/",
        "http://example.com",
        "http://example.com/a/b/../c",
        "http://example.com/?q=<>|{}",
        "http://example.com/#frag<>",
        "http://example.abcdefghijklmnop/",  # no upper bound on the TLD
    ],
)
def test_nutch_valid_urls(url):
    assert UrlValidator().accepts(url)


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("", "empty"),
        ("http://ex\u00e4mple.com/", "not ASCII"),
        ("http://example.com/\x7f", "not printable"),
        ("svn+ssh://example.com/", "scheme has a '+'"),
        ("file:///etc/passwd", "no host"),
        ("mailto:someone@example.com", "no authority"),
        ("http://localhost/", "one label"),
        ("http://example.c/", "one-letter TLD"),
        ("http://example.1com/", "TLD starts with a digit"),
        ("http://a..com/", "empty label"),
        ("http://256.1.1.1/", "IPv4 part above 255"),
        ("http://1.2.3/", "digits only, three labels"),
        ("http://[::1]/", "IPv6 literal"),
        ("http://user@example.com/", "user-info"),
        ("http://example.com:/", "empty port"),
        ("http://example.com:123456/", "six-digit port"),
        ("http://exa_mple.com/", "'_' in host"),
        ("http://example.com/a^b", "'^' in path"),
        ("http://example.com/a/../..", "climbs above the root"),
        ("http://example.com//a/../..", "'//' counts no segment"),
    ],
)
def test_nutch_invalid_urls(url, why):
    assert not UrlValidator().accepts(url), why
