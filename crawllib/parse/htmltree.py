"""Build the DOM of a decoded HTML page with libxml2 (lxml), NekoHTML's stand-in.

libxml2's HTML parser, like Neko, never fails on bad markup: it closes,
moves and drops tags as it must. One limit differs: it stops building the
tree at 2048 open elements (``huge_tree``; 256 without), while Neko nests
without end. When that happens the page is parsed again with the start tags
that open deeper than :data:`MAX_DEPTH` removed, so their content joins the
deepest kept element (browsers flatten too deep trees the same way) instead
of being lost.
"""

from __future__ import annotations

import re
import threading

from lxml import etree

MAX_DEPTH = 512
"""Open elements kept when a page is too deep for libxml2 (Chromium's limit)."""

_LOCAL = threading.local()
# Linear: a name ends at the first space, "/", "<" or ">", and only then may
# attributes follow. (The older ``<(/?)([A-Za-z][^\s/>]*)[^>]*>``, whose two
# runs overlap, backtracked in cubic time over ``<b<b<b...``.)
_TAG = re.compile(r"<(/?)([A-Za-z][^\s/<>]*)(?:[\s/][^<>]*)?>")
_VOID = frozenset(
    {"area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr",
     "image", "img", "input", "keygen", "link", "meta", "param", "source",
     "track", "wbr"}
)  # fmt: skip


def parse_tree(text: str) -> etree._Element | None:
    """The root ``html`` element of ``text``; None if it holds no element.

    The text goes to libxml2 as UTF-8 bytes: faster than a str, and lxml
    refuses a str that starts with an ``<?xml encoding=...?>`` declaration.

    Raises:
        lxml.etree.LxmlError: libxml2 gave up (not seen in practice).
    """
    parser = _parser()
    root = etree.fromstring(text.encode("utf-8", "replace"), parser)
    if any("Excessive depth" in error.message for error in parser.error_log):
        root = etree.fromstring(_flatten_deep(text).encode("utf-8", "replace"), parser)
    return root


def _parser() -> etree.HTMLParser:
    """One parser per thread: an lxml parser keeps state between parses."""
    parser: etree.HTMLParser | None = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = etree.HTMLParser(encoding="utf-8", collect_ids=False, huge_tree=True)
        _LOCAL.parser = parser
    return parser


def _flatten_deep(text: str) -> str:
    """``text`` with an end tag added wherever an element would open past MAX_DEPTH.

    At the limit, a new element first closes the deepest open one, so it
    becomes its next sibling (that element's own end tag is then dropped).
    Tags are found by a regular expression and an end tag closes the latest
    open element of its name, without libxml2's finer rules: good enough for
    the pathological pages that need it.
    """
    parts: list[str] = []
    done = 0  # text[:done] is in parts
    names: list[str] = []  # elements opened and not yet ended, in order
    still_open: list[bool] = []  # False: closed early, its end tag dropped
    where: dict[str, list[int]] = {}  # name -> its indexes in names
    open_at: list[int] = []  # indexes of the elements still open
    for tag in _TAG.finditer(text):
        name = tag[2].lower()
        if name in _VOID or tag[0].endswith("/>"):
            continue
        if not tag[1]:
            if len(open_at) >= MAX_DEPTH:
                deepest = open_at.pop()
                still_open[deepest] = False
                parts += (text[done : tag.start()], f"</{names[deepest]}>")
                done = tag.start()
            where.setdefault(name, []).append(len(names))
            open_at.append(len(names))
            names.append(name)
            still_open.append(True)
        elif where.get(name):
            at = where[name][-1]
            drop = not still_open[at]
            while len(names) > at:
                where[names.pop()].pop()
                if still_open.pop():
                    open_at.pop()
            if drop:
                parts.append(text[done : tag.start()])
                done = tag.end()
    parts.append(text[done:])
    return "".join(parts)
