"""URL settings: normalizers, filters and partitioning, by Nutch property."""

from __future__ import annotations

from dataclasses import dataclass

from crawllib.config.catalog import urls as catalog_urls
from crawllib.config.plugins import NUTCH_URL_CLASSES, check_plugin_includes
from crawllib.config.properties import Properties, bad_value, plugin_active
from crawllib.urls.linkrules import LinkRules

NORMALIZER_SCOPES = catalog_urls.NORMALIZER_SCOPES
"""Where URLs are normalized; each may have its own regex-normalize file."""

URL_FILTERS = ("validator", "prefix", "suffix", "domain", "domaindenylist", "regex")
"""beamcrawl's URL filters (``urlfilter-<name>``), in the order they run when
``urlfilter.order`` is empty: cheap checks first, the regex rules last. (Nutch
then runs them in the order its plugin registry lists them, which it leaves
unspecified; all must accept a URL, so the order changes only the cost.)"""

_NORMALIZERS = ("basic", "regex")


@dataclass(frozen=True, slots=True)
class UrlConfig:
    """How URLs are normalized and filtered (Nutch's URLNormalizers/URLFilters).

    Attributes:
        normalizers: active normalizers in ``urlnormalizer.order``:
            ``"basic"`` and/or ``"regex"``.
        loop_count: ``urlnormalizer.loop.count``.
        host_idn: ``urlnormalizer.basic.host.idn``: "", "toAscii" or "toUnicode".
        idna2008: ``urlnormalizer.basic.host.idna2008``.
        trim_trailing_dot: ``urlnormalizer.basic.host.trim-trailing-dot``.
        regex_normalize_xml: the default regex-normalize.xml text.
        regex_normalize_by_scope: (scope, xml text) for scopes with their own
            ``urlnormalizer.regex.file.<scope>``.
        filters: the active URL filters (names from :data:`URL_FILTERS`) in
            the order they run.
        regex_filter_rules: the regex-urlfilter rules text.
        domain_filter_rules: the domain-urlfilter list.
        domain_denylist_rules: the domaindenylist-urlfilter list.
        prefix_filter_rules: the prefix-urlfilter list.
        suffix_filter_rules: the suffix-urlfilter rules.
        rule_origins: (rules, where they came from) for error messages, e.g.
            ``("regex", "regex-urlfilter.txt")`` or ``("regex-normalize.inject",
            "my.xml")``; see :meth:`origin_of`.
    """

    normalizers: tuple[str, ...] = ("basic", "regex")
    loop_count: int = 1
    host_idn: str = ""
    idna2008: bool = False
    trim_trailing_dot: bool = False
    regex_normalize_xml: str = ""
    regex_normalize_by_scope: tuple[tuple[str, str], ...] = ()
    filters: tuple[str, ...] = ("regex",)
    regex_filter_rules: str = ""
    domain_filter_rules: str = ""
    domain_denylist_rules: str = ""
    prefix_filter_rules: str = ""
    suffix_filter_rules: str = ""
    rule_origins: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_properties(cls, props: Properties) -> UrlConfig:
        """Read the ``urlnormalizer.*``, ``urlfilter.*`` and plugin properties.

        Raises:
            ConfigError: ``plugin.includes`` selects a URL filter or
                normalizer beamcrawl does not have, an order names an
                unknown class, a number is out of range or a rules file is
                missing.
        """
        check_plugin_includes(
            props.get_str("plugin.includes"),
            lambda plugin: plugin_active(props, plugin),
        )
        normalizers = _active_normalizers(props)
        loop_count = props.get_int("urlnormalizer.loop.count")
        if loop_count < 1:
            raise bad_value("urlnormalizer.loop.count", str(loop_count), "at least 1")
        origins: list[tuple[str, str]] = []
        regex_xml = ""
        by_scope: list[tuple[str, str]] = []
        if "regex" in normalizers:
            regex_xml = _read_file(
                props, "urlnormalizer.regex.file", "regex-normalize", origins
            )
            for scope in NORMALIZER_SCOPES:
                key = f"urlnormalizer.regex.file.{scope}"
                if props.get_str(key):
                    text = _read_file(props, key, f"regex-normalize.{scope}", origins)
                    by_scope.append((scope, text))
        filters = _active_filters(props)
        rules = {name: _filter_rules(props, name, origins) for name in filters}
        return cls(
            normalizers=normalizers,
            loop_count=loop_count,
            host_idn=props.get_choice("urlnormalizer.basic.host.idn"),
            idna2008=props.get_bool("urlnormalizer.basic.host.idna2008"),
            trim_trailing_dot=props.get_bool(
                "urlnormalizer.basic.host.trim-trailing-dot"
            ),
            regex_normalize_xml=regex_xml,
            regex_normalize_by_scope=tuple(by_scope),
            filters=filters,
            regex_filter_rules=rules.get("regex", ""),
            domain_filter_rules=rules.get("domain", ""),
            domain_denylist_rules=rules.get("domaindenylist", ""),
            prefix_filter_rules=rules.get("prefix", ""),
            suffix_filter_rules=rules.get("suffix", ""),
            rule_origins=tuple(origins),
        )

    def regex_normalize_xml_for(self, scope: str) -> str:
        """The regex-normalize rules for ``scope`` (its own file, else the default)."""
        return dict(self.regex_normalize_by_scope).get(scope, self.regex_normalize_xml)

    def regex_normalize_origin_for(self, scope: str) -> str:
        """Where the regex-normalize rules of ``scope`` come from, for messages."""
        if scope in dict(self.regex_normalize_by_scope):
            return self.origin_of(f"regex-normalize.{scope}")
        return self.origin_of("regex-normalize")

    def origin_of(self, rules: str) -> str:
        """Where ``rules`` (a filter name, or ``regex-normalize[.<scope>]``) came from.

        The file name or inline property recorded by :meth:`from_properties`;
        for a config built directly, ``urlfilter-<name> rules`` or
        ``regex-normalize rules``.
        """
        origin = dict(self.rule_origins).get(rules)
        if origin:
            return origin
        if rules.startswith("regex-normalize"):
            return f"{rules} rules"
        return f"urlfilter-{rules} rules"


