"""What a property is: the kind of value it takes, its default, its description.

A :class:`Kind` reads a property's raw text as a value or raises the one-line
:class:`~crawllib.errors.ConfigError` of :func:`bad_value`. It is the one rule
for its kind of value: the typed getters of
:class:`~crawllib.config.properties.Properties` (``get_int`` ...) parse with
it, and so does the check of every property a user gives
(:mod:`crawllib.config.checks`), so that a value the check lets through is
one the getters read. A :class:`Property` is one entry of the registry
(:mod:`crawllib.config.registry`): name, default, kind, what it does, and
where beamcrawl's default departs from Nutch's.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from crawllib.errors import ConfigError

T = TypeVar("T")

_TRUE = frozenset({"true", "yes", "1", "on"})
_FALSE = frozenset({"false", "no", "0", "off"})


def bad_value(name: str, raw: str, allowed: str) -> ConfigError:
    """The one-line error for a property value: its name, value and what is allowed."""
    return ConfigError(f"property {name}={raw!r} is invalid: expected {allowed}")


@dataclass(frozen=True)
class Kind(Generic[T]):
    """A kind of property value; :meth:`parse` is its one rule.

    Two kinds are equal when they read values alike: the ``label`` (what the
    reference calls the type, such as ``long`` or ``file``) does not count.
    """

    label: str = field(default="string", compare=False)

    def parse(self, name: str, raw: str) -> T:
        """``raw`` (stripped) as a value; raises ConfigError naming ``name``."""
        raise NotImplementedError


@dataclass(frozen=True)
class Text(Kind[str]):
    """Any text: the value as it is (stripped)."""

    def parse(self, name: str, raw: str) -> str:
        """The text itself."""
        return raw


@dataclass(frozen=True)
class Integer(Kind[int]):
    """A whole number, as Python's ``int()`` reads it."""

    label: str = field(default="int", compare=False)

    def parse(self, name: str, raw: str) -> int:
        """The number; anything else is a ConfigError."""
        try:
            return int(raw)
        except ValueError:
            raise bad_value(name, raw, "an integer") from None


@dataclass(frozen=True)
class BucketCount(Kind[int]):
    """0 (chosen from the data's size) or a power of two up to 65536."""

    label: str = field(default="int (0 or a power of two)", compare=False)

    def parse(self, name: str, raw: str) -> int:
        """The count; anything else is a ConfigError."""
        value = Integer().parse(name, raw)
        if value == 0 or (0 < value <= 1 << 16 and value & (value - 1) == 0):
            return value
        raise bad_value(name, raw, "0 or a power of two up to 65536")


@dataclass(frozen=True)
class OptionalInteger(Kind["int | None"]):
    """A whole number, or empty for none (a clock that defaults to the wall clock)."""

    label: str = field(default="long, or empty", compare=False)

    def parse(self, name: str, raw: str) -> int | None:
        """None when empty, else the number."""
        return Integer().parse(name, raw) if raw else None


@dataclass(frozen=True)
class Number(Kind[float]):
    """A finite floating-point number."""

    label: str = field(default="float", compare=False)

    def parse(self, name: str, raw: str) -> float:
        """The number; NaN, infinities and words are a ConfigError."""
        try:
            value = float(raw)
        except ValueError:
            raise bad_value(name, raw, "a number") from None
        if math.isnan(value) or math.isinf(value):
            raise bad_value(name, raw, "a finite number")
        return value


@dataclass(frozen=True)
class OptionalNumber(Kind["float | None"]):
    """A finite number, or empty or ``NaN`` for none (Nutch's NaN = off)."""

    label: str = field(default="float, or empty", compare=False)

    def parse(self, name: str, raw: str) -> float | None:
        """None when empty or NaN, else the number."""
        if not raw or raw.lower() == "nan":
            return None
        return Number().parse(name, raw)


@dataclass(frozen=True)
class Boolean(Kind[bool]):
    """true/false, yes/no, 1/0 or on/off, in any case."""

    label: str = field(default="boolean", compare=False)

    def parse(self, name: str, raw: str) -> bool:
        """The truth value; any other word is a ConfigError."""
        lowered = raw.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise bad_value(name, lowered, "true or false")


