"""``--no_auth`` makes Beam's GCS client anonymous, without a credentials lookup."""

from __future__ import annotations

from apache_beam.internal.gcp import auth
from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import PipelineOptions

from pipelines.runtime import gcpauth


def _forget() -> None:
    auth._Credentials._credentials_init = False
    auth._Credentials._credentials = None


def test_without_no_auth_beam_looks_credentials_up_as_before():
    _forget()
    gcpauth.honour_no_auth(PipelineOptions([]))
    assert not auth._Credentials._credentials_init


def test_no_auth_reaches_the_emulator_anonymously(gcs_store, monkeypatch):
    _forget()
    for key, value in gcs_store.env.items():
        monkeypatch.setenv(key, value)
    options = PipelineOptions(list(gcs_store.flags))
    gcpauth.honour_no_auth(options)
    assert auth.get_service_credentials(options) is None  # anonymous, no lookup
    FileSystems.set_options(options)
    path = gcs_store.url("x.txt")
    with FileSystems.create(path) as f:
        f.write(b"anonymous")
    with FileSystems.open(path) as f:
        assert f.read() == b"anonymous"
