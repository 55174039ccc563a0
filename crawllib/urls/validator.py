"""URL syntax check: Nutch's ``urlfilter-validator`` (``UrlValidator``).

Nutch's plugin is an old copy of Apache commons-validator's ``UrlValidator``
(RFC 2396); :class:`UrlValidator` keeps its rules, which are stricter than
what ``java.net.URL`` accepts:

- the URL is printable ASCII only (``!`` to ``~``: no space, no control,
  nothing beyond U+007E);
- the scheme is letters only (``svn+ssh:`` is rejected);
- there is an authority (``//`` after the scheme), which is a dotted IPv4
  address with parts up to 255 or a host name, then an optional port of one
  to five digits, and nothing else (no user-info, no IPv6 literal). A host
  name has at least two dot-separated labels of letters, digits and ``-``;
  the last (the TLD) has two or more characters and starts with a letter;
- the path is empty or starts with ``/`` and holds only letters, digits and
  ``-_:@&?=+,.!/~*'%$;()``; it may not hold more ``..`` than it has
  segments to climb (``/a/../..`` is rejected);
- the query and fragment may hold anything (printable ASCII).

So ``file:`` URLs (no host) and hosts like ``localhost`` are rejected. The
top-level domain has no upper length bound, as in Nutch 1.x since it
dropped the 4-character limit.
"""

from __future__ import annotations

import re

_LEGAL_ASCII = re.compile(r"[\x21-\x7e]+")
# the BNF for URI of RFC 2396; always matches a printable ASCII string
_URL = re.compile(r"(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?[^#]*)?(?:#.*)?")
_SCHEME = re.compile(r"[a-zA-Z]+")
_AUTHORITY = re.compile(r"([a-zA-Z\d\-.]*)(:\d*)?(.*)", re.ASCII | re.DOTALL)
_IPV4 = re.compile(r"(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})", re.ASCII)
_PORT = re.compile(r":\d{1,5}", re.ASCII)
_PATH = re.compile(r"(?:/[-\w:@&?=+,.!/~*'%$;()]*)?", re.ASCII)


class UrlValidator:
    """Drop URLs that are not well-formed, like Nutch's ``UrlValidator``.

    See the module docstring for the rules. The filter has no rules file.
    """

    def accepts(self, url: str) -> bool:
        """Whether ``url`` passes every check."""
        if _LEGAL_ASCII.fullmatch(url) is None:
            return False
        parts = _URL.fullmatch(url)
        if parts is None:  # pragma: no cover - every ASCII string matches
            return False
        scheme, authority, path = parts.groups()
        return (
            scheme is not None
            and _SCHEME.fullmatch(scheme) is not None
            and authority is not None
            and _valid_authority(authority)
            and _valid_path(path)
        )


def _valid_authority(authority: str) -> bool:
    match = _AUTHORITY.fullmatch(authority)
    if match is None:  # pragma: no cover - the pattern matches any string
        return False
    host, port, extra = match.groups()
    if not (_valid_ipv4(host) or _valid_host_name(host)):
        return False
    if port is not None and _PORT.fullmatch(port) is None:
        return False
    return not extra


def _valid_ipv4(host: str) -> bool:
    match = _IPV4.fullmatch(host)
    return match is not None and all(int(part) <= 255 for part in match.groups())


def _valid_host_name(host: str) -> bool:
    if _IPV4.fullmatch(host) is not None:
        return False  # an address with a part above 255 is no host name
    labels = host.split(".")
    if len(labels) < 2 or "" in labels:
        return False
    top = labels[-1]
    return len(top) >= 2 and top[0].isascii() and top[0].isalpha()


def _valid_path(path: str) -> bool:
    if _PATH.fullmatch(path) is None:
        return False
    dots = _count(path, "..")
    if dots == 0:
        return True
    return _count(path, "/") - _count(path, "//") - 1 > dots


def _count(text: str, token: str) -> int:
    """Occurrences of ``token`` in ``text``, overlapping ones included."""
    count = 0
    index = text.find(token)
    while index != -1:
        count += 1
        index = text.find(token, index + 1)
    return count
