"""Crawldb versions and locks on local disk, S3 (moto) and GCS (the emulator)."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from apache_beam.io.filesystems import FileSystems

from crawllib.errors import (
    CorruptFileError,
    CrawlDbLockedError,
    CrawlDbMissingError,
    CrawlError,
)
from pipelines.storage import fs, locks, partfiles, versions
from tests.objectstores import store_in_use

PART = "part-00000-of-00001.avro"


@pytest.fixture(params=["local", "s3", "gs"])
def root(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> str:
    """A directory on each store, with this process's FileSystems pointed at it."""
    if request.param == "local":
        return str(tmp_path)
    return store_in_use(request, monkeypatch, request.param).url("crawl")


def _write(path: str, text: str) -> None:
    with FileSystems.create(path) as f:
        f.write(text.encode())


def _read(path: str) -> str:
    with fs.open_raw(path) as f:
        return bytes(f.read()).decode()


def _new(db: str, text: str) -> str:
    new_dir = versions.new_version_dir(db)
    _write(FileSystems.join(new_dir, PART), text)
    return new_dir


def _current_text(db: str) -> str:
    current = versions.current_version(db)
    assert current is not None
    return _read(FileSystems.join(current, PART))


def _listing(db: str) -> list[str]:
    matches = FileSystems.match([FileSystems.join(db, "**")])
    return sorted(m.path[len(db) + 1 :] for m in matches[0].metadata_list)


def test_publish_makes_a_version_current_and_keeps_one_backup(root):
    db = FileSystems.join(root, "crawldb")
    assert versions.current_version(db) is None
    first = _new(db, "one")
    assert versions.current_version(db) is None  # written, not published
    versions.publish(db, first)
    assert _current_text(db) == "one"
    second = _new(db, "two")
    versions.publish(db, second)
    assert _current_text(db) == "two"
    assert versions.kept_versions(db) == [second, first]
    third = _new(db, "three")
    versions.publish(db, third)
    assert _current_text(db) == "three"
    assert not partfiles.has_parts(first)
    assert versions.kept_versions(db) == [third, second]
    pointers = [p for p in _listing(db) if p.startswith("published/")]
    assert pointers == ["published/0000000003.json"]
    fourth = _new(db, "four")
    versions.publish(db, fourth, keep_backup=False)
    assert versions.kept_versions(db) == [fourth]
    assert not partfiles.has_parts(second)
    assert not partfiles.has_parts(third)


def test_an_unpublished_version_is_ignored_then_removed_by_the_next_lock_holder(root):
    db = FileSystems.join(root, "crawldb")
    versions.publish(db, _new(db, "one"))
    killed = _new(db, "half written")  # a job killed before its publish
    assert _current_text(db) == "one"
    with versions.locked(db):
        assert not partfiles.has_parts(killed)
    assert _current_text(db) == "one"


def test_the_pointer_names_the_version_and_its_backup_as_json(root):
    db = FileSystems.join(root, "linkdb")
    first = _new(db, "one")
    versions.publish(db, first)
    second = _new(db, "two")
    versions.publish(db, second)
    (pointer,) = [p for p in _listing(db) if p.startswith("published/")]
    body = json.loads(_read(FileSystems.join(db, pointer)))
    assert FileSystems.join(db, body["version"]) == second
    assert FileSystems.join(db, body["previous"]) == first


def test_a_version_without_part_files_is_never_published(root):
    db = FileSystems.join(root, "crawldb")
    versions.publish(db, _new(db, "one"))
    with pytest.raises(CrawlError, match="no part files"):
        versions.publish(db, versions.new_version_dir(db))
    assert _current_text(db) == "one"


def test_require_is_a_user_error_without_a_version(root):
    with pytest.raises(CrawlDbMissingError, match="no crawldb at"):
        versions.require(FileSystems.join(root, "nothing"))


def test_a_damaged_pointer_is_refused_with_one_line(root):
    db = FileSystems.join(root, "crawldb")
    versions.publish(db, _new(db, "one"))
    _write(FileSystems.join(db, "published", "0000000009.json"), "{not json")
    with pytest.raises(CorruptFileError, match=r"0000000009\.json: not a published"):
        versions.current_version(db)


