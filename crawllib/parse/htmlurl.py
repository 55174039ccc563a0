"""Resolve links the way parse-html does: ``java.net.URL(base, spec)`` and URLUtil.

:func:`resolve_url` is Nutch's ``URLUtil.resolveURL(base, target)`` followed
by ``URL.toString()``; :func:`join_url` is ``new URL(context, spec)``. Both
follow OpenJDK 17's ``URL`` constructor and ``URLStreamHandler.parseURL``:

- The spec is trimmed of characters up to U+0020 and a ``url:`` prefix is
  dropped. A scheme is the text before the first ``:`` that comes before any
  ``/``, if it is a valid scheme; a spec starting with ``#`` has none.
- A spec without a scheme, or with the context's own scheme (when the
  context path starts with ``/``), is relative: it inherits the context's
  authority and path; an empty spec (or a bare ``#ref``) also keeps the
  context's query (and ref). Other schemes must be ones Java knows
  (:data:`~crawllib.urls.javaurl.KNOWN_SCHEMES`): ``javascript:``, ``data:``
  or ``tel:`` links are malformed, and skipped.
- ``//`` starts an authority (not ``////``); a relative path replaces the last
  segment of the context path, then ``/./`` and ``/../`` are removed with
  Java's own loop (quirks kept: ``/../`` above the root stays).
- Fragments are kept. URLUtil's one exception: a target that starts with
  ``?`` gets the last segment of the base path put in front, as browsers do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from crawllib.java import java_trim
from crawllib.urls.javaurl import KNOWN_SCHEMES, MalformedUrlError, parse_url

_SCHEME = re.compile(r"[^\W\d_](?:[^\W_]|[+.\-])*:")  # Java URL.isValidProtocol
# an absolute URL whose string Java keeps as it is, but for the scheme's case
_PLAIN = re.compile(
    r"(?i:(https?|ftp|file))://[A-Za-z0-9\-._~!$&'()*+,;=%]+(?::[0-9]{0,9})?(?=[/?#]|\Z)"
)


@dataclass(frozen=True, slots=True)
class JavaUrl:
    """A parsed ``java.net.URL``: the fields ``toString()`` is built from.

    Attributes:
        scheme: the protocol, lowercased.
        authority: what follows ``//``; None if there is none.
        path: the path, possibly "".
        query: what follows ``?``; None if there is no ``?``.
        ref: what follows ``#``; None if there is no ``#``.
    """

    scheme: str
    authority: str | None
    path: str
    query: str | None
    ref: str | None

    def __str__(self) -> str:
        """``URL.toExternalForm()``."""
        return "".join(
            (
                self.scheme,
                ":",
                f"//{self.authority}" if self.authority else "",
                self.path,
                "" if self.query is None else f"?{self.query}",
                "" if self.ref is None else f"#{self.ref}",
            )
        )


def parse_java_url(spec: str) -> JavaUrl | None:
    """``new URL(spec)``; None where Java throws MalformedURLException."""
    try:
        parts = parse_url(spec)
    except MalformedUrlError:
        return None
    path, question, query = parts.file.partition("?")
    return JavaUrl(
        parts.scheme, parts.authority, path, query if question else None, parts.ref
    )


def resolve_url(base: JavaUrl, target: str) -> str | None:
    """Nutch's ``URLUtil.resolveURL(base, target).toString()``; None if malformed."""
    target = java_trim(target)
    plain = _PLAIN.match(target)
    if plain is not None:
        return plain[1].lower() + target[len(plain[1]) :]
    if target.startswith("?"):  # fixPureQueryTargets
        target = base.path[base.path.rfind("/") + 1 :] + target
    url = join_url(base, target)
    return None if url is None else str(url)


