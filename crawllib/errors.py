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

Not an error: :class:`DryRunDone` ends a command whose job was only built
(a Dataflow dry run, ``pipelines.dryrun``); the CLI prints it and exits 0.
"""


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
