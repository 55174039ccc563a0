"""URL normalizers: Nutch's BasicURLNormalizer, RegexURLNormalizer and their chain.

:func:`basic_normalize` follows Nutch 1.x ``BasicURLNormalizer`` on top of
:func:`~crawllib.urls.javaurl.parse_url`, which splits URLs the way
``java.net.URL`` does. :class:`RegexNormalizer` applies the rules of a
``regex-normalize.xml`` written for Java regexes
(:mod:`crawllib.urls.regexnormalize`). :class:`UrlNormalizers` runs them like
Nutch's ``URLNormalizers``: in ``urlnormalizer.order``, repeated up to
``urlnormalizer.loop.count`` times while the URL keeps changing.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable
from encodings import idna as _idna2003

from crawllib.config import UrlConfig
from crawllib.errors import ConfigError
from crawllib.java import java_trim
from crawllib.urls.iphost import NotAnAddressError, canonical_host
from crawllib.urls.javaurl import MalformedUrlError as MalformedUrlError
from crawllib.urls.javaurl import UrlParts, parse_url
from crawllib.urls.regexnormalize import RegexNormalizer as RegexNormalizer

try:
    import idna as _idna2008
except ImportError:  # pragma: no cover - idna comes with requests
    _idna2008 = None  # type: ignore[assignment]

# --- BasicURLNormalizer -----------------------------------------------------

_DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21}
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
_HEX_PAIRS = [a + b for a in string.hexdigits for b in string.hexdigits]
_UNESCAPE = {
    "%" + pair: (
        chr(int(pair, 16)) if chr(int(pair, 16)) in _UNRESERVED else "%" + pair.upper()
    )
    for pair in _HEX_PAIRS
}
_ESCAPE_SEQUENCE = re.compile(r"%[0-9A-Fa-f]{2}")
# a lone "%" or any character outside the ASCII ones Nutch leaves as they are
_NEEDS_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})|[^!#$%&-;=?-Z\\_a-z~]")
_BAD_HOST_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_HOST_ESCAPES = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_DOT_SEGMENTS = re.compile(r"/[./]|\./")
_NOT_IN_URI_HOST = re.compile(r"[\x00-\x20\"<>\\^`{|}\x7f]")
# already normal: lowercase http(s) URL, plain host, no port, no "%" or "#"
_FAST_PATH = re.compile(
    r"https?://(?P<host>[a-z0-9-]+(?:\.[a-z0-9-]+)*)"
    r"(?P<path>/[!$&-;=@-Z_a-z~]*)(?:\?[!$&-;=?-Z_a-z~]*)?"
)


def basic_normalize(
    url: str,
    *,
    host_idn: str = "",
    idna2008: bool = False,
    trim_trailing_dot: bool = False,
) -> str:
    """Normalize ``url`` like Nutch 1.x ``BasicURLNormalizer``.

    Args:
        url: the URL; ``""`` is returned as is.
        host_idn: ``urlnormalizer.basic.host.idn``: "", "toAscii" or "toUnicode".
        idna2008: ``urlnormalizer.basic.host.idna2008`` (needs the ``idna``
            package, else IDNA2003 is used).
        trim_trailing_dot: ``urlnormalizer.basic.host.trim-trailing-dot``.

    Returns:
        The normalized URL, or the trimmed input when nothing changed.

    Raises:
        MalformedUrlError: ``java.net.URL`` would reject the URL.

    Unlike Nutch, normalizing twice gives what normalizing once gives (with
    the default regex rules after it too). So beamcrawl departs from Nutch
    in odd cases: an empty authority is dropped like a missing one
    (``http:///x`` gives ``http:/x``; Nutch keeps it, and its default regex
    rules then make ``x`` the host); a path that gets its leading ``/``
    added loses its dot segments too (``http:a/.`` gives ``http:/a/``,
    Nutch ``http:/a/.``); a host-less URL never starts its path with ``//``
    (which would read as an authority); escapes that decoding creates are
    decoded too (``%0%61`` gives ``%0A``, Nutch ``%0a``); ``file:``,
    ``jar:`` and ``mailto:`` URLs always lose their ref (``file:/a#b`` gives
    ``file:/a``; Nutch keeps it unless something else changes); and an
    address is written in its one canonical form, as browsers read it
    (``http://0x7f.1/`` gives ``http://127.0.0.1/``, ``[::FFFF:127.0.0.1]``
    gives ``[::ffff:7f00:1]``; a host that ends in a number but is no
    address is malformed: :mod:`crawllib.urls.iphost`), so that URL filter
    rules see every spelling of an address as the same one.
    """
    fast = _FAST_PATH.fullmatch(url)
    if (
        fast is not None
        and _DOT_SEGMENTS.search(fast["path"]) is None
        and (host_idn != "toUnicode" or "xn--" not in fast["host"])
        and not fast["host"].rpartition(".")[2][:1].isdigit()  # an address?
    ):
        return url
    return _normalize_slowly(url, host_idn, idna2008, trim_trailing_dot)


def _normalize_slowly(url: str, host_idn: str, idna2008: bool, trim_dot: bool) -> str:
    """Every step of :func:`basic_normalize`, without its fast path."""
    if url == "":
        return url
    text = java_trim(url)
    parsed = _parse(text)
    scheme, host, port, file = parsed.scheme, parsed.host, parsed.port, parsed.file
    user_info = parsed.user_info
    changed = not text.startswith(scheme)
    dot_segments = scheme == "file"
    # The ref goes. Nutch drops it from file:, jar: and mailto: URLs only when
    # something else changes (file:/a#b stays, file:/a b#c gives
    # file:/a%20b); beamcrawl always does, since the default regex rules turn
    # "#?x" into the query "?x", which the next pass would escape.
    changed = changed or "#" in text
    if scheme in _DEFAULT_PORTS:
        if not parsed.authority:
            # no authority, or an empty one (http:///x): rebuilt without "//".
            # Nutch keeps "http:///x", which the default regex rules then
            # collapse to "http://x", a URL with a host: not idempotent.
            changed = True
        else:
            new_host = _normalize_host(host, host_idn, idna2008, trim_dot)
            changed = changed or new_host != host or parsed.authority != new_host
            host = new_host
        if port == _DEFAULT_PORTS[scheme]:
            port, changed = -1, True
        if scheme != "ftp":
            user_info = None  # NUTCH-3087: kept for ftp only
        if not file.startswith("/"):
            # Nutch then leaves the path alone; beamcrawl normalizes it too,
            # else a second pass would (http:a/. -> http:/a/. -> http:/a/)
            file, changed = "/" + file, True
        dot_segments = True
    escaped = _escape(file)
    if escaped != file:
        file, changed = escaped, True
    if dot_segments:
        normalized = _normalize_path(file, host)
        if normalized != file:
            file, changed = normalized, True
    if not changed:
        return text
    return _rebuild(scheme, user_info, host, port, file)


def _parse(text: str) -> UrlParts:
    """:func:`parse_url`, but an authority with several ``@`` is malformed.

    ``java.net.URL`` keeps such a URL with an empty host (Nutch would emit
    ``http:/x``); beamcrawl drops it instead.
    """
    parsed = parse_url(text)
    if parsed.authority is not None and parsed.authority.count("@") > 1:
        raise MalformedUrlError(f"more than one '@' in authority: {text}")
    return parsed


def _normalize_host(host: str, idn: str, idna2008: bool, trim_dot: bool) -> str:
    if "%" in host:
        if _BAD_HOST_ESCAPE.search(host):
            raise MalformedUrlError(f"invalid percent-escape in host {host!r}")
        host = _HOST_ESCAPES.sub(_decode_utf8_escapes, host)
    host = host.lower()
    if idn == "toAscii" and not host.isascii():
        host = _host_to_ascii(host, idna2008)
    elif idn == "toUnicode" and "xn--" in host:
        host = ".".join(_label_to_unicode(label, idna2008) for label in host.split("."))
    if trim_dot and host.endswith("."):
        host = host[:-1]
    try:
        return canonical_host(host)
    except NotAnAddressError as exc:
        raise MalformedUrlError(f"invalid IPv4 address host: {exc}") from None


def _decode_utf8_escapes(match: re.Match[str]) -> str:
    return bytes.fromhex(match[0].replace("%", "")).decode("utf-8", "replace")


def _host_to_ascii(host: str, idna2008: bool) -> str:
    try:
        if idna2008 and _idna2008 is not None:
            return _idna2008.encode(host, uts46=True).decode("ascii")
        return host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise MalformedUrlError(f"invalid IDN host {host!r}: {exc}") from exc


def _label_to_unicode(label: str, idna2008: bool) -> str:
    if not label.startswith("xn--"):
        return label
    try:
        if idna2008 and _idna2008 is not None:
            return _idna2008.decode(label)
        return _idna2003.ToUnicode(label)
    except UnicodeError:
        return label  # like Java's IDN.toUnicode, keep what cannot be converted


def _escape(file: str) -> str:
    """Nutch's percent-encoding normalization of the path and query.

    Nutch decodes once, but decoding can join a ``%`` and the digits after it
    into a new escape (``%0%61`` gives ``%0a``, which a second pass makes
    ``%0A``); beamcrawl decodes until nothing changes.
    """
    while "%" in file:
        decoded = _ESCAPE_SEQUENCE.sub(lambda match: _UNESCAPE[match[0]], file)
        if decoded == file:
            break
        file = decoded
    if _NEEDS_ESCAPE.search(file) is None:
        return file
    return _NEEDS_ESCAPE.sub(_escape_char, file)


def _escape_char(match: re.Match[str]) -> str:
    char = match[0]
    if "\ud800" <= char <= "\udfff":
        return "?"  # Java encodes an unpaired surrogate as "?"
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))


def _normalize_path(file: str, host: str) -> str:
    """Remove dot segments and repeated slashes from the path part of ``file``.

    Nutch does this with ``java.net.URI.normalize()``, which gives up on
    characters a URI cannot hold, and leaves relative (opaque) paths alone,
    only adding a leading slash; beamcrawl then removes their dot segments too
    (``file:a/.`` gives ``file:/a/``, Nutch ``file:/a/.``), as a second pass
    would.
    """
    path, question, query = file.partition("?")
    if not path.startswith("/"):
        file, path = "/" + file, "/" + path
    if (
        _DOT_SEGMENTS.search(path) is None
        or "\\" in file
        or _NOT_IN_URI_HOST.search(host) is not None
    ):
        return file
    return _remove_dot_segments(path) + question + query


def _remove_dot_segments(path: str) -> str:
    """``java.net.URI.normalize()`` of an absolute path, then strip leading ``/..``.

    Each kept segment keeps the slash that followed it, so ``/a/b/..`` becomes
    ``/a/``; empty segments (repeated slashes) are dropped.
    """
    parts = path.split("/")
    last = len(parts) - 1
    kept: list[str] = []
    for index in range(1, len(parts)):
        segment = parts[index]
        if segment in ("", "."):
            continue
        if segment == ".." and kept and kept[-1] not in ("..", "../"):
            kept.pop()
            continue
        kept.append(segment if index == last else segment + "/")
    while kept and kept[0] in ("..", "../"):
        kept.pop(0)
    return "/" + "".join(kept)


def _rebuild(
    scheme: str, user_info: str | None, host: str, port: int, file: str
) -> str:
    """``new URL(scheme, host, port, file).toString()``, with ftp user-info.

    Without an authority, a path starting with ``//`` would read as one
    (``http:`` + ``//a/b``); Nutch emits it so, beamcrawl keeps one slash.
    """
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    authority = host if port == -1 else f"{host}:{port}"
    if user_info is not None:
        authority = f"{user_info}@{authority}"
    if authority:
        return f"{scheme}://{authority}{file}"
    if file.startswith("//"):
        file = "/" + file.lstrip("/")
    return f"{scheme}:{file}"


# --- URLNormalizers ---------------------------------------------------------


class UrlNormalizers:
    """Nutch's ``URLNormalizers`` chain for one scope, compiled once.

    Runs ``config.normalizers`` in order (``"basic"``, ``"regex"``), the whole
    chain up to ``config.loop_count`` times while the URL keeps changing. The
    regex rules are those of ``urlnormalizer.regex.file.<scope>`` if set.

    Raises:
        ConfigError: an unknown normalizer name or bad regex rules.
    """

    def __init__(self, config: UrlConfig, scope: str = "default") -> None:
        steps: list[Callable[[str], str]] = []
        for name in config.normalizers:
            if name == "basic":
                steps.append(_basic_step(config))
            elif name == "regex":
                rules = RegexNormalizer(
                    config.regex_normalize_xml_for(scope),
                    config.regex_normalize_origin_for(scope),
                )
                steps.append(rules.normalize)
            else:
                raise ConfigError(
                    f"unknown URL normalizer {name!r}: expected basic or regex"
                )
        self._steps = tuple(steps)
        self._loop_count = config.loop_count

    def normalize(self, url: str) -> str | None:
        """The normalized URL, or None when a normalizer drops it."""
        try:
            for _ in range(self._loop_count):
                before = url
                for step in self._steps:
                    url = step(url)
                if url == before:
                    break
        except MalformedUrlError:
            return None
        return url or None


def _basic_step(config: UrlConfig) -> Callable[[str], str]:
    if not (config.host_idn or config.idna2008 or config.trim_trailing_dot):
        return basic_normalize
    return functools.partial(
        basic_normalize,
        host_idn=config.host_idn,
        idna2008=config.idna2008,
        trim_trailing_dot=config.trim_trailing_dot,
    )
