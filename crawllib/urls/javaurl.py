"""Split a URL the way ``java.net.URL`` does, so that beamcrawl agrees with Nutch.

Nutch reads every URL with ``new java.net.URL(spec)``; Python's
``urllib.parse`` splits differently (IPv6 hosts, empty ports, ``?`` right
after the host, backslashes, ``////`` paths). :func:`parse_url` gives the
parts OpenJDK 17 gives:

- Characters up to U+0020 are trimmed from both ends, and a ``url:`` prefix
  is dropped. The scheme runs to the first ``:``, which must come before any
  ``/``; it is lowercased.
- The ref (fragment) follows the first ``#``; the query starts at the first
  ``?`` before it. ``file`` is the path plus ``?query``.
- An authority follows ``//`` (but not ``////``, a UNC path) and ends at
  ``/`` or the query. User-info is what comes before its ``@``; with more than
  one ``@`` the host is empty. A host in brackets must be an IPv6 literal;
  no host may hold a control character (nor one of the few that NFKC makes a
  delimiter: OpenJDK 17.0.3 and later). The port may be empty (-1) and is read
  like ``Integer.parseInt``: a sign, then decimal digits of any script, from
  -1 to 2**31 - 1.
- ``mailto:`` URLs have no authority and no ref, and need an address;
  ``jar:`` URLs need a ``!/`` after a valid inner URL.

:func:`parse_url` raises :class:`MalformedUrlError` where Java throws
``MalformedURLException``, and by default knows only the schemes Nutch can
handle (:data:`KNOWN_SCHEMES`). :func:`split_url` and :func:`java_host` are
the tolerant forms for keys (partitions, row keys, filter blocks): they give
None instead of raising and accept any scheme, as if Nutch had a protocol
plugin for it.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from crawllib.java import is_java_blank, java_trim, parse_int

KNOWN_SCHEMES = frozenset({"http", "https", "ftp", "file", "jar", "mailto"})
"""The schemes ``java.net.URL`` has a handler for that Nutch fetches or skips."""

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
# IPAddressUtil.checkHostString (OpenJDK 17.0.3+): controls, and characters
# that NFKC would turn into "#", "/", ":", "?" or "@"
_NOT_IN_HOST = (
    "\x00-\x1f\x7f\u2047-\u2049\u2100\u2101\u2105\u2106\u2a74"
    "\ufe55\ufe56\ufe5f\ufe6b\uff03\uff0f\uff1a\uff1f\uff20"
)
_BAD_HOST = re.compile(f"[{_NOT_IN_HOST}]")
# URLs that need no trimming, "url:" prefix, mailto/jar handler, user-info,
# IPv6 literal or long port: parse_url and java_host read them in one match.
_PLAIN_START = r"(?!(?i:url|mailto|jar):)([A-Za-z][A-Za-z0-9+.\-]*)://"
_HOST_CHAR = rf"[^ /?#@:\[{_NOT_IN_HOST}]"
_PLAIN_HOST = re.compile(rf"{_PLAIN_START}({_HOST_CHAR}*)(?::[0-9]{{0,9}})?(?![^/?#])")
_PLAIN_URL = re.compile(
    rf"{_PLAIN_START}(({_HOST_CHAR}+)(?::([0-9]{{0,9}}))?)"
    r"([/?][^#]*)?(?:#(.*))?(?<![\x00-\x20])\Z",
    re.DOTALL,
)


class MalformedUrlError(ValueError):
    """A URL that ``java.net.URL`` rejects (Nutch's MalformedURLException)."""


@dataclass(frozen=True, slots=True)
class UrlParts:
    """The parts of a URL as ``java.net.URL`` reports them.

    Attributes:
        scheme: ``getProtocol()``, lowercased.
        authority: ``getAuthority()``: what follows ``//``, or None.
        user_info: ``getUserInfo()``: what precedes ``@``, or None.
        host: ``getHost()``: case kept, an IPv6 literal in brackets, ``""``
            when there is no authority (``file:/x``, ``mailto:a@b``).
        port: ``getPort()``: the explicit port, or -1.
        file: ``getFile()``: the path plus ``?query``; never the ref.
        ref: ``getRef()``: what follows ``#``, or None.
    """

    scheme: str
    authority: str | None
    user_info: str | None
    host: str
    port: int
    file: str
    ref: str | None


def parse_url(spec: str, *, any_scheme: bool = False) -> UrlParts:
    """Split ``spec`` like ``new java.net.URL(spec)``.

    Args:
        spec: the URL.
        any_scheme: accept any syntactically valid scheme, parsed like
            ``http``; otherwise only :data:`KNOWN_SCHEMES`.

    Raises:
        MalformedUrlError: Java would throw ``MalformedURLException``.
    """
    plain = _PLAIN_URL.match(spec)
    if plain is not None:
        scheme, authority, host, port, file, ref = plain.groups()
        scheme = scheme.lower()
        if any_scheme or scheme in KNOWN_SCHEMES:
            port_number = int(port) if port else -1
            return UrlParts(scheme, authority, None, host, port_number, file or "", ref)
    return _parse_slowly(spec, any_scheme)


def split_url(url: str) -> UrlParts | None:
    """Split ``url`` like ``new java.net.URL(url)``; None where Java would throw.

    Any valid scheme is accepted (see :func:`parse_url`).
    """
    try:
        return parse_url(url, any_scheme=True)
    except MalformedUrlError:
        return None


def java_host(url: str) -> str | None:
    """The host as ``java.net.URL.getHost()`` gives it, or None if unparsable.

    Case is kept and an IPv6 literal keeps its brackets; a URL without an
    authority has the host ``""``. This is what Nutch's URLPartitioner hashes
    in ``byHost`` mode. Faster than :func:`split_url` on plain URLs.
    """
    plain = _PLAIN_HOST.match(url)
    if plain is not None:
        return plain[2]
    parts = split_url(url)
    return None if parts is None else parts.host


def _parse_slowly(spec: str, any_scheme: bool) -> UrlParts:
    """Every step of :func:`parse_url`, without its shortcut."""
    text = java_trim(spec)
    start = 4 if text[:4].lower() == "url:" else 0
    colon = text.find(":", start)
    slash = text.find("/", start)
    if colon < 0 or 0 <= slash < colon or not _SCHEME.fullmatch(text, start, colon):
        raise MalformedUrlError(f"no protocol: {spec}")
    scheme = text[start:colon].lower()
    if not any_scheme and scheme not in KNOWN_SCHEMES:
        raise MalformedUrlError(f"unknown protocol: {scheme}")
    rest, hash_sign, ref = text[colon + 1 :].partition("#")
    if scheme == "mailto":
        if is_java_blank(rest):
            raise MalformedUrlError("no email address")
        return UrlParts(scheme, None, None, "", -1, rest, None)
    if scheme == "jar":
        _check_jar(spec, rest, any_scheme)
        return UrlParts(scheme, None, None, "", -1, rest, ref if hash_sign else None)
    return _split_hierarchical(scheme, rest, ref if hash_sign else None)


def _check_jar(spec: str, rest: str, any_scheme: bool) -> None:
    """The jar handler's checks: ``jar:`` first, a ``!/``, a valid inner URL."""
    if spec[:4].lower() != "jar:" or rest[:4].lower() == "jar:":
        raise MalformedUrlError(f"not an absolute, unnested jar URL: {spec}")
    bang = rest.rfind("!/")
    if bang < 0:
        raise MalformedUrlError(f"no !/ in jar URL: {spec}")
    parse_url(rest[:bang], any_scheme=any_scheme)


def _split_hierarchical(scheme: str, rest: str, ref: str | None) -> UrlParts:
    """``URLStreamHandler.parseURL`` of what follows ``scheme:``, less the ref."""
    path, question, query = rest.partition("?")
    authority = user_info = None
    host, port = "", -1
    if path.startswith("//") and not path.startswith("////"):
        end = path.find("/", 2)
        end = len(path) if end < 0 else end
        authority = path[2:end]
        user_info, host, port = _split_authority(authority)
        path = path[end:]
    return UrlParts(
        scheme, authority, user_info, host, port, path + question + query, ref
    )


def _split_authority(authority: str) -> tuple[str | None, str, int]:
    """User-info, host and port (-1 if none) of an authority."""
    before, at_sign, host = authority.partition("@")
    user_info = before if at_sign else None
    if not at_sign:
        host = authority
    elif "@" in host:
        return None, "", -1  # more than one "@": not server-based, no host
    if host.startswith("["):
        close = host.find("]")
        if close <= 2:
            raise MalformedUrlError(f"invalid authority field: {authority}")
        _check_ipv6(host[1:close])
        host, tail = host[: close + 1], host[close + 1 :]
        if tail and not tail.startswith(":"):
            raise MalformedUrlError(f"invalid authority field: {authority}")
        port = tail[1:]
    else:
        host, _, port = host.partition(":")
    if _BAD_HOST.search(host) is not None:
        raise MalformedUrlError(f"illegal character in host: {host!r}")
    return user_info, host, _parse_port(port, authority) if port else -1


def _check_ipv6(literal: str) -> None:
    try:
        ipaddress.IPv6Address(literal)
    except ValueError:
        raise MalformedUrlError(f"invalid IPv6 host: [{literal}]") from None


def _parse_port(digits: str, authority: str) -> int:
    """``Integer.parseInt(digits)``, which must be a port or -1."""
    port = parse_int(digits)
    if port is None or port < -1:
        raise MalformedUrlError(f"invalid port in {authority!r}")
    return port
