"""parser.timeout: a parse that overruns is stopped or abandoned, never piled up.

Slow parses are real: test-only parsers registered as plugins that loop in
Python (stopped at once) or block in C on a gate the test opens (stuck until
then). Threads are counted and process exit is checked; nothing is timed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Mapping

import pytest

from crawllib.config import ParseConfig, load_properties
from crawllib.parse import ParseResult
from crawllib.parse.dispatch import Parsers
from crawllib.status import ParseMajor, ParseMinor

TIMEOUT = ParseConfig.from_properties(load_properties(defines=["parser.timeout=0.1"]))
PAGE = b"<html><head><title>Quick</title></head><body>x</body></html>"
TIMED_OUT = "parse timed out after 0.1 s"


class LoopingParser:
    """Loops in Python until stopped; records that it started and ended."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.ended = threading.Event()

    def __call__(
        self,
        url: str,
        content: bytes,
        media: str | None,
        headers: Mapping[str, str | None],
    ) -> ParseResult:
        self.started.set()
        try:
            while True:
                pass
        finally:
            self.ended.set()


class GatedParser:
    """Blocks in C (a lock wait) until the test opens the gate: a stuck parse."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.ended = threading.Event()

    def __call__(
        self,
        url: str,
        content: bytes,
        media: str | None,
        headers: Mapping[str, str | None],
    ) -> ParseResult:
        try:
            self.gate.wait()
            return ParseResult(ParseMajor.SUCCESS, title="gated")
        finally:
            self.ended.set()


def _parser_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name == "parser"}


@pytest.fixture
def new_threads() -> Callable[[], int]:
    """How many parser threads started during the test are alive now."""
    before = _parser_threads()
    return lambda: sum(t.is_alive() for t in _parser_threads() - before)


def _status(result: ParseResult) -> tuple[ParseMajor, ParseMinor, tuple[str, ...]]:
    return result.major, result.minor, result.args


@pytest.mark.parametrize("use_alarm", [False, True], ids=["thread", "alarm"])
def test_a_parse_looping_in_python_is_stopped_and_the_next_page_parses(
    use_alarm, new_threads
):
    looping = LoopingParser()
    parsers = Parsers(TIMEOUT, use_alarm, plugins={"application/x-loop": looping})
    try:
        slow = parsers.parse("http://a.com/loop", b"", "application/x-loop", {})
        assert looping.ended.wait(60), "the overrunning parse was not stopped"
        quick = parsers.parse("http://a.com/", PAGE, "text/html", {})
        assert new_threads() == (0 if use_alarm else 1)
    finally:
        parsers.close()
    assert _status(slow) == (ParseMajor.FAILED, ParseMinor.EXCEPTION, (TIMED_OUT,))
    assert quick.major == ParseMajor.SUCCESS
    assert quick.title == "Quick"


def test_overrunning_parses_in_a_row_leave_one_thread(new_threads):
    looping = LoopingParser()
    parsers = Parsers(TIMEOUT, plugins={"application/x-loop": looping})
    try:
        for _ in range(5):
            looping.ended.clear()
            result = parsers.parse("http://a.com/loop", b"", "application/x-loop", {})
            assert result.args == (TIMED_OUT,)
            assert looping.ended.wait(60)
            assert new_threads() == 1
    finally:
        parsers.close()


def test_while_a_parse_is_stuck_the_next_page_is_busy_and_no_thread_is_added(
    new_threads,
):
    gated = GatedParser()
    parsers = Parsers(TIMEOUT, plugins={"application/x-gate": gated})
    try:
        stuck = parsers.parse("http://a.com/gate", b"", "application/x-gate", {})
        busy = parsers.parse("http://a.com/", PAGE, "text/html", {})
        assert not gated.ended.is_set()
        assert new_threads() == 1
        gated.gate.set()  # the stuck parse leaves C and takes its stop
        assert gated.ended.wait(60)
        after = [parsers.parse("http://a.com/", PAGE, "text/html", {})]
        while after[-1].major != ParseMajor.SUCCESS and len(after) < 100:
            after.append(parsers.parse("http://a.com/", PAGE, "text/html", {}))
        assert new_threads() == 1
    finally:
        parsers.close()
    assert _status(stuck) == (ParseMajor.FAILED, ParseMinor.EXCEPTION, (TIMED_OUT,))
    assert _status(busy) == (
        ParseMajor.FAILED,
        ParseMinor.EXCEPTION,
        ("parser busy: an earlier parse still runs after 0.1 s",),
    )
    assert after[-1].title == "Quick"
    assert {result.args for result in after[:-1]} <= {busy.args}


def test_a_parse_that_swallows_its_stop_does_not_pass_it_to_the_next_page(
    new_threads,
):
    started = threading.Event()

    def swallowing(
        url: str, content: bytes, media: str | None, headers: Mapping[str, str | None]
    ) -> ParseResult:
        started.set()
        try:
            while True:
                pass
        except BaseException:  # noqa: BLE001 - a parser that swallows its stop
            return ParseResult(ParseMajor.SUCCESS, title="swallowed")

    parsers = Parsers(TIMEOUT, plugins={"application/x-swallow": swallowing})
    try:
        swallowed = parsers.parse("http://a.com/s", b"", "application/x-swallow", {})
        assert started.is_set()
        after = [parsers.parse("http://a.com/", PAGE, "text/html", {})]
        while after[-1].major != ParseMajor.SUCCESS and len(after) < 100:
            after.append(parsers.parse("http://a.com/", PAGE, "text/html", {}))
        assert new_threads() == 1
    finally:
        parsers.close()
    assert swallowed.args == (TIMED_OUT,)
    assert after[-1].title == "Quick"
    assert {result.args for result in after[:-1]} <= {
        ("parser busy: an earlier parse still runs after 0.1 s",)
    }


def test_a_parse_that_raises_fails_the_page_and_the_thread_goes_on(new_threads):
    def broken(
        url: str, content: bytes, media: str | None, headers: Mapping[str, str | None]
    ) -> ParseResult:
        raise KeyError("boom")

    parsers = Parsers(TIMEOUT, plugins={"application/x-broken": broken})
    try:
        failed = parsers.parse("http://a.com/b", b"", "application/x-broken", {})
        quick = parsers.parse("http://a.com/", PAGE, "text/html", {})
        assert new_threads() == 1
    finally:
        parsers.close()
    assert _status(failed) == (
        ParseMajor.FAILED,
        ParseMinor.EXCEPTION,
        ("KeyError: 'boom'",),
    )
    assert quick.title == "Quick"


def test_a_closed_parser_lets_its_thread_end():
    parsers = Parsers(TIMEOUT)
    before = _parser_threads()
    parsers.parse("http://a.com/", PAGE, "text/html", {})
    (thread,) = _parser_threads() - before
    parsers.close()
    thread.join(60)
    assert not thread.is_alive()


STUCK_AT_EXIT = """
import threading
from crawllib.config import ParseConfig, load_properties
from crawllib.parse import ParseResult
from crawllib.parse.dispatch import Parsers

never = threading.Event()

def gated(url, content, media, headers):
    never.wait()
    return ParseResult(1)

config = ParseConfig.from_properties(load_properties(defines=["parser.timeout=0.1"]))
parsers = Parsers(config, plugins={"application/x-gate": gated})
result = parsers.parse("http://a.com/gate", b"", "application/x-gate", {})
print(result.args[0])
print(sorted(t.daemon for t in threading.enumerate() if t.name == "parser"))
"""


def test_a_process_exits_while_a_parse_is_stuck():
    # a non-daemon parse thread would keep this process alive for ever: the
    # timeout only ends the test should it hang
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(STUCK_AT_EXIT)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [TIMED_OUT, "[True]"]
