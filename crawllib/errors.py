"""User errors: raised before a pipeline runs, printed by the CLI as one line.

The hierarchy::

    CrawlError                  anything the user can fix; the CLI exits 2
    ├── ConfigError             a bad property value, config file or option
    ├── SeedError               no seed files, unreadable seed path
    ├── CrawlDbError            a crawldb problem
    │   ├── CrawlDbMissingError   no crawldb where one was expected
    │   └── CrawlDbLockedError    another job holds ``<crawldb>/.locked``
    ├── CorruptFileError        a part file a job would read is empty, cut
    │                           short, not Avro or of another schema
    └── RunnerError             the runner's services (a Flink cluster, a job
                                server or its jar) are missing or unreachable

A pipeline that fails on a portable runner (a lost worker ...) is not a
user error: the CLI prints the runner's reason in one line and exits 1.

Per-URL failures are never exceptions: they are data (a status on the record
and a counter). Bugs raise whatever they raise.

A store that refuses a write or a read (a full disk, a read-only file
system, no permission: ``ENOSPC``, ``EROFS``, ``EACCES``, or an object
store's 403) raises the library's own error wherever it happens, in this
process or a worker; the CLI names the path in one line and exits 2
(``pipelines.storage.failures``).

Not errors: :class:`DryRunDone` ends a command whose job was only built
(a Dataflow dry run, ``pipelines.runtime.dryrun``); the CLI prints it and exits 0.
:class:`Interrupted` is SIGINT or SIGTERM (``pipelines.runtime.interrupts``); the CLI
says what stopped in one line and exits 130 or 143.
"""

from __future__ import annotations

import signal


class CrawlError(Exception):
    """Base of every error the user can fix; its message is one line."""


class ConfigError(CrawlError):
    """A property, config file or command-line option is invalid."""


class SeedError(CrawlError):
    """The seed path is missing or holds no seed files."""


class CrawlDbError(CrawlError):
    """Something is wrong with a crawldb directory."""


class CrawlDbMissingError(CrawlDbError):
    """No crawldb where one was expected."""


class CrawlDbLockedError(CrawlDbError):
    """The crawldb is locked by another job (``<crawldb>/.locked`` exists)."""


class CorruptFileError(CrawlError):
    """A crawldb, linkdb or segment part file cannot be read whole."""


class RunnerError(CrawlError):
    """The runner's services are missing: no cluster, job service or jar."""


class DryRunDone(Exception):
    """A dry run built the command's job and stopped before anything ran.

    Raised when the job's pipeline is built, before any step after it
    (installing a version, renaming a segment, printing results), so that
    nothing is changed; the CLI prints the message and exits 0.
    """

    def __init__(self, job: str, message: str) -> None:
        super().__init__(message)
        self.job = job
        """The command whose job was built (``inject`` for a crawl's first)."""


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived: the command stops, its ``finally`` blocks clean up.

    A ``KeyboardInterrupt``, so that what handles Ctrl-C handles it, and
    nothing that catches ``Exception`` swallows it. The arguments are
    ``(message, signum)``: Beam rebuilds an exception from its arguments
    with the step's name added to the message.
    """

    def __init__(self, message: str, signum: int) -> None:
        super().__init__(message, signum)
        self.signum = signum
        """The signal's number (``signal.SIGINT``, ``signal.SIGTERM``)."""

    @classmethod
    def by(cls, signum: int) -> Interrupted:
        """The exception for signal ``signum``."""
        return cls(f"interrupted by {signal.Signals(signum).name}", signum)

    @property
    def signal_name(self) -> str:
        """``SIGINT`` or ``SIGTERM``."""
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """What a shell reports for a command killed by the signal: 128 + signum."""
        return 128 + self.signum
