"""Text, title and link targets from an lxml tree, by Nutch's DOMContentUtils rules.

DOMContentUtils walks the DOM node by node. Here lxml does the walking in C
and Python touches only the elements that matter, which gives the same
result:

- Text nodes are lxml's ``text`` and ``tail`` strings; XPath ``//text()``
  (or ``itertext()``) lists them in document order, without comments.
  First, ``script`` and ``style`` lose their text, and every element named
  in ``parser.html.line.separators`` gets a break mark at the start of its
  text and, when a node follows it, of its tail: the two places where
  getTextHelper adds a paragraph break for it.
- :func:`flatten` then applies getTextHelper's rules to the joined text
  nodes with a few regular expressions: each node's runs of Java whitespace
  become one space and its ends are trimmed; a non-empty node is added after
  one space (none at the start or after a break); a blank node, like a mark,
  adds one newline (none at the start, never two).
- Links are the elements of the link table (:func:`link_table`), visited with
  ``iter()`` before the marks are set, since the "throw away" rules look at
  the original child nodes.

The marks are two noncharacters, so a page that contains them itself gets a
break or a space there; nothing else changes.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import cast

from lxml import etree

from crawllib.config.parse import HtmlConfig

BREAK = "\ufdd0"
"""The mark for a paragraph break (a line separator element starts or ends)."""

_NODE = "\ufdd1"  # joins text nodes
_EDGES = "".join(chr(code) for code in range(0x21))  # Java String.trim()
# Character.isWhitespace: str.isspace() less \x85, \xa0, \u2007 and \u202f
_JAVA_WHITESPACE = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2008\u2009\u200a\u2028\u2029\u205f\u3000"
)
# Java's \s+ -> " ", skipping lone spaces (most runs, and already right)
_FOLD = re.compile(r"[\t\n\x0b\x0c\r][ \t\n\x0b\x0c\r]*| [ \t\n\x0b\x0c\r]+")
_BLANK_NODE = re.compile(r"[\ufdd0\ufdd1][\x00-\x20]+(?=[\ufdd0\ufdd1]|\Z)")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f]")
_NODE_EDGES = re.compile(
    r"[\x00-\x20]+(?=[\ufdd0\ufdd1])|(?<=[\ufdd0\ufdd1])[\x00-\x20]+"
)
_BREAKS = re.compile(r"\ufdd0[\ufdd0\ufdd1]*")
_NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NOFOLLOW = re.compile(r"\bnofollow\b", re.IGNORECASE)
ALT_WALK_LIMIT = 1000
"""Elements the img-alt fallback of an anchor looks at, at most (Nutch walks
the whole subtree: quadratic time on pages of nested empty links)."""

_EVENTS = ("start", "end", "comment", "pi")  # iterwalk skips comments otherwise
_LOCAL = threading.local()  # an XPath object serializes the threads using it


@dataclass(frozen=True, slots=True)
class LinkRule:
    """One row of DOMContentUtils' link table.

    Attributes:
        attribute: the attribute that holds the target.
        needs_children: an element without child nodes gives no link.
    """

    attribute: str
    needs_children: bool


@dataclass(frozen=True, slots=True)
class RawLink:
    """A link element that passed the throw-away, rel and method checks."""

    element: etree._Element
    target: str


@functools.lru_cache(maxsize=16)
def link_table(config: HtmlConfig) -> Mapping[str, LinkRule]:
    """DOMContentUtils.setConf: the link elements, less the ignored tags."""
    table = {
        "a": LinkRule("href", True),
        "area": LinkRule("href", False),
        "form": LinkRule("action", True),
        "frame": LinkRule("src", False),
        "iframe": LinkRule("src", False),
        "script": LinkRule("src", False),
        "link": LinkRule("href", False),
        "img": LinkRule("src", False),
        "source": LinkRule("src", False),
    }
    if not config.form_use_action:
        del table["form"]
    forced = (
        {"form"} if config.form_use_action and config.form_use_action_set else set()
    )
    for tag in config.ignore_tags - forced:
        table.pop(tag, None)
    return table


def find_links(root: etree._Element, table: Mapping[str, LinkRule]) -> list[RawLink]:
    """The link elements of ``root`` in document order, as getOutlinks keeps them.

    Dropped: elements the throw-away rules reject, those without the target
    attribute, with a ``rel`` holding the word ``nofollow`` or with
    ``method="post"``.
    """
    links = []
    for element in root.iter(*table):
        rule = table[element.tag]
        target = element.get(rule.attribute)
        if target is None or _throw_away(element, rule.needs_children):
            continue
        rel = element.get("rel")
        if rel is not None and _NOFOLLOW.search(rel):
            continue
        method = element.get("method")
        if method is not None and method.lower() == "post":
            continue
        links.append(RawLink(element, target))
    return links


def _throw_away(element: etree._Element, needs_children: bool) -> bool:
    """DOMContentUtils.shouldThrowAwayLink: empty links and Neko fix-up leftovers."""
    text = element.text
    count = len(element)
    if count == 0:
        return needs_children and not text
    if count > 3:
        return False
    nodes: list[str | etree._Element] = [text] if text else []
    for child in element:
        nodes.append(child)
        if child.tail:
            nodes.append(child.tail)
    tag = element.tag
    if len(nodes) == 1:
        return _is(nodes[0], tag)
    if len(nodes) == 2:
        first, second = nodes
        return (_is(first, tag) and _blank(second)) or (
            _is(second, tag) and _blank(first)
        )
    if len(nodes) == 3:
        return _blank(nodes[0]) and _is(nodes[1], tag) and _blank(nodes[2])
    return False


def _is(node: str | etree._Element, tag: object) -> bool:
    return not isinstance(node, str) and node.tag == tag


def _blank(node: str | etree._Element) -> bool:
    return isinstance(node, str) and not node.strip(_JAVA_WHITESPACE)


def mark_text(
    root: etree._Element, breaks: tuple[str, ...]
) -> dict[etree._Element, str]:
    """Prepare ``root`` for :func:`flatten`; returns the script and style texts.

    Script and style elements lose their text (getTextHelper skips their
    children); each element in ``breaks`` gets :data:`BREAK` marks.
    """
    hidden = {}
    for element in root.iter("script", "style"):
        if element.text is not None:
            hidden[element] = element.text
            element.text = None
    if breaks:
        for element in root.iter(*breaks):
            text = element.text
            _set(element, "text", BREAK if text is None else BREAK + text)
            tail = element.tail
            if tail is not None or element.getnext() is not None:
                _set(element, "tail", BREAK if tail is None else BREAK + tail)
    return hidden


def _set(element: etree._Element, name: str, value: str) -> None:
    """Set text or tail; lxml refuses characters XML forbids (from ``&#1;``)."""
    try:
        setattr(element, name, value)
    except ValueError:
        setattr(element, name, _NOT_XML.sub("", value))


def flatten(nodes: Iterable[str]) -> str:
    """Apply getTextHelper's rules to text nodes that may hold :data:`BREAK` marks.

    The nodes are joined with a node mark. A blank node (after a mark, only
    characters up to U+0020 before the next mark) becomes a break; runs of
    Java whitespace become one space; each node is trimmed; then a run of
    marks holding a break gives a newline and a lone node mark one space.

    Node by node: the result of :func:`_flatten_joined`, which applies the
    rules to the joined text, without scanning the whole page several times.
    """
    nodes = nodes if isinstance(nodes, list) else list(nodes)
    if _NODE in "".join(nodes):  # the page holds a mark itself
        return _flatten_joined(nodes)
    out: list[str] = []
    run = ""  # the marks since the last non-empty piece
    marked = False  # the first piece of the first node follows no mark
    for node in nodes:
        node_mark = _NODE
        for piece in node.split(BREAK) if BREAK in node else (node,):
            mark, node_mark = node_mark, BREAK
            if piece:
                piece = piece.strip(_EDGES)
                if not piece:
                    mark = BREAK  # a blank node
                elif (
                    "  " in piece or "\n" in piece or "\t" in piece or "\r" in piece
                    or "\x0b" in piece or "\x0c" in piece
                ):  # fmt: skip
                    piece = _FOLD.sub(" ", piece)
            if marked:
                run += mark
            marked = True
            if piece:
                if run:
                    out.append(_run_text(run))
                    run = ""
                out.append(piece)
    if run:
        out.append(_run_text(run))
    return "".join(out).lstrip("\n ").rstrip(" ")


@functools.lru_cache(maxsize=256)
def _run_text(run: str) -> str:
    """A run of marks between two pieces of text: newlines or spaces."""
    return _BREAKS.sub("\n", run.replace(_NODE + BREAK, BREAK)).replace(_NODE, " ")


def _flatten_joined(nodes: list[str]) -> str:
    """:func:`flatten` by rewriting the joined text (any text, marks included)."""
    text = _BLANK_NODE.sub(BREAK, _NODE.join(nodes))
    # Python's re tests every character against a class (~8 ns each); a
    # bytes.translate that deletes the characters in question tells in a few
    # microseconds whether there is any (UTF-8 keeps them as single bytes)
    encoded = text.encode("utf-8", "surrogatepass")
    if b"  " in encoded or _has_any(encoded, _FOLDED_BYTES):
        text = _FOLD.sub(" ", text)
    if not _has_any(encoded, _CONTROL_BYTES):  # trimmed ends are single spaces now
        for mark in (_NODE, BREAK):
            text = text.replace(" " + mark, mark).replace(mark + " ", mark)
    else:
        text = _NODE_EDGES.sub("", text)
    text = text.strip(_EDGES).replace(_NODE + BREAK, BREAK)
    text = _BREAKS.sub("\n", text).replace(_NODE, " ")
    return text.lstrip("\n ").rstrip(" ")


_FOLDED_BYTES = b"\t\n\x0b\x0c\r"
_CONTROL_BYTES = bytes(range(0x09)) + bytes(range(0x0E, 0x20))


def _has_any(encoded: bytes, characters: bytes) -> bool:
    return len(encoded.translate(None, characters)) != len(encoded)


def page_text(root: etree._Element) -> str:
    """DOMContentUtils.getText of the whole page, head included."""
    text_nodes = getattr(_LOCAL, "text_nodes", None)
    if text_nodes is None:  # faster than itertext
        text_nodes = _LOCAL.text_nodes = etree.XPath("//text()", smart_strings=False)
    return flatten(cast("list[str]", text_nodes(root)))


def element_text(element: etree._Element) -> str:
    """DOMContentUtils.getText of one element (the title), trimmed."""
    return flatten(_itertext(element)).strip(_EDGES)


def anchor_text(link: etree._Element, hidden: dict[etree._Element, str]) -> str:
    """The anchor of a link: its text up to a nested ``<a>``, else its img alts.

    As getOutlinks: ``getText(node, abortOnNestedAnchors)``, trimmed; if that
    is empty, the ``alt`` of the ``img`` elements and the raw text nodes of
    the subtree (scripts included), joined by spaces.
    """
    if link.tag in ("script", "style"):
        text = ""
    elif len(link) == 0:
        text = link.text or ""
        text = flatten((text,)) if BREAK in text else _FOLD.sub(" ", text)
    else:
        nested = link.iterdescendants("a")
        stop = next(nested, None)
        if link.tag != "a" and stop is not None:
            stop = next(nested, None)  # the second <a> aborts: the first counted
        text = flatten(
            _nodes_before(link, stop) if stop is not None else _itertext(link)
        )
    text = text.strip(_EDGES)
    return text or " ".join(_alt_texts(link, hidden)).strip(_EDGES)


def _itertext(element: etree._Element) -> Iterator[str]:
    """``element.itertext()`` (typed: HTML trees hold no bytes)."""
    return cast("Iterator[str]", element.itertext())


def _nodes_before(link: etree._Element, stop: etree._Element) -> Iterator[str]:
    """The text nodes of ``link`` in document order, up to element ``stop``."""
    for event, element in etree.iterwalk(link, events=_EVENTS):
        if event == "start":
            if element is stop:
                return
            if element.text:
                yield element.text
        elif element.tail and element is not link:  # an end, comment or pi
            yield element.tail


def _alt_texts(
    link: etree._Element, hidden: dict[etree._Element, str]
) -> Iterator[str]:
    """The "try harder" walk of getOutlinks: img alts and raw text nodes."""
    starts = 0
    for event, element in etree.iterwalk(link, events=_EVENTS):
        if event == "start":
            starts += 1
            if starts > ALT_WALK_LIMIT:
                return
            if element.tag == "img":
                alt = element.get("alt")
                if alt is not None and alt.strip(_EDGES):
                    yield alt
            text = hidden.get(element, element.text)
            if text:
                text = text.replace(BREAK, "")
                if text:
                    yield text
        elif element.tail and element is not link:
            tail = element.tail.replace(BREAK, "")
            if tail:
                yield tail
