"""Tests for crawllib.urls.normalize.

The ``test_nutch_basic_*`` cases are those of Nutch's TestBasicURLNormalizer
(testNormalizer, testNUTCH1098, testNUTCH2064) plus the rules of
BasicURLNormalizer documented in reference section 10.2; the
``test_nutch_regex_*`` cases come from the RegexURLNormalizer sample files
(``regex-normalize-default.test``, ``regex-normalize-scope1.test``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from crawllib.config import UrlConfig, load_properties
from crawllib.errors import ConfigError
from crawllib.urls.normalize import (
    MalformedUrlError,
    RegexNormalizer,
    UrlNormalizers,
    _normalize_slowly,
    basic_normalize,
)


def _xml(*rules: tuple[str, str]) -> str:
    body = "".join(
        f"<regex><pattern>{pattern}</pattern>"
        f"<substitution>{substitution}</substitution></regex>"
        for pattern, substitution in rules
    )
    return f'<?xml version="1.0"?>\n<regex-normalize>{body}</regex-normalize>'


@pytest.fixture(scope="module")
def defaults() -> UrlConfig:
    return UrlConfig.from_properties(load_properties())


# --- BasicURLNormalizer -----------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (" http://foo.com/ ", "http://foo.com/"),
        ("HTTP://foo.com/", "http://foo.com/"),
        ("http://Foo.Com/index.html", "http://foo.com/index.html"),
        ("http://foo.com:80/index.html", "http://foo.com/index.html"),
        ("http://foo.com:81/", "http://foo.com:81/"),
        ("http://example.com:/", "http://example.com/"),
        ("https://example.com:/foobar.html", "https://example.com/foobar.html"),
        ("http://foo.com", "http://foo.com/"),
        ("http://foo.com/foo.html#ref", "http://foo.com/foo.html"),
        ("http://foo.com/aa/./foo.html", "http://foo.com/aa/foo.html"),
        ("http://foo.com/aa/../", "http://foo.com/"),
        ("http://foo.com/aa/bb/../", "http://foo.com/aa/"),
        ("http://foo.com/aa/..", "http://foo.com/"),
        ("http://foo.com/aa/bb/cc/../../foo.html", "http://foo.com/aa/foo.html"),
        (
            "http://foo.com/aa/bb/../cc/dd/../ee/foo.html",
            "http://foo.com/aa/cc/ee/foo.html",
        ),
        ("http://foo.com/../foo.html", "http://foo.com/foo.html"),
        ("http://foo.com/../../foo.html", "http://foo.com/foo.html"),
        ("http://foo.com/../aa/../foo.html", "http://foo.com/foo.html"),
        ("http://foo.com/aa/../../foo.html", "http://foo.com/foo.html"),
        ("http://foo.com/aa/../bb/../foo.html/../../", "http://foo.com/"),
        ("http://foo.com/../aa/foo.html", "http://foo.com/aa/foo.html"),
        ("http://foo.com/a..a/foo.html", "http://foo.com/a..a/foo.html"),
        ("http://foo.com/a..a/../foo.html", "http://foo.com/foo.html"),
        ("http://foo.com/foo.foo/../foo.html", "http://foo.com/foo.html"),
        ("http://foo.com//aa/bb/foo.html", "http://foo.com/aa/bb/foo.html"),
        ("http://foo.com/aa//bb/foo.html", "http://foo.com/aa/bb/foo.html"),
        ("http://foo.com/aa/bb//foo.html", "http://foo.com/aa/bb/foo.html"),
        ("http://foo.com//aa//bb//foo.html", "http://foo.com/aa/bb/foo.html"),
        ("http://foo.com////aa////bb////foo.html", "http://foo.com/aa/bb/foo.html"),
        (
            "http://foo.com/aa?referer=http://bar.com",
            "http://foo.com/aa?referer=http://bar.com",
        ),
        ("file:///foo/bar.txt", "file:///foo/bar.txt"),
        ("ftp:/", "ftp:/"),
        ("http:", "http:/"),
        ("http:////", "http:/"),
        ("http:///////", "http:/"),
    ],
)
def test_nutch_basic_normalizer(url: str, expected: str) -> None:
    """TestBasicURLNormalizer.testNormalizer."""
    assert basic_normalize(url) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://foo.com/%66oo.html", "http://foo.com/foo.html"),
        ("http://foo.com/%66oo.htm%6c", "http://foo.com/foo.html"),
        ("http://foo.com/%66oo.ht%6dl", "http://foo.com/foo.html"),
        ("http://foo.com/%66oo.ht%6d%6c", "http://foo.com/foo.html"),
        ("http://foo.com/%66oo.htm%C0", "http://foo.com/foo.htm%C0"),
        ("http://foo.com/%66oo.htm%1A", "http://foo.com/foo.htm%1A"),
        ("http://foo.com/%66oo.htm%c0", "http://foo.com/foo.htm%C0"),
        ("http://foo.com/you%20too.html", "http://foo.com/you%20too.html"),
        ("http://foo.com/you too.html", "http://foo.com/you%20too.html"),
        ("http://foo.com/file.html%23cz", "http://foo.com/file.html%23cz"),
        ("http://foo.com/fast/dir%2fcz", "http://foo.com/fast/dir%2Fcz"),
        ("http://foo.com/\u001a!", "http://foo.com/%1A!"),
        ("http://foo.com/\u0001!", "http://foo.com/%01!"),
        (
            "http://mydomain.com/en Espa\u00f1ol.aspx",
            "http://mydomain.com/en%20Espa%C3%B1ol.aspx",
        ),
    ],
)
def test_nutch_basic_percent_encoding_nutch1098(url: str, expected: str) -> None:
    """TestBasicURLNormalizer.testNUTCH1098."""
    assert basic_normalize(url) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://x.com/s?q=a%26b&m=10", "http://x.com/s?q=a%26b&m=10"),
        (
            "http://x.com/show?http%3A%2F%2Fx.com%2Fb",
            "http://x.com/show?http%3A%2F%2Fx.com%2Fb",
        ),
        ("http://google.com/search?q=c%2B%2B", "http://google.com/search?q=c%2B%2B"),
        ("http://x.com/s?q=a+b", "http://x.com/s?q=a+b"),
        ("http://b\u00fccher.de/", "http://b\u00fccher.de/"),
        ("http://x.com/./a/../%66.html", "http://x.com/f.html"),
        ("http://x.com/?x[y]=1", "http://x.com/?x%5By%5D=1"),
        ("http://x.com/foo\u0080", "http://x.com/foo%C2%80"),
        ("http://x.com/foo%c2%80", "http://x.com/foo%C2%80"),
    ],
)
def test_nutch_basic_punctuation_kept_nutch2064(url: str, expected: str) -> None:
    """TestBasicURLNormalizer.testNUTCH2064."""
    assert basic_normalize(url) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://a.com:80/", "http://a.com/"),
        ("https://a.com:443/", "https://a.com/"),
        ("ftp://a.com:21/", "ftp://a.com/"),
        ("https://a.com:80/", "https://a.com:80/"),
        ("http://a.com:443/", "http://a.com:443/"),
        ("ftp://a.com:80/", "ftp://a.com:80/"),
        ("http://a.com:0080/", "http://a.com/"),
        ("http://a.com:08080/x", "http://a.com:8080/x"),
        ("http://A.com:/", "http://a.com/"),
        ("http://a.com:8080", "http://a.com:8080/"),
    ],
)
def test_nutch_basic_default_and_empty_ports(url: str, expected: str) -> None:
    assert basic_normalize(url) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://example.com?a=1", "http://example.com/?a=1"),
        ("http://example.com?", "http://example.com/?"),
        ("https://example.com#top", "https://example.com/"),
        ("http://example.com/#", "http://example.com/"),
        ("http://example.com/a?b=c#d", "http://example.com/a?b=c"),
        ("http://example.com/a?b#c?d", "http://example.com/a?b"),
        ("http:foo", "http:/foo"),
    ],
)
def test_nutch_basic_empty_path_and_fragment(url: str, expected: str) -> None:
    assert basic_normalize(url) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://user:pass@Example.com/a", "http://example.com/a"),
        ("https://user@example.com:443/a", "https://example.com/a"),
        ("ftp://user:pass@Example.com:21/a", "ftp://user:pass@example.com/a"),
        (
            "ftp://anonymous@ftp.example.com/pub/",
            "ftp://anonymous@ftp.example.com/pub/",
        ),
    ],
)
def test_nutch_basic_user_info_removed_for_http_only_nutch3087(
    url: str, expected: str
) -> None:
    assert basic_normalize(url) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://example%2Ecom/", "https://example.com/"),
        ("https://EXAMPLE%2ecom/", "https://example.com/"),
        (
            "https://www.0251-sachverst%c3%a4ndiger.de/",
            "https://www.0251-sachverst\u00e4ndiger.de/",
        ),
    ],
)
def test_nutch_basic_host_percent_decoded_nutch2824(url: str, expected: str) -> None:
    assert basic_normalize(url) == expected


def test_nutch_basic_host_percent_decoded_then_idn() -> None:
    url = "https://www.0251-sachverst%c3%a4ndiger.de/"
    expected = "https://www.xn--0251-sachverstndiger-ozb.de/"
    assert basic_normalize(url, host_idn="toAscii") == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://b\u00fccher.de/", "http://xn--bcher-kva.de/"),
        ("http://B\u00dcCHER.de/a", "http://xn--bcher-kva.de/a"),
        (
            "http://sch\u00f6ne.b\u00fccher.de/",
            "http://xn--schne-lua.xn--bcher-kva.de/",
        ),
        ("http://example.com/b\u00fccher", "http://example.com/b%C3%BCcher"),
        ("http://xn--bcher-kva.de/", "http://xn--bcher-kva.de/"),
    ],
)
def test_nutch_basic_idn_to_ascii_nutch2746(url: str, expected: str) -> None:
    assert basic_normalize(url, host_idn="toAscii") == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "http://xn--schne-lua.xn--bcher-kva.de/",
            "http://sch\u00f6ne.b\u00fccher.de/",
        ),
        ("https://xn--90ax2c.xn--p1ai/", "https://\u043d\u044d\u0431.\u0440\u0444/"),
        ("http://XN--BCHER-KVA.de/", "http://b\u00fccher.de/"),
        ("http://xn--zzzz-.de/", "http://xn--zzzz-.de/"),  # not punycode: kept
        ("http://example.com/xn--bcher-kva", "http://example.com/xn--bcher-kva"),
    ],
)
def test_nutch_basic_idn_to_unicode_nutch2746(url: str, expected: str) -> None:
    assert basic_normalize(url, host_idn="toUnicode") == expected


def test_nutch_basic_idna2008_differs_from_idna2003_nutch3176() -> None:
    url = "http://fa\u00df.de/"

    assert basic_normalize(url, host_idn="toAscii") == "http://fass.de/"
    assert (
        basic_normalize(url, host_idn="toAscii", idna2008=True)
        == "http://xn--fa-hia.de/"
    )


def test_nutch_basic_invalid_idn_is_malformed() -> None:
    with pytest.raises(MalformedUrlError):
        basic_normalize("http://b\u00fccher..de/", host_idn="toAscii")


def test_nutch_basic_trailing_dot_trimmed_only_when_asked() -> None:
    assert basic_normalize("http://example.com./") == "http://example.com./"
    assert (
        basic_normalize("http://Example.com./a", trim_trailing_dot=True)
        == "http://example.com/a"
    )
    assert (
        basic_normalize(
            "http://b\u00fccher.de./", host_idn="toAscii", trim_trailing_dot=True
        )
        == "http://xn--bcher-kva.de/"
    )


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://a.com/100%", "http://a.com/100%25"),
        ("http://a.com/%zz", "http://a.com/%25zz"),
        ("http://a.com/%4", "http://a.com/%254"),
        ("http://a.com/?q=%", "http://a.com/?q=%25"),
        ("http://a.com/%7e%2D%2e%5f%41", "http://a.com/~-._A"),
        ("http://a.com/%3a%40%3F", "http://a.com/%3A%40%3F"),
        ('http://a.com/"<>[]^`{|}', "http://a.com/%22%3C%3E%5B%5D%5E%60%7B%7C%7D"),
        ("http://a.com/a\u007fb", "http://a.com/a%7Fb"),
        ("http://a.com/a\tb", "http://a.com/a%09b"),
        ("http://a.com/\u20ac", "http://a.com/%E2%82%AC"),
        ("http://a.com/\U0001f600", "http://a.com/%F0%9F%98%80"),
        ("http://a.com/!$&'()*+,;=:@~", "http://a.com/!$&'()*+,;=:@~"),
        ("http://a.com/a\\b", "http://a.com/a\\b"),
    ],
)
def test_nutch_basic_percent_encoding_rules(url: str, expected: str) -> None:
    assert basic_normalize(url) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("file:///foo/./bar.txt", "file:/foo/bar.txt"),
        ("file:/foo/../bar.txt", "file:/bar.txt"),
        ("file:///a//b", "file:/a/b"),
        ("FILE:///a/b", "file:/a/b"),
        ("file:/a b", "file:/a%20b"),
        ("file:/a/b c#d", "file:/a/b%20c"),
        ("file:foo.txt", "file:/foo.txt"),
        ("file:", "file:/"),
        ("file://Host/a/../b", "file://Host/b"),
    ],
)
def test_nutch_basic_file_urls_nutch2609(url: str, expected: str) -> None:
    assert basic_normalize(url) == expected


# Each case was found by test_fuzz_urls.py: Nutch's single pass gives a URL
# that a second pass changes (Nutch's result in the comment).
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("file:a/../b", "file:/b"),  # file:/a/../b: java.net.URI leaves a/../b
        ("file:0/.", "file:/0/"),  # file:/0/.
        ("http:0.0.0.0/.", "http:/0.0.0.0/"),  # http:/0.0.0.0/.
        ("http:///user@0.0.0.0/", "http:/user@0.0.0.0/"),  # kept as is
        ("http://a.com/%0%61", "http://a.com/%0A"),  # http://a.com/%0a
        ("http://a.com/%%3641", "http://a.com/d1"),  # http://a.com/%641
        ("file:/a/b#c", "file:/a/b"),  # file:/a/b#c: nothing else changes
        ("mailto://0.0.0.0/#&{", "mailto:/0.0.0.0/"),  # kept as is
        ("http://://:\\/", "http:/:\\/"),  # http://:\/, malformed next pass
    ],
)
def test_beamcrawl_basic_normalizer_is_idempotent(url: str, expected: str) -> None:
    once = basic_normalize(url)

    assert once == expected
    assert basic_normalize(once) == once


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://[::1]/", "http://[::1]/"),
        ("http://[::1]:80/", "http://[::1]/"),
        ("http://[FE80::1]:8080", "http://[fe80::1]:8080/"),
        ("http://[::1]:/a", "http://[::1]/a"),
    ],
)
def test_nutch_basic_ipv6_hosts(url: str, expected: str) -> None:
    assert basic_normalize(url) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("mailto:Someone@Example.com", "mailto:Someone@Example.com"),
        ("MAILTO:a b@x.com", "mailto:a%20b@x.com"),
        ("jar:file:/x.jar!/a/./b", "jar:file:/x.jar!/a/./b"),
        ("jar:file:/x.jar!/a b", "jar:file:/x.jar!/a%20b"),
        ("url:HTTP://a.com", "http://a.com/"),
        ("http://a.com/a\\b/../c", "http://a.com/a\\b/../c"),  # java.net.URI fails
    ],
)
def test_nutch_basic_other_schemes_and_java_quirks(url: str, expected: str) -> None:
    assert basic_normalize(url) == expected


def test_nutch_basic_empty_url_is_kept() -> None:
    assert basic_normalize("") == ""


@pytest.mark.parametrize(
    "url",
    [
        # more cases of what java.net.URL rejects are in test_javaurl.py
        "foo:bar",
        "http://a%zz.com/",
        "http://a.com%/",
    ],
)
def test_nutch_basic_malformed_urls_raise(url: str) -> None:
    with pytest.raises(MalformedUrlError):
        basic_normalize(url)


def test_beamcrawl_several_at_signs_in_authority_are_malformed() -> None:
    # java.net.URL accepts it with an empty host: Nutch would emit "http:/x"
    with pytest.raises(MalformedUrlError):
        basic_normalize("http://a@b@c.com/x")


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://a.com/..?x", "http://a.com/?x"),
        ("http://a.com/a/../..?x", "http://a.com/?x"),
        ("http://a.com/../..foo/bar", "http://a.com/..foo/bar"),
    ],
)
def test_beamcrawl_leading_dot_dot_segments_stripped_whole(
    url: str, expected: str
) -> None:
    # Nutch tests file.charAt(3) on the whole file: it keeps "/..?x" and
    # strips "/../..foo" to "/foo"; beamcrawl strips whole path segments
    assert basic_normalize(url) == expected


@pytest.mark.parametrize(
    "url",
    [
        "http://host123.example.com/path/page456.html",
        "https://a.b.c/x/y?z=1&w=/v",
        "http://a.com/a./b",
        "http://a.com/.a/b",
        "http://a.com/a/b?x=/./y",
        "http://a.com/a//b?x",
        "http://xn--bcher-kva.de/",
        "http://a.com/",
        "http://a.com/?",
        "http://1.2.3.4/a",
        "http://a-b.com/~user/",
        "https://a.com/p;x=1",
    ],
)
@pytest.mark.parametrize("host_idn", ["", "toAscii", "toUnicode"])
def test_beamcrawl_fast_path_agrees_with_full_rules(url: str, host_idn: str) -> None:
    assert basic_normalize(url, host_idn=host_idn) == _normalize_slowly(
        url, host_idn, False, False
    )


# --- RegexURLNormalizer -----------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "http://foo.com/foo.php?PHPSESSID=cdc993a493e899bed04f4d0c8a462a03",
            "http://foo.com/foo.php",
        ),
        (
            "http://foo.com/foo.php?f=2&PHPSESSID=cdc993a493e899bed04f4d0c8a462a03",
            "http://foo.com/foo.php?f=2",
        ),
        (
            "http://foo.com/foo.php?f=2&PHPSESSID=cdc993a493e899bed04f4d0c8a462a03&q=3",
            "http://foo.com/foo.php?f=2&q=3",
        ),
        (
            "http://foo.com/foo.php?PHPSESSID=cdc993a493e899bed04f4d0c8a462a03&f=2",
            "http://foo.com/foo.php?f=2",
        ),
        (
            "http://www.foo.com/foo.php?Bv_SessionID=fassassddsajkl",
            "http://www.foo.com/foo.php",
        ),
        (
            "http://www.foo.com/foo.php?Bv_SessionID=fassassddsajkl&x=y",
            "http://www.foo.com/foo.php?x=y",
        ),
        (
            "http://www.foo.com/foo.html;jsessionid=1E6FEC0D14D044541DD84D2D013D29ED",
            "http://www.foo.com/foo.html",
        ),
        (
            "http://www.foo.com/foo.html?param=1&another=2;jsessionid=1E6FEC0D14D0",
            "http://www.foo.com/foo.html?param=1&another=2",
        ),
        (
            "http://www.foo.com/foo.html;jsessionid=1E6FEC0D14D0?param=1&another=2",
            "http://www.foo.com/foo.html?param=1&another=2",
        ),
        (
            "http://www.foo.com/foo.php?&x=1&sid=xyz&something=1",
            "http://www.foo.com/foo.php?x=1&something=1",
        ),
        (
            "http://www.foo.com/foo.html?_sessionID=824A6C0A13a7e11205wxN28F44E3",
            "http://www.foo.com/foo.html",
        ),
        (
            "http://www.foo.com/foo.php?_sessionid=qmyrcedt&outputformat=html&path=/3_images/foo",
            "http://www.foo.com/foo.php?outputformat=html&path=/3_images/foo",
        ),
        (
            "http://www.foo.com/foo.php?_pid=2&_spid=0&lang=en&_sessionid=e36902d5bb2d0d922fc24b43",
            "http://www.foo.com/foo.php?_pid=2&_spid=0&lang=en",
        ),
        (
            "http://www.foo.com/foo.php?app=content&lang=en&_sid=587fba8f&b=35&m=47",
            "http://www.foo.com/foo.php?app=content&lang=en&b=35&m=47",
        ),
        # NewsId and addressid are not session ids (NUTCH-706, NUTCH-1328)
        (
            "http://www.foo.com/fa/newsdetail.aspx?NewsID=1567539",
            "http://www.foo.com/fa/newsdetail.aspx?NewsID=1567539",
        ),
        (
            "http://www.foo.com/home.cfm?language=en&country=uk&addressid=250646",
            "http://www.foo.com/home.cfm?language=en&country=uk&addressid=250646",
        ),
        ("http://www.foo.com/foo.html#something", "http://www.foo.com/foo.html"),
        (
            "http://www.foo.com/foo.html#something?x=y",
            "http://www.foo.com/foo.html?x=y",
        ),
        ("http://www.foo.com/foo.html?&x=y", "http://www.foo.com/foo.html?x=y"),
        (
            "http://www.foo.com/foo.html?x=y&&&z=a",
            "http://www.foo.com/foo.html?x=y&z=a",
        ),
        ("http://www.foo.com/foo.html?", "http://www.foo.com/foo.html"),
        ("http://www.foo.com/foo.html&", "http://www.foo.com/foo.html"),
        ("http://www.foo.com/foo.", "http://www.foo.com/foo"),
        ("http://www.foo.com//path//foo.html", "http://www.foo.com/path/foo.html"),
        ("https://www.foo.com//path//foo.html", "https://www.foo.com/path/foo.html"),
        ("file:///path//foo.html", "file:/path/foo.html"),
        ("file:/path//foo.html", "file:/path/foo.html"),
        ("file://///server/share", "file:/server/share"),
        ("http://www.foo.com/index.html", "http://www.foo.com/index.html"),
    ],
)
def test_nutch_regex_default_rules(
    defaults: UrlConfig, url: str, expected: str
) -> None:
    """regex-normalize-default.test, with the bundled (default-pages off) file."""
    assert RegexNormalizer(defaults.regex_normalize_xml).normalize(url) == expected


# Found by test_fuzz_urls.py: Nutch's default rules change these again on a
# second pass (Nutch's result in the comment); the bundled file departs.
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://0/.?", "http://0/"),  # http://0/.
        ("http://a.com/x.?&", "http://a.com/x"),  # http://a.com/x.?
        ("http://0/?#&& ", "http://0/? "),  # http://0/?& (rule order)
        ("http://a.com/?&&&x=1", "http://a.com/?x=1"),  # http://a.com/?&x=1
        ("file://h/x", "file://h/x"),  # file:/h/x: host h becomes a directory
    ],
)
def test_beamcrawl_regex_default_rules_are_idempotent(
    defaults: UrlConfig, url: str, expected: str
) -> None:
    rules = RegexNormalizer(defaults.regex_normalize_xml)
    once = rules.normalize(url)

    assert once == expected
    assert rules.normalize(once) == once


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        # Nutch's chain gives the first URL, a second pass the second
        ("http:///user@0.0.0.0/", "http:/user@0.0.0.0/"),  # http://user@0.0.0.0/
        ("http://0.0.0.0/%0%61", "http://0.0.0.0/%0A"),  # .../%0a, then %0A
        ("file://b\u00fccher/", "file://b\u00fccher/"),  # file:/bücher/, then %C3%BC
        ("file://xn--bcher-kva/#?{", "file://xn--bcher-kva/"),  # ...?{, then %7B
        ("mailto://0.0.0.0/#&{", "mailto:/0.0.0.0/"),  # .../&{, then &%7B
    ],
)
def test_beamcrawl_chain_is_idempotent(
    defaults: UrlConfig, url: str, expected: str
) -> None:
    chain = UrlNormalizers(defaults, "default")
    once = chain.normalize(url)

    assert once == expected
    assert chain.normalize(once) == once


_INDEX_PAGE_RULE = (
    r"/((?i)index|default)\.((?i)js[pf]{1}?[afx]?|cgi|cfm|asp[x]?|[psx]?htm[l]?"
    r"|php[3456]?)(\?|&amp;|#|$)",
    "/$3",
)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://www.foo.com/home/index.html", "http://www.foo.com/home/"),
        ("http://www.foo.com/index.html", "http://www.foo.com/"),
        ("http://www.foo.com/index.aspx", "http://www.foo.com/"),
        ("http://www.foo.com/index.php3", "http://www.foo.com/"),
        ("http://www.foo.com/default.htm", "http://www.foo.com/"),
        ("http://www.foo.com/something.php3", "http://www.foo.com/something.php3"),
        ("http://www.foo.com/index.phtml", "http://www.foo.com/"),
        ("http://www.foo.com/index.cgi", "http://www.foo.com/"),
        ("http://www.foo.com/index.HTML", "http://www.foo.com/"),
        ("http://www.foo.com/index.jsp", "http://www.foo.com/"),
        ("http://www.foo.com/index.jspx", "http://www.foo.com/"),
        ("http://www.foo.com/index.jspfx", "http://www.foo.com/index.jspfx"),
        ("http://www.foo.com/index.jspa", "http://www.foo.com/"),
        ("http://www.foo.com/index.jsps", "http://www.foo.com/index.jsps"),
        ("http://www.foo.com/index.aspX", "http://www.foo.com/"),
        ("http://www.foo.com/index.PhP4", "http://www.foo.com/"),
        ("http://www.foo.com/default.AspX", "http://www.foo.com/"),
        ("http://www.foo.com/INDEX.html", "http://www.foo.com/"),
        ("http://www.foo.com/index.html?a=1", "http://www.foo.com/?a=1"),
        ("http://www.foo.com/foo.asp", "http://www.foo.com/foo.asp"),
    ],
)
def test_nutch_regex_mid_pattern_inline_flags(url: str, expected: str) -> None:
    """The default-pages rule of regex-normalize-default.xml: ``(?i)`` mid-pattern."""
    assert RegexNormalizer(_xml(_INDEX_PAGE_RULE)).normalize(url) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://www.foo.bar.com/", "http://bar.com/"),
        (
            "http://www.foo.bar.com/foo.php?PHPSESSID=cdc993a493e899bed04f4d0c8a462a03",
            "http://bar.com/",
        ),
        (
            "https://www.foo.bar.com/foo.php?url=http://www.example.com/test.php",
            "https://bar.com/",
        ),
    ],
)
def test_nutch_regex_scope1_sample(url: str, expected: str) -> None:
    """regex-normalize-scope1.xml and .test."""
    rules = _xml((r"(^[a-z]{3,5}://)([\w]+\.)*?(\w+\.\w+)[/$].*", "$1$3/"))
    assert RegexNormalizer(rules).normalize(url) == expected


def test_nutch_regex_rules_use_java_replacement_syntax() -> None:
    # the Java syntax cases themselves: test_javaregex.py
    rule = (r"(?&lt;w&gt;\w+)@(\w+)", r"$2 at ${w}\$")
    assert RegexNormalizer(_xml(rule)).normalize("me@host") == "host at me$"


def test_nutch_regex_rules_apply_in_file_order() -> None:
    rules = _xml(("a", "b"), ("b", "c"))
    assert RegexNormalizer(rules).normalize("ab") == "cc"


def test_nutch_regex_empty_substitution_deletes_the_match() -> None:
    text = (
        "<regex-normalize><regex><pattern>b</pattern><substitution/></regex>"
        "</regex-normalize>"
    )
    normalizer = RegexNormalizer(text)

    assert len(normalizer) == 1
    assert normalizer.normalize("ab") == "a"


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("<regex><pattern>a</pattern></regex>", "has no <substitution>"),
        ("<regex><substitution>x</substitution></regex>", "has no <pattern>"),
        ("<regex><pattern/><substitution>x</substitution></regex>", "has no <pattern>"),
        ("<regex><pattern>(a</pattern><substitution/></regex>", "cannot compile"),
    ],
)
def test_beamcrawl_regex_bad_rule_stops_the_job_naming_file_and_rule(
    rule: str, message: str
) -> None:
    # Nutch skips such a rule (logging only a bad pattern); beamcrawl stops.
    good = "<regex><pattern>x</pattern><substitution>y</substitution></regex>"
    text = f"<regex-normalize>{good}{rule}</regex-normalize>"

    with pytest.raises(ConfigError, match=message) as info:
        RegexNormalizer(text, "my-normalize.xml")

    assert str(info.value).startswith("my-normalize.xml, rule 2: ")
    assert "\n" not in str(info.value)


def test_beamcrawl_regex_blank_text_means_no_rules() -> None:
    assert RegexNormalizer("  \n").normalize("http://a.com/?") == "http://a.com/?"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("<regex-normalize><regex>", "not valid XML"),
        ("<rules/>", "root element"),
        (_xml(("(a", "x")), "invalid regex-normalize pattern"),
        (_xml(("a", "$")), "invalid regex-normalize substitution"),
        # more bad patterns and substitutions: test_javaregex.py
    ],
)
def test_beamcrawl_regex_bad_rules_raise_config_error(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as info:
        RegexNormalizer(text)
    assert "\n" not in str(info.value)


# --- URLNormalizers chain -----------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("HTTP://Foo.com:80/a/../b.html#x", "http://foo.com/b.html"),
        ("http://foo.com/a.php;jsessionid=ABC?x=1", "http://foo.com/a.php?x=1"),
        ("http://foo.com//a//b?&x=1&&y=2", "http://foo.com/a/b?x=1&y=2"),
        (
            "http://host123.example.com/path/page456.html",
            "http://host123.example.com/path/page456.html",
        ),
        ("javascript:void(0)", None),
        ("not a url", None),
        ("", None),
        ("   ", None),
    ],
)
def test_nutch_chain_runs_basic_then_regex(
    defaults: UrlConfig, url: str, expected: str | None
) -> None:
    assert UrlNormalizers(defaults, "inject").normalize(url) == expected


def test_nutch_chain_loop_count_repeats_while_changing() -> None:
    rules = _xml(("Q", "%71"))
    once = UrlNormalizers(UrlConfig(regex_normalize_xml=rules))
    twice = UrlNormalizers(UrlConfig(regex_normalize_xml=rules, loop_count=2))

    assert once.normalize("http://a.com/Q") == "http://a.com/%71"
    assert twice.normalize("http://a.com/Q") == "http://a.com/q"


def test_nutch_chain_with_only_basic(defaults: UrlConfig) -> None:
    config = UrlConfig(
        normalizers=("basic",), regex_normalize_xml=defaults.regex_normalize_xml
    )
    url = "http://Foo.com/a.php?PHPSESSID=abc"

    assert UrlNormalizers(config).normalize(url) == "http://foo.com/a.php?PHPSESSID=abc"


def test_nutch_chain_with_only_regex_keeps_malformed_urls(defaults: UrlConfig) -> None:
    config = UrlConfig(
        normalizers=("regex",), regex_normalize_xml=defaults.regex_normalize_xml
    )
    assert UrlNormalizers(config).normalize("foo:bar?") == "foo:bar"


def test_nutch_chain_drops_url_emptied_by_a_rule() -> None:
    config = UrlConfig(regex_normalize_xml=_xml(("^.*example.*$", "")))
    normalizers = UrlNormalizers(config)

    assert normalizers.normalize("http://example.com/") is None
    assert normalizers.normalize("http://other.com/") == "http://other.com/"


def test_nutch_chain_scope_rules_used_only_for_that_scope(defaults: UrlConfig) -> None:
    config = UrlConfig(
        regex_normalize_xml=defaults.regex_normalize_xml,
        regex_normalize_by_scope=(("inject", _xml(("foo", "bar"))),),
    )
    url = "http://foo.com/index.php?"

    assert (
        UrlNormalizers(config, "inject").normalize(url) == "http://bar.com/index.php?"
    )
    assert (
        UrlNormalizers(config, "fetcher").normalize(url) == "http://foo.com/index.php"
    )
    assert UrlNormalizers(config).normalize(url) == "http://foo.com/index.php"


def test_nutch_chain_reads_basic_options_from_properties() -> None:
    props = load_properties(
        defines=[
            "urlnormalizer.basic.host.idn=toAscii",
            "urlnormalizer.basic.host.trim-trailing-dot=true",
        ]
    )
    normalizers = UrlNormalizers(UrlConfig.from_properties(props), "outlink")

    assert (
        normalizers.normalize("http://B\u00fccher.de./?") == "http://xn--bcher-kva.de/"
    )


def test_beamcrawl_chain_without_normalizers_only_drops_empty_urls() -> None:
    normalizers = UrlNormalizers(UrlConfig(normalizers=()))

    assert normalizers.normalize("HTTP://A.com") == "HTTP://A.com"
    assert normalizers.normalize("") is None


def test_beamcrawl_chain_rejects_unknown_normalizer() -> None:
    with pytest.raises(ConfigError, match="unknown URL normalizer 'pass'"):
        UrlNormalizers(UrlConfig(normalizers=("basic", "pass")))


def test_beamcrawl_chain_rejects_bad_scope_rules() -> None:
    config = UrlConfig(regex_normalize_by_scope=(("inject", "<oops"),))

    assert (
        UrlNormalizers(config, "default").normalize("http://a.com") == "http://a.com/"
    )
    with pytest.raises(ConfigError, match="not valid XML"):
        UrlNormalizers(config, "inject")


def test_beamcrawl_bad_scope_rule_names_the_scope_file(tmp_path: Path) -> None:
    (tmp_path / "inject.xml").write_text(
        "<regex-normalize><regex><pattern>a</pattern></regex></regex-normalize>"
    )
    site = tmp_path / "site.properties"
    site.write_text("urlnormalizer.regex.file.inject=inject.xml\n")
    config = UrlConfig.from_properties(load_properties([str(site)]))

    assert UrlNormalizers(config, "fetcher").normalize("http://a.com") == (
        "http://a.com/"
    )
    with pytest.raises(ConfigError, match=r"^inject\.xml, rule 1: <regex> has no"):
        UrlNormalizers(config, "inject")
