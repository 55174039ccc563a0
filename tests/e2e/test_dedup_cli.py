import os

import pytest

from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.cli import main
from tests.avrofiles import read_pages
from tests.e2e.crafted import write_pages

SIG = bytes(range(16))


@pytest.fixture
def crawldb(tmp_path):
    db = tmp_path / "crawldb"
    pages = [
        new_page("http://a.com/x", status=2, signature=SIG, score=2.0, fetchTime=5),
        new_page("http://a.com/y", status=2, signature=SIG, score=1.0, fetchTime=5),
        new_page("http://b.com/x", status=38, signature=SIG, score=1.0, fetchTime=5),
        new_page("http://c.com/x", status=1, signature=SIG, score=9.0),
        new_page("http://d.com/x", status=2, signature=None, score=9.0),
    ]
    write_pages(db / "current", pages[:3])
    write_pages(db / "current", pages[3:], part=1)
    return db


def _dedup(crawldb, capsys, *args):
    capsys.readouterr()
    code = main(["dedup", str(crawldb), *args])
    return code, capsys.readouterr().err


def _statuses(crawldb):
    return {r["url"]: r["status"] for r in read_pages(crawldb / "current")}


def test_nutch_dedup_marks_duplicates_and_installs_a_new_version(crawldb, capsys):
    code, err = _dedup(crawldb, capsys)
    assert code == 0
    assert err.strip().splitlines()[-1] == (
        "Deduplication: 2 documents marked as duplicates"
    )
    assert _statuses(crawldb) == {
        "http://a.com/x": 2,
        "http://a.com/y": CrawlStatus.DUPLICATE,
        "http://b.com/x": CrawlStatus.DUPLICATE,
        "http://c.com/x": 1,
        "http://d.com/x": 2,
    }
    # db.preserve.backup: the version before kept as old/; the lock released
    assert sorted(os.listdir(crawldb)) == ["current", "old", "published", "versions"]
    first = _statuses(crawldb)
    code, err = _dedup(crawldb, capsys)
    assert code == 0
    assert "Deduplication: 0 documents marked as duplicates" in err
    assert _statuses(crawldb) == first


def test_nutch_group_and_compare_order_options(crawldb, capsys):
    code, err = _dedup(
        crawldb,
        capsys,
        "--group",
        "host",
        "--compareOrder",
        "urlLength,score,fetchTime",
    )
    assert code == 0
    assert "Deduplication: 1 documents marked as duplicates" in err
    statuses = _statuses(crawldb)
    assert statuses["http://a.com/y"] == CrawlStatus.DUPLICATE
    assert statuses["http://b.com/x"] == CrawlStatus.NOTMODIFIED  # alone on b.com


def test_no_backup_without_db_preserve_backup(crawldb, capsys):
    assert _dedup(crawldb, capsys, "-Ddb.preserve.backup=false")[0] == 0
    assert sorted(os.listdir(crawldb)) == ["current", "published", "versions"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--compareOrder", "score,fetchTime"], "--compareOrder 'score,fetchTime'"),
        (["--group", "ip"], "--group: invalid choice: 'ip'"),
        (["--bogus"], "unrecognized argument --bogus"),
    ],
)
def test_bad_options_are_one_line_user_errors(crawldb, capsys, args, message):
    code, err = _dedup(crawldb, capsys, *args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert message in err
    assert _statuses(crawldb)["http://a.com/y"] == 2


def test_missing_crawldb_is_a_user_error(tmp_path, capsys):
    code, err = _dedup(tmp_path / "nothing", capsys)
    assert code == 2
    assert err.strip().splitlines() == [
        f"beamcrawl: no crawldb at {tmp_path / 'nothing'} (no published version in it)"
    ]


def test_locked_crawldb_is_refused_unless_forced(crawldb, capsys):
    (crawldb / ".locked").write_text("updatedb running")
    code, err = _dedup(crawldb, capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "is locked" in err
    assert _statuses(crawldb)["http://a.com/y"] == 2
    assert _dedup(crawldb, capsys, "--force")[0] == 0
    assert _statuses(crawldb)["http://a.com/y"] == CrawlStatus.DUPLICATE
    assert not (crawldb / ".locked").exists()
