import os
from typing import Any

import apache_beam as beam
import fastavro
import pytest
from apache_beam.testing.util import assert_that, equal_to

from crawllib.errors import CrawlDbLockedError, CrawlDbMissingError
from crawllib.webpage import new_page
from pipelines import io

PAGES = [
    new_page("http://a.com/", status=1, score=1.0, metadata={"k": b"v"}),
    new_page("http://b.com/x", status=2, signature=b"\x00\x01", outlinks={"u": "t"}),
]


def _write(pipeline, pages, directory):
    with pipeline as p:
        _ = p | beam.Create(pages) | io.WriteWebPages(str(directory))


def test_write_then_read_gives_the_same_pages(pipeline, tmp_path):
    _write(pipeline, PAGES, tmp_path / "v1")
    files = sorted(os.listdir(tmp_path / "v1"))
    assert files
    assert all(name.startswith("part-") and name.endswith(".avro") for name in files)
    with beam.Pipeline() as p:
        read = p | io.ReadWebPages(io.parts_pattern(str(tmp_path / "v1")))
        assert_that(read, equal_to(PAGES))


def test_files_are_plain_avro_readable_with_fastavro(pipeline, tmp_path):
    _write(pipeline, PAGES, tmp_path / "v1")
    records: list[Any] = []
    for name in os.listdir(tmp_path / "v1"):
        with open(tmp_path / "v1" / name, "rb") as handle:
            reader = fastavro.reader(handle)
            schema = reader.writer_schema
            assert isinstance(schema, dict)
            assert schema["name"] == "org.apache.nutch.storage.WebPage"
            records.extend(reader)
    assert sorted(records, key=lambda r: r["url"]) == PAGES


def test_an_empty_collection_still_writes_a_readable_version(pipeline, tmp_path):
    _write(pipeline, [], tmp_path / "v1")
    assert io.has_parts(str(tmp_path / "v1"))
    with beam.Pipeline() as p:
        read = p | io.ReadWebPages(io.parts_pattern(str(tmp_path / "v1")))
        assert_that(read, equal_to([]))


def _version(directory, name):
    directory.mkdir(parents=True)
    (directory / "part-00000-of-00001.avro").write_text(name)


def _current(crawldb):
    return (crawldb / "current" / "part-00000-of-00001.avro").read_text()


def test_nutch_install_swaps_current_and_keeps_the_old_version(tmp_path):
    crawldb = tmp_path / "crawldb"
    _version(crawldb / "new1", "one")
    io.install_crawldb(str(crawldb), str(crawldb / "new1"))
    assert _current(crawldb) == "one"
    _version(crawldb / "new2", "two")
    io.install_crawldb(str(crawldb), str(crawldb / "new2"))
    assert _current(crawldb) == "two"
    assert (crawldb / "old" / "part-00000-of-00001.avro").read_text() == "one"
    assert sorted(os.listdir(crawldb)) == ["current", "old"]
    _version(crawldb / "new3", "three")
    io.install_crawldb(str(crawldb), str(crawldb / "new3"), keep_backup=False)
    assert sorted(os.listdir(crawldb)) == ["current"]


def test_an_install_interrupted_between_renames_is_recovered(tmp_path):
    crawldb = tmp_path / "crawldb"
    _version(crawldb / "current", "one")
    os.rename(crawldb / "current", crawldb / "old")  # the crash point
    assert io.crawldb_exists(str(crawldb))
    assert _current(crawldb) == "one"


def test_require_crawldb_is_a_user_error_when_missing(tmp_path):
    with pytest.raises(CrawlDbMissingError, match="no crawldb at"):
        io.require_crawldb(str(tmp_path / "nothing"))


def test_nutch_lock_refuses_a_second_holder_until_released(tmp_path):
    crawldb = str(tmp_path / "crawldb")
    with io.crawldb_lock(crawldb):
        assert os.path.exists(os.path.join(crawldb, ".locked"))
        with (
            pytest.raises(CrawlDbLockedError, match=r"is locked.*pass --force"),
            io.crawldb_lock(crawldb),
        ):
            pass
    assert not os.path.exists(os.path.join(crawldb, ".locked"))
    with io.crawldb_lock(crawldb):
        pass


def test_force_overrides_a_stale_lock(tmp_path):
    crawldb = tmp_path / "crawldb"
    crawldb.mkdir()
    (crawldb / ".locked").write_text("a job that was killed")
    with (
        pytest.raises(CrawlDbLockedError, match="a job that was killed"),
        io.crawldb_lock(str(crawldb)),
    ):
        pass
    with io.crawldb_lock(str(crawldb), force=True):
        pass
    assert not (crawldb / ".locked").exists()


def test_lock_is_released_when_the_job_fails(tmp_path):
    crawldb = str(tmp_path / "crawldb")
    with pytest.raises(RuntimeError), io.crawldb_lock(crawldb):
        raise RuntimeError("pipeline failed")
    assert not os.path.exists(os.path.join(crawldb, ".locked"))
