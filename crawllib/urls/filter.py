r"""The chain of URL filters (Nutch's ``URLFilters``) and the regex filter.

:class:`UrlFilters` is the chain of active filters a job applies, built
from a :class:`~crawllib.config.UrlConfig`: ``urlfilter-regex``
(:class:`RegexUrlFilter`, here), ``urlfilter-domain`` and
``urlfilter-domaindenylist`` (:mod:`crawllib.urls.domainfilter`),
``urlfilter-prefix`` (:mod:`crawllib.urls.prefixfilter`), ``urlfilter-suffix``
(:mod:`crawllib.urls.suffixfilter`) and ``urlfilter-validator``
(:mod:`crawllib.urls.validator`).

:class:`RegexUrlFilter` reads rules in the format of Nutch's
``regex-urlfilter.txt`` (``RegexURLFilterBase``). Rule regexes are Java
regexes, compiled by :func:`~crawllib.urls.javaregex.compile_java_regex`; one
that does not compile (or has no exact Python translation) is a
:class:`~crawllib.errors.ConfigError` naming its line.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from crawllib.config import UrlConfig
from crawllib.errors import ConfigError
from crawllib.urls.domain import domain_of_host
from crawllib.urls.domainfilter import DomainDenylistUrlFilter, DomainUrlFilter
from crawllib.urls.javaregex import compile_java_regex
from crawllib.urls.javaurl import java_host
from crawllib.urls.prefixfilter import PrefixUrlFilter
from crawllib.urls.suffixfilter import SuffixUrlFilter
from crawllib.urls.validator import UrlValidator

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # java.io.BufferedReader.readLine
_Search = Callable[[str], "re.Match[str] | None"]


@dataclass(frozen=True, slots=True)
class RegexRule:
    """One ``+regex``/``-regex`` line of a rules file.

    Attributes:
        accept: True for ``+`` (accept the URL), False for ``-`` (reject it).
        regex: the Java regex as written in the file.
        scope: the host or domain of the enclosing ``>`` block, lowercased;
            None outside any block.
        line: the line number in the rules text, from 1.
    """

    accept: bool
    regex: str
    scope: str | None
    line: int


class RegexUrlFilter:
    """Accept or reject URLs by regex rules, like Nutch's RegexURLFilter.

    The rules text holds one rule per line: ``+regex`` accepts, ``-regex``
    rejects. The regex is the rest of the line, verbatim (trailing spaces
    included, as in Nutch). Empty lines, whitespace-only lines and lines
    starting with ``#`` or a space are skipped; any other first character is
    a :class:`~crawllib.errors.ConfigError` naming the line.

    Rules are tried in file order. The first rule whose regex is found
    anywhere in the URL (Java's ``Matcher.find()``) decides; a URL that no
    rule matches is rejected.

    Host and domain blocks (Nutch 1.x): a line ``> name`` starts a block and
    a line ``<`` ends it. A rule inside a block takes part only for URLs whose
    host (lowercased, port and user-info removed) *equals* ``name``, or whose
    registrable domain (see :func:`~crawllib.urls.domain.domain_of_host`)
    equals it. This is exactly ``RegexURLFilterBase``'s test: ``> example.com``
    covers ``example.com`` and every host under it, because they all have the
    domain ``example.com``; but ``> sub.example.com`` covers that one host
    only, not ``a.sub.example.com`` (whose domain is ``example.com``). Rules
    outside blocks apply to every URL, and all rules keep their file order.
    Unlike Nutch, the block name is lowercased, so ``> Example.COM`` works
    (in Nutch such a block can never match).

    Args:
        rules_text: the rules.
        origin: what names the rules in an error (their file name).

    Attributes:
        rules: the rules in file order.

    Raises:
        ConfigError: a line has no valid prefix, or its regex does not compile:
            ``<origin>, line <n>: ...``.
    """

    def __init__(self, rules_text: str, origin: str = "URL filter rules") -> None:
        self.rules = tuple(_read_rules(rules_text, origin))
        compiled = [
            (_compile(rule, origin), rule.accept, rule.scope) for rule in self.rules
        ]
        self._scoped = any(scope is not None for _, _, scope in compiled)
        self._plain = tuple((search, accept) for search, accept, _ in compiled)
        self._all = tuple(compiled)

    def accepts(self, url: str) -> bool:
        """Whether the first matching rule accepts ``url`` (no match: False)."""
        if self._scoped:
            return self._accepts_scoped(url)
        for search, accept in self._plain:
            if search(url) is not None:
                return accept
        return False

    def _accepts_scoped(self, url: str) -> bool:
        host = java_host(url)
        # URLUtil.getHost and getDomainName give null for a malformed URL.
        lowered = None if host is None else host.lower()
        domain = None if host is None else domain_of_host(host)
        for search, accept, scope in self._all:
            if scope is not None and scope != lowered and scope != domain:
                continue
            if search(url) is not None:
                return accept
        return False


class UrlFilters:
    """The active URL filters in order, like Nutch's ``URLFilters``.

    Runs ``config.filters`` in order (``urlfilter.order``, else the order of
    :data:`~crawllib.config.urls.URL_FILTERS`); the first filter that
    rejects a URL drops it. With no active filter every URL passes. The
    rules are read and compiled here, once.

    Raises:
        ConfigError: a rules file holds a bad rule, or a filter name is unknown.
    """

    def __init__(self, config: UrlConfig) -> None:
        checks = tuple(_build(name, config) for name in config.filters)
        self._accepts: Callable[[str], bool] | None = None
        self._checks: tuple[Callable[[str], bool], ...] = ()
        if len(checks) == 1:
            self._accepts = checks[0]
        elif checks:
            self._checks = checks

    def filter(self, url: str) -> str | None:
        """The URL if every active filter accepts it, else None."""
        accepts = self._accepts
        if accepts is not None:
            return url if accepts(url) else None
        for check in self._checks:
            if not check(url):
                return None
        return url


def _build(name: str, config: UrlConfig) -> Callable[[str], bool]:
    """The ``accepts`` method of filter ``name``, built from its rules."""
    origin = config.origin_of(name)
    if name == "regex":
        return RegexUrlFilter(config.regex_filter_rules, origin).accepts
    if name == "domain":
        return DomainUrlFilter(config.domain_filter_rules).accepts
    if name == "domaindenylist":
        return DomainDenylistUrlFilter(config.domain_denylist_rules).accepts
    if name == "prefix":
        return PrefixUrlFilter(config.prefix_filter_rules).accepts
    if name == "suffix":
        return SuffixUrlFilter(config.suffix_filter_rules).accepts
    if name == "validator":
        return UrlValidator().accepts
    raise ConfigError(
        f"unknown URL filter {name!r}: expected validator, prefix, suffix, "
        "domain, domaindenylist or regex"
    )


def _read_rules(text: str, origin: str) -> list[RegexRule]:
    rules: list[RegexRule] = []
    scope: str | None = None
    for number, line in enumerate(_LINE_BREAK.split(text), start=1):
        if not line.strip() or line[0] in " #":
            continue
        first = line[0]
        if first in "+-":
            rules.append(RegexRule(first == "+", line[1:], scope, number))
        elif first == ">":
            scope = line[1:].strip().lower()
        elif first == "<":
            scope = None
        else:
            raise ConfigError(
                f"{origin}, line {number}: {line!r} does not start with "
                "'+', '-', '>', '<' or '#'"
            )
    return rules


def _compile(rule: RegexRule, origin: str) -> _Search:
    """The ``search`` method of the rule's regex, translated from Java."""
    where = f"{origin}, line {rule.line}"
    pattern = compile_java_regex(rule.regex, where=where)
    # search(".*X") finds a match exactly when search("X") does (the ".*" may
    # match the empty string where X starts), but re tries every start and
    # every length of ".*": quadratic time on the default loop-breaking rule.
    regex = rule.regex
    if regex.startswith(".*") and regex[2:3] not in ("+", "{"):
        rest = regex[3:] if regex[2:3] == "?" else regex[2:]
        with contextlib.suppress(ConfigError):
            pattern = compile_java_regex(rest, where=where)
    return pattern.search
