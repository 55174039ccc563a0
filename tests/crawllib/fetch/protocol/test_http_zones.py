"""HttpProtocol under the address policy, against real servers on 127.0.0.x.

``http.address.public`` lets a loopback address play the public web, and a
test resolver stands in for DNS where a test names a host.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from crawllib.config import HttpConfig
from crawllib.fetch.protocol.guard import AddrInfo, Resolver
from crawllib.fetch.protocol.http import HttpProtocol
from crawllib.status import ProtocolStatus
from crawllib.urls.addresses import AddressPolicy
from crawllib.urls.zone import OPERATOR, Zone
from tests.sites import Site, start_site

S = ProtocolStatus
LOOPBACK_FROM_PUBLIC = "is a loopback address and the URL was found on a public one"


def _protocol(
    public: tuple[str, ...] = (), resolve: Resolver | None = None
) -> HttpProtocol:
    policy = AddressPolicy.from_lists([], [], public)
    config = HttpConfig(
        user_agent="zonetest/1.0", agent_name="zonetest", address_policy=policy
    )
    if resolve is None:
        return HttpProtocol(config)
    return HttpProtocol(config, resolve=resolve)


@pytest.fixture
def inside() -> Iterator[Site]:
    site = start_site("127.0.0.31")
    yield site
    site.stop()


@pytest.fixture
def outside() -> Iterator[Site]:
    site = start_site("127.0.0.32")
    yield site
    site.stop()


def test_beamcrawl_a_public_url_never_reaches_loopback(inside):
    protocol = _protocol()
    try:
        result = protocol.fetch(inside.url("/ok"), zone=Zone.PUBLIC)
    finally:
        protocol.close()

    assert (result.status, result.http_code, result.content) == (
        S.ADDRESS_DENIED,
        0,
        None,
    )
    assert result.args == (f"127.0.0.31 {LOOPBACK_FROM_PUBLIC}",)
    assert inside.requests_for("/") == []  # nothing was sent, not even a connect


@pytest.mark.parametrize("zone", [Zone.LOOPBACK, Zone.LOCAL], ids=lambda z: z.label)
def test_beamcrawl_the_operators_and_loopback_urls_reach_loopback(inside, zone):
    protocol = _protocol()
    try:
        result = protocol.fetch(inside.url("/ok"), zone=zone)
    finally:
        protocol.close()

    assert result.status == S.SUCCESS
    assert result.found_zone is Zone.LOOPBACK  # links found there may stay


def test_beamcrawl_an_address_declared_public_is_reached_and_gives_public_links(
    outside,
):
    protocol = _protocol(public=("127.0.0.32",))
    try:
        result = protocol.fetch(outside.url("/redirect/302"), zone=Zone.PUBLIC)
    finally:
        protocol.close()

    assert result.status == S.TEMP_MOVED
    assert result.found_zone is Zone.PUBLIC


def test_beamcrawl_a_connection_opened_for_one_zone_never_serves_another(inside):
    protocol = _protocol()
    try:
        first = protocol.fetch(inside.url("/ok"), zone=OPERATOR)  # keep-alive
        second = protocol.fetch(inside.url("/ok"), zone=Zone.PUBLIC)
        third = protocol.fetch(inside.url("/ok"), zone=OPERATOR)
    finally:
        protocol.close()

    assert [r.status for r in (first, second, third)] == [
        S.SUCCESS,
        S.ADDRESS_DENIED,
        S.SUCCESS,
    ]
    assert len(inside.requests_for("/ok")) == 2


class _Resolver:
    """Names the tests use, each to a list of addresses; counts the lookups."""

    def __init__(self, names: dict[str, list[str]]) -> None:
        self.names = names
        self.lookups: list[str] = []

    def __call__(self, host: str, port: int) -> list[AddrInfo]:
        self.lookups.append(host)
        if host not in self.names:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))
            for address in self.names[host]
        ]


def test_beamcrawl_a_name_is_judged_by_the_address_it_resolves_to(inside, outside):
    resolver = _Resolver(
        {
            "intranet.test": ["127.0.0.31"],
            "www.test": ["127.0.0.32"],
            "metadata.test": ["169.254.169.254"],
        }
    )
    protocol = _protocol(public=("127.0.0.32",), resolve=resolver)
    try:
        inner = protocol.fetch(
            f"http://intranet.test:{inside.port}/ok", zone=Zone.PUBLIC
        )
        outer = protocol.fetch(f"http://www.test:{outside.port}/ok", zone=Zone.PUBLIC)
        meta = protocol.fetch("http://metadata.test/latest/meta-data/", zone=OPERATOR)
        missing = protocol.fetch("http://nowhere.test/", zone=OPERATOR)
    finally:
        protocol.close()

    assert inner.status == S.ADDRESS_DENIED
    assert inner.args == (f"intranet.test: 127.0.0.31 {LOOPBACK_FROM_PUBLIC}",)
    assert outer.status == S.SUCCESS
    assert meta.status == S.ADDRESS_DENIED
    assert meta.args == (
        "metadata.test: 169.254.169.254 is never fetched "
        "(link-local, where cloud metadata services answer)",
    )
    assert missing.status == S.EXCEPTION  # a DNS failure stays what it was
    assert "Name or service not known" in missing.args[0]
    assert inside.requests_for("/") == []
    assert resolver.lookups == [
        "intranet.test",
        "www.test",
        "metadata.test",
        "nowhere.test",
    ]


def test_beamcrawl_dns_rebinding_cannot_slip_between_check_and_connect(inside, outside):
    answers = iter([["127.0.0.32"], ["127.0.0.31"]])  # public first, then inside

    def rebinding(host: str, port: int) -> list[AddrInfo]:
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))
            for address in next(answers)
        ]

    protocol = _protocol(public=("127.0.0.32",), resolve=rebinding)
    try:
        result = protocol.fetch(
            f"http://rebind.test:{outside.port}/ok", zone=Zone.PUBLIC
        )
    finally:
        protocol.close()

    assert result.status == S.SUCCESS
    assert result.ip_address == "127.0.0.32"  # the address checked
    assert len(outside.requests_for("/ok")) == 1
    assert inside.requests_for("/") == []
    assert next(answers) == ["127.0.0.31"]  # one lookup: the second answer unused
