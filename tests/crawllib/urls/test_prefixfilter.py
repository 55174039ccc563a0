"""Tests for crawllib.urls.prefixfilter (urlfilter-prefix)."""

import pytest

from crawllib.urls.prefixfilter import PrefixUrlFilter, read_prefixes

# TestPrefixURLFilter: its rules, URLs and expected verdicts (urlsModeAccept)
NUTCH_PREFIXES = "# this is a comment\n\nhttp://\nhttps://\nfile://\nftp://\n"


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        ("http://www.example.com/", True),
        ("https://www.example.com/", True),
        ("ftp://www.example.com/", True),
        ("file://www.example.com/", True),
        ("abcd://www.example.com/", False),
        ("www.example.com/", False),
    ],
)
def test_nutch_prefix_filter_keeps_listed_prefixes(url, kept):
    # TestPrefixURLFilter.testModeAccept
    assert PrefixUrlFilter(NUTCH_PREFIXES).accepts(url) is kept


def test_nutch_prefix_lines_are_verbatim_and_case_sensitive():
    rules = PrefixUrlFilter("http://a.com/x \n\tHTTP://B.COM/\n")

    assert rules.prefixes == ("http://a.com/x ", "\tHTTP://B.COM/")
    assert not rules.accepts("http://a.com/x")
    assert rules.accepts("http://a.com/x y")
    assert not rules.accepts("http://b.com/")


def test_nutch_prefix_comments_blank_and_space_led_lines_are_skipped():
    assert read_prefixes("#c\n\n http://skipped/\r\nhttp://kept/\r") == (
        "http://kept/",
    )


def test_nutch_no_prefixes_drop_every_url():
    assert not PrefixUrlFilter("# nothing\n").accepts("http://www.example.com/")
