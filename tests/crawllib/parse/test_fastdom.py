"""The C walk (crawllib/parse/_fastdom.c) gives what htmldom's rules give.

htmldom is the reference: every test compares the two on the same tree.
"""

from __future__ import annotations

import logging
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from crawllib.config import ParseConfig, load_properties
from crawllib.config.parse import HtmlConfig
from crawllib.parse import ParseResult, fastdom, htmldom
from crawllib.parse.html import parse_html
from crawllib.parse.htmldom import link_table, text_nodes
from crawllib.parse.htmltree import parse_tree

REPO = Path(__file__).resolve().parents[3]
_CONFIGS = [
    HtmlConfig(),
    HtmlConfig(form_use_action=True, form_use_action_set=True),
    HtmlConfig(ignore_tags=frozenset({"img", "script"})),
]
_BREAK_SETS = [
    HtmlConfig().line_separators,
    frozenset({"script", "a", "span", "title", "img", "form"}),
    frozenset(),
]

_WORDS = ["alpha", "&amp;", "&nbsp;", "x&#160;y", "\u3000", "\u2007", "\u2028",
          "中文", "é", "\x0c", "a\x0bb", "&#x1f;", "\x01", "\r\n", "  ", "\t",
          "nofollow", "\x1c"]  # fmt: skip
_TAGS = ["a", "a", "a", "area", "form", "frame", "iframe", "script", "link", "img",
         "source", "div", "p", "span", "b", "li", "td", "title", "br", "style",
         "noscript"]  # fmt: skip
_ATTRIBUTES = [
    "href='l'", "href=''", "href", "href=' /x y '", "src='s'", "action='f'",
    "alt=''", "alt=' '", "alt='pic'", "alt='\x01'", "rel='nofollow'",
    "rel='NoFollow me'", "rel='nofollowed'", "rel='no-follow'", "rel='énofollow'",
    "rel='_nofollow'", "rel='nofollow中'", "rel='x-nofollow'", "rel='\u0661nofollow'",
    "method='post'", "method='POST'", "method=' post'", "method='get'",
    "href='a&amp;b'", "src='中'",
]  # fmt: skip
_OTHER = ["<!-- c -->", "<?pi x?>", "<script>code()</script>", "<style>p{}</style>",
          "<br>", " ", "</a>", "<![CDATA[x]]>"]  # fmt: skip


def _random_page(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 80)):
        roll = rng.random()
        if roll < 0.35:
            parts.append(rng.choice(_WORDS))
        elif roll < 0.75:
            attributes = " ".join(rng.sample(_ATTRIBUTES, rng.randint(0, 3)))
            parts.append(f"<{rng.choice(_TAGS)} {attributes}>")
        elif roll < 0.9:
            parts.append(f"</{rng.choice(_TAGS)}>")
        else:
            parts.append(rng.choice(_OTHER))
    return "<html><head><title> t </title></head><body>" + "".join(parts)


def _assert_same(
    root: etree._Element, config: HtmlConfig, breaks: frozenset[str]
) -> None:
    want_text = htmldom.flatten(list(text_nodes(root, breaks)))
    assert fastdom.page_text(root, breaks) == want_text
    assert fastdom.links(root, config, breaks) == htmldom.link_anchors(
        root, link_table(config), breaks
    )


def test_the_extension_is_built_and_used() -> None:
    # the test venv is installed with a C compiler at hand: a failed build of
    # the extension must not pass unnoticed
    assert os.environ.get(fastdom.PURE_PYTHON_ENV) is None
    assert fastdom.available()


@pytest.mark.parametrize("seed", range(30))
def test_random_tag_soup_gives_the_same_text_and_links(seed: int) -> None:
    rng = random.Random(seed)
    for n in range(20):
        root = parse_tree(_random_page(rng))
        assert root is not None
        _assert_same(root, _CONFIGS[n % 3], _BREAK_SETS[(n + seed) % 3])


_NODE: st.SearchStrategy[str] = st.deferred(
    lambda: st.one_of(
        st.lists(st.sampled_from([*_WORDS, "<", ">", "'"]), max_size=6).map("".join),
        st.builds(
            lambda tag, attributes, children: (
                f"<{tag} {' '.join(attributes)}>{''.join(children)}</{tag}>"
            ),
            st.sampled_from(_TAGS),
            st.lists(st.sampled_from(_ATTRIBUTES), max_size=3),
            st.lists(_NODE, max_size=4),
        ),
        st.sampled_from(_OTHER),
    )
)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(_NODE, max_size=6), st.integers(0, 2), st.integers(0, 2))
def test_nested_markup_gives_the_same_text_and_links(
    nodes: list[str], config: int, breaks: int
) -> None:
    root = parse_tree("<html><body>" + "".join(nodes))
    assert root is not None
    _assert_same(root, _CONFIGS[config], _BREAK_SETS[breaks])


