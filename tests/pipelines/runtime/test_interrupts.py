"""Signals sent to this very process: what raises, what waits, what is said."""

import os
import signal
import subprocess
import sys
import time
import weakref

import pytest

from crawllib.errors import Interrupted
from pipelines.runtime import interrupts, jobstate


def _signal(signum: int) -> None:
    os.kill(os.getpid(), signum)  # delivered before the next line runs


def test_sigterm_raises_interrupted_and_the_handlers_come_back():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted) as raised, interrupts.handled():
        _signal(signal.SIGTERM)
    assert raised.value.signum == signal.SIGTERM
    assert raised.value.exit_code == 143
    assert isinstance(raised.value, KeyboardInterrupt)
    assert signal.getsignal(signal.SIGTERM) is before


def _deferred(done: list[str]) -> None:
    with interrupts.deferred():
        _signal(signal.SIGINT)
        done.append("the rest of the block")
    done.append("not reached")


def test_a_deferred_block_runs_whole_and_the_signal_is_raised_after_it():
    done: list[str] = []
    with pytest.raises(Interrupted) as raised, interrupts.handled():
        _deferred(done)
    assert raised.value.signum == signal.SIGINT
    assert done == ["the rest of the block"]


def _cleaning_up(cleaned: list[bool]) -> None:
    try:
        _signal(signal.SIGINT)
    finally:
        _signal(signal.SIGTERM)  # ignored: the clean-up goes on
        cleaned.append(True)


def test_a_second_signal_lets_the_clean_up_finish():
    cleaned: list[bool] = []
    with pytest.raises(Interrupted), interrupts.handled():
        _cleaning_up(cleaned)
    assert cleaned == [True]
    assert interrupts.received() == signal.SIGINT


def test_beam_rebuilds_it_with_the_step_name_and_it_stays_itself():
    # Beam's DoFnRunner re-raises type(exn)(exn.args[0] + " [while running 'X']",
    # *exn.args[1:]); anything else would turn Ctrl-C into a RuntimeError
    first = Interrupted.by(signal.SIGINT)
    again = type(first)(first.args[0] + " [while running 'Fetch']", *first.args[1:])
    assert isinstance(again, Interrupted)
    assert again.signum == signal.SIGINT


def _stopped_while_changing() -> None:
    jobstate.changing("crawl/crawldb", "crawl/crawldb/versions/x", "db same", "db new")
    jobstate.changing("crawl/segments/1", "crawl/segments/.1", "no seg", "seg new")
    jobstate.published("crawl/segments/1")
    raise Interrupted.by(signal.SIGTERM)


def test_the_line_names_the_step_the_state_and_the_command():
    jobstate.begin("crawl", ["--seeds", "my seeds.txt", "crawl", "2"])
    with pytest.raises(Interrupted), jobstate.step("round 2's generate"):
        _stopped_while_changing()
    assert jobstate.writing() == "crawl/crawldb/versions/x"
    assert jobstate.stopped_line("interrupted by SIGTERM") == (
        "beamcrawl: crawl in round 2's generate interrupted by SIGTERM: db same, "
        "seg new; to go on, run it again: beamcrawl crawl --seeds 'my seeds.txt' "
        "crawl 2"
    )
    jobstate.begin("readdb", [])
    assert jobstate.stopped_line("stopped", "free some space") == (
        "beamcrawl: readdb stopped: nothing was changed; free some space, then run "
        "it again: beamcrawl readdb"
    )


def _sigterm_and_spin() -> None:
    """Sends SIGTERM; the handler runs in the loop, below the caller."""
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(10_000):
        pass


class _SignalsItselfWhenDropped:
    """Sends SIGTERM from ``__del__``, where Python drops what is raised."""

    def __del__(self) -> None:
        _sigterm_and_spin()


def _drop_and_wait() -> None:
    _SignalsItselfWhenDropped()  # deleted at once
    time.sleep(30)  # delivered again: raised here


def test_a_signal_that_comes_where_it_would_be_dropped_is_raised_after():
    started = time.monotonic()
    with interrupts.handled(), pytest.raises(Interrupted) as raised:
        _drop_and_wait()
    assert raised.value.signum == signal.SIGTERM
    assert time.monotonic() - started < 20


def _signal_from_a_weakref_callback(ref: object) -> None:
    _sigterm_and_spin()


class _Referent:
    pass


def _release_and_wait(held: list[_Referent]) -> None:
    held.clear()  # the callback runs at once
    time.sleep(30)  # delivered again: raised here


def test_a_signal_in_any_weakref_callback_is_raised_after_and_prints_nothing(capfd):
    """The garbage collector runs a library's callback (CI saw WeakKeyDictionary's)."""
    held = [_Referent()]
    ref = weakref.ref(held[0], _signal_from_a_weakref_callback)
    started = time.monotonic()
    with interrupts.handled(), pytest.raises(Interrupted) as raised:
        _release_and_wait(held)
    assert raised.value.signum == signal.SIGTERM
    assert time.monotonic() - started < 20
    assert ref() is None
    assert "Traceback" not in capfd.readouterr().err


_COMMAND = """
import os, signal, sys, threading, time
from crawllib.errors import Interrupted
from pipelines.runtime import interrupts

def run():
    if sys.argv[1] == "interrupted":
        # a thread a stopped job left running: the exit would wait for it
        threading.Thread(target=time.sleep, args=(600,)).start()
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(30)
        except Interrupted as stop:
            print("interrupted", file=sys.stderr)
            return stop.exit_code
    return 0

code = interrupts.run_command(run, own_process=True)
os.kill(os.getpid(), signal.SIGINT)  # after the command returned
time.sleep(30)
sys.exit(7)
"""


@pytest.mark.parametrize(("how", "code"), [("interrupted", 143), ("done", 0)])
def test_a_commands_own_process_ends_with_its_code_and_no_traceback(how, code):
    done = subprocess.run(
        [sys.executable, "-c", _COMMAND, how],
        capture_output=True,
        text=True,
        timeout=25,
        check=False,
    )
    assert done.returncode == code
    assert done.stderr == ("interrupted\n" if how == "interrupted" else "")


def test_run_command_in_a_callers_process_returns_and_restores_the_handlers():
    before = signal.getsignal(signal.SIGINT)
    assert interrupts.run_command(lambda: 3, own_process=False) == 3
    assert signal.getsignal(signal.SIGINT) is before
