"""URL settings: normalizers, filters and partitioning, by Nutch property."""

from __future__ import annotations

from dataclasses import dataclass

from crawllib.config.properties import Properties, bad_value, plugin_active

_NORMALIZER_CLASSES = {
    "BasicURLNormalizer": ("basic", "urlnormalizer-basic"),
    "RegexURLNormalizer": ("regex", "urlnormalizer-regex"),
}

NORMALIZER_SCOPES = (
    "default",
    "partition",
    "generate_host_count",
    "fetcher",
    "crawldb",
    "linkdb",
    "inject",
    "outlink",
    "indexer",
)


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
        regex_filter: whether the regex URL filter (``urlfilter-regex``) is on.
        regex_filter_rules: the regex-urlfilter rules text.
    """

    normalizers: tuple[str, ...] = ("basic", "regex")
    loop_count: int = 1
    host_idn: str = ""
    idna2008: bool = False
    trim_trailing_dot: bool = False
    regex_normalize_xml: str = ""
    regex_normalize_by_scope: tuple[tuple[str, str], ...] = ()
    regex_filter: bool = True
    regex_filter_rules: str = ""

    @classmethod
    def from_properties(cls, props: Properties) -> UrlConfig:
        """Read the ``urlnormalizer.*``, ``urlfilter.*`` and plugin properties."""
        normalizers = _active_normalizers(props)
        loop_count = props.get_int("urlnormalizer.loop.count")
        if loop_count < 1:
            raise bad_value("urlnormalizer.loop.count", str(loop_count), "at least 1")
        regex_xml = ""
        by_scope: list[tuple[str, str]] = []
        if "regex" in normalizers:
            regex_xml = props.read_resource(props.get_str("urlnormalizer.regex.file"))
            for scope in NORMALIZER_SCOPES:
                key = f"urlnormalizer.regex.file.{scope}"
                if props.get(key, "").strip():
                    by_scope.append((scope, props.read_resource(props.get_str(key))))
        regex_filter = plugin_active(props, "urlfilter-regex")
        rules = ""
        if regex_filter:
            rules = props.get_str("urlfilter.regex.rules") or props.read_resource(
                props.get_str("urlfilter.regex.file")
            )
        return cls(
            normalizers=normalizers,
            loop_count=loop_count,
            host_idn=props.get_choice(
                "urlnormalizer.basic.host.idn", ["", "toAscii", "toUnicode"]
            ),
            idna2008=props.get_bool("urlnormalizer.basic.host.idna2008"),
            trim_trailing_dot=props.get_bool(
                "urlnormalizer.basic.host.trim-trailing-dot"
            ),
            regex_normalize_xml=regex_xml,
            regex_normalize_by_scope=tuple(by_scope),
            regex_filter=regex_filter,
            regex_filter_rules=rules,
        )

    def regex_normalize_xml_for(self, scope: str) -> str:
        """The regex-normalize rules for ``scope`` (its own file, else the default)."""
        return dict(self.regex_normalize_by_scope).get(scope, self.regex_normalize_xml)


def _active_normalizers(props: Properties) -> tuple[str, ...]:
    order: list[str] = []
    for class_name in props.get_list("urlnormalizer.order"):
        simple = class_name.rsplit(".", 1)[-1]
        known = _NORMALIZER_CLASSES.get(simple)
        if known is None:
            raise bad_value(
                "urlnormalizer.order",
                class_name,
                "BasicURLNormalizer and/or RegexURLNormalizer",
            )
        name, plugin = known
        if plugin_active(props, plugin) and name not in order:
            order.append(name)
    return tuple(order)


@dataclass(frozen=True, slots=True)
class PartitionConfig:
    """``partition.url.mode`` and ``partition.url.seed`` (Nutch's URLPartitioner)."""

    mode: str = "byHost"
    seed: int = 0

    @classmethod
    def from_properties(cls, props: Properties) -> PartitionConfig:
        """Read and check the partition mode (byHost, byDomain or byIP) and seed."""
        return cls(
            mode=props.get_choice("partition.url.mode", ["byHost", "byDomain", "byIP"]),
            seed=props.get_int("partition.url.seed"),
        )
