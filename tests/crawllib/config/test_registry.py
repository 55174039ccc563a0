"""The registry holds every property the code reads, of the kind it reads it as.

Two proofs: every step config is built from a :class:`Properties` that
records each name asked for (with the plugins and options that make the
builders read more), and an AST scan finds every literal property name in
``crawllib``, ``pipelines``, ``beamcrawl`` and ``examples``. A registered
property no builder reads must say it has no effect.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import pkgutil
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

import crawllib.config
from crawllib.config import checks, registry
from crawllib.config.properties import Properties, load_properties
from crawllib.config.schema import (
    Boolean,
    ClassName,
    ClassNames,
    Integer,
    Kind,
    Number,
    OptionalInteger,
    OptionalNumber,
    Pattern,
    Text,
)
from crawllib.errors import ConfigError

ROOT = Path(__file__).resolve().parents[3]
_EVERY_URL_PLUGIN = (
    "protocol-(http|file)|urlfilter-(regex|domain|domaindenylist|prefix|suffix"
    "|validator)|parse-(html|tika)|index-(basic|anchor)|scoring-opic"
    "|urlnormalizer-(pass|regex|basic)"
)
_VARIANTS: tuple[dict[str, str], ...] = (
    {"http.agent.name": "test"},
    {
        "http.agent.name": "test",
        "plugin.includes": _EVERY_URL_PLUGIN,
        "plugin.excludes": "nothing",
        **{
            f"urlnormalizer.regex.file.{s}": "regex-normalize.xml"
            for s in crawllib.config.NORMALIZER_SCOPES
        },
        "an.unknown.name": "so that the check reads the declarations",
    },
)


class _Recording(Properties):
    """Properties that note every name asked for, and the kind it was read as."""

    def __init__(self, *layers: Mapping[str, str], log: list[tuple[str, Any]]) -> None:
        super().__init__(*layers)
        self.log = log

    def __getitem__(self, name: str) -> str:
        self.log.append((name, None))
        try:
            self.raw(name)
        except KeyError:
            raise AssertionError(
                f"property {name} is read but not registered"
            ) from None
        return super().__getitem__(name)

    def parse(self, name: str, kind: Kind[Any]) -> Any:
        self.log.append((name, kind))
        return super().parse(name, kind)

    def is_set(self, name: str) -> bool:
        self.log.append((name, None))
        return super().is_set(name)

    def with_values(self, values: Mapping[str, str], origin: str = "set") -> Properties:
        unread = {name: self.raw(name) for name in self}  # raw: not recorded
        return _Recording(unread, values, log=self.log)


def _config_classes() -> list[Any]:
    """Every class in ``crawllib.config`` with a ``from_properties``."""
    found: dict[str, Any] = {}
    for info in pkgutil.iter_modules(crawllib.config.__path__, "crawllib.config."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and hasattr(value, "from_properties")
                and value.__module__.startswith("crawllib.config")
            ):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return list(found.values())


def _reads() -> list[tuple[str, Any]]:
    log: list[tuple[str, Any]] = []
    for variant in _VARIANTS:
        props = _Recording(variant, log=log)
        for cls in _config_classes():
            cls.from_properties(props)
        checks.check_given(props)
    return log


READS = _reads()
READ_NAMES = {name for name, _ in READS}


def test_the_builders_are_found():
    names = {cls.__name__ for cls in _config_classes()}
    assert {"FetcherConfig", "ParseConfig", "SitemapConfig", "WarcConfig"} <= names


def test_every_property_a_config_builder_reads_is_registered():
    assert sorted(READ_NAMES - set(registry.PROPERTIES)) == []


def test_every_property_is_read_as_the_kind_the_registry_gives():
    wrong = sorted(
        {
            (name, type(kind).__name__, type(registry.PROPERTIES[name].kind).__name__)
            for name, kind in READS
            if kind is not None
            and not isinstance(kind, Text)  # the raw text: any kind may be read so
            and kind != registry.PROPERTIES[name].kind
        }
    )
    assert wrong == []


def test_a_registered_property_no_builder_reads_is_marked_without_effect():
    unread = {name for name in registry.PROPERTIES if name not in READ_NAMES}
    claims = {name for name, prop in registry.PROPERTIES.items() if not prop.used}
    assert sorted(unread - claims) == []
    assert "fetcher.server.delay" not in claims


_NAME = re.compile(r"[A-Za-z][\w-]*(?:\.[\w-]+)+")
_READERS = frozenset(
    {"get_str", "get_int", "get_float", "get_bool", "get_list", "get_choice",
     "get_class", "get_classes", "get_regex", "parse", "is_set", "origin", "raw",
     "optional_int", "bad_value", "with_values", "lookup"}
)  # fmt: skip
_FIRST_WORDS = {name.split(".")[0] for name in registry.PROPERTIES}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            ids.add(id(body[0].value))
    return ids


def _literal_names(path: Path) -> list[tuple[str, str]]:
    """(name or f-string pattern, where) of every property name ``path`` spells.

    In ``crawllib/config/`` every string that looks like one; elsewhere the
    first argument of a property reader, a dict key, a ``-D`` style
    ``name=value`` text, or a ``*_PROPERTY`` constant.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    in_config = "config" in path.relative_to(ROOT).parts[:2]
    places: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            called = (
                func.attr
                if isinstance(func, ast.Attribute)
                else getattr(func, "id", "")
            )
            if called in _READERS or called.startswith("_"):
                places.add(id(node.args[0]))
        elif isinstance(node, ast.Dict):
            places |= {id(key) for key in node.keys if key is not None}
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id.endswith("_PROPERTY") for t in node.targets
        ):
            places.add(id(node.value))
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            skip |= {id(value) for value in node.values}
            text = "".join(
                str(v.value) if isinstance(v, ast.Constant) else "{}"
                for v in node.values
            )
            if (
                _NAME.fullmatch(text.replace("{}", "x"))
                and text.split(".")[0] in _FIRST_WORDS
            ):
                found.append((text, f"{path.relative_to(ROOT)}:{node.lineno}"))
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        if id(node) in skip:
            continue
        text = node.value.partition("=")[0] if "=" in node.value else node.value
        if not (_NAME.fullmatch(text) and text.split(".")[0] in _FIRST_WORDS):
            continue
        if in_config or id(node) in places or "=" in node.value:
            found.append((text, f"{path.relative_to(ROOT)}:{node.lineno}"))
    return found


