"""crawllib.java against Java's documented behaviour (Java SE 17 API)."""

import sys
import unicodedata

import pytest

from crawllib.java import (
    INT_MAX,
    INT_MIN,
    NO_BREAK_SPACES,
    TRIMMED,
    WHITESPACE,
    is_java_blank,
    is_java_whitespace,
    java_trim,
    parse_int,
)


def _is_whitespace(code: int) -> bool:
    """Character.isWhitespace as its javadoc defines it, the oracle.

    A Unicode space separator (Zs), line separator (Zl) or paragraph
    separator (Zp) that is not a no-break space (U+00A0, U+2007, U+202F), or
    one of U+0009-U+000D and U+001C-U+001F.
    """
    char = chr(code)
    if 0x09 <= code <= 0x0D or 0x1C <= code <= 0x1F:
        return True
    category = unicodedata.category(char)
    return category in ("Zs", "Zl", "Zp") and char not in "\u00a0\u2007\u202f"


def test_java_whitespace_is_character_is_whitespace_over_all_code_points():
    expected = {chr(c) for c in range(sys.maxunicode + 1) if _is_whitespace(c)}
    assert set(WHITESPACE) == expected
    assert len(WHITESPACE) == len(expected)  # each once


def test_no_break_spaces_are_the_space_separators_whitespace_leaves_out():
    assert set(NO_BREAK_SPACES) == {"\u00a0", "\u2007", "\u202f"}
    assert all(unicodedata.category(c) == "Zs" for c in NO_BREAK_SPACES)
    assert not set(NO_BREAK_SPACES) & set(WHITESPACE)


def test_python_isspace_is_not_java_whitespace():
    assert "\x85".isspace()
    assert not is_java_whitespace("\x85")  # NEL: a control, not a separator
    assert "\u00a0".isspace()
    assert not is_java_whitespace("\u00a0")
    assert is_java_whitespace("\x1c")
    assert not is_java_whitespace("  ")  # one character only


@pytest.mark.parametrize(
    ("text", "trimmed"),
    [
        ("  a b  ", "a b"),
        ("\x00\x01a\x1f\x20", "a"),  # every char <= U+0020
        ("\u00a0a\u3000", "\u00a0a\u3000"),  # nothing above U+0020
        ("\x7fa", "\x7fa"),  # DEL is above U+0020
        ("\t\n\r", ""),
        ("", ""),
    ],
)
def test_java_trim_is_string_trim(text, trimmed):
    # String.trim: "all characters with codepoint <= U+0020 ... removed"
    assert java_trim(text) == trimmed
    assert set(TRIMMED) == {chr(c) for c in range(0x21)}


@pytest.mark.parametrize(
    ("text", "blank"),
    [
        ("", True),
        (" \t\u2028\u3000", True),
        ("\u00a0", False),  # String.isBlank uses Character.isWhitespace
        ("\x00", False),  # trim would remove it, isBlank does not
        (" a ", False),
    ],
)
def test_is_java_blank_is_string_is_blank(text, blank):
    assert is_java_blank(text) is blank


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("-0", 0),
        ("+42", 42),  # a leading + is allowed since Java 7
        ("-2147483648", INT_MIN),
        ("2147483647", INT_MAX),
        ("\u0661\u0662", 12),  # Character.digit: Arabic-Indic digits
        ("0012", 12),
    ],
)
def test_parse_int_takes_what_integer_parse_int_takes(text, value):
    assert parse_int(text) == value


@pytest.mark.parametrize(
    "text",
    [
        "",
        "+",
        "-",
        "2147483648",  # past Integer.MAX_VALUE
        "-2147483649",
        "9" * 5000,  # more digits than Python's int() takes
        " 1",  # no white space, as Python's int() would strip
        "1 ",
        "1_000",  # no underscores, as Python's int() takes
        "1.0",
        "0x10",
        "++1",
    ],
)
def test_parse_int_refuses_what_integer_parse_int_throws_on(text):
    assert parse_int(text) is None