def test_a_crawldb_of_an_older_beamcrawl_is_read_then_versioned(root):
    db = FileSystems.join(root, "crawldb")
    _write(FileSystems.join(db, "current", PART), "legacy")
    _write(FileSystems.join(db, "old", PART), "older")
    assert _current_text(db) == "legacy"
    with versions.locked(db):
        versions.publish(db, _new(db, "new"))
    assert _current_text(db) == "new"
    backup = versions.kept_versions(db)[1]
    assert _read(FileSystems.join(backup, PART)) == "legacy"
    assert not partfiles.has_parts(FileSystems.join(db, "old")) or fs.is_local(db)
    with versions.locked(db):
        versions.publish(db, _new(db, "newer"))
    assert [_read(FileSystems.join(v, PART)) for v in versions.kept_versions(db)] == [
        "newer",
        "new",
    ]
    if not fs.is_local(db):
        assert not [p for p in _listing(db) if p.startswith(("current/", "old/"))]


def test_an_install_an_older_beamcrawl_left_between_renames_is_read(root):
    db = FileSystems.join(root, "crawldb")
    _write(FileSystems.join(db, "old", PART), "one")  # current renamed away
    assert _current_text(db) == "one"


def test_local_current_and_old_stay_readable_in_place(tmp_path):
    db = str(tmp_path / "crawldb")
    versions.publish(db, _new(db, "one"))
    versions.publish(db, _new(db, "two"))
    assert (tmp_path / "crawldb" / "current" / PART).read_text() == "two"
    assert (tmp_path / "crawldb" / "old" / PART).read_text() == "one"
    assert os.readlink(tmp_path / "crawldb" / "current").startswith("versions/")


def test_a_local_migration_killed_after_its_publish_is_finished(tmp_path):
    crawldb = tmp_path / "crawldb"
    db = str(crawldb)
    (crawldb / "current").mkdir(parents=True)
    (crawldb / "current" / PART).write_text("legacy")
    new_dir = _new(db, "new")
    # the first publish wrote its pointer, then was killed before it renamed
    # current/ to the backup it names
    backup = "versions/20260101T000000Z-00000000-legacy"
    pointer = {"version": versions._relative(db, new_dir), "previous": backup}
    (crawldb / "published").mkdir()
    (crawldb / "published" / "0000000001.json").write_text(json.dumps(pointer))
    assert _current_text(db) == "new"
    with versions.locked(db):
        pass
    assert (crawldb / backup / PART).read_text() == "legacy"
    assert (crawldb / "current" / PART).read_text() == "new"
    assert (crawldb / "old" / PART).read_text() == "legacy"


def test_an_incomplete_set_of_part_files_is_refused(root):
    directory = FileSystems.join(root, "segment", "fetch")
    for shard in (0, 2):
        _write(FileSystems.join(directory, f"part-0000{shard}-of-00003.avro"), "x")
    assert partfiles.parts_state(directory) == "incomplete"
    assert partfiles.incomplete_sets(
        [FileSystems.join(directory, f"part-0000{s}-of-00003.avro") for s in (0, 2)]
    ) == {directory: "only 2 of its 3 part files"}
    _write(FileSystems.join(directory, "part-00001-of-00003.avro"), "x")
    assert partfiles.parts_state(directory) == "whole"
    _write(FileSystems.join(directory, "part-00000-of-00001.avro"), "x")
    assert (
        "different jobs"
        in partfiles.incomplete_sets(
            [p for p, _ in partfiles.part_paths(partfiles.parts_pattern(directory))]
        )[directory]
    )


def test_the_lock_refuses_a_second_holder_until_released(root):
    db = FileSystems.join(root, "crawldb")
    with locks.hold(db):
        assert len(locks.holders(db)) == 1
        with (
            pytest.raises(CrawlDbLockedError, match=r"is locked.*pid.*pass --force"),
            locks.hold(db),
        ):
            pass
        assert len(locks.holders(db)) == 1
    assert locks.holders(db) == []
    with locks.hold(db):
        pass


