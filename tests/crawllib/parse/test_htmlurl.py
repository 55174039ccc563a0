"""Dot-segment removal in resolved links: one pass, OpenJDK's loops as the oracle."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crawllib.config import ParseConfig, load_properties
from crawllib.parse import Outlink, htmlurl
from crawllib.parse.dispatch import Parsers
from crawllib.status import ParseMajor


def _java_remove_dots(path: str) -> str:
    """OpenJDK 17 ``URLStreamHandler.parseURL``'s dot loops, line by line."""
    while (i := path.find("/./")) >= 0:
        path = path[:i] + path[i + 2 :]
    i = 0
    while (i := path.find("/../", i)) >= 0:
        limit = path.rfind("/", 0, i)
        if i > 0 and limit >= 0 and path.find("/../", limit) != 0:
            path = path[:limit] + path[i + 3 :]
            i = 0
        else:
            i += 3
    while path.endswith("/.."):
        limit = path.rfind("/", 0, path.find("/.."))
        if limit < 0:
            break
        path = path[: limit + 1]
    if path.startswith("./") and len(path) > 2:
        path = path[2:]
    if path.endswith("/."):
        path = path[:-1]
    return path


PATHS = st.lists(
    st.sampled_from(["/", ".", "..", "a", "b", "./", "../", "/..", "/.", "..a"]),
    max_size=14,
).map("".join)


@settings(max_examples=1000, deadline=None, derandomize=True)
@given(PATHS)
def test_dot_removal_equals_javas_loops(path: str) -> None:
    assert htmlurl._remove_dots(path) == _java_remove_dots(path)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/a/b/../c", "/a/c"),
        ("/../../a", "/../../a"),
        ("/a/../../b", "/../b"),
        ("/../../../a", "/../a"),
        ("a/../b", "a/../b"),
        ("/a/./././b/.", "/a/b/"),
        ("/a/b/..", "/a/"),
    ],
)
def test_nutch_dot_removal_quirks(path: str, expected: str) -> None:
    assert htmlurl._remove_dots(path) == expected == _java_remove_dots(path)


def test_beamcrawl_a_link_of_many_dot_segments_parses_within_the_timeout() -> None:
    # Java's loops restart after each removal: quadratic time on such a link
    # (about a minute for this one); parser.timeout is the event
    link = "a/../" * 400_000 + "b/./" * 100_000 + "c"
    html = f'<a href="{link}">x</a>'.encode()
    config = ParseConfig.from_properties(load_properties(defines=["parser.timeout=30"]))

    result = Parsers(config, use_alarm=True).parse(
        "http://h/d/p", html, "text/html", {}
    )

    assert (result.major, result.args) == (ParseMajor.SUCCESS, ())
    assert result.outlinks == (Outlink("http://h/d/" + "b/" * 100_000 + "c", "x"),)
