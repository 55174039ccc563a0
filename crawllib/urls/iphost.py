"""IP address hosts in every spelling, read as browsers read them.

``http://2130706434/``, ``http://0x7f000002/``, ``http://0177.0.0.2/``,
``http://127.2/`` and ``http://[::ffff:127.0.0.2]/`` all name 127.0.0.2:
the resolver (``inet_aton``) and browsers (the WHATWG URL standard's IPv4
parser) read them so. :func:`ip_of_host` reads a URL host the same way,
so that an address check and a URL filter rule see the address a
connection would go to, whatever its spelling. java.net.URL (and so
Nutch) keeps such hosts as written.
"""

from __future__ import annotations

import ipaddress
import re

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_HEX = re.compile(r"0[xX][0-9a-fA-F]*")
_OCTAL = re.compile(r"0[0-7]*")
_DECIMAL = re.compile(r"[0-9]+")


class NotAnAddressError(ValueError):
    """A host that ends in a number but is no IPv4 address (browsers refuse it)."""


def ends_in_a_number(host: str) -> bool:
    """WHATWG "ends in a number": the last label is decimal or ``0x`` hex.

    Such a host is an IPv4 address or invalid; never a domain name.
    """
    labels = host.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels.pop()
    last = labels[-1]
    return bool(_DECIMAL.fullmatch(last) or _HEX.fullmatch(last))


def parse_ipv4(host: str) -> ipaddress.IPv4Address:
    """The WHATWG IPv4 parser: decimal, ``0x`` hex and ``0`` octal parts, 1-4 of them.

    ``a`` is the whole address, ``a.b`` is ``a`` then a 24-bit ``b``, ``a.b.c``
    ends in a 16-bit ``c``. One trailing dot is allowed.

    Raises:
        NotAnAddressError: a part is no number or a value is out of range.
    """
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4:
        raise NotAnAddressError(f"{host!r} has more than four parts")
    numbers = [_number(part, host) for part in parts]
    if any(number > 255 for number in numbers[:-1]):
        raise NotAnAddressError(f"{host!r} has a part above 255")
    last_bits = 8 * (5 - len(numbers))
    if numbers[-1] >= 1 << last_bits:
        raise NotAnAddressError(f"{host!r} is out of range")
    value = numbers[-1]
    for index, number in enumerate(numbers[:-1]):
        value += number << (8 * (3 - index))
    return ipaddress.IPv4Address(value)


def _number(part: str, host: str) -> int:
    if _HEX.fullmatch(part):
        return int(part[2:] or "0", 16)
    if len(part) > 1 and part.startswith("0"):
        if _OCTAL.fullmatch(part):
            return int(part, 8)
    elif _DECIMAL.fullmatch(part):
        return int(part)
    raise NotAnAddressError(f"{host!r}: {part!r} is no number")


def ip_of_host(host: str) -> IPAddress | None:
    """The address a URL host spells, in any spelling; None for a domain name.

    ``host`` is as in a URL: IPv6 in brackets (or bare), any case.

    Raises:
        NotAnAddressError: the host ends in a number but is no IPv4 address.
    """
    text = host.strip().lower()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if ":" in text:
        try:
            return ipaddress.IPv6Address(text.split("%", 1)[0])
        except ValueError:
            return None
    if not text or not ends_in_a_number(text):
        return None
    return parse_ipv4(text)


def canonical_host(host: str) -> str:
    """The host with an address in its one canonical spelling, else as given.

    ``0x7f.1`` becomes ``127.0.0.1``; ``[::FFFF:127.0.0.2]`` becomes
    ``[::ffff:7f00:2]`` (the WHATWG serialisation); a name stays.

    Raises:
        NotAnAddressError: the host ends in a number but is no IPv4 address.
    """
    address = ip_of_host(host)
    if address is None:
        return host
    if address.version == 6:
        return f"[{address.compressed}]"
    return str(address)
