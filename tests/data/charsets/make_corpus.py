"""Rebuild the charset corpus (``<language>.txt`` here) from text on a Debian box.

Not run by the tests: the corpus it wrote is committed beside it, and
README.md names every page's source. Run it with the repository's Python
after ``apt-get install python3-doc bash`` (Debian 12: Python 3.11.2 docs,
bash 5.2.15 catalogs)::

    python tests/data/charsets/make_corpus.py

A corpus file holds pages separated by a blank line; a page is its title
line, then one line per paragraph (whitespace collapsed).
"""

from __future__ import annotations

import gettext
from pathlib import Path

from lxml import html

HERE = Path(__file__).parent
PYTHON_DOCS = Path("/usr/share/doc/python3-dev/html")
LOCALE = Path("/usr/share/locale")
PAGES = 8
ENGLISH_PAGES = (
    "tutorial/appetite.html",
    "tutorial/interpreter.html",
    "tutorial/introduction.html",
    "tutorial/controlflow.html",
    "tutorial/floatingpoint.html",
    "tutorial/venv.html",
    "howto/sockets.html",
)
ENGLISH_MIN_CHARS = 700
# (file, gettext locale, the charsets each page must fit: per charset, the
# codecs that must give the same bytes, its encoder and beamcrawl's reader)
LANGUAGES = (
    ("fr", "fr", (("cp1252",), ("iso8859-15",))),
    ("de", "de", (("cp1252",), ("iso8859-15",))),
    ("ru", "ru", (("cp1251",), ("koi8-r",))),
    ("zh-Hans", "zh_CN", (("gbk", "gb18030"),)),
    ("zh-Hant", "zh_TW", (("big5", "big5hkscs"),)),
    ("ja", "ja", (("shift_jis", "cp932"),)),
    ("ko", "ko", (("euc_kr", "cp949"),)),
)
BASH_MIN_CHARS = 250  # of the English original: a help text, not a one-liner
# one French page holding "œ", where ISO-8859-15 and windows-1252 differ
FRENCH_OE_MSGID = "Command line interface to the Libidn2 implementation of IDNA2008."


def main() -> None:
    """Write every ``<language>.txt``."""
    _write("en", [*map(_python_doc_page, ENGLISH_PAGES), _acknowledgements()])
    for name, locale, charsets in LANGUAGES:
        pages = _bash_pages(locale, charsets)
        if name == "fr":
            pages = [*pages[: PAGES - 1], _libidn2_french_page()]
        _write(name, pages[:PAGES])


def _write(name: str, pages: list[list[str]]) -> None:
    text = "\n\n".join("\n".join(page) for page in pages) + "\n"
    (HERE / f"{name}.txt").write_text(text, encoding="utf-8")


def _collapse(text: str) -> str:
    return " ".join(text.split())


def _python_doc_page(path: str) -> list[str]:
    """The page's title and its first paragraphs, ENGLISH_MIN_CHARS or more."""
    root = html.parse(str(PYTHON_DOCS / path)).getroot()
    title = _collapse(root.find(".//h1").text_content()).rstrip("¶")
    body = root.find_class("body")[0]
    paragraphs: list[str] = []
    for element in body.iter("p"):
        paragraphs.append(_collapse(element.text_content()))
        if sum(map(len, paragraphs)) >= ENGLISH_MIN_CHARS:
            break
    return [title, *paragraphs]


def _acknowledgements() -> list[str]:
    """The Unicode HOWTO's thanks: Latin-1 letters, no curly quotes."""
    root = html.parse(str(PYTHON_DOCS / "howto/unicode.html")).getroot()
    paragraphs = (_collapse(p.text_content()) for p in root.iter("p"))
    thanks = next(p for p in paragraphs if p.startswith("Thanks to the following"))
    return ["Unicode HOWTO: Acknowledgements", thanks]


def _catalog(locale: str, domain: str) -> dict[object, str]:
    path = LOCALE / locale / "LC_MESSAGES" / f"{domain}.mo"
    with path.open("rb") as mo:
        catalog: dict[object, str] = gettext.GNUTranslations(mo)._catalog  # type: ignore[attr-defined]
    return catalog


def _bash_pages(locale: str, charsets: tuple[tuple[str, ...], ...]) -> list[list[str]]:
    """Translated ``help`` texts of bash builtins that every charset holds."""
    catalog = _catalog(locale, "bash")
    pages = []
    for msgid in sorted(k for k in catalog if isinstance(k, str)):
        text = catalog[msgid]
        fits = all(_fits(text, codecs) for codecs in charsets)
        if len(msgid) >= BASH_MIN_CHARS and text != msgid and fits:
            pages.append(_blocks(text))
    return pages


def _libidn2_french_page() -> list[str]:
    catalog = _catalog("fr", "libidn2")
    msgid = next(k for k in catalog if str(k).startswith(FRENCH_OE_MSGID))
    return _blocks(catalog[msgid])


def _blocks(text: str) -> list[str]:
    """Title line, then paragraphs: the blank-line separated blocks, collapsed."""
    first, _, rest = text.partition("\n")
    blocks = (_collapse(b) for b in rest.replace("\n    \n", "\n\n").split("\n\n"))
    return [_collapse(first), *(b for b in blocks if b)]


def _fits(text: str, codecs: tuple[str, ...]) -> bool:
    """Whether every codec encodes ``text`` to the same bytes and back."""
    try:
        encoded = {text.encode(codec) for codec in codecs}
    except UnicodeEncodeError:
        return False
    return len(encoded) == 1 and all(
        encoded_bytes.decode(codec) == text
        for encoded_bytes in encoded
        for codec in codecs
    )


if __name__ == "__main__":
    main()
