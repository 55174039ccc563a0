"""MkDocs hooks: the repository's Markdown files as one site (mkdocs.yml).

The site's pages are ``docs/`` plus a few Markdown files that live beside
the code: ``README.md`` is the front page, ``DEVELOPERS.md``, the
benchmarks' and the examples' READMEs are pages too (``SITE_PAGES``). Every
file is written to read well where it lies in the repository, with links
relative to it; these hooks rewrite each link for the page's place on the
site:

- a link to a docs page or to one of ``SITE_PAGES`` (a directory link goes
  to its ``README.md``) points at that page;
- a link to any other file of the repository (a script, the Dockerfile, an
  example's code) becomes its path in code, since the site does not carry
  it;
- a link to nothing, or out of the repository, is a warning, which
  ``mkdocs build --strict`` turns into a failed build.

Links in fenced code blocks and web addresses are left as they are. A
nested list item indented by two or three spaces, as GitHub reads it, is
indented by four, as Python-Markdown needs it.
"""

from __future__ import annotations

import logging
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[1]
DOCS_DIR = "docs"

SITE_PAGES: dict[str, str] = {  # repository file -> its page on the site
    "README.md": "index.md",
    "DEVELOPERS.md": "developers.md",
    "bench/README.md": "benchmarks.md",
    "examples/README.md": "examples/index.md",
    "examples/csv_fetch/README.md": "examples/csv_fetch.md",
    "examples/news_policy/README.md": "examples/news_policy.md",
    "examples/news_search/README.md": "examples/news_search.md",
}

_LOG = logging.getLogger("mkdocs.plugins.beamcrawl")
_LINK = re.compile(r"(?<!!)\[((?:[^\]\[]|\[[^\]]*\])*)\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_NESTED_ITEM = re.compile(r"^( {2,})(?=(?:[-*+]|\d+\.) )")
_SOURCES: dict[str, str] = {}  # site page -> repository file


def on_config(config: MkDocsConfig, **_: Any) -> MkDocsConfig:
    """Give headings the anchors GitHub gives them, so links work in both."""
    config.mdx_configs.setdefault("toc", {})["slugify"] = github_anchor
    return config


def github_anchor(heading: str, separator: str) -> str:
    """The anchor GitHub gives a heading: ``Where to put ...``, ``where-to-put-``."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", separator)


def on_files(files: Files, config: MkDocsConfig, **_: Any) -> Files:
    """Add ``SITE_PAGES`` to the site, each read from its repository file."""
    for repo_path, site_path in SITE_PAGES.items():
        text = (ROOT / repo_path).read_text(encoding="utf-8")
        files.append(File.generated(config, site_path, content=text))
        _SOURCES[site_path] = repo_path
    return files


def on_page_markdown(markdown: str, page: Page, **_: Any) -> str:
    """Rewrite the page's relative links from repository paths to the site's."""
    site_path = page.file.src_uri
    repo_path = _SOURCES.get(site_path, f"{DOCS_DIR}/{site_path}")
    return rewrite_links(markdown, repo_path, site_path)


def _nest(line: str) -> str:
    """Indent a nested list item by a multiple of four spaces."""
    return _NESTED_ITEM.sub(lambda m: " " * (-(-len(m.group(1)) // 4) * 4), line)


def rewrite_links(markdown: str, repo_path: str, site_path: str) -> str:
    """Return ``markdown`` (the file at ``repo_path``) as the page ``site_path``.

    Outside fenced code blocks, links are rewritten and nested list items
    indented for Python-Markdown.
    """
    lines = markdown.split("\n")
    in_fence = False
    for number, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence:
            lines[number] = _LINK.sub(
                lambda match: _site_link(match, repo_path, site_path), _nest(line)
            )
    return "\n".join(lines)


def _site_link(match: re.Match[str], repo_path: str, site_path: str) -> str:
    text, target = match.group(1), match.group(2)
    if "://" in target or target.startswith(("mailto:", "#")):
        return match.group(0)
    path, _, anchor = target.partition("#")
    resolved = posixpath.normpath(posixpath.join(posixpath.dirname(repo_path), path))
    if resolved.startswith("..") or not (ROOT / resolved).exists():
        _LOG.warning(
            "%s links to %s, which is not in the repository", repo_path, target
        )
        return match.group(0)
    page = _page_of(resolved)
    if page is None:
        return text if text.startswith("`") else f"{text} (`{resolved}`)"
    relative = posixpath.relpath(page, posixpath.dirname(site_path) or ".")
    return f"[{text}]({relative}{'#' + anchor if anchor else ''})"


def _page_of(repo_path: str) -> str | None:
    """The site page of a repository file or directory, or None."""
    if (ROOT / repo_path).is_dir():
        repo_path = posixpath.join(repo_path, "README.md")
    if repo_path in SITE_PAGES:
        return SITE_PAGES[repo_path]
    prefix = f"{DOCS_DIR}/"
    if repo_path.startswith(prefix) and repo_path.endswith(".md"):
        return repo_path.removeprefix(prefix)
    return None
