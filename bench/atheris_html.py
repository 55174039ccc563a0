"""Coverage-guided fuzzing of the page parsers with atheris (libFuzzer); not run by CI.

Usage: python bench/atheris_html.py [libFuzzer flags...] [CORPUS_DIR...]

e.g. ``python bench/atheris_html.py -max_total_time=300 -timeout=5``. Needs
``pip install atheris`` (wheels for CPython 3.11 on Linux x86-64). The first
input byte picks the content type (HTML, XHTML, RSS, Atom, XML, text); the
rest is the page. Each input goes through :class:`Parsers` without a timeout
and through :func:`parse_html`, and the result is checked for the documented
types. Anything raised is a crash; libFuzzer's ``-timeout`` (seconds per
input) reports a slow input as one too, which is how slow paths (such as a
backtracking regex) show up. With no corpus directory given, a small seed
corpus of pages and feeds is written to ``bench/out/atheris-corpus``.
"""

from __future__ import annotations

import os
import sys

import atheris

with atheris.instrument_imports(include=["crawllib"]):
    from crawllib.config import ParseConfig, load_properties
    from crawllib.parse import ParseResult
    from crawllib.parse.dispatch import Parsers
    from crawllib.parse.html import parse_html

CONTENT_TYPES = (
    "text/html",
    "application/xhtml+xml",
    "application/rss+xml",
    "application/atom+xml",
    "text/xml",
    "text/plain",
)
CORPUS = os.path.join(os.path.dirname(__file__), "out", "atheris-corpus")
SEEDS = {
    "page": b"\x00<html><head><meta charset=utf-8><title>T</title>"
    b'<meta name="robots" content="noindex,nofollow">'
    b'<base href="/d/"></head><body><a href="../x?q#f">a <b>b</b></a>'
    b"<img src=i.png alt=alt><script>x<y</script><!-- c --><p>&amp;&#x41;</body>",
    "refresh": b'\x00<meta http-equiv="refresh" content="5; url=\'/t\'">',
    "deep": b"\x00" + b"<div>" * 2100 + b"<b x=1>" * 10 + b"x",
    "rss": b'\x02<?xml version="1.0"?><rss><channel><title>F</title>'
    b"<link>http://f/</link><item><title>I</title><link>/i</link>"
    b"<description>&lt;p&gt;d</description></item></channel></rss>",
    "atom": b'\x03<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://a/">'
    b'<title type="html">&lt;b&gt;T</title><entry><link href="e"/>'
    b"<summary>s</summary></entry></feed>",
    "text": b"\x05see http://example.com/a?b=c and www.x.org",
}

CONFIG = ParseConfig.from_properties(load_properties(defines=["parser.timeout=-1"]))
PARSERS = Parsers(CONFIG)


def _check(result: ParseResult) -> None:
    """The documented types; raising here is a crash libFuzzer reports."""
    strings = [result.title, result.text, *result.args]
    strings += [part for link in result.outlinks for part in link]
    strings += [part for pair in result.metadata for part in pair]
    for value in strings:
        if not isinstance(value, str):
            raise TypeError(f"not a str: {value!r}")
        value.encode("utf-8")  # no lone surrogates: Avro must hold it


def test_one_input(data: bytes) -> None:
    """One libFuzzer input: content type byte, then the page."""
    if not data:
        return
    content_type = CONTENT_TYPES[data[0] % len(CONTENT_TYPES)]
    content = data[1:]
    _check(PARSERS.parse("http://a.example/d/p.html", content, content_type, {}))
    _check(parse_html("http://a.example/", content, None, {}, CONFIG.html))


def _seed_corpus() -> str:
    os.makedirs(CORPUS, exist_ok=True)
    for name, content in SEEDS.items():
        with open(os.path.join(CORPUS, name), "wb") as handle:
            handle.write(content)
    return CORPUS


def main() -> None:
    """Run libFuzzer over the parsers until a crash or a stop flag."""
    argv = list(sys.argv)
    if not any(not arg.startswith("-") for arg in argv[1:]):
        argv.append(_seed_corpus())
    atheris.Setup(argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
