r"""Text, title and link targets from an lxml tree, by Nutch's DOMContentUtils rules.

DOMContentUtils walks the DOM node by node. Here libxml2 and libxslt do the
walking in C and Python touches only the elements that matter, which gives
the same result:

- Text nodes are lxml's ``text`` and ``tail`` strings, in document order,
  without comments; ``script`` and ``style`` give none. Each element named in
  ``parser.html.line.separators`` adds a break mark before its text and, when
  a node follows it, before its tail: the two places where getTextHelper adds
  a paragraph break for it.
- :func:`flatten` applies getTextHelper's rules to such text nodes: each
  node's runs of Java whitespace become one space and its ends are trimmed;
  a non-empty node is added after one space (none at the start or after a
  break); a blank node, like a mark, adds one newline (none at the start,
  never two).
- The page's text (:func:`page_text`) comes from an XSLT stylesheet that
  does all of that in libxslt (``normalize-space`` is Java's ``\s+`` and
  ``trim()`` on text without control characters) and writes one string of
  text and marks; pages with control characters or marks of their own take
  the node-by-node path. The tree is never changed.
- Links are the elements of the link table (:func:`link_table`).

The marks are two noncharacters, so a page that contains them itself gets a
break or a space there; nothing else changes.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple, cast

from lxml import etree

from crawllib.config.parse import HtmlConfig
from crawllib.java import TRIMMED, is_java_blank

BREAK = "\ufdd0"
"""The mark for a paragraph break (a line separator element starts or ends)."""

_NODE = "\ufdd1"  # joins text nodes
# Java's \s+ -> " ", skipping lone spaces (most runs, and already right)
_FOLD = re.compile(r"[\t\n\x0b\x0c\r][ \t\n\x0b\x0c\r]*| [ \t\n\x0b\x0c\r]+")
_BLANK_NODE = re.compile(r"[\ufdd0\ufdd1][\x00-\x20]+(?=[\ufdd0\ufdd1]|\Z)")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f]")
# runs of characters up to U+0020 before or after a mark; a run is tried only
# from its start, and whole (the plain ``[\x00-\x20]+(?=...)`` retried every
# position of a run: quadratic time, in C with the GIL held, on a page of
# control characters)
_NODE_EDGES = re.compile(
    r"(?<![\x00-\x20])[\x00-\x20]++(?=[\ufdd0\ufdd1])|(?<=[\ufdd0\ufdd1])[\x00-\x20]++"
)
_BREAKS = re.compile(r"\ufdd0[\ufdd0\ufdd1]*")
_NOFOLLOW = re.compile(r"\bnofollow\b", re.IGNORECASE)
ALT_WALK_LIMIT = 1000
"""Elements the img-alt fallback of an anchor looks at, at most (Nutch walks
the whole subtree: quadratic time on pages of nested empty links)."""

_EVENTS = ("start", "end", "comment", "pi")  # iterwalk skips comments otherwise
_LOCAL = threading.local()  # an XSLT object is for one thread at a time


@dataclass(frozen=True, slots=True)
class LinkRule:
    """One row of DOMContentUtils' link table.

    Attributes:
        attribute: the attribute that holds the target.
        needs_children: an element without child nodes gives no link.
    """

    attribute: str
    needs_children: bool


class RawLink(NamedTuple):
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


def link_anchors(
    root: etree._Element, table: Mapping[str, LinkRule], breaks: Collection[str]
) -> list[tuple[str, str]]:
    """``(target, anchor_text)`` of each of :func:`find_links`, in document order."""
    return [
        (link.target, anchor_text(link.element, breaks))
        for link in find_links(root, table)
    ]


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
    return isinstance(node, str) and is_java_blank(node)


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
                piece = piece.strip(TRIMMED)
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
    text = text.strip(TRIMMED).replace(_NODE + BREAK, BREAK)
    text = _BREAKS.sub("\n", text).replace(_NODE, " ")
    return text.lstrip("\n ").rstrip(" ")


_FOLDED_BYTES = b"\t\n\x0b\x0c\r"
_CONTROL_BYTES = bytes(range(0x09)) + bytes(range(0x0E, 0x20))


def _has_any(encoded: bytes, characters: bytes) -> bool:
    return len(encoded.translate(None, characters)) != len(encoded)


def page_text(
    root: etree._Element, breaks: Collection[str], own_marks: bool = True
) -> str:
    """DOMContentUtils.getText of the whole page, head included.

    Args:
        root: the page's root element.
        breaks: the line separator elements (``parser.html.line.separators``).
        own_marks: whether the page's text may hold the mark characters
            (:func:`holds_marks`); only a page without them is flattened by
            the stylesheet.
    """
    breaks = frozenset(breaks)
    stylesheet = None if own_marks else _text_stylesheet(breaks)
    if stylesheet is not None:
        try:
            written = bytes(stylesheet(root))
        except etree.XSLTError:
            written = b"\x00"
        # normalize-space is Java's \s+ and trim() but for these characters
        if not _has_any(written, _NOT_FOLDED_BYTES):
            return _marks_to_text(written.decode("utf-8"))
    return flatten(list(text_nodes(root, breaks)))


def holds_marks(text: str) -> bool:
    """Whether ``text`` holds :data:`BREAK` or the node mark itself."""
    return BREAK in text or _NODE in text


def _marks_to_text(written: str) -> str:
    """The stylesheet's output as text: marks become newlines and spaces.

    Each text node is written normalized after a node mark; a blank one (a
    node mark with nothing after it) is a break, as a line separator's mark.
    """
    text = _BLANK_NODE_MARK.sub(BREAK, written)
    return _BREAKS.sub("\n", text).replace(_NODE, " ").lstrip("\n ").rstrip(" ")


_BLANK_NODE_MARK = re.compile("\ufdd1(?=[\ufdd0\ufdd1]|\\Z)")
_NOT_FOLDED_BYTES = bytes(range(0x09)) + b"\x0b\x0c" + bytes(range(0x0E, 0x20))
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_STYLESHEET = """\
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
<xsl:output method="text" encoding="UTF-8"/>
<xsl:template match="text()">&#xFDD1;<xsl:value-of select="normalize-space()"/>\
</xsl:template>
<xsl:template match="script|style"/>
{break_templates}
</xsl:stylesheet>"""
_BREAK_TEMPLATE = """\
<xsl:template match="{names}">&#xFDD0;<xsl:apply-templates/>\
<xsl:if test="following-sibling::node()">&#xFDD0;</xsl:if></xsl:template>"""
_HIDDEN_BREAK = """\
<xsl:template match="{names}" priority="1">&#xFDD0;\
<xsl:if test="following-sibling::node()">&#xFDD0;</xsl:if></xsl:template>"""


