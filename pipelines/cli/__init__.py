"""The ``beamcrawl`` command: one subcommand per crawl job (DESIGN.md).

``beamcrawl <command> [args...]`` reads the command line with the command's
front module, ``pipelines.cli.<command>`` (its parser and request, no Beam):
the arguments, the properties and every setting are checked before Beam is
imported or any data touched, so a user error is one line at once. Then it
imports the job, ``pipelines.<command>``, and runs
``run_request(request, job)``; a command without a front module runs
``pipelines.<command>.run(args)``. A user error (bad option, missing or
locked crawldb, bad property, no Flink cluster) prints one line on stderr
and exits 2, without a traceback; a job
that fails on its runner prints the runner's reason and exits 1. A Dataflow
dry run (``pipelines.runtime.dryrun``) prints one line and exits 0.
"""

from __future__ import annotations

from pipelines.cli import starting  # first: Ctrl-C while importing is one line

# isort: split
import difflib
import importlib
import importlib.util
import logging
import os
import sys
import threading
from collections.abc import Sequence
from typing import Any

from crawllib import __version__
from crawllib.errors import CrawlError, DryRunDone, Interrupted
from crawllib.terminal import printable
from pipelines.runtime import interrupts, jobstate, quiet
from pipelines.runtime.errorlines import error_line
from pipelines.storage import failures as storefailures

# Beam and gRPC are imported when a command runs: a parse worker process
# imports this module again as its __main__ (multiprocessing's spawn), and
# importing Beam there cost each worker two seconds of CPU

COMMANDS: dict[str, tuple[str, str]] = {
    "inject": ("pipelines.inject", "inject seed URLs into a crawldb"),
    "generate": ("pipelines.generate", "select URLs due for fetching into a segment"),
    "fetch": ("pipelines.fetch", "fetch a segment's fetch list"),
    "parse": ("pipelines.parse", "parse a fetched segment"),
    "updatedb": ("pipelines.updatedb", "update a crawldb from segments"),
    "crawl": (
        "pipelines.crawl",
        "inject, then rounds of generate/fetch/parse/updatedb",
    ),
    "readdb": ("pipelines.readdb", "crawldb statistics, dump, or one URL"),
    "readseg": ("pipelines.readseg", "list or dump a segment"),
    "dedup": ("pipelines.dedup", "mark duplicate pages in a crawldb"),
    "bucketdb": (
        "pipelines.bucketdb",
        "rewrite a crawldb or linkdb as sorted hash buckets",
    ),
    "invertlinks": ("pipelines.invertlinks", "build a linkdb of inlinks"),
    "sitemap": ("pipelines.sitemap", "inject the URLs of sitemaps into a crawldb"),
    "parsechecker": ("pipelines.parsechecker", "fetch and parse one URL"),
    "normalizerchecker": ("pipelines.checkers", "normalize URLs read from stdin"),
    "filterchecker": ("pipelines.checkers", "filter URLs read from stdin"),
    "demo": ("pipelines.demo", "crawl a bundled sample site served on loopback"),
    "warc": ("pipelines.warc", "write segments' fetches as WARC/1.1 files"),
    "index": ("pipelines.index", "index parsed pages (tantivy, Solr or Elasticsearch)"),
    "search": ("pipelines.search", "search a tantivy index built by index"),
    "conf": ("pipelines.conf", "print the configuration, or one property in full"),
    "report": ("pipelines.report", "write an HTML report of a crawl directory"),
}

_NOISE = (
    "apitools not found",
    # Beam 2.62 type-checks its own Top combiner's DoFn when a pipeline is
    # translated for a portable runner, and warns about it
    "No iterator is returned by the process method",
)
_HANG_UP_THREADS = ("read_grpc_client_inputs", "run_worker_")  # Beam's names
_HANG_UP_MESSAGE = "Failed to read inputs in the data plane"


