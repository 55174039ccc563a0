"""A lock whose holder is provably dead is stale: broken on local disk, named elsewhere.

Each lock here is written by a real process (``tests.lockholders``) with the text a
job writes (``pipelines.storage.lockowner``): its host, boot, pid namespace,
pid and start time. A holder that exited leaves a stale lock; one that
still runs holds a live one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipelines.cli import main
from pipelines.storage import lockowner, locks
from tests.crawlstate import lock_objects
from tests.lockholders import Holder as _Holder
from tests.objectstores import Store, run_beamcrawl, store_in_use


@pytest.fixture
def live_holder() -> Iterator[_Holder]:
    holder = _Holder(live=True)
    yield holder
    holder.kill()


@pytest.fixture
def seeds(tmp_path: Path) -> Path:
    path = tmp_path / "seeds.txt"
    path.write_text("http://a.example/\nhttp://b.example/\n")
    return path


def _warnings(err: str) -> list[str]:
    return [line for line in err.splitlines() if " WARNING " in line]


def test_the_lock_text_records_what_proves_the_holder_dead():
    text = lockowner.lock_text()
    first, _second = text.splitlines()
    assert f" pid {os.getpid()} " in first
    owner = lockowner.owner_of(text)
    assert owner == lockowner.this_process()
    assert owner is not None
    assert owner.pid == os.getpid()
    assert not lockowner.is_stale(text)  # this process runs
    reused = text.replace(
        f"start={owner.start_ticks}", f"start={owner.start_ticks + 1}"
    )
    assert lockowner.is_stale(reused)  # the pid runs another process now
    other_boot = text.replace(f"boot={owner.boot_id}", "boot=another-boot")
    assert not lockowner.is_stale(other_boot.replace("start=", "start=1"))
    other_ns = reused.replace(f"pidns={owner.pid_namespace}", "pidns=pid:[1]")
    assert not lockowner.is_stale(other_ns)  # another container's pid: unknown
    other_host = reused.replace(f"host={owner.host} ", "host=elsewhere ")
    assert not lockowner.is_stale(other_host)
    assert not lockowner.is_stale(first)  # an older beamcrawl's lock: unknown


def test_a_dead_holders_lock_is_broken_on_local_disk_with_a_log_line(
    tmp_path, seeds, capsys
):
    crawldb = str(tmp_path / "crawldb")
    assert main(["inject", crawldb, str(seeds)]) == 0
    holder = _Holder(live=False)
    lock = holder.write_lock(crawldb)
    capsys.readouterr()

    assert main(["inject", crawldb, str(seeds)]) == 0

    (warning,) = _warnings(capsys.readouterr().err)
    assert f"removing the stale lock {lock} (" in warning
    assert f" pid {holder.pid} (beamcrawl dead) at " in warning
    assert f"process {holder.pid} on this host is no longer running" in warning
    assert lock_objects(Path(crawldb)) == []


def test_a_live_holders_lock_is_not_broken_until_it_is_gone(
    tmp_path, seeds, live_holder, capsys
):
    crawldb = str(tmp_path / "crawldb")
    assert main(["inject", crawldb, str(seeds)]) == 0
    lock = live_holder.write_lock(crawldb)
    capsys.readouterr()

    assert main(["inject", crawldb, str(seeds)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"beamcrawl: {crawldb} is locked by another job ({lock}: ")
    assert f" pid {live_holder.pid} (beamcrawl live) " in line
    assert line.endswith("if none is running, delete the lock or pass --force")
    assert lock_objects(Path(crawldb)) == [Path(lock)]

    live_holder.kill()  # now its lock is stale
    assert main(["inject", crawldb, str(seeds)]) == 0
    assert "removing the stale lock" in capsys.readouterr().err
    assert lock_objects(Path(crawldb)) == []


def test_an_old_format_lock_is_not_taken_for_stale(tmp_path, seeds, capsys):
    crawldb = tmp_path / "crawldb"
    assert main(["inject", str(crawldb), str(seeds)]) == 0
    holder = _Holder(live=False)
    holder.text = holder.text.splitlines()[0] + "\n"  # what locks.py wrote before
    holder.write_lock(str(crawldb))
    capsys.readouterr()

    assert main(["inject", str(crawldb), str(seeds)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "is locked by another job (" in line
    assert "stale" not in line
    assert main(["inject", str(crawldb), str(seeds), "--force"]) == 0


@pytest.fixture(params=["s3", "gs"])
def store(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Store:
    return store_in_use(request, monkeypatch, request.param)


def test_a_stale_lock_on_an_object_store_is_named_not_broken(store, seeds):
    crawldb = store.url("crawldb")
    run_beamcrawl(store, "inject", crawldb, str(seeds))
    lock = _Holder(live=False).write_lock(crawldb)

    refused = run_beamcrawl(store, "inject", crawldb, str(seeds), check=False)

    assert refused.returncode == 2, refused.stderr
    line = refused.stderr.strip().splitlines()[-1]
    assert line.startswith(
        f"beamcrawl: {crawldb} is locked by another job, no longer running: "
        f"the lock is stale ({lock}: "
    )
    assert line.endswith(
        "on this host is no longer running); delete the lock or pass --force"
    )
    assert "removing the stale lock" not in refused.stderr
    assert locks.holders(crawldb) == [lock]
    run_beamcrawl(store, "inject", crawldb, str(seeds), "--force")
    assert locks.holders(crawldb) == []