def _active_normalizers(props: Properties) -> tuple[str, ...]:
    """``urlnormalizer.order`` first, then the other active normalizers.

    Like Nutch's ``URLNormalizers``: a class the order names whose plugin is
    not active is skipped; active normalizers it does not name follow, in
    beamcrawl's order (basic, regex). ``PassURLNormalizer`` changes nothing
    and is dropped.
    """
    order: list[str] = []
    for class_name in props.get_classes("urlnormalizer.order"):
        name = NUTCH_URL_CLASSES[class_name].removeprefix("urlnormalizer-")
        plugin = f"urlnormalizer-{name}"
        if plugin_active(props, plugin) and name not in order:
            order.append(name)
    order += [
        name
        for name in _NORMALIZERS
        if name not in order and plugin_active(props, f"urlnormalizer-{name}")
    ]
    return tuple(name for name in order if name in _NORMALIZERS)


def _active_filters(props: Properties) -> tuple[str, ...]:
    """The active URL filters, in ``urlfilter.order`` if set, else :data:`URL_FILTERS`.

    Like Nutch's ``URLFilters``: with ``urlfilter.order`` set, only the
    filters it names run, in its order; a named filter whose plugin is not
    active is skipped.
    """
    class_names = props.get_classes("urlfilter.order")
    if not class_names:
        return tuple(
            name for name in URL_FILTERS if plugin_active(props, f"urlfilter-{name}")
        )
    order: list[str] = []
    for class_name in class_names:
        plugin = NUTCH_URL_CLASSES[class_name]
        name = plugin.removeprefix("urlfilter-")
        if plugin_active(props, plugin) and name not in order:
            order.append(name)
    return tuple(order)


def _filter_rules(props: Properties, name: str, origins: list[tuple[str, str]]) -> str:
    """The rules of filter ``name``: ``urlfilter.<name>.rules``, else its file."""
    if name == "validator":
        return ""
    inline = props.get_str(f"urlfilter.{name}.rules")
    if inline:
        origins.append((name, f"urlfilter.{name}.rules"))
        return inline
    return _read_file(props, f"urlfilter.{name}.file", name, origins)


def _read_file(
    props: Properties, prop: str, rules: str, origins: list[tuple[str, str]]
) -> str:
    """The text of the file property ``prop`` names, its name noted in ``origins``."""
    file_name = props.get_str(prop)
    origins.append((rules, file_name))
    return props.read_resource(file_name)


@dataclass(frozen=True, slots=True)
class PartitionConfig:
    """``partition.url.mode`` and ``partition.url.seed`` (Nutch's URLPartitioner)."""

    mode: str = "byHost"
    seed: int = 0

    @classmethod
    def from_properties(cls, props: Properties) -> PartitionConfig:
        """Read and check the partition mode (byHost, byDomain or byIP) and seed."""
        return cls(
            mode=props.get_choice("partition.url.mode"),
            seed=props.get_int("partition.url.seed"),
        )


def read_link_rules(props: Properties) -> LinkRules:
    """Read the ``db.ignore.*`` link rules, shared by the parser and the fetcher."""
    return LinkRules(
        ignore_external=props.get_bool("db.ignore.external.links"),
        ignore_internal=props.get_bool("db.ignore.internal.links"),
        by_domain=props.get_choice("db.ignore.external.links.mode") == "byDomain",
        also_redirects=props.get_bool("db.ignore.also.redirects"),
    )
