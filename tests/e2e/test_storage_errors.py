"""A full disk, a read-only file system, a directory not ours: one line, exit 2.

Real conditions, set up and torn down by each test: a 1 MB tmpfs filled up
(ENOSPC), a read-only remount or bind mount (EROFS), a directory whose
modes forbid writing, written by a command that has no capability to
override them (EACCES: root without CAP_DAC_OVERRIDE, by ``setpriv``). The
mounts need root, as in CI; without it those tests are skipped. Each time the command
prints one line naming the path (Beam's own traceback is not shown), the
crawldb keeps its records, no lock or half-written version stays behind,
and the command runs once the cause is gone.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from apache_beam.io.aws.clients.s3.messages import S3ClientError
from google.api_core.exceptions import Forbidden

from pipelines.cli import main
from pipelines.storage.failures import failure
from tests.avrofiles import read_pages
from tests.crawlstate import lock_objects, unpublished_versions

SEEDS = 50_000
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ INFO ")


def _mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True)


@contextlib.contextmanager
def _mounted(*args: str, target: Path) -> Iterator[Path]:
    _mount(*args, str(target))
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], check=False)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MB tmpfs at ``tmp_path/disk``; unmounted afterwards."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    disk = tmp_path / "disk"
    disk.mkdir()
    try:
        context = _mounted("-t", "tmpfs", "-o", "size=1m", "tmpfs", target=disk)
        mounted = context.__enter__()
    except subprocess.CalledProcessError as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc.stderr.strip()}")
    try:
        yield mounted
    finally:
        context.__exit__(None, None, None)


@pytest.fixture
def seeds(tmp_path: Path) -> tuple[Path, Path]:
    """A one-URL seed file and one of many URLs (too many for a full disk)."""
    few, many = tmp_path / "few.txt", tmp_path / "many.txt"
    few.write_text("http://example.com/\n")
    many.write_text(
        "".join(f"http://h{i % 97}.example.com/p{i}\n" for i in range(SEEDS))
    )
    return few, many


def _fill(disk: Path, leave_kb: int) -> None:
    (disk / "filler").unlink(missing_ok=True)
    free_kb = os.statvfs(disk).f_bavail * os.statvfs(disk).f_frsize // 1024
    with open(disk / "filler", "wb") as filler:
        filler.write(bytes(max(0, free_kb - leave_kb) * 1024))


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if not LOG_LINE.match(line)]
    assert len(lines) == 1, err
    return lines[0]


def _open_files_under(directory: Path) -> list[str]:
    """The files under ``directory`` this process holds open."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # closed meanwhile
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith(f"{directory}/"):
                found.append(target)
    return found


def _untouched(crawldb: Path, records: list[object]) -> None:
    assert read_pages(crawldb / "current") == records
    assert lock_objects(crawldb) == []
    assert unpublished_versions(crawldb) == []
    assert not [
        p for p in crawldb.rglob("*") if ".tmp" in p.name or "beam-temp" in p.name
    ]


