"""Properties: Nutch defaults, site files, ``-D`` overrides, typed getters.

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
from importlib import resources

from crawllib.config.defaults import NUTCH_DEFAULTS
from crawllib.errors import ConfigError

_VAR = re.compile(r"\$\{([^}$\s]+)\}")
_TRUE = frozenset({"true", "yes", "1", "on"})
_FALSE = frozenset({"false", "no", "0", "off"})
MAX_EXPANSIONS = 1000
"""``${name}`` references expanded in one value, at most. A value whose
references multiply (each naming the next one twice, twenty deep) would
otherwise grow exponentially: a configuration bomb."""


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
        self._set: set[str] = set()
        for layer in overrides:
            merged.update(layer)
            self._set.update(layer)
        self._values = merged
        self.conf_dirs = tuple(conf_dirs)

    def __getitem__(self, name: str) -> str:
        value = self._values[name]
        if "${" not in value:
            return value
        budget = [MAX_EXPANSIONS]
        expanded = self._expand(value, 0, budget)
        if budget[0] < 0:
            raise ConfigError(
                f"property {name} expands more than {MAX_EXPANSIONS} ${{...}}"
                " references; do they refer to each other?"
            )
        return expanded

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def is_set(self, name: str) -> bool:
        """Whether a site file or ``-D`` set ``name`` (not just its default)."""
        return name in self._set

    def with_values(self, values: Mapping[str, str]) -> Properties:
        """A copy with ``values`` set on top."""
        copy = Properties(self._values, values, conf_dirs=self.conf_dirs)
        copy._set = self._set | set(values)
        return copy

    def _expand(self, value: str, depth: int, budget: list[int]) -> str:
        """``value`` with its references expanded, ``budget[0]`` of them at most."""
        if "${" not in value or depth > 20 or budget[0] < 0:
            return value

        def replace(match: re.Match[str]) -> str:
            budget[0] -= 1
            name = match.group(1)
            if budget[0] < 0:
                return match.group(0)
            if name in self._values:
                return self._expand(self._values[name], depth + 1, budget)
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
            raise bad_value(name, raw, "an integer") from None

    def get_float(self, name: str) -> float:
        """The value as a finite float; raises ConfigError naming the property."""
        raw = self.get_str(name)
        try:
            value = float(raw)
        except ValueError:
            raise bad_value(name, raw, "a number") from None
        if math.isnan(value) or math.isinf(value):
            raise bad_value(name, raw, "a finite number")
        return value

    def get_bool(self, name: str) -> bool:
        """The value as a boolean (true/false, yes/no, 1/0, on/off)."""
        raw = self.get_str(name).lower()
        if raw in _TRUE:
            return True
        if raw in _FALSE:
            return False
        raise bad_value(name, raw, "true or false")

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
        raise bad_value(name, raw, "one of " + ", ".join(options))

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


def optional_int(props: Properties, name: str) -> int | None:
    """The property as an int, or None when it is empty."""
    return props.get_int(name) if props.get_str(name) else None


def bad_value(name: str, raw: str, allowed: str) -> ConfigError:
    """The one-line error for a property value: its name, value and what is allowed."""
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
    """Whether a plugin is active, like Nutch's ``PluginRepository``.

    Its id must match ``plugin.includes`` (a regex, matched whole) and not
    ``plugin.excludes`` (empty: nothing is excluded).
    """
    if not _fullmatch(props, "plugin.includes", plugin_id):
        return False
    return not (
        props.get_str("plugin.excludes")
        and _fullmatch(props, "plugin.excludes", plugin_id)
    )


def _fullmatch(props: Properties, name: str, plugin_id: str) -> bool:
    pattern = props.get_str(name)
    try:
        return re.fullmatch(pattern, plugin_id) is not None
    except re.error as exc:
        raise bad_value(name, pattern, f"a valid regex ({exc})") from exc
