"""A crawl round's jobs, run and timed: wall and CPU seconds per step, for the log."""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from typing import TypeVar

from pipelines.runtime import jobstate
from pipelines.runtime.options import Job
from pipelines.runtime.sidejob import SideJob

_R = TypeVar("_R")
_Q = TypeVar("_Q")


class StepTimes:
    """Runs a round's jobs and keeps their wall and CPU times, for the log.

    CPU is this process's and its finished children's (user + system). Each
    step is named to ``pipelines.runtime.jobstate`` (``round 2's generate``).
    """

    def __init__(self, round_number: int) -> None:
        self.seconds: dict[str, tuple[float, float]] = {}
        self._round = round_number

    def timed(
        self, name: str, execute: Callable[[_Q, Job], _R], request: _Q, job: Job
    ) -> _R:
        """``execute(request, job)``, timed as step ``name``."""
        started, cpu_started = time.monotonic(), _cpu_s()
        try:
            with jobstate.step(f"round {self._round}'s {name}"):
                return execute(request, job)
        finally:
            wall, cpu = self.seconds.get(name, (0.0, 0.0))
            self.seconds[name] = (
                wall + time.monotonic() - started,
                cpu + _cpu_s() - cpu_started,
            )

    def wait(self, name: str, side: SideJob) -> None:
        """Wait for ``side``'s job, counting the wait as step ``name``."""
        started = time.monotonic()
        try:
            side.wait()
        finally:
            wall, cpu = self.seconds.get(name, (0.0, 0.0))
            self.seconds[name] = (wall + time.monotonic() - started, cpu)

    def __str__(self) -> str:
        return ", ".join(
            f"{name} {wall:.1f} s cpu {cpu:.1f} s"
            for name, (wall, cpu) in self.seconds.items()
        )


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
