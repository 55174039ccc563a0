"""The documentation site builds with ``mkdocs build --strict``, whole.

mkdocs.yml makes the site of docs/ and, through scripts/docsite.py, of
README.md (the front page), DEVELOPERS.md, bench/README.md and the
examples' READMEs. A broken link or anchor, a page missing from the nav or a
nav entry without a page fails the build; these tests build it as CI does,
check that a broken link really fails it, and that the command reference
has a section for every command.
"""

import importlib.util
import logging
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.cli import COMMANDS

ROOT = Path(__file__).resolve().parents[1]
UNRENDERED_FENCE = re.compile(r"<p><code>[^<]*\n[^<]*</code></p>")


def _build(config, site_dir):
    command = ["mkdocs", "build", "--strict", "--config-file", str(config)]
    return subprocess.run(
        [sys.executable, "-m", *command, "--site-dir", str(site_dir)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    site_dir = tmp_path_factory.mktemp("site")
    built = _build(ROOT / "mkdocs.yml", site_dir)

    assert built.returncode == 0, built.stderr
    return site_dir


def _docsite():
    spec = importlib.util.spec_from_file_location(
        "docsite", ROOT / "scripts" / "docsite.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_is_the_front_page(site):
    front = (site / "index.html").read_text(encoding="utf-8")

    assert '<h1 id="beamcrawl">beamcrawl</h1>' in front
    assert 'href="crawl-your-site.html"' in front
    assert 'href="examples/index.html"' in front


def test_every_page_of_the_repository_is_on_the_site(site):
    pages = sorted(p.relative_to(ROOT / "docs") for p in (ROOT / "docs").glob("*.md"))
    pages += [Path(p) for p in _docsite().SITE_PAGES.values()]

    missing = [p for p in pages if not (site / p.with_suffix(".html")).is_file()]

    assert missing == []


def test_no_code_block_is_left_unrendered(site):
    """A fence inside a list item is text to Python-Markdown: keep them out."""
    pages = sorted(site.rglob("*.html"))
    broken = [
        str(page.relative_to(site))
        for page in pages
        if UNRENDERED_FENCE.search(page.read_text(encoding="utf-8"))
    ]

    assert broken == []


def test_a_broken_link_fails_the_build(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(ROOT / "docs", docs)
    page = docs / "troubleshooting.md"
    page.write_text(page.read_text() + "\nSee [gone](nothing-here.md).\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text(
        f"INHERIT: {ROOT / 'mkdocs.yml'}\n"
        f"docs_dir: {docs}\n"
        f"hooks:\n  - {ROOT / 'scripts' / 'docsite.py'}\n"
        "watch: []\n"
    )

    built = _build(config, tmp_path / "site")

    assert built.returncode == 1
    assert "docs/troubleshooting.md links to nothing-here.md" in built.stderr


def test_links_are_rewritten_from_the_repository_to_the_site(caplog):
    docsite = _docsite()
    readme = "[a](docs/safety.md#local-files) [b](examples/) [c](Dockerfile)"
    page = "[d](../README.md) [`e`](../setup.py) [f](https://beam.apache.org/)"
    broken = "[g](no/such/file.md) [h](../../outside.md)"

    with caplog.at_level(logging.WARNING, logger="mkdocs.plugins.beamcrawl"):
        assert docsite.rewrite_links(readme, "README.md", "index.md") == (
            "[a](safety.md#local-files) [b](examples/index.md) c (`Dockerfile`)"
        )
        assert docsite.rewrite_links(page, "docs/x.md", "x.md") == (
            "[d](index.md) `e` [f](https://beam.apache.org/)"
        )
        assert docsite.rewrite_links(broken, "docs/x.md", "x.md") == broken

    assert len(caplog.records) == 2


def test_a_link_in_a_code_block_is_left_alone():
    text = "```\n[a](nowhere.md)\n```\n"

    assert _docsite().rewrite_links(text, "docs/x.md", "x.md") == text


def test_nested_list_items_are_indented_for_python_markdown():
    text = "- a\n  - b\n   1. c\n  text\n```\n  - code\n```\n"

    assert _docsite().rewrite_links(text, "docs/x.md", "x.md") == (
        "- a\n    - b\n    1. c\n  text\n```\n  - code\n```\n"
    )


def test_headings_get_the_anchors_github_gives_them():
    anchor = _docsite().github_anchor

    assert anchor("Where to put ...", "-") == "where-to-put-"
    assert anchor("How much a round takes: --topN", "-") == (
        "how-much-a-round-takes---topn"
    )


def test_every_command_has_a_section_in_the_command_reference():
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\S+)$", text, flags=re.MULTILINE))

    assert sorted(set(COMMANDS) - sections) == []
    assert [f"beamcrawl {name} " in text for name in COMMANDS] == [True] * len(COMMANDS)