def test_a_full_disk_stops_inject_with_one_line_and_the_crawldb_as_it_was(
    small_disk, seeds, capsys
):
    few, many = seeds
    crawldb = small_disk / "crawldb"
    assert main(["inject", str(crawldb), str(few)]) == 0
    before = read_pages(crawldb / "current")
    _fill(small_disk, leave_kb=16)  # the lock fits, the new version does not
    capsys.readouterr()
    assert main(["inject", str(crawldb), str(many)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert re.fullmatch(
        rf"beamcrawl: inject stopped, no space left on device "
        rf"\({re.escape(str(crawldb))}/versions/[^)]+\): {re.escape(str(crawldb))} "
        rf"is unchanged; free some space, then run it again: "
        rf"beamcrawl inject {re.escape(str(crawldb))} {re.escape(str(many))}",
        line,
    ), line
    _untouched(crawldb, before)
    assert _open_files_under(small_disk) == []

    _fill(small_disk, leave_kb=0)  # not even the lock's object fits
    assert main(["inject", str(crawldb), str(many)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith(
        f"beamcrawl: inject stopped, no space left on device ({crawldb}/.lock/"
    ), line
    assert ": nothing was changed; free some space, then run it again" in line
    _untouched(crawldb, before)

    (small_disk / "filler").unlink()
    assert main(["inject", str(crawldb), str(many)]) == 0
    assert len(read_pages(crawldb / "current")) == SEEDS + 1


def test_a_full_disk_stops_generate_without_a_half_written_segment(
    small_disk, seeds, capsys
):
    _, many = seeds
    crawldb, segments = small_disk / "crawldb", small_disk / "segments"
    assert main(["inject", str(crawldb), str(many)]) == 0
    before = read_pages(crawldb / "current")
    _fill(small_disk, leave_kb=16)
    capsys.readouterr()
    argv = ["generate", str(crawldb), str(segments), "-Dgenerate.update.crawldb=true"]
    assert main(argv) == 2
    line = _one_line(capsys.readouterr().err)
    assert line.startswith("beamcrawl: generate stopped, no space left on device ("), (
        line
    )
    # Beam drops the other sink's open file with the failed bundle (the
    # crawldb's when the segment's failed, or the other way round): the
    # command closes it, not the garbage collector in some later test
    assert _open_files_under(small_disk) == []
    assert f"no segment was added to {segments}" in line
    assert f"{crawldb} is unchanged" in line
    _untouched(crawldb, before)
    assert not segments.exists() or os.listdir(segments) == []


def test_a_read_only_file_system_stops_each_writer_with_one_line(
    small_disk, seeds, capsys
):
    few, _ = seeds
    crawldb = small_disk / "crawldb"
    assert main(["inject", str(crawldb), str(few)]) == 0
    before = read_pages(crawldb / "current")
    _mount("-o", "remount,ro", str(small_disk))
    capsys.readouterr()
    for argv, path in (
        (["inject", str(crawldb), str(few)], f"{crawldb}/.lock"),
        (["dedup", str(crawldb)], f"{crawldb}/.lock"),
        (["readdb", str(crawldb), "--dump", str(small_disk / "dump")], "dump"),
    ):
        assert main(argv) == 2
        line = _one_line(capsys.readouterr().err)
        assert line.startswith(
            f"beamcrawl: {argv[0]} stopped, read-only file system ("
        ), line
        assert path in line
        assert "nothing was changed; make it writable, then run it again" in line
    assert main(["readdb", str(crawldb), "--stats"]) == 0  # reading goes on
    _mount("-o", "remount,rw", str(small_disk))
    _untouched(crawldb, before)


def test_a_read_only_versions_directory_stops_the_job_midway(tmp_path, seeds, capsys):
    # the lock is written, the job runs, its sink cannot write the version
    if os.geteuid() != 0:
        pytest.skip("a bind mount needs root")
    few, many = seeds
    crawldb = tmp_path / "crawldb"
    assert main(["inject", str(crawldb), str(few)]) == 0
    before = read_pages(crawldb / "current")
    versions = crawldb / "versions"
    with _mounted("--bind", str(versions), target=versions):
        _mount("-o", "remount,bind,ro", str(versions))
        capsys.readouterr()
        assert main(["inject", str(crawldb), str(many)]) == 2
        line = _one_line(capsys.readouterr().err)
    assert line.startswith(
        f"beamcrawl: inject stopped, read-only file system ({versions}/"
    ), line
    assert f": {crawldb} is unchanged; make it writable, then run it again" in line
    _untouched(crawldb, before)
    assert main(["inject", str(crawldb), str(many)]) == 0


@pytest.fixture
def root_owned(tmp_path: Path) -> Iterator[Path]:
    """A directory of this user's; its modes are set by the test."""
    directory = tmp_path / "owned"
    directory.mkdir()
    try:
        yield directory
    finally:
        for path in [directory, *directory.rglob("*")]:
            if not path.is_symlink():
                path.chmod(0o755 if path.is_dir() else 0o644)


_FILE_MODE_POWERS = "-dac_override,-dac_read_search"
"""The capabilities by which root ignores file modes, dropped by setpriv."""


def _as_nobody(*argv: str) -> subprocess.CompletedProcess[str]:
    """Run a command bound by file modes: as root, without the powers to ignore them.

    (Not as ``nobody``: CI's virtual environment is in a directory only its
    owner may read.)
    """
    command = [sys.executable, "-m", "pipelines.cli", *argv]
    if os.geteuid() == 0:
        command = ["setpriv", f"--bounding-set={_FILE_MODE_POWERS}", *command]
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        cwd=Path(__file__).parents[2],
        timeout=600,
        check=False,
    )


def test_a_directory_this_user_may_not_write_stops_the_job_with_one_line(
    root_owned, capsys
):
    seeds = root_owned / "seeds.txt"
    seeds.write_text("http://example.com/\n")
    seeds.chmod(0o644)
    crawldb = root_owned / "crawldb"
    assert main(["inject", str(crawldb), str(seeds)]) == 0
    for path in [crawldb, *crawldb.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o555 if path.is_dir() else 0o444)  # readable, not writable
    before = read_pages(crawldb / "current")

    done = _as_nobody("inject", str(crawldb), str(seeds))
    assert done.returncode == 2, done.stderr
    line = _one_line(done.stderr)
    assert line == (
        f"beamcrawl: inject stopped, permission denied ({crawldb}/.lock): nothing "
        f"was changed; give this user access, then run it again: "
        f"beamcrawl inject {crawldb} {seeds}"
    )
    # the lock's directory open to all: the job runs, its version cannot be written
    (crawldb / ".lock").mkdir(mode=0o777)
    (crawldb / ".lock").chmod(0o1777)
    done = _as_nobody("inject", str(crawldb), str(seeds))
    assert done.returncode == 2, done.stderr
    line = _one_line(done.stderr)
    assert line.startswith(
        f"beamcrawl: inject stopped, permission denied ({crawldb}/versions"
    ), line
    assert f": {crawldb} is unchanged; give this user access" in line
    assert os.listdir(crawldb / ".lock") == []
    (crawldb / ".lock").rmdir()
    _untouched(crawldb, before)


@pytest.mark.parametrize(
    "refused",
    [
        S3ClientError("Access Denied", 403),
        Forbidden("POST https://storage.googleapis.com/upload/b/x/o: denied"),
    ],
    ids=["s3", "gcs"],
)
def test_an_object_store_refusal_is_a_permission_failure(refused):
    # the object stores on loopback grant everything: their errors, as the
    # libraries raise them, wrapped as Beam wraps them
    wrapped = RuntimeError("BeamIOError: Match operation failed")
    wrapped.__context__ = refused
    found = failure(wrapped)
    assert found is not None
    assert (found.reason, found.advice) == (
        "permission denied",
        "give these credentials access",
    )
    assert failure(S3ClientError("Not Found", 404)) is None


def test_a_portable_runners_failure_text_is_read_too():
    # a job on Flink fails with the worker's traceback as text
    text = (
        "Pipeline BeamApp failed in state FAILED: OSError: [Errno 28] No space "
        "left on device: '/data/crawl/crawldb/versions/x/part-0.avro'"
    )
    found = failure(RuntimeError(text))
    assert found is not None
    assert found.reason == "no space left on device"
    assert found.path == "/data/crawl/crawldb/versions/x/part-0.avro"
