"""``crawl`` run again on its crawl directory goes on where it stopped.

The demo site is crawled for three rounds without a stop, and again with
the crawl stopped (SIGTERM once round 1 is recorded, or a round left
generated or fetched by the separate commands) and run again with the same
arguments: the records of both crawls must be the same, wall clock masked
(:mod:`tests.crawlrecords`), and the rounds numbered on.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipelines.cli import main
from pipelines.demo import DEMO_PROPERTIES, DemoSite
from pipelines.storage.rounds import read_rounds
from tests.crawlrecords import crawl_records
from tests.kills import group_members

FLAGS = [
    *(f"-D{p}" for p in DEMO_PROPERTIES),
    "-Dfetcher.server.delay=0.05",
    "-Dgenerate.update.crawldb=true",  # the generate mark: a round's URLs are held
]


@pytest.fixture(scope="module")
def site():
    running = DemoSite().start()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def seeds(site, tmp_path_factory):
    path = tmp_path_factory.mktemp("seeds") / "seeds.txt"
    path.write_text(site.url("main") + "/\n")
    return path


def _crawl(seeds, crawl_dir, rounds, *extra):
    return main(["crawl", "--seeds", str(seeds), str(crawl_dir), str(rounds), *FLAGS,
                 *extra])  # fmt: skip


@pytest.fixture(scope="module")
def uninterrupted(seeds, tmp_path_factory):
    crawl_dir = tmp_path_factory.mktemp("whole") / "crawl"
    assert _crawl(seeds, crawl_dir, 3) == 0
    return crawl_records(crawl_dir)


def _same_as(uninterrupted, crawl_dir):
    found = crawl_records(crawl_dir)
    assert sorted(found) == sorted(uninterrupted)
    for part in uninterrupted:
        assert found[part] == uninterrupted[part], part


def _rounds_of(crawl_dir):
    return [record.round for record in read_rounds(str(crawl_dir))]


def _resumed(capsys, seeds, crawl_dir, rounds=3):
    capsys.readouterr()
    assert _crawl(seeds, crawl_dir, rounds) == 0
    return capsys.readouterr()


@pytest.mark.parametrize("steps", [[], ["--separateJobs"]], ids=["one", "separate"])
def test_sigterm_after_round_1_then_the_same_command_goes_on(
    seeds, uninterrupted, tmp_path, capsys, steps
):
    crawl_dir = tmp_path / "crawl"
    command = [sys.executable, "-m", "pipelines.cli", "crawl", "--seeds", str(seeds),
               str(crawl_dir), "3", *FLAGS, *steps]  # fmt: skip
    first_record = crawl_dir / "rounds" / "round-0001.json"
    with (tmp_path / "first.log").open("wb") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=log, start_new_session=True
        )
        try:
            deadline = time.monotonic() + 300
            while not first_record.exists() and process.poll() is None:
                assert time.monotonic() < deadline, "round 1 never recorded"
                time.sleep(0.05)
            os.kill(process.pid, signal.SIGTERM)
            assert process.wait(timeout=120) == 143
        finally:
            for pid in group_members(process.pid):
                os.kill(pid, signal.SIGKILL)
    # more rounds: the crawl went on after SIGTERM, whose exception Python
    # dropped (raised in a weakref callback): the interrupts must deliver it
    assert _rounds_of(crawl_dir) == [1], (tmp_path / "first.log").read_text()[-3000:]

    capsys.readouterr()
    assert _crawl(seeds, crawl_dir, 3, *steps) == 0
    streams = capsys.readouterr()

    line = f"crawl: resuming {crawl_dir}: round 1 of 3 done, going on with round 2"
    assert line in streams.err.splitlines()[0], streams.err[:2000]
    assert "crawl: round 1:" not in streams.err
    assert "crawl: round 2: generated 8" in streams.err
    assert "crawl: round 3: generated 4" in streams.err
    assert _rounds_of(crawl_dir) == [1, 2, 3]
    _same_as(uninterrupted, crawl_dir)
    assert re.search(r"^Total: 3 rounds, 13 generated, ", streams.out, re.M)


def test_a_round_left_generated_is_fetched_not_generated_anew(
    seeds, uninterrupted, tmp_path, capsys
):
    crawl_dir = tmp_path / "crawl"
    assert _crawl(seeds, crawl_dir, 1) == 0
    # round 2 stopped after its generate: its URLs carry the generate mark
    generate = ["generate", str(crawl_dir / "crawldb"), str(crawl_dir / "segments")]
    assert main([*generate, *FLAGS]) == 0
    segment = sorted((crawl_dir / "segments").iterdir())[-1]

    streams = _resumed(capsys, seeds, crawl_dir)

    assert (
        f"crawl: resuming {crawl_dir}: round 1 of 3 done, going on with round 2 "
        f"(segment {segment.name} was generated, not fetched: fetching it)"
    ) in streams.err
    assert "crawl: round 2: generated 8: fetched SUCCESS=5 MOVED=1" in streams.err
    records = read_rounds(str(crawl_dir))
    assert [r.round for r in records] == [1, 2, 3]
    assert records[1].segment == str(segment)
    assert records[1].generated == 8
    _same_as(uninterrupted, crawl_dir)


def test_a_round_left_fetched_is_updated_not_fetched_again(
    seeds, uninterrupted, tmp_path, capsys
):
    crawl_dir = tmp_path / "crawl"
    assert _crawl(seeds, crawl_dir, 1) == 0
    generate = ["generate", str(crawl_dir / "crawldb"), str(crawl_dir / "segments")]
    assert main([*generate, *FLAGS]) == 0
    segment = sorted((crawl_dir / "segments").iterdir())[-1]
    assert main(["fetch", str(segment), "--parse", *FLAGS]) == 0

    streams = _resumed(capsys, seeds, crawl_dir)

    assert (
        f"(segment {segment.name} was fetched, not updated: updating the crawldb)"
    ) in streams.err
    assert [r.round for r in read_rounds(str(crawl_dir))] == [1, 2, 3]
    _same_as(uninterrupted, crawl_dir)


def test_a_round_left_updated_is_only_finished(seeds, uninterrupted, tmp_path, capsys):
    crawl_dir = tmp_path / "crawl"
    assert _crawl(seeds, crawl_dir, 1) == 0
    crawldb = str(crawl_dir / "crawldb")
    assert main(["generate", crawldb, str(crawl_dir / "segments"), *FLAGS]) == 0
    segment = sorted((crawl_dir / "segments").iterdir())[-1]
    assert main(["fetch", str(segment), "--parse", *FLAGS]) == 0
    assert main(["updatedb", crawldb, str(segment), *FLAGS]) == 0

    streams = _resumed(capsys, seeds, crawl_dir)

    assert (
        f"(segment {segment.name} was fetched and updated: finishing the round)"
    ) in streams.err
    assert "crawl: round 2: generated 8: fetched nothing" in streams.err
    records = read_rounds(str(crawl_dir))
    assert [r.round for r in records] == [1, 2, 3]
    assert records[1].unfetched == {"uncounted": 8}
    _same_as(uninterrupted, crawl_dir)


def test_a_finished_crawl_has_nothing_left_to_do(seeds, tmp_path, capsys):
    crawl_dir = tmp_path / "crawl"
    assert _crawl(seeds, crawl_dir, 1) == 0
    before = sorted(os.listdir(crawl_dir / "segments"))

    streams = _resumed(capsys, seeds, crawl_dir, rounds=1)

    assert streams.err.splitlines() == [
        f"crawl: resuming {crawl_dir}: round 1 of 1 done, nothing left to do"
    ]
    assert sorted(os.listdir(crawl_dir / "segments")) == before
    assert "Total: 1 round, 1 generated, fetched SUCCESS=1" in streams.out


def test_a_directory_without_round_records_counts_from_round_1(seeds, tmp_path, capsys):
    crawl_dir = tmp_path / "crawl"
    assert _crawl(seeds, crawl_dir, 1) == 0
    for path in (crawl_dir / "rounds").iterdir():
        path.unlink()  # as a crawl before round records left it

    streams = _resumed(capsys, seeds, crawl_dir, rounds=1)

    assert (
        f"crawl: {crawl_dir} has 1 segments from before its first crawl with round "
        "records; counting rounds from 1"
    ) in streams.err
    assert "crawl: round 1: generated 8" in streams.err
    note = json.loads((crawl_dir / "rounds" / "crawl.json").read_text())
    assert len(note["segments_before"]) == 1
    assert _rounds_of(crawl_dir) == [1]
    assert read_rounds(str(crawl_dir))[0].segment != note["segments_before"][0]


def test_the_round_records_add_up(seeds, tmp_path, capsys):
    crawl_dir = tmp_path / "crawl"
    assert _crawl(seeds, crawl_dir, 2, "--separateJobs") == 0
    records = read_rounds(str(crawl_dir))
    assert [r.round for r in records] == [1, 2]
    for record in records:
        assert sum(record.fetched.values()) + sum(record.unfetched.values()) == (
            record.generated
        )
        assert record.counters["generate:GENERATED"] == record.generated
        assert Path(record.segment).is_dir()
    assert records[0].new_urls == 8
    assert sum(records[1].crawldb.values()) == 13
    assert records[1].fetched == {
        "MOVED": 1, "NOTFOUND": 1, "ROBOTS_DENIED": 1, "SUCCESS": 5
    }  # fmt: skip
