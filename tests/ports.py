"""Ports on 127.0.0.1 for the servers tests start, and waiting for them to listen."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(
    port: int,
    process: subprocess.Popen[bytes],
    timeout_s: float,
    log: Path | None = None,
) -> None:
    """Return once ``process`` listens on ``port``; raise if it exits or times out.

    ``log``: the process's output file, whose tail goes into the error.
    """
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            said = f": {log.read_text()[-2000:]}" if log else ""
            raise RuntimeError(
                f"{process.args!r} exited with {process.returncode}{said}"
            )
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"{process.args!r} did not listen on {port} in {timeout_s}s")
