import socket

import pytest

from crawllib.config import PartitionConfig
from crawllib.errors import ConfigError
from crawllib.urls.partition import UrlPartitioner, java_string_hash, resolve_ipv4


def _reference_hash(text):
    """String.hashCode written out differently: explicit surrogates, no masks."""
    units = []
    for char in text:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            units += [0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)]
        else:
            units.append(code)
    total = sum(unit * 31 ** (len(units) - 1 - i) for i, unit in enumerate(units))
    total %= 2**32
    return total - 2**32 if total >= 2**31 else total


# Values printed by "...".hashCode() on OpenJDK 17.
JAVA_HASHES = [
    ("", 0),
    ("a", 97),
    ("hello", 99162322),
    ("hello world", 1794106052),
    ("www.example.com", -1878290138),
    ("example.com", -1944013059),
    ("polygenelubricants", -2147483648),
    ("Aa", 2112),
    ("BB", 2112),
    ("été", 227742),
    ("\U0001f600", 1772899),
    ("\ud800", 55296),
]


@pytest.mark.parametrize(("text", "expected"), JAVA_HASHES)
def test_nutch_java_string_hash_known_values(text, expected):
    assert java_string_hash(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "www.example.com",
        "http://host1.example42.com/dir/page7.html",
        "x" * 1000,
        "münchen.de",
        "日本語.jp",
        "a\U0001f600b\U00010348c",
    ],
)
def test_java_string_hash_matches_reference_formula(text):
    assert java_string_hash(text) == _reference_hash(text)


def test_reference_formula_agrees_with_java_values():
    for text, expected in JAVA_HASHES[:-1]:  # a lone surrogate is no str char
        assert _reference_hash(text) == expected


def _expected_partition(key, seed, n):
    return ((java_string_hash(key) ^ seed) & 0x7FFFFFFF) % n


def test_nutch_by_host_hashes_the_host():
    partitioner = UrlPartitioner(PartitionConfig())

    assert partitioner.partition_key("http://www.example.com/a") == "www.example.com"
    assert partitioner.partition("http://www.example.com/a", 7) == (
        _expected_partition("www.example.com", 0, 7)
    )


def test_nutch_same_host_same_partition():
    partitioner = UrlPartitioner(PartitionConfig(seed=12345))

    for host in ["a.example.com", "b.example.com", "www.other.org", "10.0.0.1"]:
        urls = [f"http://{host}/dir{i}/page{i}.html?x={i}" for i in range(200)]
        assert len({partitioner.partition(url, 16) for url in urls}) == 1


def test_nutch_by_host_keeps_host_case():
    # java.net.URL.getHost() keeps case; the partition normalizers lowercase it
    partitioner = UrlPartitioner(PartitionConfig())

    assert partitioner.partition_key("http://WWW.Example.com/") == "WWW.Example.com"
    assert partitioner.partition_key("http://[::1]:8080/") == "[::1]"


def test_nutch_by_domain_groups_subdomains():
    partitioner = UrlPartitioner(PartitionConfig(mode="byDomain"))
    urls = ["http://a.example.com/x", "http://b.example.com/y", "http://example.com/"]

    assert {partitioner.partition_key(url) for url in urls} == {"example.com"}
    assert len({partitioner.partition(url, 97) for url in urls}) == 1
    assert partitioner.partition(urls[0], 97) == (
        _expected_partition("example.com", 0, 97)
    )


def test_nutch_unparsable_url_hashes_the_whole_string():
    for mode in ["byHost", "byDomain", "byIP"]:
        partitioner = UrlPartitioner(PartitionConfig(mode=mode, seed=3))
        url = "not a url"

        assert partitioner.partition_key(url) == url
        assert partitioner.partition(url, 13) == _expected_partition(url, 3, 13)


def test_nutch_seed_is_xored():
    hosts = [f"host{i}.example{i % 7}.com" for i in range(200)]

    def assignment(seed):
        partitioner = UrlPartitioner(PartitionConfig(seed=seed))
        return [partitioner.partition(f"http://{host}/", 16) for host in hosts]

    assert assignment(1) != assignment(0)
    assert assignment(-7) != assignment(0)
    assert assignment(99) == [_expected_partition(h, 99, 16) for h in hosts]


