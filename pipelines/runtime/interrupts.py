"""SIGINT and SIGTERM stop a command the way a failure does: cleaned up.

Python turns SIGINT into a ``KeyboardInterrupt`` wherever the main thread
is, and SIGTERM kills the process outright: a job's lock stayed held, its
half-written version stayed on disk, and Ctrl-C printed Beam's traceback.
While the CLI runs a command (:func:`handled`), both raise
:class:`~crawllib.errors.Interrupted` in the main thread instead, so the
jobs' ``finally`` blocks run as for any failure: the lock is released, an
unpublished version or staged segment part is removed. The CLI then prints
one line (``pipelines.runtime.jobstate`` knows what stopped) and exits 130 or 143.

Only the first signal raises; later ones are noted and ignored, so that
the clean-up they would interrupt finishes. A change that must not stop
halfway (publishing a version, installing a segment part, releasing the
lock, removing a directory) runs :func:`deferred`: a signal that arrives
meanwhile is raised when it is done.

An exception raised where Python only prints it ("Exception ignored in":
in a ``__del__``, a weakref callback, the import machinery's own callbacks)
would be lost, and the command would run on. A signal that comes there is
delivered again a moment later (:data:`RETRY_S`): where the handler can see
it (the frames say so) it waits without raising; anywhere else (a weakref
callback of any library's, run by the garbage collector) the dropped
``Interrupted`` reaches ``sys.unraisablehook``, which prints nothing and
sends the signal again. A step that starts (:func:`checkpoint`) raises one
that was lost all the same.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

from crawllib.errors import Interrupted

SIGNALS = (signal.SIGINT, signal.SIGTERM)
RETRY_S = 0.05
"""How soon a signal that came where it could not be raised comes again."""
_SWALLOWING = ("__del__",)
"""Functions whose exceptions Python prints and drops."""


@dataclass
class _State:
    """The signal handling of this (the driver's) process."""

    active: bool = False
    received: int | None = None
    raised: bool = False
    deferring: int = 0
    retrying: bool = False
    last_raised: Interrupted | None = None


_STATE = _State()
"""One per process: signals are a process's own (never pickled to workers)."""


def run_command(run: Callable[[], int], own_process: bool) -> int:
    """``run()`` (a command, its exit code) with SIGINT and SIGTERM handled.

    ``own_process``: the process is the command's (not a caller's, such as
    a test's). A signal that comes after the command returned then changes
    nothing: the process ends at once, quietly, with the command's exit code
    (no traceback from the interpreter's exit, and no waiting on it). An
    interrupted command's process ends at once once its line is written: a
    Beam job stopped halfway can leave a thread of its own running, which
    would keep the process from exiting.
    """
    codes: list[int] = []

    def exit_as_returned(signum: int, frame: FrameType | None) -> Any:
        os._exit(codes[0] if codes else 128 + signum)

    with handled(after=exit_as_returned if own_process else None):
        codes.append(run())
    code = codes[0]
    if own_process and _STATE.received is not None:
        from crawllib.parse import pool as parsepool

        parsepool.close_for_exit()  # no parse workers started from here on
        with contextlib.suppress(Exception):
            atexit._run_exitfuncs()  # multiprocessing's clean-up, logging's flush
        logging.shutdown()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(code)
    return code


@contextlib.contextmanager
def handled(after: Any = None) -> Iterator[None]:
    """SIGINT and SIGTERM raise ``Interrupted`` in the block (main thread only).

    The previous handlers come back when the block ends, or ``after``, a
    signal handler, if given.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in SIGNALS}
    previous_hook = sys.unraisablehook
    _STATE.active, _STATE.received, _STATE.raised = True, None, False
    _STATE.retrying = False
    sys.unraisablehook = _unraisable_hook(previous_hook)
    for signum in SIGNALS:
        signal.signal(signum, _on_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler if after is None else after)
        sys.unraisablehook = previous_hook
        _STATE.active, _STATE.last_raised = False, None


def checkpoint() -> None:
    """Raise ``Interrupted`` if a signal came and was not raised, or was lost.

    For the start of a step: a command that goes on to its next step after
    a signal lost it (raised where Python drops exceptions) stops there.
    Not inside :func:`deferred`.
    """
    if not _STATE.active or _STATE.received is None or _STATE.deferring:
        return
    if threading.current_thread() is threading.main_thread():
        _STATE.raised = True
        raise Interrupted.by(_STATE.received)


def received() -> int | None:
    """The first signal received while :func:`handled` was on; None if none."""
    return _STATE.received


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Run the block whole: a signal that arrives meanwhile is raised after it.

    Not raised if an exception already leaves the block, nor if the signal
    was raised before (the block is then part of the clean-up).
    """
    _STATE.deferring += 1
    try:
        yield
    finally:
        _STATE.deferring -= 1
    _raise_if_pending()


def _on_signal(signum: int, frame: FrameType | None) -> Any:
    if _STATE.received is not None and not _STATE.retrying:
        return  # a second signal: the clean-up the first started goes on
    _STATE.received, _STATE.retrying = signum, False
    if _STATE.deferring:
        return
    if _would_be_dropped(frame):
        _deliver_later(signum)
        return
    _STATE.raised = True
    _STATE.last_raised = Interrupted.by(signum)
    raise _STATE.last_raised


def _unraisable_hook(previous: Callable[[Any], object]) -> Callable[[Any], None]:
    """A hook that takes a dropped ``Interrupted`` as a signal to send again.

    Anything else goes to ``previous`` (printed, as Python does).
    """

    def hook(unraisable: Any) -> None:
        dropped = _STATE.last_raised
        if dropped is not None and unraisable.exc_value is dropped and _STATE.active:
            _STATE.raised, _STATE.last_raised = False, None
            _deliver_later(dropped.signum)
            return
        previous(unraisable)

    return hook


def _deliver_later(signum: int) -> None:
    _STATE.retrying = True
    retry = threading.Timer(RETRY_S, _deliver_again, (signum,))
    retry.daemon = True
    retry.start()


def _would_be_dropped(frame: FrameType | None) -> bool:
    """Whether an exception raised in ``frame`` would be printed and dropped."""
    while frame is not None:
        code = frame.f_code
        if code.co_name in _SWALLOWING or code.co_filename.startswith(
            "<frozen importlib"
        ):
            return True
        if code.co_name == "__call__" and code.co_filename.endswith("weakref.py"):
            return True  # a weakref.finalize callback
        frame = frame.f_back
    return False


def _deliver_again(signum: int) -> None:
    if _STATE.active and _STATE.retrying and not _STATE.raised:
        os.kill(os.getpid(), signum)


def _raise_if_pending() -> None:
    if _STATE.deferring or _STATE.raised or _STATE.received is None:
        return
    _STATE.raised = True
    raise Interrupted.by(_STATE.received)
