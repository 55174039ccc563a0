"""Tests for crawllib.urls.javaurl.

The ``test_nutch_*`` tables hold what ``new java.net.URL(spec)`` gives on
OpenJDK 17.0.15 (``getProtocol``, ``getAuthority``, ``getUserInfo``,
``getHost``, ``getPort``, ``getFile``, ``getRef``), or that it throws.
"""

from __future__ import annotations

import pytest

from crawllib.urls.javaurl import (
    MalformedUrlError,
    UrlParts,
    java_host,
    parse_url,
    split_url,
)

# (spec, (scheme, authority, user_info, host, port, file, ref)) from OpenJDK 17
JAVA_PARTS = [
    (
        "HTTP://u@Foo.com:08080/a/b?c=d#e",
        ("http", "u@Foo.com:08080", "u", "Foo.com", 8080, "/a/b?c=d", "e"),
    ),
    ("http://a.com:/x", ("http", "a.com:", None, "a.com", -1, "/x", None)),
    ("http://a.com#frag", ("http", "a.com", None, "a.com", -1, "", "frag")),
    ("http://a.com?q#f?g", ("http", "a.com", None, "a.com", -1, "?q", "f?g")),
    ("http://a.com:+80/", ("http", "a.com:+80", None, "a.com", 80, "/", None)),
    ("http://a.com:-1/", ("http", "a.com:-1", None, "a.com", -1, "/", None)),
    (
        "http://a.com:000000000080/",
        ("http", "a.com:000000000080", None, "a.com", 80, "/", None),
    ),
    (
        "http://a.com:\u0668\u0660/",  # Arabic-Indic digits: Integer.parseInt
        ("http", "a.com:\u0668\u0660", None, "a.com", 80, "/", None),
    ),
    ("http://[::1]:/", ("http", "[::1]:", None, "[::1]", -1, "/", None)),
    (
        "http://[fe80::1%eth0]:8080/",
        ("http", "[fe80::1%eth0]:8080", None, "[fe80::1%eth0]", 8080, "/", None),
    ),
    ("http:////server/share", ("http", None, None, "", -1, "////server/share", None)),
    ("http:///x", ("http", "", None, "", -1, "/x", None)),
    ("http:x?y", ("http", None, None, "", -1, "x?y", None)),
    ("http:", ("http", None, None, "", -1, "", None)),
    ("http://", ("http", "", None, "", -1, "", None)),
    ("http://a@b@c.com/x", ("http", "a@b@c.com", None, "", -1, "/x", None)),
    (" \thttp://a.com/ \n", ("http", "a.com", None, "a.com", -1, "/", None)),
    ("url:HTTP://a.com/", ("http", "a.com", None, "a.com", -1, "/", None)),
    ("mailto:x@y.com#top", ("mailto", None, None, "", -1, "x@y.com", None)),
    ("mailto://x@y", ("mailto", None, None, "", -1, "//x@y", None)),
    ("jar:file:/x.jar!/a#r", ("jar", None, None, "", -1, "file:/x.jar!/a", "r")),
    ("http://a.com\\b/c", ("http", "a.com\\b", None, "a.com\\b", -1, "/c", None)),
    ("http:// a.com/", ("http", " a.com", None, " a.com", -1, "/", None)),
]

# specs OpenJDK 17 rejects; the first ones come from the normalizer's tests
JAVA_REJECTS = [
    "   ",
    "foo.com/index.html",
    "//foo.com/",
    "#fragment",
    "javascript:void(0)",
    "foo:bar",
    "data:text/plain,x",
    "1http://foo.com/",
    "http//foo.com/",
    "http://a.com:b/",
    "http://a.com:99999999999/",
    "http://a.com:-2/",
    "http://a.com:8_0/",
    "http://[::1",
    "http://[]/",
    "http://[::1]./",
    "http://[zz::1]/",
    "mailto:",
    "mailto:   ",
    "jar:http://a.com/x.jar",
    "jar:nope!/x",
    "http://a\x01b/",
    "http://a\uff0fb/",  # FULLWIDTH SOLIDUS: IPAddressUtil.checkHostString
    "http://a.com: 80/",
    "http://a.com:2147483648/",
    "http://[::1]x/",
    "http://[1::2::3]/",
    "http://[fe80::1%]/",
    "url://a.com/",
    "foo://bar/",
    " jar:file:/x.jar!/a",
    "jar:jar:file:/x.jar!/a!/b",
    "mailto:\u3000",
]


