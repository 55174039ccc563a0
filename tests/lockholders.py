"""Lock objects written by real processes, alive or gone (``lockowner``'s text)."""

from __future__ import annotations

import signal
import subprocess
import sys

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from pipelines.storage import locks

LOCK_NAME = "20000101T000000.000Z-0123456789ab.held"
"""Named before any lock a job writes now: the first a job sees."""
_HOLDER = """
import sys, time
sys.argv = ["beamcrawl", sys.argv[1]]
from pipelines.storage import lockowner
sys.stdout.write(lockowner.lock_text() + "\\0\\n")
sys.stdout.flush()
time.sleep(600 if sys.argv[1] == "live" else 0)
"""


class Holder:
    """A process that wrote a lock's text; ``live`` ones keep running."""

    def __init__(self, live: bool) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", _HOLDER, "live" if live else "dead"],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        lines: list[str] = []
        while (line := self.process.stdout.readline()) != "\0\n":
            assert line, "the holder ended before it said its lock's text"
            lines.append(line)
        self.text = "".join(lines)
        self.process.stdout.close()
        if not live:
            assert self.process.wait(timeout=60) == 0
        self.pid = self.process.pid

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def write_lock(self, db: str) -> str:
        path = FileSystems.join(db, locks.LOCK_DIR, LOCK_NAME)
        with FileSystems.create(
            path, compression_type=CompressionTypes.UNCOMPRESSED
        ) as f:
            f.write(self.text.encode())
        return path