class _DropNoise(logging.Filter):
    """Drop Beam's messages that say nothing about the job.

    Those are warnings about Beam's own code, the traceback an in-process
    (LOOPBACK) worker logs when the runner hangs up its data channel at the
    end of a job before the worker closed it: a race in Beam, not a failure
    (a job that really fails says so through its state), and the traceback
    Beam logs for a step stopped by a signal or by its storage, which the
    command's own line reports.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            if _HANG_UP_MESSAGE in message:
                return not _is_hang_up(exc)
            if record.name.startswith("apache_beam") and _reported(exc):
                return False
        return not any(noise in message for noise in _NOISE)


def _reported(exc: BaseException) -> bool:
    """Whether the command's own line reports ``exc``: an interrupt, a refusal."""
    return isinstance(exc, KeyboardInterrupt) or storefailures.failure(exc) is not None


def _is_hang_up(exc: BaseException | None) -> bool:
    """A gRPC call the other side cancelled."""
    import grpc

    return isinstance(exc, grpc.RpcError) and exc.code() == grpc.StatusCode.CANCELLED


def _ignore_hang_ups() -> None:
    """Keep an in-process worker's hang-up (above) from printing as a thread crash.

    Its data and control threads end with the CANCELLED call they were in.
    """
    previous = threading.excepthook
    if getattr(previous, "beamcrawl_hang_ups", False):
        return

    def hook(args: threading.ExceptHookArgs) -> None:
        name = args.thread.name if args.thread else ""
        if not name.startswith(_HANG_UP_THREADS) or not _is_hang_up(args.exc_value):
            previous(args)

    hook.beamcrawl_hang_ups = True  # type: ignore[attr-defined]
    threading.excepthook = hook


class _Printable(logging.Formatter):
    """Log lines with control characters escaped (:func:`crawllib.terminal.printable`).

    A URL or title that beamcrawl logs is the page's own: it cannot rewrite
    the terminal, and beamcrawl's messages stay one line each (a page cannot
    forge another). Other libraries' messages keep their newlines (Beam's
    retry warnings hold a traceback), as does a traceback after a message.
    """

    def formatMessage(self, record: logging.LogRecord) -> str:
        ours = record.name.partition(".")[0] in ("crawllib", "pipelines")
        record.message = printable(record.message, multiline=not ours)
        return super().formatMessage(record)

    def formatException(self, ei: Any) -> str:
        return printable(super().formatException(ei), multiline=True)

    def formatStack(self, stack_info: str) -> str:
        return printable(super().formatStack(stack_info), multiline=True)


def quiet_library_warnings() -> None:
    """No notices about the libraries' own future on every command's stderr.

    Google's clients' ``FutureWarning`` s, Beam's ``apitools not found`` and
    its S3 filesystem's ``list_prefix`` deprecation
    (:mod:`pipelines.runtime.quiet`), for the whole of the command's process.
    """
    quiet.quiet_this_process()