def _text_stylesheet(breaks: frozenset[str]) -> etree.XSLT | None:
    """The page text stylesheet for these line separators, one per thread.

    None when a separator is no XML name (the text is then taken node by node).
    """
    stylesheets: dict[frozenset[str], etree.XSLT | None] | None = getattr(
        _LOCAL, "stylesheets", None
    )
    if stylesheets is None:
        stylesheets = _LOCAL.stylesheets = {}
    if breaks not in stylesheets:
        stylesheets[breaks] = _build_stylesheet(breaks)
    return stylesheets[breaks]


def _build_stylesheet(breaks: frozenset[str]) -> etree.XSLT | None:
    if not all(_NAME.fullmatch(name) for name in breaks):
        return None
    names = sorted(breaks)
    hidden = "|".join(name for name in names if name in ("script", "style"))
    shown = "|".join(name for name in names if name not in ("script", "style"))
    templates = [
        _BREAK_TEMPLATE.format(names=shown) if shown else "",
        _HIDDEN_BREAK.format(names=hidden) if hidden else "",
    ]
    return etree.XSLT(
        etree.XML(_STYLESHEET.format(break_templates="\n".join(templates)))
    )


def text_nodes(
    element: etree._Element,
    breaks: Collection[str],
    stop: etree._Element | None = None,
) -> Iterator[str]:
    """The text nodes of ``element``'s subtree with their break marks, up to ``stop``.

    In document order, without comments, ``element``'s own tail or the text
    of ``script`` and ``style``; a line separator element's text (or, if it
    has none, an empty node) starts with :data:`BREAK`, and so does its tail
    when a node follows it.
    """
    for event, node in etree.iterwalk(element, events=_EVENTS):
        if event == "start":
            if node is stop:
                return
            tag = node.tag
            text = None if tag == "script" or tag == "style" else node.text
            if tag in breaks:
                text = BREAK if text is None else BREAK + text
            if text:
                yield text
        elif node is not element:  # an end, comment or pi
            tail = node.tail
            if node.tag in breaks and (tail is not None or node.getnext() is not None):
                tail = BREAK if tail is None else BREAK + tail
            if tail:
                yield tail


