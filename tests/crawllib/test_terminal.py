import json

import pytest

from crawllib.terminal import printable, printable_json

OSC52 = "\x1b]52;c;cHduZWQ=\x07"  # writes "pwned" to the clipboard


def test_escape_sequences_become_visible_text():
    assert printable(f"Hi{OSC52}\x1b[2J") == "Hi\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x00", "\\x00"),
        ("\x08", "\\x08"),
        ("\r", "\\x0d"),
        ("\x1b", "\\x1b"),
        ("\x7f", "\\x7f"),
        ("\x85", "\\x85"),
        ("\x9b", "\\x9b"),  # CSI on a terminal that reads C1 controls
        ("\ud800", "\\ud800"),  # a lone surrogate cannot even be encoded
    ],
)
def test_every_control_character_is_escaped(raw, shown):
    assert printable(f"a{raw}b") == f"a{shown}b"
    assert printable(f"a{raw}b", multiline=True) == f"a{shown}b"


def test_one_line_unless_multiline():
    assert printable("one\ntwo\tthree") == "one\\x0atwo\\x09three"
    assert printable("one\ntwo\tthree", multiline=True) == "one\ntwo\tthree"
    assert printable("over\rprint", multiline=True) == "over\\x0dprint"


def test_printable_text_is_unchanged():
    text = "Lighthouse — 灯塔守护人日志 é ü \u00a0 [bold] \\x1b"
    assert printable(text) == text


def test_below_0x100_exactly_the_c0_and_c1_controls_and_del_are_escaped():
    for code in range(0x100):
        control = code < 0x20 or 0x7F <= code < 0xA0
        expected = f"\\x{code:02x}" if control else chr(code)
        assert printable(chr(code)) == expected


def test_json_stays_json_and_becomes_printable():
    value = {"title": f"a{OSC52}\x7f\x9b\ud800 é", "n": 1}
    text = printable_json(json.dumps(value, ensure_ascii=False))
    assert text.isprintable()
    assert "é" in text
    assert json.loads(text) == value
