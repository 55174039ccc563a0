"""Runner set-up shared by every command: checks at the door, one job server.

Beam's FlinkRunner starts its job server (a JVM) for every pipeline and
keeps each one until the process exits, so a crawl of 16 jobs would start
16. :func:`prepare` starts it once per process and points every later job
at it (``--job_endpoint``). It also checks, before anything runs, what would
otherwise fail deep inside Beam or Flink with a long traceback: a Flink
cluster that does not answer or runs another Flink version, a job server
jar that does not exist, a job service that does not listen. Each becomes a
:class:`~crawllib.errors.RunnerError`: one line, exit 2.
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import json
import os
import re
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from apache_beam.options.pipeline_options import (
    FlinkRunnerOptions,
    GoogleCloudOptions,
    JobServerOptions,
    PipelineOptions,
    PortableOptions,
    StandardOptions,
)
from apache_beam.options.pipeline_options_validator import PipelineOptionsValidator
from apache_beam.runners.dataflow.dataflow_runner import (
    DataflowRunner,
    DataflowRuntimeException,
)
from apache_beam.runners.portability.flink_runner import (
    MAGIC_HOST_NAMES,
    FlinkJarJobServer,
    FlinkRunner,
)
from apache_beam.runners.portability.job_server import JobServer

from crawllib.errors import ConfigError, RunnerError

_CHECK_TIMEOUT_S = 5.0
_JOB_SERVER_OPTIONS = (
    "artifacts_dir", "job_port", "artifact_port", "expansion_port", "jar_cache_dir",
    "job_server_java_launcher", "job_server_jvm_properties",
)  # fmt: skip
_JOB_SERVERS: dict[tuple[str, ...], tuple[JobServer, str]] = {}
"""Flink job servers this process started, by their settings; stopped at exit."""


def prepare(options: PipelineOptions) -> PipelineOptions:
    """Check the runner's services; on Flink, share one job server per process.

    Raises:
        RunnerError: the cluster, the job server jar or the job service is
            not there.
    """
    runner = options.view_as(StandardOptions).runner or ""
    portable = options.view_as(PortableOptions)
    if portable.job_endpoint and portable.job_endpoint != "embed":
        _check_listening(portable.job_endpoint, "job service (--job_endpoint)")
    if is_dataflow(options):
        check_dataflow_options(options)
        return options
    if runner.rsplit(".", 1)[-1].lower() not in ("flink", "flinkrunner"):
        return options  # Beam's names for it, as create_runner reads them
    flink = options.view_as(FlinkRunnerOptions)
    if flink.flink_master not in MAGIC_HOST_NAMES:
        check_flink_cluster(flink.flink_master, flink.flink_version)
    if portable.job_endpoint or flink.flink_submit_uber_jar:
        return options
    _check_jar(flink.flink_job_server_jar)
    portable.job_endpoint = _shared_job_server(options)
    return options


def is_local(options: PipelineOptions) -> bool:
    """Whether the job runs in this process: the DirectRunner (Beam's default)."""
    runner = options.view_as(StandardOptions).runner or "DirectRunner"
    portable = options.view_as(PortableOptions)
    name = runner.rsplit(".", 1)[-1].lower()
    embedded = portable.job_endpoint in (None, "embed")
    return name in ("directrunner", "direct", "switchingdirectrunner") and embedded


def is_dataflow(options: PipelineOptions) -> bool:
    """Whether the job goes to Google Cloud Dataflow (``--runner DataflowRunner``)."""
    runner = options.view_as(StandardOptions).runner or ""
    return runner.rsplit(".", 1)[-1].lower() in ("dataflowrunner", "dataflow")


def check_dataflow_options(options: PipelineOptions) -> None:
    """Check the project, region, job name and temp location as Beam will.

    Beam checks them only when the job is submitted, with a traceback; and
    when neither ``--temp_location`` nor ``--staging_location`` is a
    ``gs://`` path it creates a bucket in the project to use instead.

    Raises:
        ConfigError: Beam's first complaint, one line.
    """
    validator = PipelineOptionsValidator(options, DataflowRunner())
    cloud = options.view_as(GoogleCloudOptions)
    errors = validator.validate_cloud_options(cloud)
    temp = validator.validate_gcs_path(cloud, "temp_location")
    if temp and validator.validate_gcs_path(cloud, "staging_location"):
        errors += [f"{temp[0].strip()} (--temp_location gs://BUCKET/tmp is needed)"]
    if errors:
        reason = " ".join(errors[0].split())
        raise ConfigError(f"Dataflow: {reason}")


def check_flink_cluster(master: str, flink_version: str | None) -> dict[str, Any]:
    """The cluster's REST ``/overview``; it must answer and run ``flink_version``.

    Raises:
        RunnerError: no answer, no TaskManager, or another Flink version.
    """
    base = master if "://" in master else f"http://{master}"
    url = f"{base.rstrip('/')}/overview"
    try:
        with urllib.request.urlopen(url, timeout=_CHECK_TIMEOUT_S) as response:
            overview: dict[str, Any] = json.load(response)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise RunnerError(
            f"no Flink cluster answers at {base} ({reason}); start one "
            "(scripts/flink-local start) or fix --flink_master"
        ) from None
    running = str(overview.get("flink-version", ""))
    if flink_version and not running.startswith(f"{flink_version}."):
        raise RunnerError(
            f"the Flink cluster at {base} runs Flink {running}, but "
            f"--flink_version is {flink_version}: they must match"
        )
    if not overview.get("taskmanagers"):
        raise RunnerError(f"the Flink cluster at {base} has no TaskManager")
    return overview


def stop_job_servers() -> None:
    """Stop the job servers :func:`prepare` started (also done at exit)."""
    servers = [server for server, _ in _JOB_SERVERS.values()]
    _JOB_SERVERS.clear()
    for server in servers:
        server.stop()


def _shared_job_server(options: PipelineOptions) -> str:
    flink = options.view_as(FlinkRunnerOptions)
    flink.flink_master = FlinkRunner.add_http_scheme(flink.flink_master)
    settings = options.view_as(JobServerOptions).get_all_options()
    key = tuple(
        str(value)
        for value in (
            flink.flink_master,
            flink.flink_version,
            flink.flink_job_server_jar,
            *(settings[name] for name in sorted(_JOB_SERVER_OPTIONS)),
        )
    )
    if key in _JOB_SERVERS and _not_listening(_JOB_SERVERS[key][1]):
        _JOB_SERVERS.pop(key)[0].stop()  # it died: start another
    if key not in _JOB_SERVERS:
        if not _JOB_SERVERS:
            atexit.register(stop_job_servers)
        server = _FlinkJobServer(options)
        _start(server)
        _JOB_SERVERS[key] = (server, server.endpoint)
    return _JOB_SERVERS[key][1]


class _FlinkJobServer(FlinkJarJobServer):
    """Beam's Flink job server that also tells where it listens."""

    endpoint = ""

    def subprocess_cmd_and_endpoint(self) -> tuple[list[str], str]:
        command, endpoint = super().subprocess_cmd_and_endpoint()
        self.endpoint = endpoint
        return command, endpoint


def _start(server: JobServer) -> None:
    """Start Beam's job server; what keeps it from starting is one line."""
    try:
        server.start()
    except FileNotFoundError as exc:
        raise RunnerError(
            f"cannot start Beam's Flink job server: {exc.filename} is not installed"
        ) from None
    except (RuntimeError, ValueError, OSError) as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise RunnerError(
            f"cannot start Beam's Flink job server: {first_line or type(exc).__name__}"
        ) from None


def _check_jar(jar: str | None) -> None:
    if not jar or urllib.parse.urlparse(jar).scheme in ("http", "https", "gs", "s3"):
        return
    if not os.path.isfile(jar):
        raise RunnerError(
            f"--flink_job_server_jar {jar}: no such file "
            "(scripts/flink-local install builds one)"
        )


def _check_listening(endpoint: str, what: str) -> None:
    problem = _not_listening(endpoint)
    if problem:
        raise RunnerError(f"no {what} listens at {endpoint} ({problem})")


def _not_listening(endpoint: str) -> str | None:
    """Why nothing accepts a connection at ``host:port``; None if something does."""
    host, _, port = endpoint.rpartition(":")
    try:
        with socket.create_connection(
            (host or "localhost", int(port)), timeout=_CHECK_TIMEOUT_S
        ):
            return None
    except (OSError, ValueError) as exc:
        return str(exc)


def cancel(pipeline: object) -> None:
    """Cancel the job ``pipeline`` submitted to a runner, if it is running there.

    For a command interrupted while it waits for a job on Flink or Dataflow,
    which would otherwise run on, writing into a version the command
    removes. A local (DirectRunner) job stops with the command: no result.
    """
    result = getattr(pipeline, "result", None)
    if result is not None:
        with contextlib.suppress(Exception):  # gone, or done meanwhile
            result.cancel()


class JobFailedError(RuntimeError):
    """A job failed on Dataflow; the message is Dataflow's reason, one line."""


DATAFLOW_FAILURES = (DataflowRuntimeException,)
"""What Beam's DataflowRunner raises for a job that failed on Dataflow."""


def dataflow_failure(exc: BaseException) -> JobFailedError:
    """Dataflow's failed-job error as a :class:`JobFailedError`.

    Beam's message is ``Dataflow pipeline failed. State: FAILED, Error:`` and
    the service's last error message, which may span many lines.
    """
    head, _, error = str(exc).partition("Error:")
    lines = [line.strip() for line in error.splitlines() if line.strip()]
    first = head.strip().splitlines()[0] if head.strip() else "no reason given"
    return JobFailedError(lines[0][:300] if lines and lines[0] != "None" else first)


def failed_job_reason(exc: BaseException) -> str | None:
    """The runner's reason when ``exc`` is a runner's failed-job error.

    Beam raises ``RuntimeError("Pipeline <id> failed in state FAILED: ...")``
    when a job fails on Flink or another portable runner, and
    :func:`dataflow_failure` makes a :class:`JobFailedError` of Dataflow's;
    anything else is not a failed job (None).
    """
    if isinstance(exc, JobFailedError):
        return str(exc)
    message = str(exc)
    if not isinstance(exc, RuntimeError) or " failed in state " not in message:
        return None
    reason = message.split(": ", 1)[1] if ": " in message else message
    lines = reason.strip().splitlines()
    return lines[0][:300] if lines else "no reason given"


_CHILD_OUTPUT = "output of the failed child process"
_COMMAND = re.compile(r"Command '(\[.*?\])' returned non-zero exit status (\d+)")


def staging_failure_reason(exc: BaseException) -> str | None:
    """What failed when Beam could not stage a job's packages; None otherwise.

    Beam builds the ``--setup_file`` package (``python setup.py sdist``) and
    installs ``--requirements_file`` with the launcher's Python, and raises a
    ``RuntimeError`` holding the tracebacks and output when that fails. The
    reason is the last command Beam ran and the first line of its output (its
    error messages went to stderr already).
    """
    message = str(exc)
    if not isinstance(exc, RuntimeError) or _CHILD_OUTPUT not in message:
        return None
    commands = _COMMAND.findall(message)
    try:
        argv = [str(arg) for arg in ast.literal_eval(commands[-1][0])]
    except (IndexError, ValueError, SyntaxError):
        argv = []
    what = " ".join(["python", *argv[1:3]]) if argv else "a command"
    status = f"exit status {commands[-1][1]}" if commands else "an error"
    lines = _output_lines(message.split(_CHILD_OUTPUT, 1)[1])
    return f"{what} failed ({status}): {lines[0][:300] if lines else 'see above'}"


def _output_lines(output: str) -> list[str]:
    """The non-empty lines of a child's output, which Beam gives as bytes' repr."""
    try:
        text = ast.literal_eval(output.strip())
    except (ValueError, SyntaxError):
        text = output
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return [line.strip() for line in str(text).splitlines() if line.strip()]
