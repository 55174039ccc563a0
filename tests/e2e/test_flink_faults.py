"""Faults and user errors on a real Flink cluster (the ``flink`` fixture).

A TaskManager or a Python SDK worker killed with SIGKILL in the middle of a
job fails the job (the cluster runs without restarts); the crawldb or the
segment is left as it was, and the rerun completes and writes what an
uninterrupted run writes. A user error about the cluster is one line on
stderr and exit 2.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from pipelines.cli import main
from tests.avrofiles import read_pages
from tests.conftest import run_flink_local, with_python_on_path
from tests.crawlrecords import without_wall_clock
from tests.e2e.test_flink import FLAGS, PAGES
from tests.ports import free_port, wait_for_port
from tests.processes import children_of

REST = "http://127.0.0.1:8081"


def _beamcrawl(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pipelines.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=with_python_on_path(),
    )


def _jobs_with_running_tasks() -> list[str]:
    """Jobs with a task deployed and running on a TaskManager.

    A job is RUNNING as soon as it is scheduled; a TaskManager killed before
    its slots are given out leaves the job waiting for slots (five minutes,
    Flink's slot.request.timeout), not failed.
    """
    with urllib.request.urlopen(f"{REST}/jobs/overview", timeout=5) as response:
        jobs = json.load(response)["jobs"]
    return [
        job["jid"]
        for job in jobs
        if job["state"] == "RUNNING" and job["tasks"].get("running", 0) > 0
    ]


def _kill_when(ready: Any, pids: Any, process: subprocess.Popen[str]) -> None:
    """SIGKILL ``pids()`` as soon as ``ready()``; the job must still be running."""
    deadline = time.monotonic() + 180
    while not ready():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the job never started"
        time.sleep(0.05)
    victims = pids()
    assert victims, "nothing to kill: a kill that missed would pass unseen"
    for pid in victims:
        os.kill(pid, signal.SIGKILL)


def _failed(process: subprocess.Popen[str], command: str) -> str:
    """The job failed: exit 1 and the runner's reason as the last line."""
    _, err = process.communicate(timeout=300)
    assert process.returncode == 1, err[-3000:]
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"beamcrawl: {command}: the job failed: "), last
    return last


def _digests(directory: Path) -> dict[str, str]:
    return {
        name: hashlib.sha256((directory / name).read_bytes()).hexdigest()
        for name in sorted(os.listdir(directory))
    }


def _masked(directory: Path) -> list[dict[str, Any]]:
    return [without_wall_clock(page, {}) for page in read_pages(directory)]


def _fetched_segment(tmp_path: Path, demo_site: Any) -> tuple[Path, Path]:
    """A crawldb and one fetched and parsed segment of the demo site (DirectRunner)."""
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(
        "".join(
            demo_site.url(h) + p + "\n" for h, paths in PAGES.items() for p in paths
        )
    )
    crawl = tmp_path / "crawl"
    db, segments = str(crawl / "db"), str(crawl / "segments")
    assert main(["inject", db, str(seeds), *FLAGS]) == 0
    assert main(["generate", db, segments, "--numFetchers", "2", *FLAGS]) == 0
    segment = Path(segments, os.listdir(segments)[0])
    assert main(["fetch", str(segment), "--parse", *FLAGS]) == 0
    return crawl, segment.relative_to(crawl)


def test_taskmanager_killed_in_updatedb_leaves_the_crawldb_whole(
    tmp_path, demo_site, flink
):
    crawl, segment = _fetched_segment(tmp_path, demo_site)
    calm = tmp_path / "uninterrupted"
    shutil.copytree(crawl, calm, symlinks=True)
    assert main(["updatedb", str(calm / "db"), str(calm / segment), *FLAGS]) == 0
    current = crawl / "db" / "current"
    before = _digests(current)

    update = ["updatedb", str(crawl / "db"), str(crawl / segment), *FLAGS]
    process = _beamcrawl(*update, *flink.external)
    try:
        taskmanager = lambda: [flink.pid("taskmanager")]  # noqa: E731
        _kill_when(_jobs_with_running_tasks, taskmanager, process)
        _failed(process, "updatedb")
    finally:
        flink.restart()

    assert _digests(current) == before  # byte for byte
    # the launcher saw the job fail and released its lock (a launcher killed
    # itself leaves it behind: tests/e2e/test_crash.py and --force)
    assert not (crawl / "db" / ".locked").exists()
    assert main([*update, *flink.external]) == 0
    assert _masked(current) == _masked(calm / "db" / "current")


def _sdk_workers(pool: int) -> list[int]:
    """The worker pool's children: the Python SDK workers it started."""
    return list(children_of(pool))


