"""SIGINT and SIGTERM stop a command with one line, its data as it was.

Each command runs as a process of its own (a new session, as a shell runs
it), and is signalled once it is provably in the middle of its job: the
test server holds one of its requests, or its new crawldb version is on
disk. Ctrl-C is SIGINT to the whole process group (the parse workers get
it too); ``kill`` is SIGTERM to the command alone. Then: exit 130 or 143,
one line on stderr besides INFO log lines, the lock released, the crawldb's
records unchanged, nothing temporary left, no process left behind, and the
same command runs again.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipelines.cli import main
from tests.avrofiles import read_pages
from tests.crawlstate import lock_objects, unpublished_versions
from tests.kills import group_members
from tests.sites import Site

FLAGS = ["-Dhttp.agent.name=sigbot", "-Dfetcher.server.delay=0"]
CLOCK = ["-Dinjector.current.time=1700000000000", "-Dgenerate.curTime=1700000000000"]
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ INFO ")
WAIT_S = 120.0
"""A bound on waiting for an event, so that a broken test fails, not hangs."""


@dataclass
class Held:
    """A request the test server keeps unanswered until the test releases it."""

    arrived: threading.Event
    release: threading.Event

    def wait(self) -> None:
        assert self.arrived.wait(WAIT_S), "the held request never came"


@pytest.fixture
def held(site: Site) -> Iterator[Held]:
    hold = Held(threading.Event(), threading.Event())

    def until() -> bool:
        hold.arrived.set()
        return hold.release.is_set()

    site.hold("/page/held", until)
    yield hold
    hold.release.set()


@pytest.fixture
def crawl(tmp_path: Path, site: Site) -> Path:
    """A crawldb with two URLs, one of them held, and a segment to fetch."""
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(f"{site.url('/page/held')}\n{site.url('/page/a')}\n")
    crawldb, segments = tmp_path / "crawldb", tmp_path / "segments"
    assert main(["inject", str(crawldb), str(seeds), *CLOCK]) == 0
    assert main(["generate", str(crawldb), str(segments), *CLOCK]) == 0
    return tmp_path


def _segment(crawl: Path) -> Path:
    (name,) = os.listdir(crawl / "segments")
    return crawl / "segments" / name


def _start(*argv: str, stderr: Path) -> subprocess.Popen[bytes]:
    with stderr.open("wb") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "pipelines.cli", *argv],
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,  # its own process group, as a shell's job
        )


def _stop(process: subprocess.Popen[bytes], signum: int, group: bool) -> int:
    if group:
        os.killpg(process.pid, signum)  # Ctrl-C: the terminal signals the group
    else:
        process.send_signal(signum)  # kill PID
    code = process.wait(timeout=WAIT_S)
    deadline = time.monotonic() + WAIT_S
    while group_members(process.pid):  # parse workers, side jobs: all gone
        assert time.monotonic() < deadline, group_members(process.pid)
        time.sleep(0.01)
    return code


def _the_line(stderr: Path, *also_allowed: str) -> str:
    lines = [
        line
        for line in stderr.read_text().splitlines()
        if not LOG_LINE.match(line) and not line.startswith(also_allowed)
    ]
    assert len(lines) == 1, stderr.read_text()
    return lines[0]


def _leftovers(directory: Path) -> list[Path]:
    return [
        path
        for path in directory.rglob("*")
        if path.name.startswith(".") or "beam-temp" in path.name or ".tmp" in path.name
    ]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_fetch_interrupted_leaves_the_segment_unfetched(
    crawl, held, tmp_path, signum, capsys
):
    segment = _segment(crawl)
    argv = ["fetch", str(segment), "--parse", *FLAGS]
    process = _start(*argv, stderr=tmp_path / "err")
    held.wait()
    code = _stop(process, signum, group=signum == signal.SIGINT)

    assert code == 128 + signum
    name = signal.Signals(signum).name
    assert _the_line(tmp_path / "err") == (
        f"beamcrawl: fetch interrupted by {name}: {segment}'s fetch and parse are "
        f"unchanged; to go on, run it again: beamcrawl {' '.join(argv)}"
    )
    assert sorted(os.listdir(segment)) == ["generate"]  # no part, no staging
    held.release.set()
    assert main(argv) == 0
    assert len(read_pages(segment / "fetch")) == 2


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_crawl_interrupted_releases_the_lock_and_keeps_the_crawldb(
    crawl, held, site, tmp_path, signum
):
    crawl_dir = tmp_path / "crawl"
    argv = ["crawl", "--seeds", str(tmp_path / "seeds.txt"), str(crawl_dir), "2"]
    argv += FLAGS
    process = _start(*argv, stderr=tmp_path / "err")
    held.wait()  # round 1: its fetch, parse, updatedb and dedup hold the lock
    crawldb = crawl_dir / "crawldb"
    assert lock_objects(crawldb)
    before = read_pages(crawldb / "current")  # as the inject step left it
    code = _stop(process, signum, group=signum == signal.SIGINT)

    assert code == 128 + signum
    (segment,) = (crawl_dir / "segments").iterdir()
    name = signal.Signals(signum).name
    line = _the_line(tmp_path / "err", "crawl: injected ")
    assert line == (
        f"beamcrawl: crawl in round 1's fetch+parse+updatedb+dedup interrupted by "
        f"{name}: {segment}'s fetch and parse are unchanged, {crawl_dir}/crawldb is "
        f"unchanged; to go on, run it again: beamcrawl {' '.join(argv)}"
    )
    assert read_pages(crawldb / "current") == before  # the same records
    assert lock_objects(crawldb) == []
    assert unpublished_versions(crawldb) == []
    assert _leftovers(crawl_dir) == []
    held.release.set()
    assert main(argv) == 0  # the lock is free: the crawl goes on
    assert len(read_pages(crawldb / "current")) == 2


def test_inject_interrupted_while_it_writes_keeps_the_crawldb(tmp_path):
    crawldb = tmp_path / "crawldb"
    first = tmp_path / "first.txt"
    first.write_text("http://a.example/\nhttp://b.example/\n")
    assert main(["inject", str(crawldb), str(first), *CLOCK]) == 0
    before = read_pages(crawldb / "current")
    versions_before = set(os.listdir(crawldb / "versions"))
    big = tmp_path / "big.txt"
    big.write_text("".join(f"http://h{i % 97}.example/p{i}\n" for i in range(300_000)))
    argv = ["inject", str(crawldb), str(big)]
    process = _start(*argv, stderr=tmp_path / "err")
    deadline = time.monotonic() + WAIT_S
    while not set(os.listdir(crawldb / "versions")) - versions_before:
        assert process.poll() is None, (tmp_path / "err").read_text()
        assert time.monotonic() < deadline
        time.sleep(0.01)  # its new version is on disk: the job is writing
    code = _stop(process, signal.SIGTERM, group=False)

    assert code == 143
    assert _the_line(tmp_path / "err") == (
        f"beamcrawl: inject interrupted by SIGTERM: {crawldb} is unchanged; "
        f"to go on, run it again: beamcrawl inject {crawldb} {big}"
    )
    assert read_pages(crawldb / "current") == before
    assert lock_objects(crawldb) == []
    assert set(os.listdir(crawldb / "versions")) == versions_before
    assert main(["inject", str(crawldb), str(first), *CLOCK]) == 0


def test_a_command_that_changes_nothing_says_so(site, held, tmp_path):
    argv = ["parsechecker", site.url("/page/held"), *FLAGS]
    process = _start(*argv, stderr=tmp_path / "err")
    held.wait()
    assert _stop(process, signal.SIGINT, group=True) == 130
    assert _the_line(tmp_path / "err") == (
        "beamcrawl: parsechecker interrupted by SIGINT: nothing was changed; "
        f"to go on, run it again: beamcrawl {' '.join(argv)}"
    )
