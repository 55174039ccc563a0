"""``crawl`` stopped by a signal, and ``crawl --force`` on a left-behind lock.

A crawl runs as a process of its own (a new session, as a shell runs it) on
a test site whose page ``/page/held`` is linked from the seed: round 2's
fetch waits for it, with round 1 done. Ctrl-C (SIGINT to the group) or
SIGTERM then ends the crawl with one line naming round 1 as completed,
exit 130 or 143; the crawldb is as round 1 left it, no lock and no process
is left, and the command the line prints goes on.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipelines.cli import main
from tests.avrofiles import read_pages
from tests.crawlstate import live_version, lock_objects, unpublished_versions
from tests.kills import group_members
from tests.lockholders import Holder
from tests.sites import Site

FLAGS = ["-Dhttp.agent.name=stopbot", "-Dfetcher.server.delay=0"]
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ (INFO|WARNING) ")
WAIT_S = 180.0


@pytest.fixture
def held(site: Site) -> Iterator[tuple[threading.Event, threading.Event]]:
    """``/page/held`` asked for; and its release (at the latest when the test ends)."""
    arrived, release = threading.Event(), threading.Event()

    def until() -> bool:
        arrived.set()
        return release.is_set()

    site.hold("/page/held", until)
    yield arrived, release
    release.set()


@pytest.fixture
def seeds(site: Site, tmp_path: Path) -> Path:
    links = '<a href="/page/held">held</a> <a href="/page/a">a</a>'
    site.files["start"] = ("text/html", f"<html><body>{links}</body></html>".encode())
    path = tmp_path / "seeds.txt"
    path.write_text(site.url("/bytes/start") + "\n")
    return path


def _start(argv: list[str], stderr: Path) -> subprocess.Popen[bytes]:
    with stderr.open("wb") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "pipelines.cli", *argv],
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )


def _own_lines(stderr: Path) -> list[str]:
    """What the crawl said besides its log: its ``crawl:`` lines and its last."""
    return [
        line for line in stderr.read_text().splitlines() if not LOG_LINE.match(line)
    ]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_crawl_stopped_in_round_2_names_round_1_and_goes_on(
    site, seeds, held, tmp_path, signum
):
    crawl_dir = tmp_path / "crawl"
    argv = ["crawl", "--seeds", str(seeds), str(crawl_dir), "2", *FLAGS]
    process = _start(argv, tmp_path / "err")
    arrived, release = held
    assert arrived.wait(WAIT_S), (tmp_path / "err").read_text()
    crawldb = crawl_dir / "crawldb"
    after_round_1 = read_pages(crawldb / "current")
    if signum == signal.SIGINT:
        os.killpg(process.pid, signum)  # Ctrl-C: the terminal signals the group
    else:
        process.send_signal(signum)
    code = process.wait(timeout=WAIT_S)
    deadline = time.monotonic() + WAIT_S
    while group_members(process.pid):  # parse workers, invertlinks: all gone
        assert time.monotonic() < deadline, group_members(process.pid)
        time.sleep(0.01)

    assert code == 128 + signum
    *crawl_lines, line = _own_lines(tmp_path / "err")
    assert all(said.startswith("crawl: ") for said in crawl_lines), crawl_lines
    segment = sorted((crawl_dir / "segments").iterdir())[-1]
    name = signal.Signals(signum).name
    assert line == (
        f"beamcrawl: crawl in round 2's fetch+parse+updatedb+dedup interrupted by "
        f"{name}: round 1 completed, {segment}'s fetch and parse are unchanged, "
        f"{crawldb} is unchanged; to go on, run it again: beamcrawl {shlex.join(argv)}"
    )
    assert read_pages(crawldb / "current") == after_round_1
    for db in (crawldb, crawl_dir / "linkdb"):
        assert lock_objects(db) == []
        assert unpublished_versions(db) == []
    again = shlex.split(line.partition("to go on, run it again: ")[2])
    assert again[0] == "beamcrawl"
    release.set()
    go_on = subprocess.run(
        [sys.executable, "-m", "pipelines.cli", *again[1:]],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert go_on.returncode == 0, go_on.stderr[-3000:]
    urls = {page["url"] for page in read_pages(crawldb / "current")}
    assert site.url("/page/held") in urls


def test_crawl_force_removes_the_locks_a_killed_crawl_left(
    site, seeds, tmp_path, capsys
):
    crawl_dir = tmp_path / "crawl"
    holder = Holder(live=True)  # runs: its lock is not stale, only --force breaks it
    try:
        crawldb, linkdb = str(crawl_dir / "crawldb"), str(crawl_dir / "linkdb")
        locks = [holder.write_lock(crawldb), holder.write_lock(linkdb)]
        argv = ["crawl", "--seeds", str(seeds), str(crawl_dir), "2", *FLAGS]

        assert main(argv) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"beamcrawl: {crawldb} is locked by another job (")
        assert line.endswith("if none is running, delete the lock or pass --force")

        assert main([*argv, "--force"]) == 0
    finally:
        holder.kill()
    err = capsys.readouterr().err
    assert f"--force: removing the lock {locks[0]} (" in err
    # round 1's invertlinks ran beside round 2, in a child process given --force
    assert "crawl: round 2: " in err
    assert lock_objects(crawl_dir / "crawldb") == []
    assert lock_objects(crawl_dir / "linkdb") == []
    assert live_version(crawl_dir / "linkdb") is not None  # invertlinks ran


@pytest.mark.parametrize("delay_s", [0.3, 0.8, 1.5, 3.0])
def test_ctrl_c_early_in_a_crawl_is_one_line_without_a_traceback(
    site, seeds, held, tmp_path, delay_s
):
    """Ctrl-C while Python, Beam and the parse workers start, or at inject."""
    crawl_dir = tmp_path / "crawl"
    argv = ["crawl", "--seeds", str(seeds), str(crawl_dir), "2", *FLAGS]
    process = _start(argv, tmp_path / "err")
    time.sleep(delay_s)
    os.killpg(process.pid, signal.SIGINT)
    assert process.wait(timeout=WAIT_S) == 130
    deadline = time.monotonic() + WAIT_S
    while group_members(process.pid):
        assert time.monotonic() < deadline, group_members(process.pid)
        time.sleep(0.01)
    err = (tmp_path / "err").read_text()
    assert "Traceback" not in err, err
    assert "Exception ignored" not in err, err
    *crawl_lines, line = _own_lines(tmp_path / "err")
    assert all(said.startswith("crawl: ") for said in crawl_lines), err
    assert line.startswith("beamcrawl: crawl"), err
    assert "interrupted by SIGINT: " in line, err
    assert line.endswith(f"to go on, run it again: beamcrawl {shlex.join(argv)}")
    if (crawl_dir / "crawldb").exists():
        assert lock_objects(crawl_dir / "crawldb") == []
