"""Who holds a lock, written so that "its holder is dead" can be proved.

A lock object's text is one line for people, then one for this module::

    host1 pid 4242 (beamcrawl crawl) at 2026-12-05 13:02:11 UTC
    owner host=host1 boot=6f1c... pidns=pid:[4026531836] pid=4242 start=912345

A lock whose job was killed (SIGKILL, a power cut) stays behind. Its holder
is provably gone when the lock was written on this very machine since its
last boot (same host name, same ``/proc/sys/kernel/random/boot_id``), in
this process's pid namespace (``readlink /proc/self/ns/pid``: another
container's pids are not ours), and its pid is not running, or runs a
process that started at another time (``/proc/PID/stat`` field 22: the pid
was reused). Anything else, an older beamcrawl's one-line lock included, is
not known to be stale.
"""

from __future__ import annotations

import os
import posixpath
import socket
import sys
import time
from dataclasses import dataclass

_TAG = "owner"
_PROC = "/proc"


@dataclass(frozen=True)
class Owner:
    """The process that wrote a lock: where it ran, and which process it was."""

    host: str
    boot_id: str
    pid_namespace: str
    pid: int
    start_ticks: int
    """When the process started, in clock ticks since boot (``/proc/PID/stat``)."""


def this_process() -> Owner | None:
    """This process as a lock's owner; None where ``/proc`` cannot say."""
    start = start_ticks(os.getpid())
    boot, namespace = _boot_id(), _pid_namespace()
    if start is None or boot is None or namespace is None:
        return None
    return Owner(socket.gethostname(), boot, namespace, os.getpid(), start)


def lock_text() -> str:
    """What this process writes into a lock object it writes."""
    command = " ".join(posixpath.basename(arg) for arg in sys.argv[:2])
    stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    text = f"{socket.gethostname()} pid {os.getpid()} ({command}) at {stamp}\n"
    owner = this_process()
    if owner is not None:
        text += (
            f"{_TAG} host={owner.host} boot={owner.boot_id} "
            f"pidns={owner.pid_namespace} pid={owner.pid} start={owner.start_ticks}\n"
        )
    return text


def described(text: str) -> str:
    """A lock object's text for a message: its first line."""
    return text.strip().splitlines()[0] if text.strip() else "owner unknown"


def owner_of(text: str) -> Owner | None:
    """The owner a lock object's text records; None for an old or odd one."""
    for line in text.splitlines():
        words = line.split()
        if not words or words[0] != _TAG:
            continue
        fields = dict(word.partition("=")[::2] for word in words[1:])
        try:
            return Owner(
                fields["host"],
                fields["boot"],
                fields["pidns"],
                int(fields["pid"]),
                int(fields["start"]),
            )
        except (KeyError, ValueError):
            return None
    return None


def is_stale(text: str) -> bool:
    """Whether the process that wrote a lock with this text is provably gone."""
    owner = owner_of(text)
    here = this_process()
    if owner is None or here is None:
        return False
    if (owner.host, owner.boot_id, owner.pid_namespace) != (
        here.host,
        here.boot_id,
        here.pid_namespace,
    ):
        return False
    return start_ticks(owner.pid) != owner.start_ticks


def start_ticks(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks after boot); None: not running.

    A zombie (dead, not yet waited for) is not running: it holds nothing.
    """
    try:
        with open(f"{_PROC}/{pid}/stat", encoding="utf-8", errors="replace") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # after the command name: field 3 on
    if len(fields) < 20 or fields[0] in ("Z", "X"):
        return None
    try:
        return int(fields[19])  # field 22
    except ValueError:
        return None


def _boot_id() -> str | None:
    try:
        with open(f"{_PROC}/sys/kernel/random/boot_id", encoding="ascii") as f:
            return f.read().strip() or None
    except OSError:
        return None


def _pid_namespace() -> str | None:
    try:
        return os.readlink(f"{_PROC}/self/ns/pid")
    except OSError:
        return None


def stale_reason(text: str) -> str:
    """Why a stale lock's holder is gone, for the message that names it."""
    owner = owner_of(text)
    pid = owner.pid if owner is not None else "?"
    return f"stale: process {pid} on this host is no longer running"
