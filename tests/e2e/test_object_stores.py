"""Crawls with their data on S3 (moto) and GCS (the emulator), killed and raced.

Each store server runs on 127.0.0.1 in its own process (tests/objectstores.py)
and each test gets a fresh bucket. The commands run as ``beamcrawl`` would
for a user: in a subprocess, with the store's Beam flags.
"""

from __future__ import annotations

import random
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import fastavro
import pytest
from apache_beam.io.filesystems import FileSystems

from pipelines.demo import DEMO_PROPERTIES, DemoSite
from pipelines.storage import fs, locks, partfiles, versions
from pipelines.storage.rounds import read_rounds
from tests.avrofiles import read_pages
from tests.crawlrecords import crawl_records, without_wall_clock
from tests.objectstores import Store, run_beamcrawl, store_in_use

pytestmark = pytest.mark.slow

FLAGS = [f"-D{p}" for p in DEMO_PROPERTIES] + ["-Dfetcher.server.delay=0.05"]
KILL_TRIALS = 3


@pytest.fixture(params=["s3", "gs"])
def store(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Store:
    """A fresh bucket on S3 and on GCS, this process's FileSystems pointed at it."""
    return store_in_use(request, monkeypatch, request.param)


def _crawl(
    store: Store, site: DemoSite, tmp_path: Path, rounds: int, *extra: str
) -> str:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(site.url("main") + "/\n")
    crawl_dir = store.url("crawl")
    run_beamcrawl(
        store, "crawl", "--seeds", str(seeds), crawl_dir, str(rounds), *FLAGS, *extra
    )
    return crawl_dir


def _download(paths: list[str], prefix: str, target: Path) -> None:
    for path in paths:
        local = target / path[len(prefix) :].lstrip("/")
        local.parent.mkdir(parents=True, exist_ok=True)
        with fs.open_raw(path) as source:
            local.write_bytes(bytes(source.read()))


def _download_crawl(crawl_dir: str, target: Path) -> Path:
    """The current versions and the segments of a crawl on a store, as local files."""
    for name in ("crawldb", "linkdb"):
        current = versions.current_version(FileSystems.join(crawl_dir, name))
        assert current is not None, name
        paths = [p for p, _ in partfiles.part_paths(partfiles.parts_pattern(current))]
        _download(paths, current, target / name / "current")
    segments = FileSystems.join(crawl_dir, "segments")
    paths = [
        p for p, _ in partfiles.part_paths(FileSystems.join(segments, "*", "*", "*"))
    ]
    _download(paths, segments, target / "segments")
    return target


def _current_records(db: str) -> list[Any]:
    current = versions.current_version(db)
    assert current is not None
    records: list[Any] = []
    for path, _ in partfiles.part_paths(partfiles.parts_pattern(current)):
        with fs.open_raw(path) as f:
            records.extend(fastavro.reader(f))
    return sorted(records, key=lambda r: r["url"])


@pytest.mark.parametrize("steps", ["one pipeline a round", "--separateJobs"])
def test_the_demo_crawl_on_a_store_writes_what_it_writes_on_local_disk(
    store, demo_site, tmp_path, steps
):
    # --separateJobs: fetch, parse, updatedb and dedup as their own jobs, as on
    # Flink or Dataflow, each reading and writing the store
    extra = [steps] if steps.startswith("--") else []
    crawl_dir = _crawl(store, demo_site, tmp_path, 3, *extra)
    on_store = _download_crawl(crawl_dir, tmp_path / "from-store")
    seeds = tmp_path / "seeds.txt"
    local = tmp_path / "local"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipelines.cli",
            "crawl",
            "--seeds",
            str(seeds),
            str(local),
            "3",
            *FLAGS,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert crawl_records(on_store) == crawl_records(local)
    assert len(read_pages(on_store / "crawldb" / "current")) == 14
    # the layout on the store: versions published, no rename-era directories
    crawldb = FileSystems.join(crawl_dir, "crawldb")
    assert run_beamcrawl(store, "readdb", crawldb, "--path").stdout.strip() == (
        versions.current_version(crawldb)
    )
    assert not fs.dir_exists(FileSystems.join(crawldb, "current"))
    assert locks.holders(crawldb) == []


def test_a_crawl_on_a_store_records_its_rounds_and_resumes(store, demo_site, tmp_path):
    crawl_dir = _crawl(store, demo_site, tmp_path, 1)
    seeds = str(tmp_path / "seeds.txt")
    assert [r.round for r in read_rounds(crawl_dir)] == [1]
    again = ["crawl", "--seeds", seeds, crawl_dir, "3", *FLAGS]

    resumed = run_beamcrawl(store, *again)

    assert (
        f"crawl: resuming {crawl_dir}: round 1 of 3 done, going on with round 2"
    ) in resumed.stderr.splitlines()
    records = read_rounds(crawl_dir)
    assert [r.round for r in records] == [1, 2, 3]
    assert sum(records[-1].crawldb.values()) == 14
    assert records[1].segment.startswith(f"{crawl_dir}/segments/")
    assert "Total: 3 rounds, 13 generated," in resumed.stdout
    finished = run_beamcrawl(store, *again)
    assert finished.stderr.splitlines() == [
        f"crawl: resuming {crawl_dir}: rounds 1-3 of 3 done, nothing left to do"
    ]


def _read(path: str) -> str:
    with fs.open_raw(path) as f:
        return bytes(f.read()).decode()


def _segments(crawl_dir: str) -> list[str]:
    pattern = FileSystems.join(crawl_dir, "segments", "*", "generate", "*.avro")
    return sorted({p.rsplit("/", 2)[0] for p, _ in partfiles.part_paths(pattern)})


def _start(store: Store, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pipelines.cli", *args, *store.flags],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=store.process_env(),
    )


def _kill_when_writing(process: subprocess.Popen[str], db: str) -> bool:
    """SIGKILL ``process`` once its new version appears under ``versions/``."""
    published = set(versions.kept_versions(db))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        written = {
            p.rsplit("/", 1)[0]
            for p, _ in partfiles.part_paths(FileSystems.join(db, "versions", "*", "*"))
        }
        if written - published:
            process.send_signal(signal.SIGKILL)
            process.communicate()
            return True
        time.sleep(0.02)
    process.communicate()
    return False


@pytest.mark.parametrize("command", ["updatedb", "invertlinks"])
def test_a_job_killed_while_writing_leaves_the_version_whole_and_reruns(
    store, demo_site, tmp_path, command
):
    crawl_dir = _crawl(store, demo_site, tmp_path, rounds=2)
    crawldb = FileSystems.join(crawl_dir, "crawldb")
    linkdb = FileSystems.join(crawl_dir, "linkdb")
    segments = _segments(crawl_dir)
    db = crawldb if command == "updatedb" else linkdb
    before = _current_records(db)
    version_before = versions.current_version(db)
    # what an uninterrupted run writes: the same job on a local copy
    reference = _download_crawl(crawl_dir, tmp_path / "reference")
    local_segments = [
        str(reference / "segments" / s.rsplit("/", 1)[1]) for s in segments
    ]
    local_db = reference / ("crawldb" if command == "updatedb" else "linkdb")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipelines.cli",
            command,
            str(local_db),
            *local_segments,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    args = [command, db, *segments]
    killed = _kill_when_writing(_start(store, *args), db)
    assert killed, f"{command} ended before it wrote its version"
    assert versions.current_version(db) == version_before
    assert _current_records(db) == before
    if command == "updatedb":
        run_beamcrawl(store, "readdb", crawldb, "--stats")  # readable, whole
    refused = run_beamcrawl(store, *args, check=False)
    assert refused.returncode == 2
    assert "is locked by another job" in refused.stderr.strip().splitlines()[-1]
    run_beamcrawl(store, *args, "--force")
    assert versions.current_version(db) != version_before
    # converged: the rerun wrote what the uninterrupted run wrote
    want = sorted(read_pages(local_db / "current"), key=lambda r: r["url"])
    assert _records_without_clock(_current_records(db)) == _records_without_clock(want)
    assert locks.holders(db) == []
    unpublished = {
        p.rsplit("/", 1)[0]
        for p, _ in partfiles.part_paths(FileSystems.join(db, "versions", "*", "*"))
    } - set(versions.kept_versions(db))
    assert unpublished == set()


def _records_without_clock(records: list[Any]) -> list[Any]:
    return [without_wall_clock(r, {}) for r in records]


def test_updatedb_killed_at_random_moments_leaves_before_or_after(
    store, demo_site, tmp_path, capsys
):
    """Killed anywhere, from start-up to exit: the crawldb is as it was or done.

    Each trial starts from the same version: ``readdb --rollback`` puts the
    backup back after a trial that published.
    """
    crawl_dir = _crawl(store, demo_site, tmp_path, rounds=2)
    crawldb = FileSystems.join(crawl_dir, "crawldb")
    segments = _segments(crawl_dir)
    before = _records_without_clock(_current_records(crawldb))
    args = ["updatedb", crawldb, *segments]
    started = time.monotonic()
    run_beamcrawl(store, *args)
    duration_s = time.monotonic() - started
    after = _records_without_clock(_current_records(crawldb))
    assert after != before
    run_beamcrawl(store, "readdb", crawldb, "--rollback")
    seed = secrets.randbits(32)
    rng = random.Random(seed)
    outcomes = []
    for _ in range(KILL_TRIALS):
        delay_s = rng.uniform(0, duration_s)
        where = f"updatedb killed at {delay_s:.2f}s of {duration_s:.2f}s (seed {seed})"
        process = _start(store, *args)
        try:
            process.wait(timeout=delay_s)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
        process.communicate()
        state = _records_without_clock(_current_records(crawldb))
        assert state in (before, after), where
        if state == before:
            run_beamcrawl(store, *args, "--force")
            assert _records_without_clock(_current_records(crawldb)) == after, where
        outcomes.append("before" if state == before else "after")
        left = locks.holders(crawldb)  # killed between its publish and release
        assert state == after or not left, where
        assert all(f" pid {process.pid} " in _read(path) for path in left), where
        run_beamcrawl(store, "readdb", crawldb, "--rollback", "--force")
    with capsys.disabled():
        print(f"\n{store.scheme} updatedb killed at random moments: {outcomes}")


@pytest.mark.parametrize("command", ["generate", "updatedb"])
def test_two_jobs_at_once_on_one_crawldb_one_runs_one_is_refused(
    store, demo_site, tmp_path, command
):
    crawl_dir = _crawl(store, demo_site, tmp_path, rounds=1)
    crawldb = FileSystems.join(crawl_dir, "crawldb")
    if command == "generate":
        args = [
            "generate",
            crawldb,
            FileSystems.join(crawl_dir, "segments"),
            "-Dgenerate.update.crawldb=true",
            *FLAGS,
        ]
    else:
        args = ["updatedb", crawldb, *_segments(crawl_dir)]
    publishes = versions.latest_pointer(crawldb)
    assert publishes is not None
    processes = [_start(store, *args) for _ in range(2)]
    results = []
    for process in processes:
        _, stderr = process.communicate(timeout=600)
        results.append((process.returncode, stderr))
    assert sorted(code for code, _ in results) == [0, 2], results
    (refused,) = [stderr for code, stderr in results if code == 2]
    (line,) = refused.strip().splitlines()
    assert line.startswith("beamcrawl: ")
    assert "is locked by another job" in line
    after = versions.latest_pointer(crawldb)
    assert after is not None
    assert after.seq == publishes.seq + 1
    assert locks.holders(crawldb) == []
    run_beamcrawl(store, "readdb", crawldb, "--stats")
