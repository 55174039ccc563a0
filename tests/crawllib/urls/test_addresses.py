"""The address policy, and connecting under it, on real sockets on loopback.

No DNS: a test resolver stands in for ``getaddrinfo`` where a test names a
host, and ``http.address.public`` makes some loopback addresses play the
public web.
"""

import ipaddress
import socket
import threading

import pytest

from crawllib.config import HttpConfig, load_properties
from crawllib.errors import ConfigError
from crawllib.fetch.protocol.guard import AddressRefused, connect
from crawllib.urls.addresses import NO_SETTINGS, AddressPolicy
from crawllib.urls.zone import Zone

P, V, L, F = Zone.PUBLIC, Zone.PRIVATE, Zone.LOOPBACK, Zone.LOCAL

CLASSES = [
    ("8.8.8.8", P),
    ("93.184.216.34", P),
    ("2606:4700::1111", P),
    ("127.0.0.1", L),
    ("127.255.255.254", L),
    ("::1", L),
    ("::ffff:127.0.0.2", L),
    ("::127.0.0.2", L),  # IPv4-compatible
    ("64:ff9b::7f00:2", L),  # NAT64
    ("2002:7f00:2::", L),  # 6to4
    ("10.1.2.3", V),
    ("172.16.0.1", V),
    ("172.31.255.255", V),
    ("192.168.1.1", V),
    ("100.64.0.1", V),
    ("fc00::1", V),
    ("fd12:3456::1", V),
    ("::ffff:10.0.0.1", V),
    ("169.254.169.254", None),
    ("169.254.0.1", None),
    ("fe80::1", None),
    ("fd00:ec2::254", None),
    ("100.100.100.200", None),
    ("0.0.0.0", None),
    ("0.1.2.3", None),
    ("::", None),
    ("224.0.0.1", None),
    ("ff02::1", None),
    ("255.255.255.255", None),
    ("240.0.0.1", None),
    ("::ffff:169.254.169.254", None),
]


@pytest.mark.parametrize(("address", "expected"), CLASSES)
def test_beamcrawl_default_address_classes(address, expected):
    assert NO_SETTINGS.address_class(ipaddress.ip_address(address)) == expected


@pytest.mark.parametrize(("address", "found"), CLASSES)
@pytest.mark.parametrize("zone", list(Zone), ids=lambda z: z.label)
def test_beamcrawl_a_zone_reaches_its_class_and_outward(address, found, zone):
    refusal = NO_SETTINGS.refusal(ipaddress.ip_address(address), zone)
    assert (refusal is None) is (found is not None and found <= zone)


def test_beamcrawl_the_refusals_say_why():
    def why(address, zone):
        return NO_SETTINGS.refusal(ipaddress.ip_address(address), zone)

    assert why("127.0.0.1", P) == (
        "127.0.0.1 is a loopback address and the URL was found on a public one"
    )
    assert why("10.0.0.1", P) == (
        "10.0.0.1 is a private address and the URL was found on a public one"
    )
    assert why("169.254.169.254", F) == (
        "169.254.169.254 is never fetched "
        "(link-local, where cloud metadata services answer)"
    )
    assert why("100.100.100.200", F) == (
        "100.100.100.200 is never fetched (a cloud metadata service)"
    )
    assert why("224.0.0.1", F) == "224.0.0.1 is never fetched (multicast)"


def _policy(**lists):
    return AddressPolicy.from_lists(
        lists.get("deny", []), lists.get("allow", []), lists.get("public", [])
    )


def test_beamcrawl_deny_wins_over_everything():
    policy = _policy(deny=["127.0.0.0/8", "2001:db8::/32"], allow=["127.0.0.1"])
    assert policy.refusal(ipaddress.ip_address("127.0.0.1"), F) == (
        "127.0.0.1 is in http.address.deny"
    )
    assert policy.refusal(ipaddress.ip_address("::ffff:127.0.0.5"), F) is not None
    assert policy.refusal(ipaddress.ip_address("2001:db8::1"), F) is not None
    assert policy.refusal(ipaddress.ip_address("8.8.8.8"), P) is None


def test_beamcrawl_allow_opens_a_range_to_every_zone_even_link_local():
    policy = _policy(allow=["169.254.169.254", "10.0.0.0/8"])
    assert policy.refusal(ipaddress.ip_address("169.254.169.254"), P) is None
    assert policy.refusal(ipaddress.ip_address("10.9.9.9"), P) is None
    assert policy.refusal(ipaddress.ip_address("169.254.0.1"), F) is not None
    # links found there stay inside: private, not public
    assert policy.address_class(ipaddress.ip_address("169.254.169.254")) == V
    assert policy.address_class(ipaddress.ip_address("10.9.9.9")) == V


def test_beamcrawl_public_makes_loopback_play_the_web():
    policy = _policy(public=["127.0.0.2/32"])
    assert policy.address_class(ipaddress.ip_address("127.0.0.2")) == P
    assert policy.refusal(ipaddress.ip_address("127.0.0.2"), P) is None
    assert policy.refusal(ipaddress.ip_address("127.0.0.3"), P) is not None


