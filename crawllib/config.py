"""Configuration by Nutch property name: defaults, site files, ``-D`` overrides.

:class:`Properties` is the resolved map (Nutch defaults < ``--conf`` files in
order < ``-D name=value``) with typed getters that reject bad values with one
line naming the property. Each job then takes a frozen config built from it
(``UrlConfig.from_properties`` ...); transforms never see the raw map.

Site files are Nutch's ``nutch-site.xml`` format (Hadoop ``<configuration>``
with ``<property><name/><value/></property>``), so a Nutch user can bring
theirs; a plain ``name=value`` file works too. ``${name}`` in a value expands
to another property, as in Hadoop.
"""

from __future__ import annotations

import math
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources

from crawllib.defaults import NUTCH_DEFAULTS
from crawllib.errors import ConfigError

_VAR = re.compile(r"\$\{([^}$\s]+)\}")
_TRUE = frozenset({"true", "yes", "1", "on"})
_FALSE = frozenset({"false", "no", "0", "off"})


class Properties(Mapping[str, str]):
    """Nutch properties with defaults, read-only, with typed getters.

    Args:
        overrides: values set on top of ``NUTCH_DEFAULTS``, in order of rising
            precedence.
        conf_dirs: directories a relative resource file name (such as
            ``regex-urlfilter.txt``) is looked up in, before the bundled ones.
    """

    def __init__(
        self, *overrides: Mapping[str, str], conf_dirs: Sequence[str] = ()
    ) -> None:
        merged = dict(NUTCH_DEFAULTS)
        for layer in overrides:
            merged.update(layer)
        self._values = merged
        self.conf_dirs = tuple(conf_dirs)

    def __getitem__(self, name: str) -> str:
        return self._expand(self._values[name], depth=0)

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def with_values(self, values: Mapping[str, str]) -> Properties:
        """A copy with ``values`` set on top."""
        return Properties(self._values, values, conf_dirs=self.conf_dirs)

    def _expand(self, value: str, depth: int) -> str:
        if "${" not in value or depth > 20:
            return value

        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in self._values:
                return self._expand(self._values[name], depth + 1)
            return os.environ.get(name, match.group(0))

        return _VAR.sub(replace, value)

    def get_str(self, name: str) -> str:
        """The value, stripped."""
        return self[name].strip()

    def get_int(self, name: str) -> int:
        """The value as an int; raises ConfigError naming the property."""
        raw = self.get_str(name)
        try:
            return int(raw)
        except ValueError:
            raise _bad(name, raw, "an integer") from None

    def get_float(self, name: str) -> float:
        """The value as a finite float; raises ConfigError naming the property."""
        raw = self.get_str(name)
        try:
            value = float(raw)
        except ValueError:
            raise _bad(name, raw, "a number") from None
        if math.isnan(value) or math.isinf(value):
            raise _bad(name, raw, "a finite number")
        return value

    def get_bool(self, name: str) -> bool:
        """The value as a boolean (true/false, yes/no, 1/0, on/off)."""
        raw = self.get_str(name).lower()
        if raw in _TRUE:
            return True
        if raw in _FALSE:
            return False
        raise _bad(name, raw, "true or false")

    def get_list(self, name: str) -> list[str]:
        """The value split on commas and whitespace, empty items dropped."""
        return [item for item in re.split(r"[,\s]+", self.get_str(name)) if item]

    def get_choice(self, name: str, allowed: Iterable[str]) -> str:
        """The value, which must be one of ``allowed`` (compared ignoring case)."""
        options = list(allowed)
        raw = self.get_str(name)
        for option in options:
            if raw.lower() == option.lower():
                return option
        raise _bad(name, raw, "one of " + ", ".join(options))

    def read_resource(self, name: str) -> str:
        """The text of the resource file a property names (e.g. url filter rules).

        Looked up as given (absolute, or relative to the working directory),
        then in ``conf_dirs``, then among beamcrawl's bundled ``conf`` files.

        Raises:
            ConfigError: the file is nowhere to be found or cannot be read.
        """
        candidates = [name] + [os.path.join(d, name) for d in self.conf_dirs]
        for path in candidates:
            if os.path.isfile(path):
                try:
                    with open(path, encoding="utf-8") as handle:
                        return handle.read()
                except (OSError, UnicodeDecodeError) as exc:
                    raise ConfigError(f"cannot read {path}: {exc}") from exc
        bundled = resources.files("crawllib").joinpath("conf", os.path.basename(name))
        if bundled.is_file():
            return bundled.read_text(encoding="utf-8")
        raise ConfigError(f"configuration file {name!r} not found")


def _optional_int(props: Properties, name: str) -> int | None:
    return props.get_int(name) if props.get_str(name) else None


def _bad(name: str, raw: str, allowed: str) -> ConfigError:
    return ConfigError(f"property {name}={raw!r} is invalid: expected {allowed}")


