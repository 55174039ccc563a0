"""Object store servers for tests: moto (S3 API) and gcp-storage-emulator (GCS).

Each server runs in its own process on 127.0.0.1 and a free port, started
once per test session and stopped by its pid. A test gets a fresh bucket
(:class:`Store`): its ``root`` URL (``s3://...`` or ``gs://...``), the Beam
flags that point Beam's filesystem at the server, and the environment a
``beamcrawl`` subprocess needs. ``use()`` points this process's Beam
``FileSystems`` at the store too.

Both need the ``aws`` / ``gcp`` extras (``pip install -e '.[test,aws,gcp]'``,
as ``.ci/run`` does).
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.ports import free_port, wait_for_port

S3_KEY = "testing"
S3_REGION = "us-east-1"
GCS_PROJECT = "beamcrawl-test"

_buckets = itertools.count()


@dataclass(frozen=True)
class Store:
    """A bucket on a running store server, and how beamcrawl reaches it."""

    scheme: str
    """``s3`` or ``gs``."""
    root: str
    """``s3://<bucket>`` or ``gs://<bucket>``: the fresh bucket's URL."""
    flags: tuple[str, ...]
    """Beam flags for a ``beamcrawl`` command on this store."""
    env: dict[str, str] = field(default_factory=dict)
    """Variables a process reaching the store needs (on top of os.environ)."""
    pid: int = 0
    """The server's pid."""

    def url(self, *parts: str) -> str:
        """``root/parts...``."""
        return "/".join([self.root, *parts])

    def process_env(self) -> dict[str, str]:
        """os.environ with this store's variables, for a subprocess."""
        return {**os.environ, **self.env}

    def use(self) -> None:
        """Point this process's Beam FileSystems at the store."""
        from apache_beam.io.filesystems import FileSystems
        from apache_beam.options.pipeline_options import PipelineOptions

        os.environ.update(self.env)
        from pipelines.runtime import gcpauth

        options = PipelineOptions(list(self.flags))
        gcpauth.honour_no_auth(options)
        FileSystems.set_options(options)


def store_in_use(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, scheme: str
) -> Store:
    """The ``s3_store`` or ``gcs_store`` fixture's fresh bucket, in use.

    This process's environment and Beam FileSystems point at it (the
    environment is restored after the test).
    """
    store: Store = request.getfixturevalue(
        "s3_store" if scheme == "s3" else "gcs_store"
    )
    for key, value in store.env.items():
        monkeypatch.setenv(key, value)
    store.use()
    return store


def run_beamcrawl(
    store: Store, *args: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``beamcrawl ARGS`` in a child process on ``store``; a failure fails the test.

    With ``check=False`` the finished process is returned whatever its exit.
    """
    done = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *args, *store.flags],
        capture_output=True,
        text=True,
        env=store.process_env(),
        timeout=600,
        check=False,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"beamcrawl {args[0]} failed: {done.stderr[-3000:]}")
    return done


def _script(name: str) -> str:
    found = shutil.which(name, path=os.path.dirname(sys.executable))
    if found is None:
        raise RuntimeError(f"{name} not installed: pip install -e '.[test,aws,gcp]'")
    return found


@dataclass
class StoreServer:
    """A store server process; :meth:`bucket` makes a fresh Store on it."""

    scheme: str
    port: int
    process: subprocess.Popen[bytes]

    @property
    def endpoint(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.port}"

    def bucket(self) -> Store:
        """A new, empty bucket and the Store that reaches it."""
        name = f"crawl-{next(_buckets)}-{os.getpid()}"
        if self.scheme == "s3":
            self._s3_client().create_bucket(Bucket=name)
            return Store(
                "s3",
                f"s3://{name}",
                (
                    f"--s3_endpoint_url={self.endpoint}",
                    f"--s3_access_key_id={S3_KEY}",
                    f"--s3_secret_access_key={S3_KEY}",
                    f"--s3_region_name={S3_REGION}",
                ),
                pid=self.process.pid,
            )
        self._gcs_client().create_bucket(name)
        return Store(
            "gs",
            f"gs://{name}",
            ("--no_auth", f"--project={GCS_PROJECT}"),
            {"STORAGE_EMULATOR_HOST": self.endpoint},
            pid=self.process.pid,
        )

    def _s3_client(self) -> Any:
        import boto3  # type: ignore[import-untyped]

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            aws_access_key_id=S3_KEY,
            aws_secret_access_key=S3_KEY,
            region_name=S3_REGION,
        )

    def _gcs_client(self) -> Any:
        from google.auth.credentials import AnonymousCredentials
        from google.cloud import storage  # type: ignore[attr-defined,import-untyped]

        return storage.Client(
            project=GCS_PROJECT,
            credentials=AnonymousCredentials(),
            client_options={"api_endpoint": self.endpoint},
        )

    def stop(self) -> None:
        """Stop the server by its pid."""
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_server(scheme: str, log_dir: Path) -> StoreServer:
    """Start moto (``s3``) or gcp-storage-emulator (``gs``) on a free port."""
    port = free_port()
    if scheme == "s3":
        command = [_script("moto_server"), "-H", "127.0.0.1", "-p", str(port)]
    else:
        command = [
            _script("gcp-storage-emulator"),
            "start",
            "--host=127.0.0.1",
            f"--port={port}",
            "--in-memory",
        ]
    log = log_dir / f"{scheme}-server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, process, 60, log)
    except BaseException:
        process.kill()
        raise
    return StoreServer(scheme, port, process)


def running_server(scheme: str, log_dir: Path) -> Iterator[StoreServer]:
    """A server for a session-scoped fixture: started, yielded, stopped."""
    server = start_server(scheme, log_dir)
    try:
        yield server
    finally:
        server.stop()
