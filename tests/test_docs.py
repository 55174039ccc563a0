"""The docs name only code that exists: they cannot rot silently.

Every repository path (``crawllib/urls/cleaner.py``, ``pipelines/storage/``,
``tests/e2e/test_flink*.py``) and every dotted module name
(``pipelines.runtime.dryrun``, ``crawllib.terminal.printable``) in every page
of the documentation site (README.md, DEVELOPERS.md, bench/README.md, the
examples' READMEs and docs/*.md) must exist, every relative link must
resolve inside the repository, and docs/architecture.md links nowhere else.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SITE_FILES = ("README.md", "DEVELOPERS.md", "bench/README.md", "examples/README.md")
DOCS = SITE_FILES + tuple(
    str(path.relative_to(ROOT))
    for pattern in ("examples/*/README.md", "docs/*.md")
    for path in sorted(ROOT.glob(pattern))
)
TOP = r"(?:beamcrawl|crawllib|pipelines|tests|docs|examples|scripts)"
PATH = re.compile(rf"(?<![\w./<-]){TOP}/[\w./*-]*")
MODULE = re.compile(r"(?<![\w./<-])(?:beamcrawl|crawllib|pipelines)(?:\.\w+)+")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _text(doc):
    return (ROOT / doc).read_text(encoding="utf-8")


def _paths(text):
    return sorted({match.rstrip("./") for match in PATH.findall(text)})


def _exists(path):
    return any(ROOT.glob(path)) if "*" in path else (ROOT / path).exists()


def _module_exists(dotted):
    """``a.b.c`` is a module, or a name defined at the top of module ``a.b``."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:end])
        for source in (base.with_suffix(".py"), base / "__init__.py"):
            if source.is_file():
                rest = parts[end:]
                return not rest or rest[0] in _top_level_names(source)
    return False


def _top_level_names(source):
    names = set()
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names |= {a.asname or a.name.partition(".")[0] for a in node.names}
    return names


@pytest.mark.parametrize("doc", DOCS)
def test_every_path_a_doc_names_exists(doc):
    missing = [p for p in _paths(_text(doc)) if not _exists(p)]

    assert missing == []


@pytest.mark.parametrize("doc", DOCS)
def test_every_module_a_doc_names_exists(doc):
    names = sorted(set(MODULE.findall(_text(doc))))

    assert [name for name in names if not _module_exists(name)] == []


@pytest.mark.parametrize("doc", DOCS)
def test_every_relative_link_resolves_in_the_repository(doc):
    base = (ROOT / doc).parent
    targets = [t.partition("#")[0] for t in LINK.findall(_text(doc))]
    local = [t for t in targets if t and "://" not in t and not t.startswith("mailto:")]

    outside = [t for t in local if not (base / t).resolve().is_relative_to(ROOT)]
    broken = [t for t in local if not (base / t).exists()]

    assert (outside, broken) == ([], [])


def test_the_architecture_links_only_inside_the_repository():
    targets = LINK.findall(_text("docs/architecture.md"))

    assert [t for t in targets if "://" in t or t.startswith("mailto:")] == []


def test_the_architecture_names_every_command_module():
    text = _text("docs/architecture.md")
    commands = sorted(p.name for p in (ROOT / "pipelines").glob("*.py"))

    assert [c for c in commands if f"pipelines/{c}" not in text] == ["__init__.py"]


def test_a_missing_path_or_module_is_caught():
    text = "see `crawllib/urls/nothing.py`, `pipelines.storage.nothing` and "
    text += "`crawllib.terminal.nothing`, beside `crawllib/urls/cleaner.py`"

    assert [p for p in _paths(text) if not _exists(p)] == ["crawllib/urls/nothing.py"]
    names = sorted(set(MODULE.findall(text)))
    assert [n for n in names if not _module_exists(n)] == names