def setup_logging() -> None:
    """Beamcrawl's own INFO lines on stderr; Beam only from WARNING up."""
    quiet_library_warnings()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_Printable("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(_DropNoise())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    for name in ("crawllib", "pipelines"):
        logging.getLogger(name).setLevel(logging.INFO)
    _ignore_hang_ups()


def usage() -> str:
    """The command list printed by ``beamcrawl --help``."""
    width = max(len(name) for name in COMMANDS)
    lines = [
        "usage: beamcrawl <command> [options] [args]",
        "",
        "Every command takes -D name=value (repeatable) and --conf FILE; any",
        "other --flag is a Beam pipeline option (--runner, --flink_master ...).",
        "",
        "commands:",
    ]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; a user error prints one line and exits 2.

    SIGINT and SIGTERM stop it with one line and exit 130 and 143, once
    its jobs cleaned up (``pipelines.runtime.interrupts``).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if args else 2
    if args[0] == "--version":
        print(f"beamcrawl {__version__}")
        return 0
    command, rest = args[0], args[1:]
    jobstate.begin(command, rest)  # first: a signal's line names the command
    starting.started()
    own = argv is None  # the process is the command's
    try:
        setup_logging()
        return interrupts.run_command(lambda: _run(command, rest), own_process=own)
    except KeyboardInterrupt:  # before the handlers were installed
        return _interrupted("SIGINT", 130)


def _run(command: str, rest: list[str]) -> int:
    try:
        if command not in COMMANDS:
            raise CrawlError(unknown_command_line(command))
        code = _dispatch(command, rest)
        signum = interrupts.received()  # raised, and swallowed on its way up
        if signum is not None:
            raise Interrupted.by(signum)
        return code
    except DryRunDone as done:
        print(printable(dry_run_line(command, done)), file=sys.stderr)
        return 0
    except Interrupted as stop:
        return _interrupted(stop.signal_name, stop.exit_code)
    except KeyboardInterrupt:  # outside the main thread: no handler of ours
        return _interrupted("SIGINT", 130)
    except Exception as exc:
        _close_abandoned_files()
        line = error_line(command, exc)
        if line is None:
            raise
        print(printable(line), file=sys.stderr)
        user = isinstance(exc, CrawlError) or storefailures.failure(exc)
        return 2 if user else 1


def _interrupted(signal_name: str, code: int) -> int:
    """Stop the parse workers now; one line on what stopped and how to go on."""
    from crawllib.parse import pool as parsepool

    parsepool.stop_now()
    _close_abandoned_files()
    line = jobstate.stopped_line(f"interrupted by {signal_name}")
    print(printable(line), file=sys.stderr)
    return code


def _close_abandoned_files() -> None:
    """Close the files a stopped job's sinks left open (none if no job ran)."""
    sinks = sys.modules.get("pipelines.storage.io")  # not imported: no job ran
    if sinks is not None:
        sinks.close_abandoned_files()


def dry_run_line(command: str, done: DryRunDone) -> str:
    """The line a dry run ends with; a command of several jobs built only one."""
    line = f"beamcrawl: {command}: {done}"
    if done.job != command:
        line += f" (the later jobs of {command} read what it writes: not built)"
    return line


def unknown_command_line(command: str) -> str:
    """``unknown command 'crawel' (did you mean crawl?); see beamcrawl --help``."""
    close = difflib.get_close_matches(command.lower(), list(COMMANDS), n=2)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return f"unknown command {command!r}{hint}; see beamcrawl --help"


def _front(command: str) -> Any:
    """The command's front module (``pipelines.cli.<command>``), or None."""
    name = f"{__name__}.{command}"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def _dispatch(command: str, args: list[str]) -> int:
    module_name = COMMANDS[command][0]
    front = _front(command)
    if front is not None:  # the whole command line checked: no Beam yet
        from pipelines.runtime.options import read_job_args

        cli = read_job_args(front.parser(), args)
        request = front.request(cli)
    workers = parse_workers_to_start(command, args)
    if workers:
        from crawllib.parse import pool as parsepool

        parsepool.prestart(workers)  # they start while Beam is imported below
    try:
        with quiet.imports_quieted():  # Beam's own warning filter is taken back
            module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        raise CrawlError(f"{command} is not implemented yet") from None
    if "apache_beam" in sys.modules:  # the command runs pipelines
        from pipelines.runtime import beamspeed

        beamspeed.install()  # before any pipeline is built (bench/README.md)
    if front is not None:
        from pipelines.runtime.options import check_runner

        check_runner(cli)  # the runner's services, before any work
        return int(module.run_request(request, cli))
    if module_name == "pipelines.checkers":
        return int(module.run(command, args))
    return int(module.run(args))


def parse_workers_to_start(command: str, args: Sequence[str]) -> int:
    """The parse worker processes to start before Beam is imported; 0: none.

    The jobs of ``parse``, ``fetch --parse``, ``crawl`` and ``demo`` parse
    in one worker process per core on the local runner (``parser.processes``
    -1, the default). Started first, the workers import the parser while
    this process imports Beam. A job that turns out to want other workers
    (``parser.processes`` set in a ``--conf`` file) replaces them.
    """
    parses = command in ("parse", "crawl", "demo") or (
        command == "fetch" and "--parse" in args
    )
    cores = len(os.sched_getaffinity(0))
    if not parses or cores < 2:
        return 0
    for arg in args:
        if arg in ("-h", "--help") or arg.startswith(("--runner", "--job_endpoint")):
            return 0
        if "parser.processes" in arg:
            return 0
    return cores


if __name__ == "__main__":
    sys.exit(main())