def _fields(parts: UrlParts) -> tuple[object, ...]:
    return (
        parts.scheme,
        parts.authority,
        parts.user_info,
        parts.host,
        parts.port,
        parts.file,
        parts.ref,
    )


@pytest.mark.parametrize(("spec", "expected"), JAVA_PARTS)
def test_nutch_parse_url_matches_java_net_url(spec, expected):
    assert _fields(parse_url(spec)) == expected
    assert split_url(spec) == parse_url(spec)


@pytest.mark.parametrize("spec", JAVA_REJECTS)
def test_nutch_parse_url_rejects_what_java_net_url_rejects(spec):
    with pytest.raises(MalformedUrlError):
        parse_url(spec)


_UNKNOWN_SCHEMES = {"javascript:void(0)", "foo:bar", "data:text/plain,x", "foo://bar/"}


@pytest.mark.parametrize("spec", [s for s in JAVA_REJECTS if s not in _UNKNOWN_SCHEMES])
def test_split_url_gives_none_where_java_throws(spec):
    assert split_url(spec) is None


def test_beamcrawl_split_url_accepts_any_scheme():
    # java.net.URL needs a handler (Nutch: a protocol plugin) for the scheme
    parts = split_url("svn+ssh://u@Host:22/repo?x#y")

    assert parts == UrlParts("svn+ssh", "u@Host:22", "u", "Host", 22, "/repo?x", "y")
    assert split_url("foo:bar") == UrlParts("foo", None, None, "", -1, "bar", None)
    with pytest.raises(MalformedUrlError, match="unknown protocol"):
        parse_url("svn+ssh://host/")
    assert parse_url("svn+ssh://host/", any_scheme=True).host == "host"


def test_nutch_host_is_empty_when_authority_has_two_at_signs():
    # java.net.URL drops the host of "a@b@c.com"
    assert java_host("http://a@b@c.com/x") == ""


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://Www.Example.COM:8080/a", "Www.Example.COM"),
        ("http://[::1]:8080/", "[::1]"),
        ("http://a.com.:80/", "a.com."),
        ("http://:80/", ""),
        ("http:/a.com/", ""),
        ("www.example.com", None),
        ("http://a.com:abc/", None),
        ("http://[::1/", None),
        ("http://a.com:99999999999/", None),
    ],
)
def test_nutch_java_host_matches_java_net_url(url, host):
    assert java_host(url) == host


@pytest.mark.parametrize(
    "url",
    [spec for spec, _ in JAVA_PARTS]
    + JAVA_REJECTS
    + [
        "http://www1.host123.site45.com/dir3/page456.html",
        "http://a.com:123456789/",
        "http://a.com:1234567890/",
        "https://a.com?x",
        "https://a.com#x",
        "http://a.com ",
        "mailto://a.com/",
        "JAR://a.com/",
        "Url://a.com/",
        "svn+ssh://host/x",
    ],
)
def test_java_host_shortcut_agrees_with_split_url(url):
    parts = split_url(url)

    assert java_host(url) == (None if parts is None else parts.host)


def test_nutch_split_url_matches_java_net_url():
    assert split_url("HTTP://u@Foo.com:08080/a/b?c=d#e") == UrlParts(
        "http", "u@Foo.com:08080", "u", "Foo.com", 8080, "/a/b?c=d", "e"
    )
    assert split_url("http://a.com:/x") == UrlParts(
        "http", "a.com:", None, "a.com", -1, "/x", None
    )
    assert split_url("http://a.com#frag") == UrlParts(
        "http", "a.com", None, "a.com", -1, "", "frag"
    )
    assert split_url("mailto:x@y.com") == UrlParts(
        "mailto", None, None, "", -1, "x@y.com", None
    )
    assert split_url("no scheme") is None


def test_malformed_url_error_is_a_value_error():
    with pytest.raises(ValueError, match="no protocol"):
        parse_url("no scheme")
