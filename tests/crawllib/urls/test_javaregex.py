"""Tests for crawllib.urls.javaregex.

Expected results are those of ``java.util.regex`` on OpenJDK 17:
``Pattern.compile(regex).matcher(text).find()`` and ``replaceAll``.
"""

from __future__ import annotations

import pytest

from crawllib.errors import ConfigError
from crawllib.urls.javaregex import compile_java_regex, java_replacement


def _compile(regex):
    return compile_java_regex(regex, where="test")


# (Java regex, input, Matcher.find() on OpenJDK 17)
JAVA_FIND = [
    ("a(?i)b|c", "aB", True),
    ("a(?i)b|c", "xC", True),
    ("a(?i)b|c", "AB", False),
    ("x(a(?i)b|c)y", "xCy", True),
    ("x(a(?i)b|c)y", "XCy", False),
    ("(a)(?i)b", "aB", True),
    ("(?i)a(?-i)b", "AB", False),
    ("(?i)a(?-i)b", "Ab", True),
    ("(?i:x)y", "XY", False),
    (r"\Qa.b\E", "axb", False),
    (r"\Qa.b\E", "a.b", True),
    (r"[\Q]\E]", "]", True),
    ("(?i)é", "É", False),
    ("(?iu)é", "É", True),
    (r"\w", "é", False),
    (r"(?U)\w", "é", True),
    ("(?-u)a", "a", True),
    (r"x\z", "x", True),
    (r"(?<n>a)\k<n>", "aa", True),
    (r"\x{41}", "A", True),
    (r"\x{1F600}", "\U0001f600", True),
    ("a*+a", "aaa", False),
    ("(?>a+)b", "aab", True),
    ("(?d)a", "a", True),
    ("a(?i)", "a", True),
    (r"\e", "\x1b", True),
    ("(?x) a b # comment (x)", "ab", True),
    ("(?x)a|b # c", "b", True),
    ("[^]a]", "]", False),
    ("[]a]", "]", True),
    (r".*(/[^/]+)/[^/]+\1/[^/]+\1/", "http://a.com/a/b/a/b/a/b/", True),
    (r".*(/[^/]+)/[^/]+\1/[^/]+\1/", "http://a.com/a/b/a/c/", False),
    (".*?foo", "xfoo", True),
    (".*", "", True),
    (r"[\[\]]", "[", True),
    # constructs only one of the former translators had
    (r"\W", "é", True),  # an ASCII class first: CPython's prefix check
    (r"[^\w]", "é", True),
    (r"\D", "\u0663", True),  # ARABIC-INDIC DIGIT THREE
    (r"\S", "\u2003", True),  # EM SPACE
    (r"(?u)\w", "é", False),  # UNICODE_CASE alone: classes stay ASCII
    (r"(?u)[\w]", "é", False),
    (r"(?u)\d", "\u0663", False),
    (r"(?u)\s", "\u00a0", False),
    (r"(?U)(?-u)\w", "é", True),
    (r"(?U)\W", "é", False),
    (r"(?U)\W", " ", True),
    ("(?iu)x(?-u)é", "XÉ", False),
    ("(?i:(?u)é)", "É", True),
    (r"x\Z", "x\n", True),
    (r"x\Z", "x", True),
    (r"x\Z", "x\ny", False),
    (r"\v", "\u2028", True),
    (r"\v", "\x0b", True),
    (r"[\v]", "\x85", True),
    (r"\0101", "A", True),
    (r"\0101", "\x081", False),
    (r"(a)\10", "aa0", True),  # group 1, then "0"
    (r"(a)\123", "aa23", True),
    (r"(a)\123", "S", False),
    (r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10", "abcdefghijj", True),
    ("[a||b]", "|", True),
    ("[a~~b]", "~", True),
    ("(?x)(?i)a # comment", "A", True),
]


@pytest.mark.parametrize(("regex", "text", "found"), JAVA_FIND)
def test_nutch_java_regex_syntax_is_translated(regex, text, found):
    assert (_compile(regex).search(text) is not None) is found


# (Java regex, replacement, input, replaceAll on OpenJDK 17)
JAVA_REPLACE_ALL = [
    (r"(a)(b)?", "[$1$2]", "ac", "[a]c"),  # a group that did not match: ""
    (r"(\w+)@(\w+)", "$2 at $1", "me@host", "host at me"),
    (r"\?&", r"\?", "x?&y", "x?y"),
    (r"x", r"\$1\\", "axb", "a$1\\b"),
    (r"(a)", "$12", "a", "a2"),  # only one group: $1 then "2"
    (r"(a)", "$0$0", "ba", "baa"),
    (r"(?<word>o+)", "[${word}]", "foo", "f[oo]"),
    (r"\Q.*\E", "!", "a.*b", "a!b"),
    (r"b\z", "!", "bb", "b!"),
    (r"x*", "-", "abxd", "-a-b--d-"),  # Java replaceAll on empty matches
    (r"(?i)abc|d", "!", "ABCD", "!!"),
    ("é", "e", "café", "cafe"),
    # CASE_INSENSITIVE without UNICODE_CASE: only ASCII letters fold
    ("(?i)é", "e", "É", "É"),
    ("(?iu)é", "e", "É", "e"),
    (r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)", "$11-$12", "abcdefghijk", "k-a2"),
]


@pytest.mark.parametrize(("regex", "replacement", "text", "expected"), JAVA_REPLACE_ALL)
def test_nutch_java_replace_all(regex, replacement, text, expected):
    pattern = _compile(regex)
    template = java_replacement(replacement, pattern, where="test")

    assert pattern.sub(template, text) == expected


@pytest.mark.parametrize(
    "regex",
    [
        r"\p{Alpha}",
        r"\P{Lu}",
        "[a-z&&[^b]]",
        "[a[bc]]",
        "(unclosed",
        "unopened)",
        "a)(b",
        "*x",
        "(?<=a+)b",
        "\\",
        "a{99999999999}",
        "(?u)[\\W]",
    ],
)
def test_invalid_or_untranslatable_regex_raises_config_error(regex):
    # Java compiles some: \\p{...}, [a-z&&[^b]], [a[bc]], (?<=a+)b, (?u)[\\W]
    with pytest.raises(ConfigError, match=r"^rules, line 2: cannot compile regex "):
        compile_java_regex(regex, where="rules, line 2")


@pytest.mark.parametrize(
    ("replacement", "problem"),
    [
        ("$x", "illegal group reference"),
        ("$2", "no group 2"),
        ("${nope}", "no group named 'nope'"),
        ("${1}", "no group named '1'"),
        ("x\\", "character to be escaped is missing"),
    ],
)
def test_bad_replacement_raises_config_error(replacement, problem):
    pattern = _compile("(a)")

    with pytest.raises(ConfigError, match=problem) as info:
        java_replacement(replacement, pattern, where="rule 7")
    assert str(info.value).startswith(f"rule 7: replacement {replacement!r}: ")
