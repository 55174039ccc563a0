"""Page text and links by the C walk over libxml2's tree, when it is built.

``crawllib/parse/_fastdom.c`` applies the rules of :mod:`crawllib.parse.htmldom`
(the reference) in one pass over the tree's nodes: ``text_nodes`` +
``flatten`` for the page text, ``find_links`` + ``anchor_text`` for the links.
It is an optional part of the install (setup.py): it reads lxml's element
struct, so it is used only with the lxml release it was compiled against.

Each function returns None where the Python path must answer instead: the
extension is missing, turned off with ``BEAMCRAWL_PURE_PYTHON=1``, built for
another lxml, or the tree holds a node it was not written for (an element in
a namespace, an entity reference). Pages whose text holds the mark
characters of :mod:`~crawllib.parse.htmldom` never come here.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Collection
from types import ModuleType

from lxml import etree

from crawllib.config.parse import HtmlConfig
from crawllib.parse.htmldom import link_table

PURE_PYTHON_ENV = "BEAMCRAWL_PURE_PYTHON"
"""Set to a non-empty value to parse without the C walk."""

_LOG = logging.getLogger(__name__)


def _load() -> ModuleType | None:
    """The extension, if it may be used here."""
    if os.environ.get(PURE_PYTHON_ENV):
        return None
    try:
        from crawllib.parse import _fastdom
    except ImportError:
        return None
    if etree.__version__ != _fastdom.LXML_VERSION:
        _LOG.info(
            "parsing without the C walk: it was built for lxml %s, this is %s "
            "(reinstall beamcrawl to rebuild it)",
            _fastdom.LXML_VERSION,
            etree.__version__,
        )
        return None
    return _fastdom


_C = _load()


def available() -> bool:
    """Whether the C walk is in use in this process."""
    return _C is not None


def page_text(root: etree._Element, breaks: Collection[str]) -> str | None:
    """``htmldom.page_text`` of a page without marks of its own, or None."""
    if _C is None:
        return None
    text: str | None = _C.page_text(root, _names(frozenset(breaks)))
    return text


def links(
    root: etree._Element, config: HtmlConfig, breaks: Collection[str]
) -> list[tuple[str, str]] | None:
    """``(target, anchor_text)`` of each of ``htmldom.find_links``, or None."""
    if _C is None:
        return None
    found: list[tuple[str, str]] | None = _C.links(
        root, _rules(config), _names(frozenset(breaks))
    )
    return found


@functools.lru_cache(maxsize=16)
def _names(breaks: frozenset[str]) -> tuple[str, ...]:
    return tuple(breaks)


@functools.lru_cache(maxsize=16)
def _rules(config: HtmlConfig) -> tuple[tuple[str, str, bool], ...]:
    return tuple(
        (tag, rule.attribute, rule.needs_children)
        for tag, rule in link_table(config).items()
    )
