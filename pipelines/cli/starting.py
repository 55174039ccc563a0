"""Ctrl-C while ``beamcrawl`` starts: one line, not the traceback of an import.

Until :func:`pipelines.cli.main` installs the command's handlers
(``pipelines.runtime.interrupts``), a SIGINT would be a ``KeyboardInterrupt``
in whatever module Python was importing. Imported first by the
``beamcrawl`` program (the console script, or ``python -m``), this module
makes it one line and exit 130 instead: nothing has begun that could need
cleaning up. Imported by anything else (a test, a library user), it changes
nothing.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

LINE = b"beamcrawl: interrupted by SIGINT while starting: nothing was changed\n"


def _stop(signum: int, frame: FrameType | None) -> None:
    os.write(2, LINE)
    os._exit(128 + signum)


def _starting_the_program() -> bool:
    """``beamcrawl ...``, or ``python -m ...`` while it imports its module."""
    if "__mp_main__" in sys.modules:  # a worker process multiprocessing spawned
        return False
    program = sys.argv[0] if sys.argv else ""
    return program == "-m" or os.path.basename(program) == "beamcrawl"


def started() -> None:
    """The command took over: Python's own SIGINT handler until it installs its own."""
    if signal.getsignal(signal.SIGINT) is _stop:
        signal.signal(signal.SIGINT, signal.default_int_handler)


if (
    _starting_the_program()
    and signal.getsignal(signal.SIGINT) is signal.default_int_handler
):
    signal.signal(signal.SIGINT, _stop)
