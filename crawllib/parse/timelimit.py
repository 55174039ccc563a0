"""Run one parse under ``parser.timeout``, as Nutch's ParseUtil does with a FutureTask.

Two ways, by where the parse runs:

- :func:`run_with_alarm`, in a process's main thread (a parse worker
  process): a SIGALRM timer interrupts the parse itself.
- :class:`ParseThread`, anywhere else (a job's own thread): the parse runs on
  one daemon helper thread while the caller waits.

A parse that overruns is stopped at its next Python step: the alarm raises
in it, or the helper thread is sent an asynchronous exception
(``PyThreadState_SetAsyncExc``, CPython's way of stopping a thread). Until
then it is *stuck*: a call into C (libxml2 building a huge tree, libxslt)
runs to its end first. Nutch abandons such a parse (its thread is a daemon
and runs on); here a worker has one parse thread, so at most one stuck parse
exists per worker, and the helper thread is a daemon, so a process can
always exit. The page after a stuck parse waits for it up to the timeout
and, if it is still stuck, fails as *busy* without being parsed (with the
alarm, the worker is itself the stuck thread: the next page simply waits).

C code that keeps the GIL (the ``re`` engine, which only a signal
interrupts) cannot be stopped from another thread: the caller cannot even
wake, so such a parse is not bounded in a job's thread. The parsers keep
their regular expressions linear for that reason.
"""

from __future__ import annotations

import ctypes
import queue
import signal
import threading
from collections.abc import Callable
from typing import TypeVar, cast

T = TypeVar("T")

_SET_ASYNC_EXC = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi)
)


class Overrun(BaseException):
    """Raised inside a parse that ran past ``parser.timeout``.

    A BaseException, so no parser's ``except Exception`` swallows it.
    """


class TimedOut(Exception):
    """The parse ran past the timeout (it was stopped, or is stuck)."""


class Busy(Exception):
    """An earlier parse that overran is still running: this one did not start."""


class _Job:
    """One call handed to the helper thread, and its outcome."""

    def __init__(self, call: Callable[[], object]) -> None:
        self.call = call
        self.done = threading.Event()
        self.stop_sent = False  # set by the caller, under the thread's lock
        self.result: object = None
        self.error: BaseException | None = None


class ParseThread:
    """One daemon thread that runs the parses of a worker, one at a time.

    The caller waits up to the timeout for each parse; one that overruns is
    sent :class:`Overrun` and abandoned. A parse that does not stop at once
    (it is inside a C call) is *stuck*: the next call waits for it up to the
    timeout, then raises :class:`Busy` without starting. So no more than one
    parse runs at a time, stuck or not. For one calling thread at a time.
    """

    def __init__(self, name: str = "parser") -> None:
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._running: _Job | None = None
        self._last: _Job | None = None  # handed over last; maybe stuck
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def run(self, call: Callable[[], T], timeout_s: float) -> T:
        """``call()`` on the helper thread; its result, or what it raised.

        Raises:
            TimedOut: the call ran past ``timeout_s`` (it is being stopped).
            Busy: the previous call, which overran, still runs after waiting
                ``timeout_s`` for it; ``call`` was not started.
        """
        last = self._last
        if last is not None and not last.done.wait(timeout_s):
            raise Busy
        job = self._last = _Job(call)
        self._jobs.put(job)
        if not job.done.wait(timeout_s):
            self._stop(job)
            raise TimedOut
        if job.error is not None:
            raise job.error
        return cast("T", job.result)

    def close(self) -> None:
        """Let the thread end once it is idle (a stuck one runs on, as a daemon)."""
        self._jobs.put(None)

    def _stop(self, job: _Job) -> None:
        with self._lock:
            job.stop_sent = True
            if self._running is job:
                ident = self._thread.ident
                assert ident is not None, "the thread was started"
                _SET_ASYNC_EXC(ident, Overrun)

    def _serve(self) -> None:
        """Run jobs until closed; a stop lands in its own job and nowhere else."""
        while True:
            job = self._jobs.get()
            if job is None:
                return
            try:
                self._run(job)
                self._finish(job)
            except Overrun:
                with self._lock:
                    self._running = None
            job.done.set()

    def _run(self, job: _Job) -> None:
        with self._lock:
            if job.stop_sent:  # timed out before it started
                return
            self._running = job
        try:
            job.result = job.call()
        except Overrun:
            raise
        except BaseException as exc:  # noqa: BLE001 - raised again in run()
            job.error = exc

    def _finish(self, job: _Job) -> None:
        """Clear ``_running``; a stop sent before that lands here, in this job.

        A stop sent while a parse ends may not have landed yet (or the parse
        swallowed it): it is sent once more, to this thread, and lands in
        :func:`_land_stop`. No stop is sent once ``_running`` is cleared.
        """
        with self._lock:
            self._running = None
            stop_sent = job.stop_sent
        if stop_sent:
            _SET_ASYNC_EXC(threading.get_ident(), Overrun)
            _land_stop()


def _land_stop() -> None:
    """Run a few Python steps: a pending asynchronous exception is raised at one."""
    for _ in range(100):
        pass


class _Alarm:
    """Whether a SIGALRM now means "stop the parse" (not a late, spent timer)."""

    armed = False


def install_alarm() -> bool:
    """Route SIGALRM to :func:`run_with_alarm`; False where that cannot work.

    Only a process's main thread receives signals, and only POSIX has
    ``setitimer``.
    """
    if not hasattr(signal, "setitimer"):
        return False
    if threading.current_thread() is not threading.main_thread():
        return False
    signal.signal(signal.SIGALRM, _on_alarm)
    return True


def _on_alarm(signum: int, frame: object) -> None:
    if _Alarm.armed:
        raise Overrun


def run_with_alarm(call: Callable[[], T], timeout_s: float) -> T:
    """``call()`` in this (main) thread, stopped by SIGALRM after ``timeout_s``.

    Needs :func:`install_alarm` first.

    Raises:
        TimedOut: the call ran past ``timeout_s`` and was stopped.
    """
    try:
        _Alarm.armed = True
        signal.setitimer(signal.ITIMER_REAL, timeout_s)
        try:
            return call()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            _Alarm.armed = False
    except Overrun:
        _Alarm.armed = False
        raise TimedOut from None
