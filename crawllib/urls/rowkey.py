"""Reversed-URL row keys, like Nutch 2.x ``TableUtil``.

A key is the host with its labels reversed, the scheme, the explicit port
and the path with query: ``http://bar.baz.com:8983/to/index.html?a=b`` is
``com.baz.bar:http:8983/to/index.html?a=b``. Keys sort by reversed host, so
one host's pages, and one domain's hosts, sit next to each other.
"""

from __future__ import annotations

from crawllib.urls.javaurl import split_url


def reverse_url(url: str) -> str:
    """The row key of ``url``, like ``TableUtil.reverseUrl``.

    The host keeps its case; empty labels (a trailing dot) are dropped and an
    IPv4 address is reversed like a name (``127.0.0.1`` gives ``1.0.0.127``).
    The port is kept when explicit, even the default one. A file part that
    does not start with ``/`` (a bare ``?query``) gets one. User-info and the
    fragment are left out.

    Raises:
        ValueError: the URL does not parse (``java.net.URL`` would throw).
    """
    parts = split_url(url)
    if parts is None:
        raise ValueError(f"not a URL: {url!r}")
    key = [_reverse_host(parts.host), ":", parts.scheme]
    if parts.port != -1:
        key += [":", str(parts.port)]
    if parts.file and not parts.file.startswith("/"):
        key.append("/")
    key.append(parts.file)
    return "".join(key)


def unreverse_url(key: str) -> str:
    """The URL of a row key, like ``TableUtil.unreverseUrl``.

    Not always the exact inverse of :func:`reverse_url`: a slash it added is
    kept (``com.foo:http/?a=b`` gives ``http://foo.com/?a=b``) and a URL
    without authority comes back with one (``:file/x`` gives ``file:///x``).
    Unlike Nutch, an IPv6 host in brackets survives the round trip.

    Raises:
        ValueError: the key is not ``host:scheme[:port][/file]``.
    """
    slash = key.find("/")
    head, rest = (key, "") if slash < 0 else (key[:slash], key[slash:])
    host, fields = _split_host(head)
    if len(fields) not in (1, 2) or not fields[0]:
        raise ValueError(f"not a reversed-URL row key: {key!r}")
    port = ":" + fields[1] if len(fields) == 2 else ""
    return f"{fields[0]}://{_reverse_host(host)}{port}{rest}"


def reversed_host(key: str) -> str:
    """The reversed host at the start of a row key (``TableUtil.getReversedHost``).

    Raises:
        ValueError: the key has no ``:`` after the host.
    """
    slash = key.find("/")
    host, _ = _split_host(key if slash < 0 else key[:slash])
    return host


def _reverse_host(host: str) -> str:
    """Labels in reverse order, empty ones dropped; a bracketed IPv6 as is."""
    if host.startswith("["):
        return host
    return ".".join(reversed([label for label in host.split(".") if label]))


def _split_host(head: str) -> tuple[str, list[str]]:
    """``(host, [scheme, port?])`` from the part of a key before the path."""
    start = head.find("]") + 1 if head.startswith("[") else 0
    colon = head.find(":", start)
    if colon < 0:
        raise ValueError(f"not a reversed-URL row key: {head!r}")
    return head[:colon], head[colon + 1 :].split(":")