def parse_define(text: str) -> tuple[str, str]:
    """Split a ``-D name=value`` argument; raises ConfigError if there is no ``=``."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ConfigError(f"-D {text!r} is invalid: expected name=value")
    return name.strip(), value


def read_site_file(path: str) -> dict[str, str]:
    """Read a ``nutch-site.xml`` (Hadoop configuration XML) or ``name=value`` file.

    Raises:
        ConfigError: the file is missing or malformed.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read config file {path}: {exc}") from exc
    if text.lstrip().startswith("<"):
        return _parse_site_xml(text, path)
    return _parse_key_values(text, path)


def _parse_site_xml(text: str, path: str) -> dict[str, str]:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ConfigError(f"config file {path} is not valid XML: {exc}") from exc
    values: dict[str, str] = {}
    for prop in root.iter("property"):
        name = (prop.findtext("name") or "").strip()
        if not name:
            raise ConfigError(f"config file {path}: a <property> has no <name>")
        values[name] = prop.findtext("value") or ""
    return values


def _parse_key_values(text: str, path: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        name, sep, value = stripped.partition("=")
        if not sep:
            raise ConfigError(f"config file {path}, line {number}: expected name=value")
        values[name.strip()] = value.strip()
    return values


def load_properties(
    conf_files: Sequence[str] = (), defines: Sequence[str] = ()
) -> Properties:
    """Nutch defaults, then each ``--conf`` file in order, then ``-D`` values."""
    layers = [read_site_file(path) for path in conf_files]
    layers.append(dict(parse_define(text) for text in defines))
    conf_dirs = [os.path.dirname(os.path.abspath(path)) for path in conf_files]
    return Properties(*layers, conf_dirs=conf_dirs)


def plugin_active(props: Properties, plugin_id: str) -> bool:
    """Whether ``plugin.includes`` (a regex over plugin ids) selects a plugin."""
    pattern = props.get_str("plugin.includes")
    try:
        return re.fullmatch(pattern, plugin_id) is not None
    except re.error as exc:
        raise _bad("plugin.includes", pattern, f"a valid regex ({exc})") from exc


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
            raise _bad("urlnormalizer.loop.count", str(loop_count), "at least 1")
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
            raise _bad(
                "urlnormalizer.order",
                class_name,
                "BasicURLNormalizer and/or RegexURLNormalizer",
            )
        name, plugin = known
        if plugin_active(props, plugin) and name not in order:
            order.append(name)
    return tuple(order)


@dataclass(frozen=True, slots=True)
class InjectConfig:
    """Inject settings (Nutch's Injector properties and flags).

    ``keep_backup`` is ``db.preserve.backup``; ``fixed_time_ms`` is
    ``injector.current.time``, the job's clock when set (reproducible runs).

    ``normalize`` / ``filter_urls`` are the command's ``--noNormalize`` /
    ``--noFilter``; ``overwrite`` / ``update`` can also come from
    ``--overwrite`` / ``--update``.
    """

    urls: UrlConfig
    normalize: bool = True
    filter_urls: bool = True
    score_injected: float = 1.0
    fetch_interval_s: int = 2592000
    overwrite: bool = False
    update: bool = False
    purge_404: bool = False
    filter_normalize_all: bool = False
    keep_backup: bool = True
    fixed_time_ms: int | None = None

    @classmethod
    def from_properties(cls, props: Properties) -> InjectConfig:
        """Read ``db.score.injected``, ``db.fetch.interval.default`` and friends."""
        interval = props.get_int("db.fetch.interval.default")
        if interval <= 0:
            raise _bad("db.fetch.interval.default", str(interval), "a positive int")
        return cls(
            urls=UrlConfig.from_properties(props),
            score_injected=props.get_float("db.score.injected"),
            fetch_interval_s=interval,
            overwrite=props.get_bool("db.injector.overwrite"),
            update=props.get_bool("db.injector.update"),
            purge_404=props.get_bool("db.update.purge.404"),
            filter_normalize_all=props.get_bool("crawldb.inject.filter.normalize.all"),
            keep_backup=props.get_bool("db.preserve.backup"),
            fixed_time_ms=_optional_int(props, "injector.current.time"),
        )


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


@dataclass(frozen=True, slots=True)
class StatsConfig:
    """``readdb --stats`` settings: the score quantiles to print."""

    quantiles: tuple[float, ...] = ()

    @classmethod
    def from_properties(cls, props: Properties) -> StatsConfig:
        """Read ``db.stats.score.quantiles`` (each strictly between 0 and 1)."""
        quantiles = []
        for item in props.get_list("db.stats.score.quantiles"):
            try:
                value = float(item)
            except ValueError:
                raise _bad("db.stats.score.quantiles", item, "numbers") from None
            if not 0 < value < 1:
                raise _bad("db.stats.score.quantiles", item, "values in (0, 1)")
            quantiles.append(value)
        return cls(quantiles=tuple(sorted(set(quantiles))))
