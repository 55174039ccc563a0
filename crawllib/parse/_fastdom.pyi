"""Types of the optional C extension built from _fastdom.c (see fastdom.py)."""

from collections.abc import Sequence

from lxml import etree

LXML_VERSION: str

def page_text(root: etree._Element, breaks: Sequence[str]) -> str | None: ...
def links(
    root: etree._Element,
    rules: Sequence[tuple[str, str, bool]],
    breaks: Sequence[str],
) -> list[tuple[str, str]] | None: ...
