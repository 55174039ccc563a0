"""SIGKILL every job that writes at random moments; the data stays whole.

Each job runs once uninterrupted on a copy of a small prepared crawl (two
hosts on loopback, tens of pages), which measures how long it runs and
gives the records it writes. Then, ten times, it runs on a fresh copy and is
killed at a moment drawn from ``[0, that duration]``: during Python and Beam
start-up, the pipeline, the writing or the install at the end. After each
kill every crawldb, linkdb and segment part is readable and each is either
as it was before the job or as the uninterrupted run left it (a job stopped
halfway through an install is repaired when the database is next opened).
If nothing was installed, the job is run again (a lock the killed one left
is stale: it is broken, with a log line), and must write what the
uninterrupted run wrote.

The moments come from a seeded RNG; the seed and the delays are printed,
and ``BEAMCRAWL_KILL9_SEED`` replays a seed (same fractions of the run).
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipelines.cli import main
from tests.crawlstate import (
    State,
    crawl_state,
    lock_objects,
    pieces_between,
    same_records,
    unpublished_versions,
)
from tests.kills import Killed, run_and_kill
from tests.sites import Site, start_site

pytestmark = pytest.mark.slow

SEED_VARIABLE = "BEAMCRAWL_KILL9_SEED"
TRIALS = 10
PAGES = 30
SEEDS = 10
FETCH_FLAGS = ["-Dhttp.agent.name=kill9bot", "-Dfetcher.server.delay=0"]


@dataclass(frozen=True)
class Prepared:
    """A small crawl after one round, with a second segment fetched and parsed.

    The second segment is not in the crawldb or the linkdb yet: it is what
    fetch, parse, updatedb and invertlinks work on.
    """

    crawl: Path
    segment: str
    now_ms: int


def _page_html(number: int, url: Callable[[int], str]) -> bytes:
    if number == 8:
        number = 3  # the same page twice, for dedup
    links = " ".join(
        f'<a href="{url(n)}">page {n}</a>'
        for n in (
            (2 * number + 1) % PAGES,
            (2 * number + 2) % PAGES,
            (number + 7) % PAGES,
        )
    )
    title = f"page {number}"
    return (
        f"<html><head><title>{title}</title></head>"
        f"<body><p>The text of {title}.</p>{links}</body></html>"
    ).encode()


def _serve_pages(sites: list[Site]) -> Callable[[int], str]:
    def url(number: int) -> str:
        return sites[number % len(sites)].url(f"/bytes/p{number}.html")

    for number in range(PAGES):
        site = sites[number % len(sites)]
        site.files[f"p{number}.html"] = ("text/html", _page_html(number, url))
    return url


def _ok(*args: object) -> None:
    assert main([str(arg) for arg in args]) == 0


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prepared]:
    sites = [start_site("127.0.0.2"), start_site("127.0.0.3")]
    try:
        url = _serve_pages(sites)
        crawl = tmp_path_factory.mktemp("kill9") / "crawl"
        crawl.mkdir()
        (crawl / "seeds.txt").write_text("".join(f"{url(n)}\n" for n in range(SEEDS)))
        (crawl / "more-seeds.txt").write_text(
            "".join(f"{url(n)}\n" for n in range(PAGES))
        )
        now_ms = int(time.time()) * 1000
        crawldb, segments = crawl / "crawldb", crawl / "segments"
        _ok("inject", crawldb, crawl / "seeds.txt", f"-Dinjector.current.time={now_ms}")
        for round_ms in (now_ms, now_ms + 60_000):
            _ok("generate", crawldb, segments, f"-Dgenerate.curTime={round_ms}")
            segment = segments / sorted(os.listdir(segments))[-1]
            _ok("fetch", segment, *FETCH_FLAGS)
            _ok("parse", segment)
            if round_ms == now_ms:
                _ok("updatedb", crawldb, segment)
                _ok("invertlinks", crawl / "linkdb", segment)
        subprocess.run(  # the jobs' first start-up reads Beam from disk: not measured
            [sys.executable, "-m", "pipelines.cli", "readdb", str(crawldb), "--stats"],
            capture_output=True,
            check=True,
        )
        yield Prepared(crawl, segment.name, now_ms)
    finally:
        for site in sites:
            site.stop()


@dataclass(frozen=True)
class Job:
    """A job that writes: its arguments and what it writes under."""

    name: str
    arguments: tuple[str, ...]
    """Templates of ``{crawl}``, ``{segment}``, ``{inject_ms}`` or ``{generate_ms}``."""
    lock: str | None = None
    """The database whose lock the job takes, if any."""
    wall_clock: bool = False
    """Whether its records hold the wall clock (no property pins it)."""
    unset: tuple[str, ...] = ()
    """Parts of the segment removed before the job runs."""


JOBS = [
    Job(
        "inject",
        (
            "{crawl}/crawldb",
            "{crawl}/more-seeds.txt",
            "-Dinjector.current.time={inject_ms}",
        ),
        lock="crawldb",
    ),
    Job(
        "generate",
        (
            "{crawl}/crawldb",
            "{crawl}/segments",
            "-Dgenerate.update.crawldb=true",
            "-Dgenerate.curTime={generate_ms}",
        ),
        lock="crawldb",
    ),
    Job(
        "fetch",
        ("{segment}", *FETCH_FLAGS),
        wall_clock=True,  # fetch and response times: no property pins them
        unset=("fetch", "parse"),
    ),
    Job("parse", ("{segment}",), unset=("parse",)),
    Job(
        "updatedb",
        ("{crawl}/crawldb", "{segment}"),
        lock="crawldb",
        wall_clock=True,  # UpdateDb's clock is the wall clock: no property pins it
    ),
    Job("invertlinks", ("{crawl}/linkdb", "{segment}"), lock="linkdb"),
    Job("dedup", ("{crawl}/crawldb",), lock="crawldb"),
]


@dataclass
class Run:
    """One copy of the prepared crawl, and the job's command on it."""

    job: Job
    crawl: Path
    segment: Path
    arguments: list[str]

    @classmethod
    def copy(cls, job: Job, prepared: Prepared, crawl: Path) -> Run:
        """The job on a fresh copy of the prepared crawl at ``crawl``."""
        shutil.copytree(prepared.crawl, crawl, symlinks=True)
        segment = crawl / "segments" / prepared.segment
        for part in job.unset:
            shutil.rmtree(segment / part)
        values = {
            "crawl": crawl,
            "segment": segment,
            "inject_ms": prepared.now_ms + 180_000,
            "generate_ms": prepared.now_ms + 120_000,
        }
        arguments = [job.name, *(a.format(**values) for a in job.arguments)]
        return cls(job, crawl, segment, arguments)

    def command(self) -> list[str]:
        """The job as a process of its own."""
        return [sys.executable, "-m", "pipelines.cli", *self.arguments]

    def database(self) -> Path | None:
        """The crawldb or linkdb the job locks; None if it locks none."""
        return self.crawl / self.job.lock if self.job.lock else None