def test_the_demo_site_pages_give_the_same_text_and_links() -> None:
    pages = sorted((REPO / "pipelines" / "demosite").rglob("*.html"))
    assert len(pages) > 10
    for path in pages:
        root = parse_tree(path.read_bytes().decode("utf-8", "replace"))
        if root is not None:
            _assert_same(root, HtmlConfig(), HtmlConfig().line_separators)


def test_the_crawl_benchmark_pages_give_the_same_text_and_links() -> None:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        from synthweb import page_html  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(REPO / "bench"))
    for n in range(0, 10_000, 97):
        root = parse_tree(page_html(n % 40, n // 40, 40, 250).decode("utf-8"))
        assert root is not None
        _assert_same(root, HtmlConfig(), HtmlConfig().line_separators)


def test_the_img_alt_walk_stops_at_the_same_element() -> None:
    # an empty link: its anchor is the alt walk, which gives up at 1000 elements
    images = "".join(f"<span><img alt='i{n}'></span>" for n in range(700))
    root = parse_tree(f"<p><a href='x'>{images}</a></p>")
    assert root is not None
    ((_, anchor),) = fastdom.links(root, HtmlConfig(), frozenset()) or [("", "")]
    assert anchor == " ".join(f"i{n}" for n in range(499))  # 1 + 2 x 499 starts
    _assert_same(root, HtmlConfig(), frozenset())


def test_a_deep_tree_is_walked_without_recursion() -> None:
    root = parse_tree("<div>" * 5000 + "<a href='x'>deep</a> text")
    assert root is not None
    assert fastdom.page_text(root, frozenset({"div"})) == htmldom.flatten(
        list(text_nodes(root, frozenset({"div"})))
    )
    _assert_same(root, HtmlConfig(), frozenset({"div"}))


def test_trees_the_walk_was_not_written_for_take_the_python_path() -> None:
    namespaced = etree.fromstring(b"<r xmlns='urn:x'><a href='l'>x</a></r>")
    assert fastdom.page_text(namespaced, frozenset()) is None
    assert fastdom.links(namespaced, HtmlConfig(), frozenset()) is None
    parser = etree.XMLParser(resolve_entities=False)
    entity = etree.fromstring(
        b"<!DOCTYPE r [<!ENTITY e 'x'>]><r><a href='l'>&e;</a></r>", parser
    )
    assert fastdom.page_text(entity, frozenset()) is None
    assert fastdom.links(entity, HtmlConfig(), frozenset()) is None


def _parse_both(
    content: bytes, monkeypatch: pytest.MonkeyPatch
) -> tuple[ParseResult, ParseResult]:
    config = ParseConfig.from_properties(load_properties()).html
    url = "http://example.org/dir/page.html"
    headers = {"Content-Type": "text/html; charset=utf-8"}
    fast = parse_html(url, content, "text/html", headers, config)
    with monkeypatch.context() as patch:
        patch.setattr(fastdom, "_C", None)
        assert not fastdom.available()
        slow = parse_html(url, content, "text/html", headers, config)
    return fast, slow


@pytest.mark.parametrize("seed", range(5))
def test_parse_html_gives_the_same_result_on_either_path(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(seed)
    for _ in range(20):
        content = _random_page(rng).encode("utf-8")
        fast, slow = _parse_both(content, monkeypatch)
        assert fast == slow


def test_a_page_holding_the_mark_characters_takes_the_python_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    content = "<p>a\ufdd0b</p><p><a href='x'>c\ufdd1d</a></p>".encode()
    fast, slow = _parse_both(content, monkeypatch)
    assert fast == slow
    assert fast.text == "a\nb\nc d"


def test_an_extension_built_for_another_lxml_is_not_used(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(etree, "__version__", "0.0.1")
    with caplog.at_level(logging.INFO, logger=fastdom.__name__):
        assert fastdom._load() is None
    assert "built for lxml" in caplog.text


def test_the_environment_variable_turns_the_walk_off() -> None:
    probe = "from crawllib.parse import fastdom; print(fastdom.available())"
    env = {**os.environ, fastdom.PURE_PYTHON_ENV: "1"}
    off = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True
    )
    assert off.stdout.strip() == "False", off.stderr
    env.pop(fastdom.PURE_PYTHON_ENV)
    on = subprocess.run(
        [sys.executable, "-c", probe], env=env, capture_output=True, text=True
    )
    assert on.stdout.strip() == "True", on.stderr