def _sources() -> list[Path]:
    paths = []
    for top in ("crawllib", "pipelines", "beamcrawl", "examples"):
        paths += [
            p for p in sorted((ROOT / top).rglob("*.py")) if "catalog" not in p.parts
        ]
    return paths


def test_every_property_name_the_code_spells_is_registered():
    found = [item for path in _sources() for item in _literal_names(path)]
    unknown = []
    for text, where in found:
        pattern = re.escape(text).replace(r"\{\}", r"[\w-]+")
        if not any(re.fullmatch(pattern, name) for name in registry.PROPERTIES):
            unknown.append((text, where))
    assert len(found) > 150  # the scan sees the reads
    assert unknown == []


def test_every_default_is_a_value_of_its_kind():
    props = Properties()
    for name, prop in registry.PROPERTIES.items():
        props.parse(name, prop.kind)  # raises ConfigError if not


def test_nutch_defaults_are_the_registry_s():
    from crawllib.config.defaults import NUTCH_DEFAULTS

    assert dict(registry.DEFAULTS) == NUTCH_DEFAULTS
    assert Properties()["fetcher.server.delay"] == "5.0"


_BAD = {
    Integer: "lots",
    OptionalInteger: "soon",
    Number: "soon",
    OptionalNumber: "soon",
    Boolean: "maybe",
    ClassName: "org.example.NoSuchClass",
    ClassNames: "NoSuchClass",
    Pattern: "(",
}
_CHECKED = sorted(
    name
    for name, prop in registry.PROPERTIES.items()
    if type(prop.kind) in _BAD or hasattr(prop.kind, "values")
)


def _bad_value(name: str) -> str:
    kind = registry.PROPERTIES[name].kind
    return _BAD.get(type(kind), "no-such-choice")


def _first_builder_error(props: Properties) -> str:
    for cls in _config_classes():
        try:
            cls.from_properties(props)
        except ConfigError as exc:
            return str(exc)
    return ""


@pytest.mark.parametrize("name", _CHECKED)
def test_beamcrawl_the_check_and_the_builders_refuse_a_bad_value_alike(name):
    define = f"{name}={_bad_value(name)}"
    with pytest.raises(ConfigError) as checked:
        load_properties(defines=["http.agent.name=a", define], check=True)
    unchecked = load_properties(defines=["http.agent.name=a", define])
    assert str(checked.value).startswith(f"property {name}=")
    if registry.PROPERTIES[name].used:
        assert _first_builder_error(unchecked) == str(checked.value)


def test_the_check_reads_the_value_expanded():
    with pytest.raises(ConfigError, match=r"fetcher\.min\.crawl\.delay='x'"):
        load_properties(defines=["fetcher.min.crawl.delay=${y}", "y=x"], check=True)


def test_properties_are_registered_once_with_descriptions():
    names = [prop.name for _, props in registry.AREAS for prop in props]
    assert len(names) == len(set(names)) == len(registry.PROPERTIES)
    for prop in registry.PROPERTIES.values():
        assert prop.description.endswith("."), prop.name
        assert not (prop.own and prop.nutch_default is not None), prop.name
        assert dataclasses.is_dataclass(prop)