@dataclass(frozen=True)
class TextList(Kind[list[str]]):
    """Items separated by commas and/or whitespace; empty items are dropped."""

    label: str = field(default="list", compare=False)

    def parse(self, name: str, raw: str) -> list[str]:
        """The items, in order."""
        return [item for item in re.split(r"[,\s]+", raw) if item]


@dataclass(frozen=True)
class Choice(Kind[str]):
    """One of a few words, compared ignoring case; the value is the word as listed."""

    values: tuple[str, ...] = ()

    def parse(self, name: str, raw: str) -> str:
        """The listed word ``raw`` matches."""
        for option in self.values:
            if raw.lower() == option.lower():
                return option
        raise bad_value(name, raw, "one of " + ", ".join(self.values))


@dataclass(frozen=True)
class ClassName(Kind[str]):
    """A Nutch class, by full or simple name; the value is the simple name."""

    label: str = field(default="class", compare=False)
    values: tuple[str, ...] = ()

    def parse(self, name: str, raw: str) -> str:
        """The simple name, which must be one of :attr:`values`."""
        simple = raw.rsplit(".", 1)[-1]
        if simple not in self.values:
            raise bad_value(name, raw, ", ".join(self.values))
        return simple


@dataclass(frozen=True)
class ClassNames(Kind[list[str]]):
    """A list of Nutch classes (full or simple names); the value is their simple names.

    Attributes:
        values: the simple names allowed.
        what: what they are, for the error (``URL filter``).
    """

    label: str = field(default="list of classes", compare=False)
    values: tuple[str, ...] = ()
    what: str = "class"

    def parse(self, name: str, raw: str) -> list[str]:
        """The simple names, in order; one not allowed is a ConfigError."""
        names = []
        for item in TextList().parse(name, raw):
            simple = item.rsplit(".", 1)[-1]
            if simple not in self.values:
                allowed = ", ".join(sorted(self.values))
                raise bad_value(name, item, f"{self.what} classes of Nutch: {allowed}")
            names.append(simple)
        return names


@dataclass(frozen=True)
class Pattern(Kind["re.Pattern[str]"]):
    """A Python regular expression."""

    label: str = field(default="regex", compare=False)

    def parse(self, name: str, raw: str) -> re.Pattern[str]:
        """The compiled expression; one that does not compile is a ConfigError."""
        try:
            return re.compile(raw)
        except re.error as exc:
            raise bad_value(name, raw, f"a valid regex ({exc})") from exc


TEXT = Text()
INTEGER = Integer()
NUMBER = Number()
BOOLEAN = Boolean()
TEXT_LIST = TextList()


@dataclass(frozen=True)
class Property:
    """One property beamcrawl reads (or accepts): the registry's entry.

    Attributes:
        name: the Nutch property name (or beamcrawl's own).
        default: beamcrawl's default, as text; ``${name}`` refers to another.
        kind: what values it takes (:meth:`Kind.parse` checks them).
        description: what it does in beamcrawl, one paragraph.
        nutch_default: Nutch's default where it differs from beamcrawl's;
            None: the same (or, for ``own``, Nutch has no such property).
        why: why beamcrawl's default or meaning differs from Nutch's.
        own: beamcrawl's own property; Nutch has none of that name.
        used: False for a Nutch property beamcrawl accepts but does not
            read (setting it changes nothing); the description says why.
    """

    name: str
    default: str
    kind: Kind[Any]
    description: str
    nutch_default: str | None = None
    why: str = ""
    own: bool = False
    used: bool = True

    @property
    def type_name(self) -> str:
        """The kind's name for people: ``int``, ``boolean``, ``one of: a, b`` ..."""
        if isinstance(self.kind, Choice):
            return "one of: " + ", ".join(v or '""' for v in self.kind.values)
        return self.kind.label

    @property
    def nutch(self) -> str:
        """Nutch's default for people: its value, or that Nutch has none."""
        if self.own:
            return "(not in Nutch)"
        return self.default if self.nutch_default is None else self.nutch_default
