"""Dataflow dry runs: build a command's job offline, run nothing.

With ``--runner DataflowRunner --dry_run=True`` (Beam's ``TestOptions``
flag) Beam's DataflowRunner builds the job Dataflow would get, the portable
pipeline proto, and returns without submitting it. :func:`finish` then
stops the command before any step after its pipeline: nothing is installed,
renamed or printed as a result, and the locks the command took are released
by their ``finally``. A command that runs several jobs (``crawl``) stops
after building its first, as the later ones read what it would write.

With ``--dataflow_job_file FILE`` (local or ``gs://``) the job is written
there as JSON (Beam itself writes that file only when it submits)::

    {"job": {"name": ..., "type": "JOB_TYPE_BATCH", ...},
     "pipeline": {...},          # the pipeline proto, as Dataflow gets it
     "staged_files": [{"source": LOCAL_FILE, "target": "gs://.../NAME"}]}

``staged_files`` are the files the launcher uploads to the staging location
when it submits (the ``--setup_file`` package, Beam's list of the launching
environment's packages); ``pipeline`` refers to them by their staged URLs,
as Beam rewrites them on submission.
"""

from __future__ import annotations

import json
from typing import Any

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import (
    DebugOptions,
    GoogleCloudOptions,
    PipelineOptions,
    TestOptions,
)
from apache_beam.portability import common_urns
from apache_beam.portability.api import beam_runner_api_pb2
from google.protobuf import json_format  # type: ignore[import-untyped]

from crawllib.errors import ConfigError, DryRunDone
from pipelines.runtime import runners

_FALSE = ("", "false", "0", "no", "off")


def check(options: PipelineOptions) -> None:
    """Refuse a ``--dry_run`` that would not stop the job.

    Only the DataflowRunner honours ``--dry_run``: any other runner would run
    the job for real. Beam reads any non-empty value as true, so
    ``--dry_run=False`` would still skip the job.

    Raises:
        ConfigError: ``--dry_run`` with another runner, or a false value.
    """
    value = options.view_as(TestOptions).dry_run
    if value is None or value is False:
        return
    if str(value).strip().lower() in _FALSE:
        raise ConfigError(
            f"--dry_run={value} still skips the job on Dataflow (Beam takes any "
            "value as true): leave the flag out to run the job"
        )
    if not runners.is_dataflow(options):
        raise ConfigError(
            "--dry_run works with --runner DataflowRunner only; "
            "another runner would run the job"
        )


def finish(pipeline: beam.Pipeline, command: str) -> None:
    """After a pipeline ran: in a dry run, write the job file and stop.

    Raises:
        DryRunDone: the pipeline was only built (Dataflow's dry run).
    """
    options = pipeline.options
    job = getattr(pipeline.result, "job", None)
    if job is None or not options.view_as(TestOptions).dry_run:
        return
    proto = beam_runner_api_pb2.Pipeline()
    proto.CopyFrom(job.proto_pipeline)
    staging = job.options.view_as(GoogleCloudOptions).staging_location
    staged = _as_staged(proto, staging)
    leaves = sum(1 for t in proto.components.transforms.values() if not t.subtransforms)
    path = options.view_as(DebugOptions).dataflow_job_file
    where = "not written (--dataflow_job_file FILE keeps it)"
    if path:
        _write_json(path, job_description(json.loads(job.json()), proto, staged))
        where = f"written to {path}"
    raise DryRunDone(
        command,
        f"dry run: Dataflow job of {command} built ({leaves} transforms), "
        f"{where}; nothing ran or was installed",
    )


def job_description(
    job: dict[str, Any],
    proto: beam_runner_api_pb2.Pipeline,
    staged: list[dict[str, str]],
) -> dict[str, Any]:
    """The job file's content: the job, its pipeline proto, the files to stage."""
    return {
        "job": job,
        "pipeline": json_format.MessageToDict(proto),
        "staged_files": staged,
    }


def _as_staged(
    proto: beam_runner_api_pb2.Pipeline, staging: str | None
) -> list[dict[str, str]]:
    """Point the environments' local artifacts at their staged URLs, as Beam does.

    Returns the local files and where submitting would upload them.
    """
    staged: list[dict[str, str]] = []
    for env in proto.components.environments.values():
        for dep in env.dependencies:
            if dep.type_urn != common_urns.artifact_types.FILE.urn:
                continue
            source = beam_runner_api_pb2.ArtifactFilePayload.FromString(
                dep.type_payload
            )
            name = source.path.rsplit("/", 1)[-1]
            if dep.role_urn == common_urns.artifact_roles.STAGING_TO.urn:
                role = beam_runner_api_pb2.ArtifactStagingToRolePayload.FromString(
                    dep.role_payload
                )
                name = role.staged_name
            target = FileSystems.join(staging, name) if staging else name
            staged.append({"source": source.path, "target": target})
            dep.type_urn = common_urns.artifact_types.URL.urn
            dep.type_payload = beam_runner_api_pb2.ArtifactUrlPayload(
                url=target, sha256=source.sha256
            ).SerializeToString()
    return staged


def _write_json(path: str, content: dict[str, Any]) -> None:
    data = json.dumps(content, indent=1, sort_keys=True).encode()
    with FileSystems.create(
        path,
        mime_type="application/json",
        compression_type=CompressionTypes.UNCOMPRESSED,
    ) as out:
        out.write(data)
