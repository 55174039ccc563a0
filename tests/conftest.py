"""Shared fixtures: a real Beam TestPipeline, a fixed job clock, real servers.

``flink`` is a real Flink cluster (JobManager, TaskManager with two slots
and a Python worker pool, from ``scripts/flink-local``), started once per
test session and stopped by pid; the first run installs Flink and builds
Beam's Flink job server jar under ``.cache/flink``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from apache_beam.testing.test_pipeline import TestPipeline

from beamcrawl import install_speedups
from crawllib import logonce
from pipelines.demo import DemoSite
from tests.objectstores import Store, StoreServer, running_server
from tests.ports import free_port, wait_for_port
from tests.pydocs import DocsCrawl, crawl_docs, serve_docs
from tests.sites import Site, start_site

# The tests' pipelines run with the speed-ups the beamcrawl command installs
# (tests/test_import_effects.py checks, in fresh interpreters, that importing
# beamcrawl installs nothing and that the command does)
install_speedups()

FLINK_LOCAL = Path(__file__).resolve().parent.parent / "scripts" / "flinklocal.py"

NOW_MS = 1_700_000_000_000


@pytest.fixture(autouse=True)
def _first_warnings_again() -> None:
    """Each test sees each kind's first warnings (``crawllib.logonce``) anew."""
    logonce.forget()


@pytest.fixture
def pipeline() -> TestPipeline:
    """A TestPipeline on the default (Direct) runner; use it as a context manager."""
    return TestPipeline()


def with_python_on_path() -> dict[str, str]:
    """The environment with this interpreter's directory first on PATH.

    Beam's worker pool starts each SDK worker as a plain ``python``.
    """
    bin_dir = os.path.dirname(sys.executable)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}


@pytest.fixture(scope="session")
def portable_flags() -> Iterator[list[str]]:
    """Beam flags for the PortableRunner on a local job service + worker pool.

    The way Flink runs Python: the job service plans, an external worker
    pool (a separate process) runs the DoFns. Both are stopped by pid.
    """
    job_port, worker_port = free_port(), free_port()
    services = [
        subprocess.Popen(
            [sys.executable, "-m", module, flag, str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=with_python_on_path(),
        )
        for module, flag, port in [
            (
                "apache_beam.runners.portability.local_job_service_main",
                "--port",
                job_port,
            ),
            (
                "apache_beam.runners.worker.worker_pool_main",
                "--service_port",
                worker_port,
            ),
        ]
    ]
    try:
        for process, port in zip(services, [job_port, worker_port], strict=True):
            wait_for_port(port, process, timeout_s=60)
        yield [
            "--runner=PortableRunner",
            f"--job_endpoint=localhost:{job_port}",
            "--environment_type=EXTERNAL",
            f"--environment_config=localhost:{worker_port}",
        ]
    finally:
        for process in services:
            process.terminate()
        for process in services:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture
def site() -> Iterator[Site]:
    """A test HTTP server on 127.0.0.1 (see tests/sites.py for its paths)."""
    running = start_site("127.0.0.1")
    yield running
    running.stop()


@pytest.fixture
def sites() -> Iterator[Callable[..., Site]]:
    """Start more test servers: ``sites("127.0.0.2", robots="...")``."""
    started: list[Site] = []

    def start(host: str = "127.0.0.1", robots: str | None = None) -> Site:
        running = start_site(host, robots)
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()


@pytest.fixture
def demo_site() -> Iterator[DemoSite]:
    """The demo command's two-host sample site, on 127.0.0.1 and 127.0.0.2."""
    site = DemoSite().start()
    yield site
    site.stop()


@dataclass(frozen=True)
class FlinkCluster:
    """A running local Flink cluster and the Beam flags that use it."""

    loopback: list[str]
    """Python workers inside the submitting process (one machine)."""
    external: list[str]
    """Python workers from the worker pool, as a multi-machine cluster runs them."""

    def status(self) -> dict[str, Any]:
        """``flink-local status``: pids, liveness and the REST overview."""
        return json.loads(flink_local("status"))

    def pid(self, process: str) -> int:
        """The pid of ``jobmanager``, ``taskmanager`` or ``worker_pool``."""
        pid: int = self.status()["processes"][process]["pid"]
        return pid

    def restart(self) -> None:
        """Start whatever is not running (after a fault trial killed it)."""
        flink_local("start")


def run_flink_local(
    *args: str, run_dir: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``scripts/flink-local`` with this interpreter (state in ``run_dir``)."""
    env = with_python_on_path()
    if run_dir is not None:
        env["BEAMCRAWL_FLINK_RUN"] = str(run_dir)
    return subprocess.run(
        [sys.executable, str(FLINK_LOCAL), *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=1200,
        env=env,
    )


def flink_local(*args: str) -> str:
    """Run ``scripts/flink-local`` with this interpreter; its stdout."""
    done = run_flink_local(*args)
    if done.returncode != 0:
        raise RuntimeError(f"flink-local {' '.join(args)}: {done.stderr[-3000:]}")
    return done.stdout


@pytest.fixture(scope="session")
def flink() -> Iterator[FlinkCluster]:
    """A real Flink cluster for the session; stopped by pid if this started it."""
    processes = json.loads(flink_local("status"))["processes"]
    was_running = bool(processes) and all(p["alive"] for p in processes.values())
    flink_local("start")
    try:
        yield FlinkCluster(
            loopback=flink_local("flags").split(),
            external=flink_local("flags", "--environment", "external").split(),
        )
    finally:
        if not was_running:
            flink_local("stop")


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StoreServer]:
    """moto's S3 API server on 127.0.0.1 for the session; stopped by pid."""
    yield from running_server("s3", tmp_path_factory.mktemp("s3-server"))


@pytest.fixture(scope="session")
def gcs_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StoreServer]:
    """gcp-storage-emulator (GCS JSON API) on 127.0.0.1; stopped by pid."""
    yield from running_server("gs", tmp_path_factory.mktemp("gcs-server"))


@pytest.fixture
def s3_store(s3_server: StoreServer) -> Store:
    """A fresh S3 bucket on the session's moto server."""
    return s3_server.bucket()


@pytest.fixture
def gcs_store(gcs_server: StoreServer) -> Store:
    """A fresh GCS bucket on the session's emulator."""
    return gcs_server.bucket()


@pytest.fixture(scope="session")
def pydocs_crawl(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DocsCrawl]:
    """Python's HTML docs served on 127.0.0.5, crawled once per session.

    Read-only for tests: copy it before writing into it.
    """
    served = serve_docs()
    base = next(served)
    try:
        yield crawl_docs(base, tmp_path_factory.mktemp("pydocs") / "crawl")
    finally:
        served.close()
