"""URL normalizers: Nutch's BasicURLNormalizer, RegexURLNormalizer and their chain.

:func:`basic_normalize` follows Nutch 1.x ``BasicURLNormalizer`` on top of a
small re-implementation of how ``java.net.URL`` splits a URL (Python's
``urllib.parse`` splits differently: IPv6 hosts, empty ports, ``?`` right
after the host, backslashes). :class:`RegexNormalizer` applies the rules of a
``regex-normalize.xml`` written for Java regexes. :class:`UrlNormalizers` runs
them like Nutch's ``URLNormalizers``: in ``urlnormalizer.order``, repeated up
to ``urlnormalizer.loop.count`` times while the URL keeps changing.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import re
import string
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from encodings import idna as _idna2003

from crawllib.config import UrlConfig
from crawllib.errors import ConfigError

try:
    import idna as _idna2008
except ImportError:  # pragma: no cover - idna comes with requests
    _idna2008 = None  # type: ignore[assignment]

_LOG = logging.getLogger(__name__)


class MalformedUrlError(ValueError):
    """A URL that ``java.net.URL`` rejects (Nutch's MalformedURLException)."""


# --- java.net.URL parsing ---------------------------------------------------

_JAVA_WHITESPACE = "".join(chr(code) for code in range(0x21))  # String.trim()
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_KNOWN_SCHEMES = frozenset({"http", "https", "ftp", "file", "jar", "mailto"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ftp": 21}
_PORT = re.compile(r"[+-]?[0-9]+")
_INT_MAX = 2**31 - 1


@dataclass(frozen=True, slots=True)
class _JavaUrl:
    """The parts ``java.net.URL`` splits a URL into.

    ``authority`` is None without ``//``; ``port`` is -1 when absent; ``file``
    is the path plus ``?query``; ``ref`` is the fragment or None.
    """

    scheme: str
    authority: str | None
    user_info: str | None
    host: str
    port: int
    file: str
    ref: str | None


def _parse(spec: str) -> _JavaUrl:
    """Split ``spec`` as ``new java.net.URL(spec)`` does, or raise."""
    spec = spec.strip(_JAVA_WHITESPACE)
    start = 4 if spec[:4].lower() == "url:" else 0
    colon = spec.find(":", start)
    slash = spec.find("/", start)
    if spec.startswith("#", start) or colon < 0 or 0 <= slash < colon:
        raise MalformedUrlError(f"no protocol: {spec}")
    if not _SCHEME.fullmatch(spec, start, colon):
        raise MalformedUrlError(f"no protocol: {spec}")
    scheme = spec[start:colon].lower()
    if scheme not in _KNOWN_SCHEMES:
        raise MalformedUrlError(f"unknown protocol: {scheme}")
    rest, hash_sign, ref = spec[colon + 1 :].partition("#")
    fragment = ref if hash_sign else None
    if scheme == "mailto":
        if not rest.strip():
            raise MalformedUrlError("no email address")
        return _JavaUrl(scheme, None, None, "", -1, rest, fragment)
    if scheme == "jar":
        bang = rest.rfind("!/")
        if bang < 0:
            raise MalformedUrlError(f"no !/ in jar URL: {spec}")
        _parse(rest[:bang])  # the inner URL must be valid too
        return _JavaUrl(scheme, None, None, "", -1, rest, fragment)
    return _parse_hierarchical(scheme, rest, fragment)


def _parse_hierarchical(scheme: str, rest: str, ref: str | None) -> _JavaUrl:
    path, question, query = rest.partition("?")
    authority = user_info = None
    host, port = "", -1
    if path.startswith("//") and not path.startswith("////"):  # "////" is UNC
        end = path.find("/", 2)
        end = len(path) if end < 0 else end
        authority = path[2:end]
        user_info, host, port = _split_authority(authority)
        path = path[end:]
    return _JavaUrl(
        scheme, authority, user_info, host, port, path + question + query, ref
    )


def _split_authority(authority: str) -> tuple[str | None, str, int]:
    user_info, at_sign, host = authority.rpartition("@")
    if "@" in user_info:
        # java.net.URL keeps it with an empty host; beamcrawl drops it instead
        raise MalformedUrlError(f"more than one '@' in authority: {authority}")
    port = -1
    if host.startswith("["):
        close = host.find("]")
        if close <= 2:
            raise MalformedUrlError(f"invalid authority field: {authority}")
        try:
            ipaddress.IPv6Address(host[1:close])
        except ValueError:
            raise MalformedUrlError(f"invalid IPv6 host: {host}") from None
        host, tail = host[: close + 1], host[close + 1 :]
        if tail and not tail.startswith(":"):
            raise MalformedUrlError(f"invalid authority field: {authority}")
        port = _parse_port(tail[1:], authority) if len(tail) > 1 else -1
    elif ":" in host:
        host, _, digits = host.partition(":")
        port = _parse_port(digits, authority) if digits else -1
    return (user_info if at_sign else None), host, port


def _parse_port(digits: str, authority: str) -> int:
    if (
        len(digits) > 11
        or not _PORT.fullmatch(digits)
        or not -1 <= int(digits) <= _INT_MAX
    ):
        raise MalformedUrlError(f"invalid port in {authority!r}")
    return int(digits)


# --- BasicURLNormalizer -----------------------------------------------------

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
    """
    fast = _FAST_PATH.fullmatch(url)
    if (
        fast is not None
        and _DOT_SEGMENTS.search(fast["path"]) is None
        and (host_idn != "toUnicode" or "xn--" not in fast["host"])
    ):
        return url
    return _normalize_slowly(url, host_idn, idna2008, trim_trailing_dot)


def _normalize_slowly(url: str, host_idn: str, idna2008: bool, trim_dot: bool) -> str:
    """Every step of :func:`basic_normalize`, without its fast path."""
    if url == "":
        return url
    text = url.strip(_JAVA_WHITESPACE)
    parsed = _parse(text)
    scheme, host, port, file = parsed.scheme, parsed.host, parsed.port, parsed.file
    user_info = parsed.user_info
    changed = not text.startswith(scheme)
    dot_segments = scheme == "file"
    if scheme in _DEFAULT_PORTS:
        if parsed.authority is None:
            changed = True
        else:
            new_host = _normalize_host(host, host_idn, idna2008, trim_dot)
            changed = changed or new_host != host or parsed.authority != new_host
            host = new_host
        if port == _DEFAULT_PORTS[scheme]:
            port, changed = -1, True
        if scheme != "ftp":
            user_info = None  # NUTCH-3087: kept for ftp only
        dot_segments = file.startswith("/")
        if not dot_segments:
            file, changed = "/" + file, True
        changed = changed or parsed.ref is not None
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
    return host


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
    """Nutch's percent-encoding normalization of the path and query."""
    if "%" in file:
        file = _ESCAPE_SEQUENCE.sub(lambda match: _UNESCAPE[match[0]], file)
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

    Nutch does this with ``java.net.URI.normalize()``, which leaves relative
    (opaque) paths alone and gives up on characters a URI cannot hold; either
    way the result then starts with a slash.
    """
    path, question, query = file.partition("?")
    if not path.startswith("/"):
        return "/" + file
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
    """``new URL(scheme, host, port, file).toString()``, with ftp user-info."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    authority = host if port == -1 else f"{host}:{port}"
    if user_info is not None:
        authority = f"{user_info}@{authority}"
    return f"{scheme}://{authority}{file}" if authority else f"{scheme}:{file}"


# --- RegexURLNormalizer -----------------------------------------------------

_INLINE_FLAGS = re.compile(r"\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])")
_PYTHON_FLAGS = "imsx"  # Java's d, u and U have no Python counterpart
_JAVA_ESCAPES = {"\\z": "\\Z", "\\Z": "(?=\\n?\\Z)", "\\e": "\\x1b"}


class RegexNormalizer:
    r"""Nutch's ``RegexURLNormalizer``: rules from a ``regex-normalize.xml`` text.

    Each ``<regex>`` holds a Java ``<pattern>`` and a ``<substitution>``
    (``$1``..``$9`` group references, ``\x`` a literal ``x``); the rules
    replace all matches in the whole URL, in file order. A blank text means no
    rules.

    Raises:
        ConfigError: the text is not valid XML, its root is not
            ``<regex-normalize>``, or a pattern or substitution is invalid.
    """

    def __init__(self, xml_text: str) -> None:
        self._rules = tuple(_read_rules(xml_text))

    def __len__(self) -> int:
        return len(self._rules)

    def normalize(self, url: str) -> str:
        """Apply every rule in order and return the result."""
        for pattern, template in self._rules:
            # search first: re.sub does costly template set-up even without a match
            if pattern.search(url) is not None:
                url = pattern.sub(template, url)
        return url


def _read_rules(xml_text: str) -> list[tuple[re.Pattern[str], str]]:
    if not xml_text.strip():
        return []
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        raise ConfigError(f"regex-normalize rules are not valid XML: {exc}") from exc
    if root.tag != "regex-normalize":
        raise ConfigError(f"regex-normalize rules: root element is <{root.tag}>")
    rules: list[tuple[re.Pattern[str], str]] = []
    for number, regex in enumerate(root, start=1):
        pattern, substitution = regex.find("pattern"), regex.find("substitution")
        if pattern is None or not pattern.text or substitution is None:
            _LOG.warning(
                "regex-normalize rule %d lacks a pattern or substitution", number
            )
            continue
        compiled = _compile_java_regex(pattern.text)
        rules.append((compiled, _java_replacement(substitution.text or "", compiled)))
    return rules


def _compile_java_regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(_translate_java_regex(pattern), re.ASCII)
    except re.error as exc:
        raise ConfigError(
            f"invalid regex-normalize pattern {pattern!r}: {exc}"
        ) from exc


def _translate_java_regex(pattern: str) -> str:
    r"""Rewrite the Java-only parts of a regex for Python's ``re``.

    Inline flags in mid-pattern (``a(?i)b``, an error in Python) become scoped
    groups up to the end of their group or alternative; ``(?<name>``,
    ``\k<name>``, ``\Q..\E``, ``\z``, ``\Z`` and ``\e`` are translated.
    Java's case-insensitivity and ``\w``/``\b`` are ASCII, as with
    ``re.ASCII``.
    """
    out: list[str] = []
    scopes: list[list[str]] = [[]]  # flag groups opened per nesting level
    index, in_class = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            token, index = _translate_escape(pattern, index, in_class)
        elif in_class:
            token, index, in_class = char, index + 1, char != "]"
        elif char == "[":
            # "]" right after "[" or "[^" is a literal in both dialects
            opening = re.match(r"\[\^?\]?", pattern[index:])
            token = opening[0] if opening else char
            index, in_class = index + len(token), True
        elif char == "(":
            token, index = _open_group(pattern, index, scopes)
        elif char == ")":
            token, index = ")" * len(scopes[-1]) + ")", index + 1
            if len(scopes) > 1:
                scopes.pop()
        elif char == "|":
            flags = scopes[-1]
            token = ")" * len(flags) + "|" + "".join(f"(?{f}:" for f in flags)
            index += 1
        else:
            token, index = char, index + 1
        out.append(token)
    out.append(")" * len(scopes[0]))
    return "".join(out)


def _translate_escape(pattern: str, index: int, in_class: bool) -> tuple[str, int]:
    if pattern.startswith("\\Q", index):
        end = pattern.find("\\E", index + 2)
        end = len(pattern) if end < 0 else end
        return re.escape(pattern[index + 2 : end]), end + 2
    if pattern.startswith("\\k<", index) and ">" in pattern[index:]:
        close = pattern.index(">", index)
        return f"(?P={pattern[index + 3 : close]})", close + 1
    pair = pattern[index : index + 2]
    return (pair if in_class else _JAVA_ESCAPES.get(pair, pair)), index + 2


def _open_group(pattern: str, index: int, scopes: list[list[str]]) -> tuple[str, int]:
    """Translate the group opening at ``pattern[index]``; also return what follows."""
    flags = _INLINE_FLAGS.match(pattern, index)
    if flags is None:
        scopes.append([])
        if (
            pattern.startswith("(?<", index)
            and pattern[index + 3 : index + 4].isalpha()
        ):
            return "(?P<", index + 3  # named group
        return "(", index + 1
    on = "".join(f for f in flags[1] if f in _PYTHON_FLAGS)
    off = "".join(f for f in (flags[2] or "") if f in _PYTHON_FLAGS)
    spec = on + ("-" + off if off else "")
    if flags[3] == ")":  # (?i) alone: applies to the rest of the enclosing group
        if spec:
            scopes[-1].append(spec)
        return (f"(?{spec}:" if spec else ""), flags.end()
    scopes.append([])
    return (f"(?{spec}:" if spec else "(?:"), flags.end()


def _java_replacement(substitution: str, compiled: re.Pattern[str]) -> str:
    """Translate a Java ``replaceAll`` replacement into a Python template."""
    out: list[str] = []
    index = 0
    while index < len(substitution):
        char = substitution[index]
        if char == "\\":
            if index + 1 == len(substitution):
                raise _bad_replacement(
                    substitution, "character to be escaped is missing"
                )
            literal = substitution[index + 1]
            out.append("\\\\" if literal == "\\" else literal)
            index += 2
        elif char == "$":
            reference, index = _group_reference(substitution, index + 1, compiled)
            out.append(f"\\g<{reference}>")
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _group_reference(
    text: str, index: int, compiled: re.Pattern[str]
) -> tuple[str, int]:
    if text.startswith("{", index):
        close = text.find("}", index)
        name = text[index + 1 : close] if close > 0 else ""
        if name not in compiled.groupindex:
            raise _bad_replacement(text, f"no group named {name!r}")
        return name, close + 1
    if index == len(text) or not "0" <= text[index] <= "9":
        raise _bad_replacement(text, "illegal group reference")
    number, index = int(text[index]), index + 1
    while index < len(text) and "0" <= text[index] <= "9":
        longer = number * 10 + int(text[index])
        if longer > compiled.groups:
            break
        number, index = longer, index + 1
    if number > compiled.groups:
        raise _bad_replacement(text, f"no group {number}")
    return str(number), index


def _bad_replacement(substitution: str, problem: str) -> ConfigError:
    return ConfigError(
        f"invalid regex-normalize substitution {substitution!r}: {problem}"
    )


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
                steps.append(
                    RegexNormalizer(config.regex_normalize_xml_for(scope)).normalize
                )
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
