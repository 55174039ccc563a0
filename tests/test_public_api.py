"""beamcrawl's public API, pinned: ``beamcrawl.__all__`` and every name's signature.

The snapshot ``tests/data/public_api.txt`` holds, for each exported name, its
signature (functions), its constructor and fields (classes, dataclasses,
NamedTuples), its keys (TypedDicts) or members (enums), and the signatures
of the public methods, class methods and properties a class defines (those
inherited from Beam or the standard library are theirs, not ours). A change
to any of them fails here with a diff, so an API change is made on purpose:
regenerate the snapshot with

    python -m tests.test_public_api --update

and say in the commit what changed for users.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import functools
import inspect
import sys
from pathlib import Path
from typing import Any, is_typeddict

import beamcrawl

SNAPSHOT = Path(__file__).resolve().parent / "data" / "public_api.txt"
UPDATE = "python -m tests.test_public_api --update"
OURS = ("beamcrawl", "crawllib", "pipelines")
HEADER = [
    "# beamcrawl's public API: beamcrawl.__all__, each name's signature.",
    f"# Checked by tests/test_public_api.py; regenerate on purpose: {UPDATE}",
]


def describe_api() -> list[str]:
    """The snapshot's lines for the installed ``beamcrawl``."""
    lines = list(HEADER)
    for name in beamcrawl.__all__:
        lines.append("")
        lines.extend(_describe(name, getattr(beamcrawl, name)))
    return lines


def _describe(name: str, obj: object) -> list[str]:
    if inspect.isclass(obj):
        return _describe_class(name, obj)
    if callable(obj):
        return [f"def {name}{_signature(obj)}"]
    return [f"{name}: {type(obj).__name__} = {obj!r}"]


def _describe_class(name: str, cls: type) -> list[str]:
    if issubclass(cls, enum.Enum):
        bases = ", ".join(base.__name__ for base in cls.__bases__)
        members = [f"    {m.name} = {m.value!r}" for m in cls]
        return [f"enum {name}({bases})", *members, *_members(cls)]
    if is_typeddict(cls):
        keys = [f"    {k}: {_annotation(t)}" for k, t in cls.__annotations__.items()]
        return [f"typeddict {name}", *keys]
    lines = [f"class {name}{_bases(cls)}", f"    __init__{_constructor(cls)}"]
    if dataclasses.is_dataclass(cls):
        fields = dataclasses.fields(cls)
        lines += [_field(f) for f in fields if not f.name.startswith("_")]
    elif issubclass(cls, tuple) and hasattr(cls, "_fields"):  # a NamedTuple
        hints = cls.__annotations__
        lines += [f"    field {f}: {_annotation(hints[f])}" for f in cls._fields]
    lines += _members(cls)
    return lines


def _bases(cls: type) -> str:
    names = [
        base.__qualname__
        for base in cls.__bases__
        if base is not object and base.__module__ != "typing"
    ]
    return f"({', '.join(names)})" if names else ""


def _constructor(cls: type) -> str:
    try:
        return _signature(cls)
    except ValueError:  # an exception's constructor: a builtin's, no signature
        return "(*args)"


def _field(field: dataclasses.Field[Any]) -> str:
    line = f"    field {field.name}: {_annotation(field.type)}"
    if field.default is not dataclasses.MISSING:
        line += f" = {field.default!r}"
    elif field.default_factory is not dataclasses.MISSING:
        factory = getattr(field.default_factory, "__name__", "factory")
        line += f" = {factory}()"
    if not field.init:
        line += "  (not in __init__)"
    return line


def _members(cls: type) -> list[str]:
    """The public methods, properties and plain class attributes ``cls`` defines."""
    lines = []
    for name in sorted(dir(cls)):
        owner = next((c for c in cls.__mro__ if name in vars(c)), None)
        if name.startswith("_") or owner is None or not _ours(owner):
            continue
        if name in getattr(cls, "__members__", {}):  # an enum's member
            continue
        raw = vars(owner)[name]
        getter = _getter(raw)
        if getter is not None:
            returns = inspect.signature(getter).return_annotation
            lines.append(f"    property {name} -> {_annotation(returns)}")
        elif isinstance(raw, classmethod | staticmethod):
            kind = type(raw).__name__
            lines.append(f"    {kind} {name}{_signature(getattr(cls, name))}")
        elif inspect.isfunction(raw):
            lines.append(f"    def {name}{_signature(raw)}")
        elif not _is_field(cls, name):
            lines.append(f"    {name} = {raw!r}")
    return lines


def _getter(raw: object) -> Any:
    """The function behind a property or a cached property, else None."""
    if isinstance(raw, property):
        return raw.fget
    if isinstance(raw, functools.cached_property):
        return raw.func
    return None


def _is_field(cls: type, name: str) -> bool:
    if dataclasses.is_dataclass(cls):
        return name in {field.name for field in dataclasses.fields(cls)}
    return name in getattr(cls, "_fields", ())


def _ours(cls: type) -> bool:
    return cls.__module__.partition(".")[0] in OURS


def _signature(function: Any) -> str:
    """``inspect.signature``, annotations shown as written (no quotes)."""
    signature = inspect.signature(function)
    parameters = [
        p.replace(annotation=_Shown(_annotation(p.annotation)))
        if p.annotation is not p.empty
        else p
        for p in signature.parameters.values()
    ]
    returns = signature.return_annotation
    if returns is not signature.empty:
        returns = _Shown(_annotation(returns))
    return str(signature.replace(parameters=parameters, return_annotation=returns))


class _Shown(str):
    """An annotation's text, which ``inspect`` prints without quotes."""

    def __repr__(self) -> str:
        return str(self)


def _annotation(annotation: object) -> str:
    if isinstance(annotation, str):
        return annotation
    forward = getattr(annotation, "__forward_arg__", None)
    return forward if forward is not None else inspect.formatannotation(annotation)


def test_every_exported_name_exists_once_and_sorted():
    names = beamcrawl.__all__

    assert [n for n in names if not hasattr(beamcrawl, n)] == []
    assert len(set(names)) == len(names)
    assert names == sorted(names)


def test_the_public_api_matches_its_snapshot():
    expected = SNAPSHOT.read_text(encoding="utf-8").splitlines()
    actual = describe_api()

    diff = "\n".join(
        difflib.unified_diff(
            expected, actual, "tests/data/public_api.txt", "beamcrawl", lineterm=""
        )
    )
    assert not diff, (
        f"beamcrawl's public API changed:\n{diff}\n\n"
        f"If the change is on purpose, regenerate the snapshot: {UPDATE}"
    )


def test_the_snapshot_holds_no_object_addresses():
    """A default shown as ``<object at 0x...>`` would differ on every run."""
    assert [line for line in describe_api() if " at 0x" in line] == []


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(f"usage: {UPDATE}")
    SNAPSHOT.write_text("\n".join(describe_api()) + "\n", encoding="utf-8")
    print(f"wrote {SNAPSHOT}")
