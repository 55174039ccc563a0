import pytest

from crawllib.urls.rowkey import reverse_url, reversed_host, unreverse_url

# (url, key) pairs from Nutch 2.x TestTableUtil.
EXACT_ROUND_TRIP = [
    ("http://foo.com/", "com.foo:http/"),
    ("http://foo.com:8900/", "com.foo:http:8900/"),
    ("ftp://bar.baz.com/", "com.baz.bar:ftp/"),
    (
        "http://bar.baz.com:8983/to/index.html?a=b&c=d",
        "com.baz.bar:http:8983/to/index.html?a=b&c=d",
    ),
    ("http://foo.com", "com.foo:http"),
    ("file:///var/www/index.html", ":file/var/www/index.html"),
]


@pytest.mark.parametrize(("url", "key"), EXACT_ROUND_TRIP)
def test_nutch_table_util_reverse_url(url, key):
    assert reverse_url(url) == key


@pytest.mark.parametrize(("url", "key"), EXACT_ROUND_TRIP)
def test_nutch_table_util_unreverse_url(url, key):
    assert unreverse_url(key) == url


def test_nutch_table_util_bare_query_gets_a_slash():
    key = reverse_url("http://foo.com?a=/a/b&c=0")

    assert key == "com.foo:http/?a=/a/b&c=0"
    assert unreverse_url(key) == "http://foo.com/?a=/a/b&c=0"


@pytest.mark.parametrize(
    ("key", "host"),
    [
        ("com.foo:http/", "com.foo"),
        ("com.foo:http:8900/", "com.foo"),
        ("com.baz.bar:http:8983/to/index.html?a=b&c=d", "com.baz.bar"),
        ("com.foo:http", "com.foo"),
        (":file/var/www/index.html", ""),
    ],
)
def test_nutch_table_util_reversed_host(key, host):
    assert reversed_host(key) == host


def test_nutch_ipv4_address_is_reversed_like_a_name():
    assert reverse_url("http://127.0.0.1:8080/x") == "1.0.0.127:http:8080/x"
    assert unreverse_url("1.0.0.127:http:8080/x") == "http://127.0.0.1:8080/x"


def test_nutch_default_port_is_kept():
    assert reverse_url("http://a.com:80/") == "com.a:http:80/"


def test_nutch_trailing_dot_of_host_disappears():
    assert reverse_url("http://www.example.com./") == "com.example.www:http/"


def test_nutch_fragment_and_user_info_are_not_in_the_key():
    assert reverse_url("http://user:pw@foo.com/a?b=c#top") == "com.foo:http/a?b=c"


def test_nutch_scheme_is_lowercased_host_case_is_kept():
    assert reverse_url("HTTP://Foo.COM/Path") == "COM.Foo:http/Path"


def test_nutch_file_url_without_authority_comes_back_with_one():
    assert reverse_url("file:/path/index.html") == ":file/path/index.html"
    assert unreverse_url(":file/path/index.html") == "file:///path/index.html"


def test_keys_sort_by_reversed_host():
    urls = ["http://b.example.com/", "http://other.org/", "http://a.example.com/"]

    keys = sorted(reverse_url(u) for u in urls)

    assert [reversed_host(k) for k in keys] == [
        "com.example.a",
        "com.example.b",
        "org.other",
    ]


def test_beamcrawl_ipv6_host_survives_the_round_trip():
    key = reverse_url("http://[::1]:8080/x")

    assert key == "[::1]:http:8080/x"
    assert reversed_host(key) == "[::1]"
    assert unreverse_url(key) == "http://[::1]:8080/x"


@pytest.mark.parametrize("url", ["www.example.com/", "http://a.com:x/", ""])
def test_unparsable_url_raises(url):
    with pytest.raises(ValueError, match="not a URL"):
        reverse_url(url)


@pytest.mark.parametrize("key", ["com.foo", "com.foo:/x", "com.foo:http:80:1/"])
def test_malformed_key_raises(key):
    with pytest.raises(ValueError, match="row key"):
        unreverse_url(key)


def test_reversed_host_of_malformed_key_raises():
    with pytest.raises(ValueError, match="row key"):
        reversed_host("com.foo/x")