def test_sdk_worker_killed_in_fetch_leaves_the_segment_unfetched(
    tmp_path, sites, flink
):
    hosts = [sites("127.0.0.3"), sites("127.0.0.4")]
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("".join(h.url(f"/slow/0.5{n}\n") for h in hosts for n in range(8)))
    polite = ["-Dhttp.agent.name=fault-test", "-Dfetcher.server.delay=0"]
    db, segments = str(tmp_path / "db"), str(tmp_path / "segments")
    assert main(["inject", db, str(seeds), *polite]) == 0
    assert main(["generate", db, segments, "--numFetchers", "2", *polite]) == 0
    segment = Path(segments, os.listdir(segments)[0])
    calm = tmp_path / "uninterrupted"
    shutil.copytree(segment, calm)
    assert main(["fetch", str(calm), *polite]) == 0

    pool = flink.pid("worker_pool")
    process = _beamcrawl("fetch", str(segment), *polite, *flink.external)
    served = sum(len(h.requests_for("/slow/")) for h in hosts)  # by the calm run
    fetching = lambda: sum(len(h.requests_for("/slow/")) for h in hosts) > served  # noqa: E731
    _kill_when(fetching, lambda: _sdk_workers(pool), process)
    _failed(process, "fetch")

    assert sorted(os.listdir(segment)) == ["generate"]  # nothing half-written
    assert main(["fetch", str(segment), *polite, *flink.external]) == 0
    assert _masked(segment / "fetch") == _masked(calm / "fetch")


def _one_line_error(*args: str) -> str:
    process = _beamcrawl(*args)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 2, err[-3000:]
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[-3000:]
    assert lines[0].startswith("beamcrawl: ")
    return lines[0]


def _flags_with(flink: Any, **changed: str) -> list[str]:
    flags = []
    for flag in flink.external:
        name = flag.split("=", 1)[0].lstrip("-")
        flags.append(f"--{name}={changed[name]}" if name in changed else flag)
    return flags


def test_user_errors_on_flink_are_one_line_and_exit_2(tmp_path, flink):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://a.example.com/\n")
    inject = ["inject", str(tmp_path / "db"), str(seeds)]

    line = _one_line_error(*inject, *_flags_with(flink, flink_master="127.0.0.1:9"))
    assert "no Flink cluster answers at http://127.0.0.1:9" in line
    missing = str(tmp_path / "no-such-job-server.jar")
    line = _one_line_error(*inject, *_flags_with(flink, flink_job_server_jar=missing))
    assert f"--flink_job_server_jar {missing}: no such file" in line
    line = _one_line_error(*inject, *_flags_with(flink, flink_version="1.18"))
    assert "runs Flink 1.19.3, but --flink_version is 1.18" in line
    assert not (tmp_path / "db").exists()  # nothing ran


def _worker_pool(port: int) -> subprocess.Popen[bytes]:
    """Beam's worker pool on ``port``, as flink-local starts it."""
    pool = subprocess.Popen(
        [sys.executable, "-m", "apache_beam.runners.worker.worker_pool_main",
         "--service_port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    wait_for_port(port, pool, timeout_s=60)
    return pool


def test_a_fresh_start_stops_the_dead_clusters_pool_and_refuses_busy_ports(
    tmp_path, flink
):
    # flink (the session's cluster) is only here for the installed Flink.
    # A worker pool outlived its JobManager: gRPC listens with SO_REUSEPORT,
    # so a second pool on its port would silently share the new cluster's
    # workers with it (and a test's SIGKILL would miss them)
    run = tmp_path / "run"
    run.mkdir()
    pool_port, rpc_port, rest_port = free_port(), free_port(), free_port()
    start = [
        "start", "--rest-port", str(rest_port),
        "--rpc-port", str(rpc_port), "--worker-pool-port", str(pool_port),
    ]  # fmt: skip
    orphan = _worker_pool(pool_port)
    gone = subprocess.Popen(["true"])
    gone.wait()
    (run / "state.json").write_text(
        json.dumps({"jobmanager": gone.pid, "worker_pool": orphan.pid})
    )
    with socket.socket() as busy:  # the new cluster's RPC port is taken
        busy.bind(("127.0.0.1", rpc_port))
        busy.listen()
        done = run_flink_local(*start, run_dir=run)
    assert orphan.wait(timeout=30) is not None  # the recorded pool: stopped
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"flink-local: 127.0.0.1:{rpc_port} is in use by another process; "
        "stop it or choose --rpc-port"
    ]

    stranger = _worker_pool(pool_port)  # not recorded: not ours to stop
    try:
        done = run_flink_local(*start, run_dir=run)
        assert done.returncode == 2, done.stderr
        assert done.stderr.splitlines() == [
            f"flink-local: 127.0.0.1:{pool_port} is in use by another process; "
            "stop it or choose --worker-pool-port"
        ]
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()