@pytest.mark.parametrize("item", ["localhost", "300.1.1.1", "10.0.0.0/33", "::g"])
def test_a_bad_range_is_one_line_naming_the_property(item):
    with pytest.raises(ConfigError) as caught:
        HttpConfig.from_properties(
            load_properties(
                defines=["http.agent.name=t", f"http.address.allow=a.b.c.d/1,{item}"]
            )
        )
    assert str(caught.value) == (
        "property http.address.allow: 'a.b.c.d/1' is no IP address or CIDR range"
    )
    with pytest.raises(ConfigError, match=f"property http.address.deny: '{item}'"):
        HttpConfig.from_properties(
            load_properties(defines=["http.agent.name=t", f"http.address.deny={item}"])
        )


def test_the_properties_reach_the_config():
    config = HttpConfig.from_properties(
        load_properties(
            defines=[
                "http.agent.name=t",
                "http.address.deny=192.0.2.0/24",
                "http.address.allow=10.1.0.0/16 fd00::1",
                "http.address.public=[::1],127.0.0.2",
            ]
        )
    )
    assert config.address_policy == AddressPolicy(
        deny=(ipaddress.ip_network("192.0.2.0/24"),),
        allow=(ipaddress.ip_network("10.1.0.0/16"), ipaddress.ip_network("fd00::1")),
        public=(ipaddress.ip_network("::1"), ipaddress.ip_network("127.0.0.2")),
    )


def test_beamcrawl_metadata_host_names_are_refused_before_any_lookup():
    def resolve(host, port):
        raise AssertionError("looked up")

    with pytest.raises(AddressRefused, match="is a cloud metadata service"):
        connect(
            "metadata.google.internal",
            80,
            zone=F,
            policy=NO_SETTINGS,
            timeout=5,
            resolve=resolve,
        )


# --- connecting: the address checked is the address used ---------------------


class _Listener:
    """A listening socket on a loopback address that counts connections."""

    def __init__(self, host):
        self.sock = socket.create_server((host, 0))
        self.port = self.sock.getsockname()[1]
        self.accepted = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self):
        while True:
            try:
                conn, peer = self.sock.accept()
            except OSError:
                return
            self.accepted.append(peer)
            conn.close()

    def close(self):
        self.sock.shutdown(socket.SHUT_RDWR)  # wakes the accept (close would not)
        self.sock.close()
        self._thread.join()


@pytest.fixture
def listeners():
    opened = []

    def open_on(host):
        listener = _Listener(host)
        opened.append(listener)
        return listener

    yield open_on
    for listener in opened:
        listener.close()


def _answers(*addresses):
    return [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, 0))
        for address in addresses
    ]


class _Rebinding:
    """A resolver whose answer changes after the first lookup (DNS rebinding)."""

    def __init__(self, first, then):
        self.answers = [first, then]
        self.calls = 0

    def __call__(self, host, port):
        answer = self.answers[min(self.calls, 1)]
        self.calls += 1
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answer, port))]


def test_beamcrawl_one_lookup_and_the_checked_address_is_the_one_connected(listeners):
    public = listeners("127.0.0.22")
    policy = _policy(public=["127.0.0.22"])
    resolver = _Rebinding("127.0.0.22", "127.0.0.23")

    sock = connect(
        "rebind.test", public.port, zone=P, policy=policy, timeout=5, resolve=resolver
    )
    try:
        assert sock.getpeername() == ("127.0.0.22", public.port)
    finally:
        sock.close()
    assert resolver.calls == 1


def test_beamcrawl_refused_answers_are_skipped_for_an_allowed_one(listeners):
    server = listeners("127.0.0.24")
    policy = _policy(public=["127.0.0.24"])

    def resolve(host, port):
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
            for a in ("169.254.169.254", "127.0.0.1", "127.0.0.24")
        ]

    sock = connect("mixed.test", server.port, zone=P, policy=policy, timeout=5,
                   resolve=resolve)  # fmt: skip
    try:
        assert sock.getpeername()[0] == "127.0.0.24"
    finally:
        sock.close()


def test_beamcrawl_all_answers_refused_is_a_refusal_with_the_first_reason(listeners):
    server = listeners("127.0.0.25")

    def resolve(host, port):
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port))
            for a in ("127.0.0.25", "10.0.0.1")
        ]

    with pytest.raises(AddressRefused) as caught:
        connect("inside.test", server.port, zone=P, policy=NO_SETTINGS, timeout=5,
                resolve=resolve)  # fmt: skip
    assert caught.value.reason == (
        "127.0.0.25 is a loopback address and the URL was found on a public one"
    )
    assert server.accepted == []


@pytest.mark.parametrize(
    "host", ["2130706434", "0x7f000002", "0177.0.0.2", "127.2", "::ffff:127.0.0.2"]
)
def test_beamcrawl_every_spelling_resolves_to_the_address_checked(host, listeners):
    # the system resolver reads these as 127.0.0.2, and so the check does
    server = listeners("127.0.0.2") if ":" not in host else None
    port = server.port if server else 9
    with pytest.raises(AddressRefused, match=r"127\.0\.0\.2\)? is a loopback address"):
        connect(host, port, zone=P, policy=NO_SETTINGS, timeout=5)
    if server is not None:
        sock = connect(host, port, zone=L, policy=NO_SETTINGS, timeout=5)
        try:
            assert sock.getpeername() == ("127.0.0.2", port)
        finally:
            sock.close()
