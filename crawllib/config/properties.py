"""Properties: defaults, site files, ``-D`` overrides, typed getters.

:class:`Properties` is the resolved map (the registry's defaults, mostly
Nutch's < ``--conf`` files in order < ``-D name=value``) with typed getters
that reject bad values with one line naming the property; each getter
parses with its :class:`~crawllib.config.schema.Kind`, the rule the check of
given properties (:mod:`crawllib.config.checks`) uses too. Each job then
takes a frozen config built from it (``UrlConfig.from_properties`` ...);
transforms never see the raw map.

Site files are Nutch's ``nutch-site.xml`` format (Hadoop ``<configuration>``
with ``<property><name/><value/></property>``), so a Nutch user can bring
theirs; a plain ``name=value`` file works too. ``${name}`` in a value expands
to another property, as in Hadoop.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Iterator, Mapping, Sequence
from importlib import resources
from typing import TypeVar

from crawllib.config import registry
from crawllib.config.schema import (
    BOOLEAN,
    INTEGER,
    NUMBER,
    TEXT,
    TEXT_LIST,
    Choice,
    ClassName,
    ClassNames,
    Kind,
    OptionalInteger,
    Pattern,
)
from crawllib.config.schema import bad_value as bad_value  # re-exported
from crawllib.errors import ConfigError

T = TypeVar("T")
KindT = TypeVar("KindT", bound=Kind)  # type: ignore[type-arg]

_VAR = re.compile(r"\$\{([^}$\s]+)\}")
DEFAULT_ORIGIN = "default"
"""Where a property's value comes from when nobody set it."""
MAX_EXPANSIONS = 1000
"""``${name}`` references expanded in one value, at most. A value whose
references multiply (each naming the next one twice, twenty deep) would
otherwise grow exponentially: a configuration bomb."""


class Properties(Mapping[str, str]):
    """Properties with defaults, read-only, with typed getters.

    Args:
        overrides: values set on top of the registry's defaults, in order of
            rising precedence.
        conf_dirs: directories a relative resource file name (such as
            ``regex-urlfilter.txt``) is looked up in, before the bundled ones.
        origins: where each layer of ``overrides`` comes from, for
            :meth:`origin` (``--conf nutch-site.xml``, ``-D``); missing ones
            are ``set``.
    """

    def __init__(
        self,
        *overrides: Mapping[str, str],
        conf_dirs: Sequence[str] = (),
        origins: Sequence[str] = (),
    ) -> None:
        merged = dict(registry.DEFAULTS)
        self._origin: dict[str, str] = {}
        for index, layer in enumerate(overrides):
            merged.update(layer)
            label = origins[index] if index < len(origins) else "set"
            self._origin.update(dict.fromkeys(layer, label))
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
        return name in self._origin

    def raw(self, name: str) -> str:
        """The value as set, ``${...}`` references not expanded."""
        return self._values[name]

    def given(self) -> list[str]:
        """The names set on top of the defaults, in name order."""
        return sorted(self._origin)

    def origin(self, name: str) -> str:
        """Where ``name``'s value is from: ``default``, ``--conf FILE``, ``-D`` ..."""
        return self._origin.get(name, DEFAULT_ORIGIN)

    def with_values(self, values: Mapping[str, str], origin: str = "set") -> Properties:
        """A copy with ``values`` set on top (their origin: ``origin``)."""
        copy = Properties(self._values, values, conf_dirs=self.conf_dirs)
        copy._origin = {**self._origin, **dict.fromkeys(values, origin)}
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

    def parse(self, name: str, kind: Kind[T]) -> T:
        """The value (stripped) read by ``kind``; raises ConfigError naming ``name``."""
        return kind.parse(name, self[name].strip())

    def get_str(self, name: str) -> str:
        """The value, stripped."""
        return self.parse(name, TEXT)

    def get_int(self, name: str) -> int:
        """The value as an int; raises ConfigError naming the property."""
        return self.parse(name, INTEGER)

    def get_float(self, name: str) -> float:
        """The value as a finite float; raises ConfigError naming the property."""
        return self.parse(name, NUMBER)

    def get_bool(self, name: str) -> bool:
        """The value as a boolean (true/false, yes/no, 1/0, on/off)."""
        return self.parse(name, BOOLEAN)

    def get_list(self, name: str) -> list[str]:
        """The value split on commas and whitespace, empty items dropped."""
        return self.parse(name, TEXT_LIST)

    def get_choice(self, name: str, allowed: Iterable[str] | None = None) -> str:
        """The value, one of ``allowed`` (compared ignoring case).

        ``allowed`` defaults to the registered property's choices.
        """
        if allowed is None:
            return self.parse(name, registered_kind(name, Choice))
        return self.parse(name, Choice(values=tuple(allowed)))

    def get_class(self, name: str) -> str:
        """The simple name of the Nutch class the value names (a registered choice)."""
        return self.parse(name, registered_kind(name, ClassName))

    def get_classes(self, name: str) -> list[str]:
        """The simple names of the Nutch classes the value lists (registered ones)."""
        return self.parse(name, registered_kind(name, ClassNames))

    def get_regex(self, name: str) -> re.Pattern[str]:
        """The value as a compiled regex; raises ConfigError naming the property."""
        return self.parse(name, Pattern())

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
    return props.parse(name, OptionalInteger())


def registered_kind(name: str, cls: type[KindT]) -> KindT:
    """The registered kind of property ``name``, which must be a ``cls``."""
    prop = registry.lookup(name)
    if prop is None or not isinstance(prop.kind, cls):
        raise KeyError(f"property {name} is not registered as a {cls.__name__}")
    return prop.kind


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
    conf_files: Sequence[str] = (), defines: Sequence[str] = (), *, check: bool = False
) -> Properties:
    """Defaults, then each ``--conf`` file in order, then ``-D`` values.

    Args:
        conf_files: site files, in order of rising precedence.
        defines: ``name=value`` texts of ``-D``.
        check: check every property given, as the command line does
            (:func:`crawllib.config.checks.check_given`): a bad value of a
            registered one is a ConfigError, an unknown name one warning.
    """
    layers = [read_site_file(path) for path in conf_files]
    layers.append(dict(parse_define(text) for text in defines))
    conf_dirs = [os.path.dirname(os.path.abspath(path)) for path in conf_files]
    origins = [f"--conf {path}" for path in conf_files] + ["-D"]
    props = Properties(*layers, conf_dirs=conf_dirs, origins=origins)
    if check:
        from crawllib.config.checks import check_given

        check_given(props)
    return props


def plugin_active(props: Properties, plugin_id: str) -> bool:
    """Whether a plugin is active, like Nutch's ``PluginRepository``.

    Its id must match ``plugin.includes`` (a regex, matched whole) and not
    ``plugin.excludes`` (empty: nothing is excluded).
    """
    if props.get_regex("plugin.includes").fullmatch(plugin_id) is None:
        return False
    excludes = props.get_str("plugin.excludes")
    return not (excludes and props.get_regex("plugin.excludes").fullmatch(plugin_id))
