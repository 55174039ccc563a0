"""Tests for crawllib.urls.suffixfilter (urlfilter-suffix).

The ``test_nutch_*_mode_*`` vectors are those of Nutch's TestSuffixURLFilter:
its suffixes and URLs, each mode set by a mode line of the rules (the Java
test sets the mode with setters instead).
"""

from crawllib.config import UrlConfig, load_properties
from crawllib.urls.suffixfilter import SuffixRules, SuffixUrlFilter, read_suffix_rules

SUFFIXES = "# this is a comment\n\n.gif\n.jpg\n.js\n"
URLS = [
    "http://www.example.com/test.gif",
    "http://www.example.com/TEST.GIF",
    "http://www.example.com/test.jpg",
    "http://www.example.com/test.JPG",
    "http://www.example.com/test.html",
    "http://www.example.com/test.HTML",
    "http://www.example.com/test.html?q=abc.js",
    "http://www.example.com/test.js?foo=bar&baz=bar#12333",
]


def _kept(mode_line: str) -> list[bool]:
    rules = SuffixUrlFilter(mode_line + "\n" + SUFFIXES)
    return [rules.accepts(url) for url in URLS]


def test_nutch_mode_accept():
    # testModeAccept: "+" drops listed suffixes, case-sensitive
    assert _kept("+") == [False, True, False, True, True, True, False, True]


def test_nutch_mode_reject():
    # testModeReject: "-" keeps listed suffixes only
    assert _kept("-") == [True, False, True, False, False, False, True, False]


def test_nutch_mode_accept_ignore_case():
    # testModeAcceptIgnoreCase
    assert _kept("+I") == [False, False, False, False, True, True, False, True]


def test_nutch_mode_reject_ignore_case():
    # testModeRejectIgnoreCase
    assert _kept("-I") == [True, True, True, True, False, False, True, False]


def test_nutch_mode_accept_and_path_filter():
    # testModeAcceptAndPathFilter: the query and fragment are not compared
    assert _kept("+P") == [False, True, False, True, True, True, True, False]


def test_nutch_mode_accept_and_non_path_filter():
    # testModeAcceptAndNonPathFilter
    assert _kept("+") == [False, True, False, True, True, True, False, True]


def test_nutch_default_mode_keeps_listed_suffixes_only():
    # without a mode line SuffixURLFilter is in '-' mode, case-sensitive
    assert _kept("") == _kept("-")


def test_nutch_mode_lines_set_flags_anywhere_and_for_good():
    rules = read_suffix_rules("  -PI  \n.HTML\n+\n#-x\n")

    assert rules == SuffixRules((".html",), True, True, True)


def test_nutch_a_line_starting_with_a_sign_is_a_mode_line():
    # "-.gif" is the mode "-", not a suffix; its "I"-free text sets nothing
    assert read_suffix_rules("-.gif\n.png") == SuffixRules((".png",), False)


def test_nutch_no_suffixes_in_reject_mode_drop_every_url():
    assert not SuffixUrlFilter("# nothing\n").accepts("http://a.com/")


def test_nutch_path_only_compares_the_path_of_a_host_only_url():
    rules = SuffixUrlFilter("+P\n.com\n")

    assert rules.accepts("http://xyz.com")
    assert rules.accepts("http://xyz.com/search?q=foo.com")
    assert not rules.accepts("http://xyz.com/setup.com")


def test_nutch_path_only_compares_an_unparsable_url_whole():
    rules = SuffixUrlFilter("+P\n.gif\n")

    assert not rules.accepts("nonsense.gif")


def test_nutch_bundled_suffix_rules_drop_media_by_path_ignoring_case():
    # conf/suffix-urlfilter.txt: "+I" and "+P" over a list of media suffixes
    config = UrlConfig.from_properties(
        load_properties(defines=["plugin.includes=urlfilter-suffix"])
    )
    rules = SuffixUrlFilter(config.suffix_filter_rules)

    assert rules.rules.accept_unlisted
    assert rules.rules.ignore_case
    assert rules.rules.path_only
    assert not rules.accepts("http://a.com/PHOTO.JPG")
    assert not rules.accepts("http://a.com/music.mp3?q=abc")
    assert rules.accepts("http://a.com/page.html")
    assert rules.accepts("http://xyz.com/search?q=foo.com")