def _subtree_text(element: etree._Element, breaks: Collection[str]) -> Iterator[str]:
    """:func:`text_nodes` of ``element``, by ``itertext`` when nothing is marked."""
    if len(element) == 0 and element.tag not in breaks:  # a title: what itertext gives
        text = element.text
        return iter(()) if text is None else iter((text,))
    if element.tag in breaks or _has_marked(element, breaks):
        return text_nodes(element, breaks)
    return cast("Iterator[str]", element.itertext())


_LOOKED_AT = 64  # descendants checked one by one before lxml's tag search


def _has_marked(element: etree._Element, breaks: Collection[str]) -> bool:
    """Whether a descendant is a line separator, ``script`` or ``style``.

    lxml's search by tag names costs ~12 us to set up, a few small
    descendants ~0.1 us each: the first ones are looked at here.
    """
    for looked_at, node in enumerate(element.iterdescendants()):
        if looked_at == _LOOKED_AT:
            marked = element.iterdescendants(*breaks, "script", "style")
            return next(marked, None) is not None
        tag = node.tag
        if tag in breaks or tag == "script" or tag == "style":
            return True
    return False


def element_text(element: etree._Element, breaks: Collection[str]) -> str:
    """DOMContentUtils.getText of one element (the title), trimmed."""
    return flatten(_subtree_text(element, breaks)).strip(TRIMMED)


def anchor_text(link: etree._Element, breaks: Collection[str]) -> str:
    """The anchor of a link: its text up to a nested ``<a>``, else its img alts.

    As getOutlinks: ``getText(node, abortOnNestedAnchors)``, trimmed; if that
    is empty, the ``alt`` of the ``img`` elements and the raw text nodes of
    the subtree (scripts included), joined by spaces.
    """
    if link.tag in ("script", "style"):
        text = ""
    elif len(link) == 0:
        text = link.text or ""
        if link.tag in breaks:
            text = BREAK + text
        text = flatten((text,)) if BREAK in text else _FOLD.sub(" ", text)
    else:
        nested = link.iterdescendants("a")
        stop = next(nested, None)
        if link.tag != "a" and stop is not None:
            stop = next(nested, None)  # the second <a> aborts: the first counted
        text = flatten(
            text_nodes(link, breaks, stop)
            if stop is not None
            else _subtree_text(link, breaks)
        )
    text = text.strip(TRIMMED)
    return text or " ".join(_alt_texts(link)).strip(TRIMMED)


def _alt_texts(link: etree._Element) -> Iterator[str]:
    """The "try harder" walk of getOutlinks: img alts and raw text nodes."""
    starts = 0
    for event, element in etree.iterwalk(link, events=_EVENTS):
        if event == "start":
            starts += 1
            if starts > ALT_WALK_LIMIT:
                return
            if element.tag == "img":
                alt = element.get("alt")
                if alt is not None and alt.strip(TRIMMED):
                    yield alt
            if element.text:
                yield element.text
        elif element.tail and element is not link:
            yield element.tail
