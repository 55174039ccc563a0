"""Beam's S3 filesystem shares one boto3 client per set of S3 settings."""

from __future__ import annotations

from apache_beam.io.aws.clients.s3 import boto3_client
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions

from pipelines.runtime import beamspeed


def test_one_client_per_settings_and_it_still_reads_and_writes(s3_store):
    beamspeed.install()
    s3_store.use()
    options = PipelineOptions(list(s3_store.flags))
    first = boto3_client.Client(options)
    second = boto3_client.Client(options)
    assert first.client is second.client
    other = boto3_client.Client(PipelineOptions([*s3_store.flags, "--s3_verify=x"]))
    assert other.client is not first.client
    path = s3_store.url("a", "b.txt")
    with FileSystems.create(path) as f:
        f.write(b"shared")
    with FileSystems.open(path) as f:
        assert f.read() == b"shared"
    assert [
        m.path for m in FileSystems.match([s3_store.url("a", "*")])[0].metadata_list
    ] == [path]