def _seed() -> int:
    chosen = os.environ.get(SEED_VARIABLE)
    return int(chosen) if chosen else secrets.randbits(32)


@pytest.mark.parametrize("job", JOBS, ids=[job.name for job in JOBS])
def test_a_job_killed_at_any_moment_leaves_every_piece_whole(
    job: Job, prepared: Prepared, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reference = Run.copy(job, prepared, tmp_path / "reference")
    before = crawl_state(reference.crawl)
    started = time.monotonic()
    done = run_and_kill(reference.command(), 600.0, tmp_path / "reference.log")
    duration_s = time.monotonic() - started  # picks the moments, asserts nothing
    assert done.returncode == 0, (tmp_path / "reference.log").read_text()
    after = crawl_state(reference.crawl)
    assert after != before

    seed = _seed()
    rng = random.Random(seed)
    delays = [rng.uniform(0, duration_s) for _ in range(TRIALS)]
    with capsys.disabled():
        print(f"\n{job.name}: {SEED_VARIABLE}={seed}, run {duration_s:.2f}s, kill at")
    for number, delay_s in enumerate(delays):
        run = Run.copy(job, prepared, tmp_path / f"trial{number}")
        log = tmp_path / f"trial{number}.log"
        killed = run_and_kill(run.command(), delay_s, log)
        where = f"{job.name} killed at {delay_s:.3f}s ({SEED_VARIABLE}={seed}), {log}"
        outcome = _check_trial(run, killed, before, after, where, capsys)
        with capsys.disabled():
            print(f"  {delay_s:.3f}s: {outcome}, {killed.orphans} orphaned processes")


def _check_trial(
    run: Run,
    killed: Killed,
    before: State,
    after: State,
    where: str,
    capsys: pytest.CaptureFixture[str],
) -> str:
    """Check one killed run; what it left: "before", "after" or "segment only"."""
    assert killed.returncode in (0, -signal.SIGKILL), f"{where}: {killed.returncode}"
    mask = run.job.wall_clock
    pieces = pieces_between(crawl_state(run.crawl), before, after, mask)
    assert "neither" not in pieces.values(), f"{where}: {pieces}"
    _check_lock(run, killed, where)
    changed = {piece for piece in pieces if before.get(piece) != after.get(piece)}
    installed = {piece for piece in changed if pieces[piece] == "after"}
    if not installed:
        assert killed.returncode == -signal.SIGKILL, where
        _run_again(run, capsys, where)
        assert same_records(crawl_state(run.crawl), after, mask), where
        left = _check_cleared(run, where)
        return f"before; run again: same records{left}"
    if installed == changed:
        if run.job.name == "fetch":
            _check_refetch_refused(run, capsys, where)
        return "after"
    # Generate installs its segments, then its crawldb (as Nutch's Generator):
    # killed in between, the segment is whole and the crawldb as it was
    assert run.job.name == "generate", f"{where}: {pieces}"
    assert installed == changed - {"crawldb"}, f"{where}: {pieces}"
    return "segment only"


def _check_lock(run: Run, killed: Killed, where: str) -> None:
    database = run.database()
    if database is None:
        return
    locks = lock_objects(database)
    if locks:
        (lock,) = locks
        assert f" pid {killed.pid} " in lock.read_text(), where
    else:
        new_versions = unpublished_versions(database)
        assert not new_versions, f"{where}: {new_versions} without the lock"


def _run_again(run: Run, capsys: pytest.CaptureFixture[str], where: str) -> None:
    arguments = run.arguments
    database = run.database()
    if database is not None and lock_objects(database):
        # its lock is stale (its pid is gone, on this host): broken, logged
        capsys.readouterr()
        assert main(arguments) == 0, where
        (line,) = [
            line
            for line in capsys.readouterr().err.splitlines()
            if "removing the stale lock" in line
        ]
        assert "is no longer running" in line, where
        return
    assert main(arguments) == 0, where


def _check_cleared(run: Run, where: str) -> str:
    """After the job ran again: no lock, no new version, no staged part left.

    Generate's staged segments (``SEGMENTS/.<name>.tmp-<random>``) are left
    behind by a killed generate: hidden from every job, never removed. The
    text returned says how many.
    """
    database = run.database()
    if database is not None:
        assert not lock_objects(database), where
        assert not unpublished_versions(database), where
    assert not list(run.segment.glob(".*")), where
    staged = list((run.crawl / "segments").glob(".*"))
    if not staged:
        return ""
    assert run.job.name == "generate", f"{where}: {staged}"
    return f" ({len(staged)} staged segment left hidden)"


def _check_refetch_refused(
    run: Run, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    capsys.readouterr()
    assert main(run.arguments) == 2, where
    (line,) = capsys.readouterr().err.splitlines()
    assert "already fetched" in line, where
    assert f"remove {run.segment}/fetch" in line, where
