"""Link policies: which of a page's outlinks a crawl follows, and as what URL.

The seed's spider tells its controller of every internal, external and
"other" link and lets it decide whether the link joins the work queue, and
whether query strings are removed. A :class:`LinkPolicy` is that controller's
link half: the parse step classifies each outlink (:class:`LinkKind`) and asks
the policy, which keeps it (possibly with another URL) or drops it. Nutch has
no such hook short of a plugin: its ``db.ignore.external.links``,
``db.ignore.internal.links`` and ``db.ignore.external.links.mode`` are the
default policy here, :class:`NutchLinkPolicy`, which asks the same
:class:`~crawllib.urls.linkrules.LinkRules` as the fetcher's redirects.

A policy is built once and pickled to every worker (and parse process), so
it must pickle: a module-level class or function. :func:`load_link_policy`
reads the ``module:name`` specs of ``parse.link.policy`` / ``--linkPolicy``;
a configuration holds only the spec, loaded where links are filtered
(:func:`crawllib.parse.outlinks.link_policy_of`).
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NamedTuple

from crawllib.errors import ConfigError
from crawllib.urls.linkkind import (
    KINDS,
    WEB_SCHEMES,
    LinkClassifier,
    LinkKind,
    link_kind,
    web_host,
)
from crawllib.urls.linkrules import LinkRules

__all__ = [
    "KINDS",
    "WEB_SCHEMES",
    "Link",
    "LinkClassifier",
    "LinkKind",
    "LinkPolicy",
    "NutchLinkPolicy",
    "as_link_policy",
    "link_kind",
    "load_link_policy",
    "web_host",
    "without_query",
]


class Link(NamedTuple):
    """One outlink as a policy sees it: target, page, class and anchor text."""

    url: str
    page_url: str
    kind: LinkKind
    anchor: str | None


class LinkPolicy:
    """Decides each outlink; subclass and override what you need.

    The methods mirror the seed's controller: :meth:`internal`,
    :meth:`external` and :meth:`other` (foundInternalLink, foundExternalLink,
    foundOtherLink) say whether a link is kept; :attr:`remove_query`
    (getRemoveQuery) drops kept links' query strings. :meth:`decide` is what
    the parse step calls; override it to see every link in one place. Kept
    links then go through the URL normalizers and filters as before, so a
    policy can narrow what the filters let through, never widen it.

    Two policies are equal when they are of one class with equal attributes
    (the parse processes are shared by jobs with equal settings).
    """

    remove_query: bool = False

    def internal(self, link: Link) -> bool:
        """Whether to keep a link to the page's own host."""
        return True

    def external(self, link: Link) -> bool:
        """Whether to keep a link to another host."""
        return True

    def other(self, link: Link) -> bool:
        """Whether to keep a link that is not http(s) (``mailto:``, ``ftp:`` ...)."""
        return True

    def rewrite(self, link: Link) -> str:
        """The URL a kept link is stored as: without its query if remove_query."""
        return without_query(link.url) if self.remove_query else link.url

    def decide(self, link: Link) -> str | None:
        """The URL to keep ``link`` as, or None to drop it."""
        kind = link.kind
        if kind is LinkKind.INTERNAL:
            keep = self.internal(link)
        elif kind is LinkKind.EXTERNAL:
            keep = self.external(link)
        else:
            keep = self.other(link)
        return self.rewrite(link) if keep else None

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and _state(self) == _state(other)

    def __hash__(self) -> int:
        return hash(type(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({_state(self) or ''})"


def _state(policy: object) -> dict[str, Any]:
    return dict(getattr(policy, "__dict__", {}))


def without_query(url: str) -> str:
    """``url`` less its query string (``?`` up to any ``#``)."""
    head, hash_sign, ref = url.partition("#")
    return head.partition("?")[0] + hash_sign + ref


@dataclass(frozen=True, repr=False)
class NutchLinkPolicy(LinkPolicy):
    """Nutch's rules, the default: ParseOutputFormat's ``db.ignore.*`` checks.

    A link is dropped when ``db.ignore.internal.links`` is set and its host
    (domain, with ``db.ignore.external.links.mode`` byDomain) is the page's,
    or ``db.ignore.external.links`` is set and it is another. Links of every
    class are judged by their host, as Nutch does (``mailto:`` has none, so
    counts as another); a page without a host has every link kept. With
    neither flag every link is kept (the URL filters still drop ``mailto:``
    and the like).
    """

    ignore_external_links: bool = False
    ignore_internal_links: bool = False
    ignore_by_domain: bool = False

    @classmethod
    def from_rules(cls, rules: LinkRules) -> NutchLinkPolicy:
        """The policy of ``rules`` (the ``db.ignore.*`` properties as read)."""
        return cls(rules.ignore_external, rules.ignore_internal, rules.by_domain)

    @functools.cached_property
    def rules(self) -> LinkRules:
        """The :class:`~crawllib.urls.linkrules.LinkRules` that decide."""
        return LinkRules(
            ignore_external=self.ignore_external_links,
            ignore_internal=self.ignore_internal_links,
            by_domain=self.ignore_by_domain,
        )

    @property
    def keeps_all(self) -> bool:
        """Whether no flag is set, so that every link is kept as it is."""
        return not (self.ignore_external_links or self.ignore_internal_links)

    def internal(self, link: Link) -> bool:
        return self.rules.keeps_link(link.url, link.page_url, link.kind)

    def external(self, link: Link) -> bool:
        return self.rules.keeps_link(link.url, link.page_url, link.kind)

    def other(self, link: Link) -> bool:
        return self.rules.keeps_link(link.url, link.page_url, link.kind)

    def __repr__(self) -> str:
        return (
            f"NutchLinkPolicy(ignore_external_links={self.ignore_external_links}, "
            f"ignore_internal_links={self.ignore_internal_links}, "
            f"ignore_by_domain={self.ignore_by_domain})"
        )


class _FunctionPolicy(LinkPolicy):
    """A function of a :class:`Link` as a policy: True keeps, a str rewrites."""

    def __init__(self, function: Callable[[Link], object]) -> None:
        self.function = function

    def decide(self, link: Link) -> str | None:
        verdict = self.function(link)
        if verdict is True:
            return link.url
        if verdict is False or verdict is None:
            return None
        if isinstance(verdict, str):
            return verdict
        name = getattr(self.function, "__qualname__", repr(self.function))
        raise TypeError(
            f"link policy {name} returned {type(verdict).__name__}: "
            "expected True, False, None or a URL"
        )

    def __repr__(self) -> str:
        return f"as_link_policy({getattr(self.function, '__qualname__', '?')})"


def as_link_policy(obj: object) -> LinkPolicy:
    """``obj`` as a policy: an instance as is, a class instantiated, a function wrapped.

    A function of a :class:`Link` returns True (keep), a str (keep as that
    URL), or False or None (drop).

    Raises:
        TypeError: ``obj`` is none of those, or the subclass cannot be
            instantiated without arguments.
    """
    if isinstance(obj, LinkPolicy):
        return obj
    if isinstance(obj, type):
        if issubclass(obj, LinkPolicy):
            return obj()
        raise TypeError(f"{obj.__qualname__} is a class but not a LinkPolicy")
    if callable(obj):
        return _FunctionPolicy(obj)
    raise TypeError(
        f"a {type(obj).__name__} is not a link policy: expected a LinkPolicy, "
        "a LinkPolicy subclass or a function of a Link"
    )


def load_link_policy(spec: str) -> LinkPolicy:
    """The policy named by ``spec``: ``package.module:name`` or ``path/file.py:name``.

    ``name`` may be dotted (``module:Class.attribute``). A file's directory
    is added to ``sys.path`` (at its end), so that the parse processes, which
    start with this process's path, find the policy's class or function.

    Raises:
        ConfigError: one line naming ``spec``: no ``:``, no such module or
            file, no such name, or an object :func:`as_link_policy` refuses.
    """
    source, colon, name = spec.strip().rpartition(":")
    if not colon or not source or not name:
        raise ConfigError(
            f"link policy {spec!r}: expected package.module:name or path/file.py:name"
        )
    module = _import(source, spec)
    found: object = module
    for part in name.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise ConfigError(f"link policy {spec!r}: {source} has no {name}") from None
    try:
        return as_link_policy(found)
    except Exception as exc:  # the user's constructor: any failure is a bad spec
        raise ConfigError(f"link policy {spec!r}: {_one_line(exc)}") from exc


_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", re.ASCII)


def _import(source: str, spec: str) -> ModuleType:
    """The module ``source`` names: a dotted module name or a ``.py`` file."""
    is_file = source.endswith(".py") or "/" in source or os.sep in source
    if is_file:
        path = os.path.abspath(source)
        if not os.path.isfile(path):
            raise ConfigError(f"link policy {spec!r}: no file {source}")
        directory, file_name = os.path.split(path)
        module_name = file_name.removesuffix(".py")
        if not module_name.isidentifier():
            raise ConfigError(
                f"link policy {spec!r}: {file_name} is not a Python module name"
            )
        if directory not in sys.path:
            sys.path.append(directory)
    elif not _MODULE_NAME.fullmatch(source):
        raise ConfigError(f"link policy {spec!r}: {source!r} is not a module name")
    else:
        module_name = source
    importlib.invalidate_caches()
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: any failure is a bad spec
        raise ConfigError(f"link policy {spec!r}: {_one_line(exc)}") from exc
    if is_file and os.path.abspath(getattr(module, "__file__", "") or "") != path:
        raise ConfigError(
            f"link policy {spec!r}: another module named {module_name} comes first "
            f"({getattr(module, '__file__', 'built in')}); rename the file"
        )
    return module


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