def test_force_breaks_a_lock_a_killed_job_left(root):
    db = FileSystems.join(root, "crawldb")
    _write(FileSystems.join(db, ".lock", "20200101T000000Z-0.held"), "killed job")
    with pytest.raises(CrawlDbLockedError, match="killed job"), locks.hold(db):
        pass
    with locks.hold(db, force=True):
        assert len(locks.holders(db)) == 1
    assert locks.holders(db) == []


def test_a_lock_file_of_an_older_beamcrawl_counts(tmp_path):
    (tmp_path / ".locked").write_text("an older beamcrawl")
    with (
        pytest.raises(CrawlDbLockedError, match="an older beamcrawl"),
        locks.hold(str(tmp_path)),
    ):
        pass
    with locks.hold(str(tmp_path), force=True):
        pass
    assert not (tmp_path / ".locked").exists()


def test_the_lock_is_released_when_the_job_fails(root):
    db = FileSystems.join(root, "crawldb")
    with pytest.raises(RuntimeError), locks.hold(db):
        raise RuntimeError("pipeline failed")
    assert locks.holders(db) == []


def test_jobs_asking_at_once_get_it_one_at_a_time(root):
    db = FileSystems.join(root, "crawldb")
    inside = []
    refused = []
    overlap = threading.Event()
    start = threading.Barrier(4)

    def job() -> None:
        start.wait()
        try:
            with locks.hold(db):
                inside.append(threading.get_ident())
                if len(inside) > 1:
                    overlap.set()
                time.sleep(0.5)
                inside.remove(threading.get_ident())
        except CrawlDbLockedError:
            refused.append(1)

    for _ in range(3):
        threads = [threading.Thread(target=job) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert not overlap.is_set()
        assert locks.holders(db) == []
    assert len(refused) == 3 * 3  # exactly one of each four ran


def test_rollback_makes_the_backup_current_and_keeps_the_other(root):
    db = FileSystems.join(root, "crawldb")
    first = _new(db, "one")
    versions.publish(db, first)
    with pytest.raises(CrawlDbMissingError, match="no backup"):
        versions.roll_back(db)
    second = _new(db, "two")
    versions.publish(db, second)
    assert versions.roll_back(db) == first
    assert _current_text(db) == "one"
    assert versions.kept_versions(db) == [first, second]


def test_readdb_path_and_rollback_on_the_command_line(tmp_path, capsys):
    from pipelines.cli import main

    db = str(tmp_path / "crawldb")
    first = _new(db, "one")
    versions.publish(db, first)
    second = _new(db, "two")
    versions.publish(db, second)
    capsys.readouterr()
    assert main(["readdb", db, "--path"]) == 0
    assert capsys.readouterr().out == f"{second}\n"
    assert main(["readdb", db, "--rollback"]) == 0
    assert main(["readdb", db, "--path"]) == 0
    assert capsys.readouterr().out == f"{first}\n"
    assert (tmp_path / "crawldb" / "current" / PART).read_text() == "one"
    assert main(["readdb", str(tmp_path / "none"), "--path"]) == 2
    assert capsys.readouterr().err.startswith("beamcrawl: no crawldb at")


def test_a_refusal_names_the_holder_when_the_object_seen_is_gone(root):
    # the refused job saw another job's .asking object, which that job then
    # replaced by its .held one: the line names the .held one (on GCS a read
    # of the gone object raised Google's NotFound, a traceback and exit 1)
    db = FileSystems.join(root, "crawldb")
    held = FileSystems.join(db, ".lock", "20260101T000000.000Z-a.held")
    _write(held, "host pid 7 (beamcrawl updatedb)")
    gone = FileSystems.join(db, ".lock", "20260101T000000.000Z-a.asking")
    error = locks._locked(db, gone)
    assert f"({held}: host pid 7 (beamcrawl updatedb))" in str(error)
