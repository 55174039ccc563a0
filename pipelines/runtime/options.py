"""Command-line arguments shared by every job: beamcrawl's own and Beam's.

Each command has an argparse parser for its own arguments (``-D``,
``--conf`` and the command's Nutch-named options); every other ``--flag``
must be a Beam pipeline option (``--runner``, ``--flink_master``,
``--project`` ...) and is passed to Beam. A flag that neither knows is a user
error, not silently dropped. Options may stand before or after positionals.

Reading a command line imports no Beam: Beam's flags are known from a
snapshot (:mod:`pipelines.runtime.beamflags`), and Beam is imported when a
job first needs its options (:attr:`Job.options`, :meth:`Job.pipeline`), so
that a user error is one line at once, not after seconds of importing.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crawllib.config import Properties, load_properties
from crawllib.errors import ConfigError
from pipelines.runtime import beamflags
from pipelines.runtime.arguments import ArgumentParser as ArgumentParser  # re-exported
from pipelines.runtime.arguments import job_parser as job_parser  # re-exported
from pipelines.runtime.arguments import unknown_flag_line
from pipelines.storage import pathnames

if TYPE_CHECKING:
    import apache_beam as beam
    from apache_beam.options.pipeline_options import PipelineOptions
    from apache_beam.runners.runner import PipelineResult

_LOG = logging.getLogger(__name__)


def add_segment_arguments(parser: ArgumentParser, dir_help: str) -> None:
    """``SEGMENT...`` and a repeatable ``--dir SEGMENTS_DIR``, as segment readers take.

    Args:
        parser: the command's parser.
        dir_help: what ``--dir`` takes, for ``--help``.
    """
    parser.add_argument("segments", nargs="*", metavar="SEGMENT")
    parser.add_argument(
        "--dir", action="append", default=[], metavar="SEGMENTS_DIR", help=dir_help
    )


@dataclass(frozen=True, kw_only=True)
class Job:
    """How a command runs its pipelines: Beam's flags, checked once.

    Every command's ``execute(request, job)`` takes one; ``crawl`` hands its
    own to each step, so the runner's services are checked once per crawl,
    not once per step.
    """

    beam_flags: tuple[str, ...] = ()
    command: str = ""
    """The command the job runs for (``inject``), for messages."""
    _prepared: dict[str, PipelineOptions] = field(
        default_factory=dict, compare=False, repr=False
    )
    """The options once checked, shared with the jobs :meth:`step` makes."""

    def step(self, command: str) -> Job:
        """This job, running ``command`` (a crawl's step): checked once for all."""
        return Job(
            beam_flags=self.beam_flags, command=command, _prepared=self._prepared
        )

    @property
    def options(self) -> PipelineOptions:
        """Beam pipeline options from the flags beamcrawl did not claim.

        The runner's services are checked the first time (see
        ``pipelines.runtime.runners``), and a ``--dry_run`` that would not stop
        the job is refused.
        """
        if "checked" not in self._prepared:
            from apache_beam.io.filesystems import FileSystems
            from apache_beam.options.pipeline_options import PipelineOptions

            from pipelines.runtime import dryrun, gcpauth, runners

            options = runners.prepare(PipelineOptions(list(self.beam_flags)))
            dryrun.check(options)
            gcpauth.honour_no_auth(options)
            FileSystems.set_options(options)  # s3:// endpoints and keys, before I/O
            self._prepared["checked"] = options
        return self._prepared["checked"]

    def pipeline_options(self) -> PipelineOptions:
        """:attr:`options`, made the filesystems' again (another Job may have run)."""
        from apache_beam.io.filesystems import FileSystems

        options = self.options
        FileSystems.set_options(options)
        return options

    @contextlib.contextmanager
    def pipeline(self) -> Iterator[beam.Pipeline]:
        """The job's pipeline: built in the block, run when the block ends.

        In a Dataflow dry run (``pipelines.runtime.dryrun``) it is only built,
        and :class:`~crawllib.errors.DryRunDone` is raised when the block ends,
        so that no step after it runs. A job that fails on Dataflow raises
        ``runners.JobFailedError`` (one line, as a Flink job's failure). An
        interrupted command cancels a job it submitted to a cluster.
        """
        import apache_beam as beam

        from pipelines.runtime import dryrun, runners

        try:
            with beam.Pipeline(options=self.pipeline_options()) as pipeline:
                yield pipeline
        except runners.DATAFLOW_FAILURES as exc:
            raise runners.dataflow_failure(exc) from exc
        except KeyboardInterrupt:
            runners.cancel(locals().get("pipeline"))
            raise
        dryrun.finish(pipeline, self.command or "the command")

    def is_local(self) -> bool:
        """Whether the pipelines run in this process (the DirectRunner).

        Read from the flags, without Beam, as ``runners.is_local`` reads the
        options: ``--runner`` (default DirectRunner) and ``--job_endpoint``.
        """
        runner = beam_flag_value(self.beam_flags, "--runner") or "DirectRunner"
        endpoint = beam_flag_value(self.beam_flags, "--job_endpoint")
        name = runner.rsplit(".", 1)[-1].lower()
        embedded = endpoint in (None, "embed")
        return name in ("directrunner", "direct", "switchingdirectrunner") and embedded

    def is_dataflow(self) -> bool:
        """Whether the jobs go to Google Cloud Dataflow (read from the flags)."""
        runner = beam_flag_value(self.beam_flags, "--runner") or ""
        return runner.rsplit(".", 1)[-1].lower() in ("dataflowrunner", "dataflow")


def beam_flag_value(flags: Sequence[str], name: str) -> str | None:
    """The last value given to Beam flag ``name`` (``--runner X``, ``--runner=X``)."""
    value = None
    for index, token in enumerate(flags):
        if token == name and index + 1 < len(flags):
            value = flags[index + 1]
        elif token.startswith(f"{name}="):
            value = token.partition("=")[2]
    return value


@dataclass(frozen=True, kw_only=True)
class JobArgs(Job):
    """A parsed command line: the command's arguments, its properties, its Job."""

    args: argparse.Namespace
    properties: Properties


def parse_job_args(parser: ArgumentParser, argv: Sequence[str]) -> JobArgs:
    """:func:`read_job_args`, then :func:`check_runner`: Beam is imported.

    Raises:
        ConfigError: an unknown option, a bad value or a bad config file.
        RunnerError: the runner's services are missing (``pipelines.runtime.runners``).
    """
    job = read_job_args(parser, argv)
    check_runner(job)
    return job


def read_job_args(parser: ArgumentParser, argv: Sequence[str]) -> JobArgs:
    """Split ``argv`` between ``parser`` and Beam, then load the properties.

    Imports no Beam: a command builds and checks its request from this
    before it imports its job (``pipelines.cli``).

    Raises:
        ConfigError: an unknown option, a bad value or a bad config file.
    """
    ours, beam_flags = split_beam_flags(parser, argv)
    args = parser.parse_args(ours)
    properties = load_properties(args.conf_files, args.defines, check=True)
    return JobArgs(
        args=args,
        beam_flags=tuple(beam_flags),
        properties=properties,
        command=parser.prog.rsplit(" ", 1)[-1],
    )


def check_runner(job: Job) -> None:
    """The runner's services and Beam's own checks of its flags: Beam is imported.

    On Dataflow, a job's data on this machine's disk is refused too (after
    Beam's own checks of the Dataflow flags, which come first).

    Raises:
        ConfigError: a flag Beam refuses (a ``--dry_run`` that would not stop),
            or local data on Dataflow.
        RunnerError: the runner's services are missing (``pipelines.runtime.runners``).
    """
    job.pipeline_options()
    if isinstance(job, JobArgs) and job.is_dataflow() and job.command != "demo":
        _refuse_local_data(job)  # demo says why in its own words


_DATA_ARGUMENTS = (
    "crawl_dir", "crawldb", "linkdb", "segment", "segments", "seeds", "dir", "dump",
)  # fmt: skip
"""The arguments that name data a job's workers read or write."""


def _refuse_local_data(job: JobArgs) -> None:
    """On Dataflow, data on this machine's disk: its workers would not see it.

    Raises:
        ConfigError: one of the job's data paths is local.
    """
    for name in _DATA_ARGUMENTS:
        value = getattr(job.args, name, None)
        for path in value if isinstance(value, list) else [value]:
            if isinstance(path, str) and pathnames.is_local(path):
                raise ConfigError(
                    f"{job.command}: {path} is on this machine's disk, "
                    "which Dataflow's workers cannot read or write; give a gs:// path"
                )


def split_beam_flags(
    parser: argparse.ArgumentParser, argv: Sequence[str]
) -> tuple[list[str], list[str]]:
    """Separate the tokens ``parser`` knows from Beam pipeline flags.

    A flag's value may be attached (``--runner=X``) or the next token
    (``--runner X``); which flags take a value is asked of the parsers.

    Raises:
        ConfigError: a flag neither parser knows (with the close known ones).
    """
    beam_actions = beamflags.FLAGS
    ours: list[str] = []
    beam: list[str] = []
    tokens = list(argv)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if token == "--":
            ours.extend(tokens[index - 1 :])
            break
        if not token.startswith("-") or _is_number(token):
            ours.append(token)
            continue
        name, has_value = _flag_name(token)
        own = _own_action(parser, token, name)
        if own is not None:
            target = ours
            takes_value = own.nargs != 0 and not has_value and not _attached(token)
        elif name in beam_actions:
            target = beam
            takes_value = beam_actions[name] and not has_value
        else:
            raise ConfigError(unknown_flag_line(parser, name, beam_actions))
        target.append(token)
        if takes_value and index < len(tokens):
            target.append(tokens[index])
            index += 1
    return ours, beam


def _flag_name(token: str) -> tuple[str, bool]:
    name, sep, _ = token.partition("=")
    return name, bool(sep)


def _attached(token: str) -> bool:
    """``-Dname=value``: a short option with its value in the same token."""
    return not token.startswith("--") and len(token) > 2


def _own_action(
    parser: argparse.ArgumentParser, token: str, name: str
) -> argparse.Action | None:
    actions = parser._option_string_actions
    if name in actions:
        return actions[name]
    if not token.startswith("--") and token[:2] in actions:
        return actions[token[:2]]
    return None


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def now_ms() -> int:
    """The job's clock: wall time in milliseconds, read once per job."""
    return int(time.time() * 1000)


def clock_ms(fixed_ms: int | None, given_ms: int | None = None) -> int:
    """A transform's clock: ``given_ms``, else the configured fixed time, else now.

    ``fixed_ms`` is ``injector.current.time`` / ``generate.curTime`` (None
    when unset); read once, when the transform is built, so every worker
    uses the same clock.
    """
    if given_ms is not None:
        return given_ms
    return fixed_ms if fixed_ms is not None else now_ms()


def counters(result: PipelineResult, namespace: str) -> dict[str, int]:
    """The committed (or else attempted) values of a namespace's counters.

    A runner that cannot report metrics gives none; a warning says so, once.
    """
    import grpc
    from apache_beam.metrics.metric import MetricsFilter

    try:
        query = result.metrics().query(MetricsFilter().with_namespace(namespace))
    except (NotImplementedError, grpc.RpcError) as exc:
        _no_counters(type(result).__name__, type(exc).__name__)
        return {}
    values: dict[str, int] = {}
    for counter in query["counters"]:
        value = (
            counter.committed if counter.committed is not None else counter.attempted
        )
        name = counter.key.metric.name
        values[name] = values.get(name, 0) + int(value or 0)
    return values


@functools.cache
def _no_counters(result_type: str, error: str) -> None:
    _LOG.warning(
        "the runner reported no counters (%s from %s): job summaries lack them",
        error,
        result_type,
    )


def describe(values: dict[str, Any]) -> str:
    """``name=value`` pairs in name order, for a one-line job summary."""
    if not values:
        return "no counters"
    return ", ".join(f"{name}={values[name]}" for name in sorted(values))
