"""IP hosts in every spelling, read as the WHATWG URL standard (browsers) reads them."""

import ipaddress

import pytest

from crawllib.urls.iphost import (
    NotAnAddressError,
    canonical_host,
    ends_in_a_number,
    ip_of_host,
    parse_ipv4,
)
from crawllib.urls.javaurl import MalformedUrlError
from crawllib.urls.normalize import basic_normalize

# every spelling of 127.0.0.2 the issue names, and the short forms
SPELLINGS_OF_127_0_0_2 = [
    "127.0.0.2",
    "2130706434",
    "0x7f000002",
    "0X7F000002",
    "0177.0.0.2",
    "0x7f.0.0.2",
    "0x7f.0x0.0x0.0x2",
    "127.2",
    "127.0.2",
    "0177.02",
    "127.0.0.2.",
    "[::ffff:127.0.0.2]",
    "[::FFFF:7F00:2]",
]


@pytest.mark.parametrize("host", SPELLINGS_OF_127_0_0_2)
def test_beamcrawl_every_spelling_is_the_address_it_is(host):
    address = ip_of_host(host)
    assert address is not None
    carried = address.ipv4_mapped if address.version == 6 else address
    assert carried == ipaddress.IPv4Address("127.0.0.2")


@pytest.mark.parametrize("host", SPELLINGS_OF_127_0_0_2[:-2])
def test_beamcrawl_ipv4_spellings_normalize_to_dotted_decimal(host):
    assert canonical_host(host) == "127.0.0.2"
    assert basic_normalize(f"http://{host}/a") == "http://127.0.0.2/a"


@pytest.mark.parametrize("host", SPELLINGS_OF_127_0_0_2[-2:])
def test_beamcrawl_ipv6_spellings_normalize_as_browsers_serialise_them(host):
    assert canonical_host(host) == "[::ffff:7f00:2]"
    assert basic_normalize(f"http://{host}:8080/a") == "http://[::ffff:7f00:2]:8080/a"


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("0", "0.0.0.0"),
        ("0x", "0.0.0.0"),
        ("4294967295", "255.255.255.255"),
        ("1.16777215", "1.255.255.255"),
        ("1.2.65535", "1.2.255.255"),
        ("08", None),  # not octal: "0" then a non-octal digit is no number
        ("256.0.0.1", None),
        ("1.2.3.256", None),
        ("4294967296", None),
        ("1.2.3.4.5", None),
        ("0x1g", None),
        ("a.1", None),
    ],
)
def test_whatwg_ipv4_parser(host, expected):
    if expected is None:
        with pytest.raises(NotAnAddressError):
            parse_ipv4(host)
    else:
        assert str(parse_ipv4(host)) == expected


@pytest.mark.parametrize(
    ("host", "number"),
    [
        ("example.com", False),
        ("1.example", False),
        ("example.1", True),
        ("example.0x1", True),
        ("example.0xg", False),
        ("1.2.3.4.", True),
        ("xn--nxasmq6b", False),
    ],
)
def test_whatwg_ends_in_a_number(host, number):
    assert ends_in_a_number(host) is number


@pytest.mark.parametrize("url", ["http://999.1.1.1/", "http://a.b.1/", "http://08/"])
def test_beamcrawl_a_host_ending_in_a_number_that_is_no_address_is_malformed(url):
    with pytest.raises(MalformedUrlError):
        basic_normalize(url)


@pytest.mark.parametrize(
    "url",
    ["http://example.com/", "http://www.example.com:8080/x?y", "http://10.0.0.1/a"],
)
def test_names_and_dotted_addresses_are_left_alone(url):
    assert basic_normalize(url) == url
    assert ip_of_host("example.com") is None
