"""The processes a test started, read from /proc (Linux)."""

from __future__ import annotations

import os
from pathlib import Path


def children_of(pid: int) -> dict[int, bytes]:
    """The live child processes of ``pid``: their pids and command lines."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path("/proc", entry, "stat").read_text()
            cmdline = Path("/proc", entry, "cmdline").read_bytes()
        except OSError:
            continue  # it ended meanwhile
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found[int(entry)] = cmdline
    return found
