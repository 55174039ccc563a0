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
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

from crawllib.errors import Interrupted

SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass
class _State:
    """The signal handling of this (the driver's) process."""

    active: bool = False
    received: int | None = None
    raised: bool = False
    deferring: int = 0


_STATE = _State()
"""One per process: signals are a process's own (never pickled to workers)."""


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """SIGINT and SIGTERM raise ``Interrupted`` in the block (main thread only).

    The previous handlers come back when the block ends.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.getsignal(signum) for signum in SIGNALS}
    _STATE.active, _STATE.received, _STATE.raised = True, None, False
    for signum in SIGNALS:
        signal.signal(signum, _on_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _STATE.active = False


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
    if _STATE.received is not None:
        return  # a second signal: the clean-up the first started goes on
    _STATE.received = signum
    if not _STATE.deferring:
        _STATE.raised = True
        raise Interrupted.by(signum)


def _raise_if_pending() -> None:
    if _STATE.deferring or _STATE.raised or _STATE.received is None:
        return
    _STATE.raised = True
    raise Interrupted.by(_STATE.received)
