"""The import rules between the layers (docs/architecture.md, "Layers").

Read from the source with ``ast`` (every import statement, function-level
ones included), so a rule holds whether or not a module is imported:

- ``crawllib`` imports nothing of ``pipelines``, ``beamcrawl`` or Beam
  (ruff's TID251 bans Beam there too; this also bans the two shells);
- ``pipelines/storage`` and ``pipelines/runtime`` import no command module
  (``pipelines/<command>.py``) and no ``pipelines/transforms``;
- ``pipelines/transforms`` imports no command module, except the debts
  listed in ``TRANSFORM_DEBTS`` (each uses only a command's transforms and
  constants, never its command line, which is checked);
- ``pipelines/cli`` (the command line's front modules: parsers and
  requests, read before Beam is imported) imports no Beam, no command
  module and no ``pipelines/transforms`` (the shell imports a command's job
  by name, once its command line is checked);
- ``beamcrawl/__init__.py`` imports only what it re-exports (and
  ``beamcrawl._quiet``, whose context manager its imports run in: see
  ``BEAMCRAWL_DEBTS``).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PIPELINES = ROOT / "pipelines"
COMMANDS = {f"pipelines.{path.stem}" for path in PIPELINES.glob("*.py")} - {
    "pipelines.__init__"
}
# The command's own surface: what only the command line and `crawl` may call
COMMAND_LINE = {"run", "request", "execute", "parser", "main"}
# Transforms that build on a command's PTransform (Fetch, Parse, UpdateDb ...)
# and counter names, which STYLE.md puts in the command's module. A debt, not
# the rule: moving those transforms under pipelines/transforms pays it off.
TRANSFORM_DEBTS = {
    ("pipelines.transforms.fetchupdate", "pipelines.dedup"),
    ("pipelines.transforms.fetchupdate", "pipelines.fetch"),
    ("pipelines.transforms.fetchupdate", "pipelines.parse"),
    ("pipelines.transforms.fetchupdate", "pipelines.updatedb"),
    ("pipelines.transforms.library", "pipelines.fetch"),
    ("pipelines.transforms.library", "pipelines.generate"),
    ("pipelines.transforms.library", "pipelines.index"),
    ("pipelines.transforms.library", "pipelines.parse"),
    ("pipelines.transforms.library", "pipelines.updatedb"),
    ("pipelines.transforms.oneshot", "pipelines.fetch"),
    ("pipelines.transforms.oneshot", "pipelines.parse"),
}

# Imported by beamcrawl/__init__.py for the context manager its imports run
# in (Beam's import-time notices silenced; filters and logging then restored)
BEAMCRAWL_DEBTS = {"_quiet"}


def _module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """``(imported module, names taken from it)`` for each import in ``path``.

    ``from pipelines import fetch`` counts as importing ``pipelines.fetch``.
    """
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = tuple(alias.name for alias in node.names)
            found.append((node.module, names))
            found += [(f"{node.module}.{name}", ()) for name in names]
    return found


def _modules(*directories):
    for directory in directories:
        for path in sorted((ROOT / directory).rglob("*.py")):
            yield _module_name(path), path


def _within(module, *packages):
    return any(module == p or module.startswith(f"{p}.") for p in packages)


def _violations(importers, banned):
    return sorted(
        (name, imported)
        for name, path in importers
        for imported, _ in _imports(path)
        if banned(imported)
    )


def test_crawllib_imports_no_beam_and_no_shell():
    found = _violations(
        _modules("crawllib"),
        lambda m: _within(m, "apache_beam", "pipelines", "beamcrawl"),
    )

    assert found == []


def test_storage_and_runtime_import_no_command_and_no_transforms():
    found = _violations(
        _modules("pipelines/storage", "pipelines/runtime"),
        lambda m: m in COMMANDS or _within(m, "pipelines.transforms"),
    )

    assert found == []


def test_transforms_import_no_command_beyond_the_known_debts():
    found = _violations(_modules("pipelines/transforms"), COMMANDS.__contains__)

    assert set(found) - TRANSFORM_DEBTS == set()


def test_transforms_never_use_a_commands_command_line():
    """Not ``fetch.execute(...)`` nor ``from pipelines.fetch import run``."""
    used = []
    for name, path in _modules("pipelines/transforms"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for imported, names in _imports(path):
            if imported in COMMANDS:
                used += [(name, imported, n) for n in names if n in COMMAND_LINE]
        aliases = {a.asname or a.name for n in ast.walk(tree) for a in _from(n)}
        used += [
            (name, node.value.id, node.attr)
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and node.attr in COMMAND_LINE
        ]

    assert used == []


def _from(node):
    """The aliases ``from pipelines import fetch`` binds to command modules."""
    if isinstance(node, ast.ImportFrom) and node.module == "pipelines":
        return [a for a in node.names if f"pipelines.{a.name}" in COMMANDS]
    return []


def test_front_modules_import_no_beam_no_command_and_no_transforms():
    found = _violations(
        _modules("pipelines/cli"),
        lambda m: m in COMMANDS or _within(m, "apache_beam", "pipelines.transforms"),
    )

    assert found == []


def test_beamcrawl_imports_only_what_it_reexports():
    import beamcrawl

    tree = ast.parse((ROOT / "beamcrawl" / "__init__.py").read_text(encoding="utf-8"))
    bound = [
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    ]

    assert set(bound) - set(beamcrawl.__all__) - BEAMCRAWL_DEBTS == set()


BROKEN = [
    ("crawllib/bad.py", "import apache_beam as beam\n"),
    ("crawllib/bad.py", "from pipelines import fetch\n"),
    ("crawllib/bad.py", "def f():\n    from beamcrawl import Fetch\n"),
    ("pipelines/storage/bad.py", "from pipelines.fetch import Fetch\n"),
    ("pipelines/runtime/bad.py", "from pipelines.transforms import library\n"),
    ("pipelines/transforms/bad.py", "import pipelines.readdb\n"),
    ("pipelines/transforms/bad.py", "from pipelines.fetch import run\n"),
    ("pipelines/transforms/bad.py", "from pipelines import parse\nparse.execute()\n"),
    ("beamcrawl/__init__.py", "from crawllib.status import Mark\n"),
    ("pipelines/cli/bad.py", "from apache_beam.io.filesystems import FileSystems\n"),
    ("pipelines/cli/bad.py", "def f():\n    from pipelines.fetch import Fetch\n"),
]
LAYERS = (
    "crawllib",
    "pipelines/storage",
    "pipelines/runtime",
    "pipelines/transforms",
    "pipelines/cli",
    "beamcrawl",
)
RULES = [
    test_crawllib_imports_no_beam_and_no_shell,
    test_storage_and_runtime_import_no_command_and_no_transforms,
    test_transforms_import_no_command_beyond_the_known_debts,
    test_transforms_never_use_a_commands_command_line,
    test_front_modules_import_no_beam_no_command_and_no_transforms,
    test_beamcrawl_imports_only_what_it_reexports,
]


@pytest.mark.parametrize(("path", "source"), BROKEN)
def test_a_broken_rule_is_caught(tmp_path, monkeypatch, path, source):
    """The checks above can fail: one module with a banned import fails a rule."""
    for directory in LAYERS:
        (tmp_path / directory).mkdir(parents=True)
    (tmp_path / "beamcrawl" / "__init__.py").write_text("")
    (tmp_path / path).write_text(source)
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)

    failed = []
    for rule in RULES:
        try:
            rule()
        except AssertionError:
            failed.append(rule.__name__)

    assert failed != []
