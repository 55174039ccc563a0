"""Run a command and kill it with SIGKILL at a chosen moment (Linux /proc)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Killed:
    """How a command ended: killed, or on its own before the moment came."""

    pid: int
    returncode: int
    orphans: int
    """Processes it started that were still running after it died (killed too)."""


def run_and_kill(command: list[str], delay_s: float, log: Path) -> Killed:
    """Start ``command`` in a new process group; SIGKILL it ``delay_s`` later.

    A command that ends first is not signalled. Its stderr goes to ``log``.
    The processes of its group left running once it is dead are killed one
    by one, by pid, and counted.
    """
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
        )
        try:
            process.wait(timeout=delay_s)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
    orphans = group_members(process.pid)
    for pid in orphans:
        os.kill(pid, signal.SIGKILL)
    _wait_gone(process.pid)
    return Killed(process.pid, process.returncode, len(orphans))


def group_members(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group ``pgid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text()
        except OSError:
            continue  # it ended meanwhile
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found


def _wait_gone(pgid: int, timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while group_members(pgid):
        if time.monotonic() > deadline:
            raise RuntimeError(f"processes of group {pgid} outlived SIGKILL")
        time.sleep(0.01)
