"""A crawl step run in a child process, beside the crawl's own steps.

On a local run the crawl's jobs take turns on one core while the other
waits: invertlinks reads only the segment and the linkdb, which nothing
else in the loop touches, so it can run in a child process while updatedb,
dedup and the next round's generate and fetch go on. One side job runs at a
time (the next waits for the last, as invertlinks must: it updates the
linkdb); the crawl waits for it before it ends. A crawl interrupted by a
signal passes it on to the side job, which cleans up as the crawl does.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from typing import IO

from pipelines.runtime import interrupts
from pipelines.runtime.errorlines import error_line

_LOG = logging.getLogger(__name__)


class SideJobFailed(Exception):
    """A side job exited non-zero; the message is its last line of output."""


@contextlib.contextmanager
def side_job_errors(label: str, command: str) -> Iterator[None]:
    """A step run in this process fails as ``command`` would in a side job.

    Raises:
        SideJobFailed: the step raised; the message ends with the line the
            command would have printed last (a traceback ends with the
            exception's type and text).
    """
    try:
        yield
    except Exception as exc:  # a child process would end on any of them too
        last = error_line(command, exc) or f"{type(exc).__name__}: {exc}"
        raise SideJobFailed(f"{label} failed: {last}") from exc


class SideJob:
    """``beamcrawl COMMAND ARGS...`` in a child process, one at a time."""

    def __init__(self) -> None:
        self._running: tuple[str, subprocess.Popen[bytes], IO[bytes], float] | None
        self._running = None
        self.seconds = 0.0
        """Wall time the side jobs ran, summed."""

    def start(self, label: str, argv: list[str]) -> None:
        """Wait for the last side job, then start ``beamcrawl`` with ``argv``."""
        self.wait()
        output = tempfile.TemporaryFile()  # noqa: SIM115 - closed by wait()
        command = [sys.executable, "-m", "pipelines.cli", *argv]
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
        self._running = (label, process, output, time.monotonic())

    def wait(self) -> None:
        """Wait for the running side job, if any.

        Raises:
            SideJobFailed: it exited non-zero.
        """
        if self._running is None:
            return
        label, process, output, started = self._running
        try:
            code = process.wait()
        except BaseException:  # interrupted: the side job stops too
            _stop(process)
            output.close()
            raise
        finally:
            self._running = None
        self.seconds += time.monotonic() - started
        with output:
            output.seek(0)
            lines = output.read().decode("utf-8", "replace").splitlines()
        for line in lines:
            _LOG.debug("%s: %s", label, line)
        if code != 0:
            last = lines[-1] if lines else f"exit code {code}"
            raise SideJobFailed(f"{label} failed: {last}")

    def finish(self) -> None:
        """Wait for a running side job; a failure is logged, not raised.

        For a crawl that stops on another error: the side job's work is
        sound and is left to end (a killed one would leave its lock). A
        crawl interrupted by a signal passes it on, and waits for the side
        job to clean up.
        """
        if self._running is not None and interrupts.received() is not None:
            _stop(self._running[1])
        try:
            self.wait()
        except SideJobFailed as exc:
            _LOG.debug("%s", exc)
            if interrupts.received() is None:
                _LOG.error("%s", exc)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Pass this process's signal (SIGTERM if none) on; wait for it to clean up."""
    if process.poll() is None:
        process.send_signal(interrupts.received() or signal.SIGTERM)
    process.wait()