def test_nutch_one_partition_is_always_zero():
    partitioner = UrlPartitioner(PartitionConfig(seed=-123456))

    assert partitioner.partition("http://www.example.com/", 1) == 0
    assert partitioner.partition("not a url", 1) == 0


def test_partition_is_in_range_for_negative_hashes():
    # "polygenelubricants".hashCode() is Integer.MIN_VALUE
    partitioner = UrlPartitioner(PartitionConfig())

    assert partitioner.partition("http://polygenelubricants/", 10) == 0
    assert partitioner.partition("http://polygenelubricants/", 7) == 0


def test_zero_partitions_raises():
    with pytest.raises(ValueError, match="num_partitions"):
        UrlPartitioner(PartitionConfig()).partition("http://a.com/", 0)


def test_unknown_mode_raises():
    with pytest.raises(ConfigError, match=r"partition\.url\.mode"):
        UrlPartitioner(PartitionConfig(mode="byPath"))


class _CountingResolver:
    def __init__(self, table):
        self.table = table
        self.calls = []

    def __call__(self, host):
        self.calls.append(host)
        return self.table.get(host)


def test_nutch_by_ip_groups_hosts_sharing_an_address():
    resolver = _CountingResolver(
        {"a.com": "192.0.2.1", "b.org": "192.0.2.1", "c.net": "198.51.100.7"}
    )
    partitioner = UrlPartitioner(PartitionConfig(mode="byIP"), resolve=resolver)

    assert partitioner.partition_key("http://a.com/") == "192.0.2.1"
    assert partitioner.partition("http://a.com/x", 16) == (
        partitioner.partition("http://b.org/y", 16)
    )
    assert partitioner.partition("http://c.net/", 16) == (
        _expected_partition("198.51.100.7", 0, 16)
    )


def test_nutch_by_ip_resolves_each_host_once():
    resolver = _CountingResolver({"a.com": "192.0.2.1"})
    partitioner = UrlPartitioner(PartitionConfig(mode="byIP"), resolve=resolver)

    for i in range(50):
        partitioner.partition(f"http://a.com/{i}", 8)
        partitioner.partition(f"http://A.COM/{i}", 8)
        partitioner.partition(f"http://unknown.invalid/{i}", 8)

    assert sorted(resolver.calls) == ["a.com", "unknown.invalid"]


def test_nutch_1x_failed_lookup_hashes_to_zero():
    seed = 0x5A5A5A5
    partitioner = UrlPartitioner(
        PartitionConfig(mode="byIP", seed=seed), lambda host: None
    )

    assert partitioner.partition_key("http://nowhere.invalid/") == ""
    assert (
        partitioner.partition("http://nowhere.invalid/", 1000)
        == ((0 ^ seed) & 0x7FFFFFFF) % 1000
    )


def test_nutch_by_ip_literals_are_not_looked_up():
    resolver = _CountingResolver({})
    partitioner = UrlPartitioner(PartitionConfig(mode="byIP"), resolve=resolver)

    # java.net.InetAddress.getByName(...).getHostAddress() on OpenJDK 17
    assert partitioner.partition_key("http://[::1]:8080/") == "0:0:0:0:0:0:0:1"
    assert partitioner.partition_key("http://[2001:DB8::a]/") == "2001:db8:0:0:0:0:0:a"
    assert partitioner.partition_key("http://[::ffff:192.0.2.1]/") == "192.0.2.1"
    assert partitioner.partition_key("file:///etc/hosts") == "127.0.0.1"
    assert resolver.calls == []


def test_nutch_by_ip_scoped_ipv6_literal_keeps_its_scope():
    # getHostAddress() on OpenJDK 17 where the interface exists
    partitioner = UrlPartitioner(PartitionConfig(mode="byIP"), resolve=lambda h: None)

    assert partitioner.partition_key("http://[fe80::1%eth0]/") == (
        "fe80:0:0:0:0:0:0:1%eth0"
    )


def test_default_resolver_maps_failures_to_none(monkeypatch):
    def fail(host):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "gethostbyname", fail)

    assert resolve_ipv4("nowhere.invalid") is None


def test_default_resolver_returns_ipv4_literal():
    assert resolve_ipv4("127.0.0.1") == "127.0.0.1"


def test_default_resolver_rejects_overlong_label():
    assert resolve_ipv4("x" * 64 + ".example") is None