def join_url(context: JavaUrl, spec: str) -> JavaUrl | None:
    """``new URL(context, spec)``; None where Java throws MalformedURLException."""
    spec = java_trim(spec)
    if spec[:4].lower() == "url:":
        spec = spec[4:]
    scheme = None
    if not spec.startswith("#"):
        match = _SCHEME.match(spec)
        if match is not None:
            scheme = match[0][:-1].lower()
    if scheme is not None:
        if scheme != context.scheme or not context.path.startswith("/"):
            return _absolute(scheme, spec)
        spec = spec[len(scheme) + 1 :]
    spec, hash_sign, ref_text = spec.partition("#")
    ref = ref_text if hash_sign else None
    if not spec:  # RFC 2396 5.2.2: an empty spec keeps query and ref
        ref = context.ref if ref is None else ref
        return JavaUrl(
            context.scheme, context.authority, context.path, context.query, ref
        )
    return _relative(context, spec, ref)


def _absolute(scheme: str, spec: str) -> JavaUrl | None:
    """A spec with another scheme: parsed without context, if Java knows it."""
    if scheme not in KNOWN_SCHEMES:
        return None
    return parse_java_url(spec)


def _relative(context: JavaUrl, spec: str, ref: str | None) -> JavaUrl | None:
    """``URLStreamHandler.parseURL`` of a non-empty spec (ref already cut off)."""
    authority = context.authority
    path = context.path
    spec, question, query_text = spec.partition("?")
    query = query_text if question else None
    query_only = bool(question) and not spec
    if spec.startswith("//") and not spec.startswith("////"):
        end = spec.find("/", 2)
        end = len(spec) if end < 0 else end
        authority = spec[2:end]
        spec = spec[end:]
        if authority:
            path = ""
            if not _valid_authority(context.scheme, authority):
                return None
    relative_path = False
    if spec:
        if spec.startswith("/"):
            path = spec
        elif path:
            relative_path = True
            slash = path.rfind("/")
            path = (
                "/" + spec
                if slash < 0 and authority is not None
                else path[: slash + 1] + spec
            )
        else:
            path = "/" + spec if authority is not None else spec
    elif query_only:
        path = path[: path.rfind("/") + 1] or "/"
    if relative_path and ("/." in path or path.startswith("./")):
        path = _remove_dots(path)
    return JavaUrl(context.scheme, authority, path, query, ref)


def _valid_authority(scheme: str, authority: str) -> bool:
    """Java's checks of a new authority (user info, IPv6 literal, port, host)."""
    try:
        parse_url(f"{scheme}://{authority}/", any_scheme=True)
    except MalformedUrlError:
        return False
    return True


def _remove_dots(path: str) -> str:
    """Java's removal of ``.`` and ``..`` segments from a merged relative path.

    The same result as OpenJDK's loops (quirks kept: ``/../`` above the root
    stays, ``/a/../../b`` gives ``/../b``), in one pass: Java restarts from
    the start of the path after each removal, which takes quadratic time on
    a link of thousands of ``a/../``.
    """
    path = _DOT_SEGMENT.sub("", path)  # each "/./" becomes "/", leftmost first
    if "/../" in path:
        path = _remove_dot_dots(path)
    while path.endswith("/.."):
        before = path.rfind("/", 0, path.find("/.."))
        if before < 0:
            break
        path = path[: before + 1]
    if path.startswith("./") and len(path) > 2:
        path = path[2:]
    if path.endswith("/."):
        path = path[:-1]
    return path


_DOT_SEGMENT = re.compile(r"/\.(?=/)")


def _remove_dot_dots(path: str) -> str:
    """Java's ``/../`` loop: each ``..`` followed by ``/`` drops the segment before it.

    Unless there is no ``/`` before that segment, or the path starts with
    ``/../../`` and this is its second ``..``. A removal only joins what
    comes after it to what came before, so Java's rescan from the start
    skips again what it skipped: the scan can go on where it was.
    """
    segments = path.split("/")
    kept = [segments[0]]
    last = len(segments) - 1
    for index in range(1, len(segments)):
        segment = segments[index]
        if segment == ".." and index < last and _drops_previous(kept):
            kept.pop()
        else:
            kept.append(segment)
    return "/".join(kept)


def _drops_previous(kept: list[str]) -> bool:
    """Whether a ``/../`` after the segments ``kept`` removes the last of them."""
    if len(kept) < 2:  # no "/" before the segment
        return False
    return not (len(kept) == 2 and kept[0] == "" and kept[1] == "..")
