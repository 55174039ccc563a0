"""Nutch's ``RegexURLNormalizer``: the rules of a ``regex-normalize.xml``.

The patterns are Java regexes (:mod:`crawllib.urls.javaregex`); the chain
that runs this normalizer after the basic one is
:class:`~crawllib.urls.normalize.UrlNormalizers`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from crawllib.errors import ConfigError
from crawllib.urls.javaregex import compile_java_regex, java_replacement


class RegexNormalizer:
    r"""Nutch's ``RegexURLNormalizer``: rules from a ``regex-normalize.xml`` text.

    Each ``<regex>`` holds a Java ``<pattern>`` and a ``<substitution>``
    (``$1``..``$9`` group references, ``\x`` a literal ``x``; empty when the
    element is empty); the rules replace all matches in the whole URL, in
    file order. A blank text means no rules.

    Nutch logs and skips a rule whose pattern does not compile, and skips
    without a word a ``<regex>`` that lacks a pattern or a substitution;
    beamcrawl stops instead, as for any bad configuration.

    Args:
        xml_text: the rules.
        origin: what names the rules in an error (their file name).

    Raises:
        ConfigError: the text is not valid XML, its root is not
            ``<regex-normalize>``, a rule lacks its pattern or substitution,
            or a pattern or substitution is invalid:
            ``<origin>, rule <n>: ...``.
    """

    def __init__(self, xml_text: str, origin: str = "regex-normalize rules") -> None:
        self._rules = tuple(_read_rules(xml_text, origin))

    def __len__(self) -> int:
        return len(self._rules)

    def normalize(self, url: str) -> str:
        """Apply every rule in order and return the result."""
        for pattern, template in self._rules:
            # search first: re.sub does costly template set-up even without a match
            if pattern.search(url) is not None:
                url = pattern.sub(template, url)
        return url


def _read_rules(xml_text: str, origin: str) -> list[tuple[re.Pattern[str], str]]:
    if not xml_text.strip():
        return []
    try:
        root = ET.fromstring(xml_text)
    except ET.ParseError as exc:
        raise ConfigError(f"{origin} is not valid XML: {exc}") from exc
    if root.tag != "regex-normalize":
        raise ConfigError(
            f"{origin}: root element is <{root.tag}>, not <regex-normalize>"
        )
    rules: list[tuple[re.Pattern[str], str]] = []
    for number, regex in enumerate(root, start=1):
        where = f"{origin}, rule {number}"
        pattern, substitution = regex.find("pattern"), regex.find("substitution")
        if pattern is None or not pattern.text:
            raise ConfigError(f"{where}: <{regex.tag}> has no <pattern> or it is empty")
        if substitution is None:
            raise ConfigError(f"{where}: <{regex.tag}> has no <substitution>")
        compiled = compile_java_regex(
            pattern.text, where=f"{where}: invalid regex-normalize pattern"
        )
        template = java_replacement(
            substitution.text or "",
            compiled,
            where=f"{where}: invalid regex-normalize substitution",
        )
        rules.append((compiled, template))
    return rules
