"""``beamcrawl bucketdb``: a crawldb or linkdb rewritten as sorted buckets."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from crawllib.db.buckets import Bucketing
from pipelines.cli import main
from pipelines.storage import bucketfiles, versions
from tests.avrofiles import read_pages


def _bucketdb(
    db: Path, capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["bucketdb", str(db), *args])
    return code, capsys.readouterr().err.strip().splitlines()[-1]


def _records(db: Path) -> list[dict[str, object]]:
    return sorted(read_pages(db / "current"), key=lambda page: page["url"])


def test_a_crawldb_is_converted_then_rebucketed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("".join(f"http://h{n % 7}.org/p{n}\n" for n in range(300)))
    crawldb = tmp_path / "crawldb"
    assert main(["inject", str(crawldb), str(seeds)]) == 0
    before = _records(crawldb)
    assert len(before) == 300
    assert bucketfiles.read_layout(str(crawldb / "current")) is None

    assert _bucketdb(crawldb, capsys, "--buckets", "4") == (
        0,
        f"bucketdb: {crawldb}: unbucketed -> 4 buckets",
    )
    current = str(crawldb / "current")
    assert bucketfiles.read_layout(current) == Bucketing(4)
    assert bucketfiles.estimated_records(current) == 300  # counted, in buckets.json
    assert _records(crawldb) == before
    for bucket in range(4):
        urls = [
            p["url"]
            for p in bucketfiles.read_pages(bucketfiles.bucket_path(current, bucket, 4))
        ]
        assert urls == sorted(urls)
        assert len(urls) > 30
        assert {Bucketing(4).bucket_of(url) for url in urls} == {bucket}
    assert sorted(os.listdir(crawldb / "old")) == ["part-00000-of-00001.avro"]

    version = versions.current_version(str(crawldb))
    assert _bucketdb(crawldb, capsys, "--buckets", "4") == (
        0,
        f"bucketdb: {crawldb} has 4 buckets already",
    )
    assert versions.current_version(str(crawldb)) == version  # left as it was

    assert _bucketdb(crawldb, capsys, "--buckets", "8")[1].endswith(
        "4 buckets -> 8 buckets"
    )
    assert bucketfiles.read_layout(current) == Bucketing(8)
    assert _records(crawldb) == before

    assert _bucketdb(crawldb, capsys)[1].endswith("8 buckets -> 1 buckets")  # from size


def test_user_errors_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _bucketdb(tmp_path / "none", capsys)
    assert code != 0
    assert "no crawldb" in err
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://a.org/\n")
    assert main(["inject", str(tmp_path / "db"), str(seeds)]) == 0
    code, err = _bucketdb(tmp_path / "db", capsys, "--buckets", "3")
    assert code != 0
    assert "--buckets" in err
    assert "power of two" in err


def test_inject_into_a_bucketed_crawldb_merges_bucket_by_bucket(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seeds, more = tmp_path / "seeds.txt", tmp_path / "more.txt"
    seeds.write_text("".join(f"http://h{n % 7}.org/p{n}\n" for n in range(300)))
    more.write_text("".join(f"http://h{n % 7}.org/p{n}\n" for n in range(200, 400)))
    crawldb, plain = tmp_path / "crawldb", tmp_path / "plain"
    for db in (crawldb, plain):
        assert main(["inject", str(db), str(seeds), "-Dinjector.current.time=1"]) == 0
    assert _bucketdb(crawldb, capsys, "--buckets", "4")[0] == 0

    for db in (crawldb, plain):  # into bucketed and into unbucketed: the same
        argv = ["inject", str(db), str(more), "-Dinjector.current.time=2"]
        assert main([*argv, "-Ddb.injector.update=true"]) == 0

    assert bucketfiles.read_layout(str(crawldb / "current")) == Bucketing(4)
    assert bucketfiles.estimated_records(str(crawldb / "current")) == 400
    assert bucketfiles.read_layout(str(plain / "current")) == Bucketing(1)
    assert _records(crawldb) == _records(plain)
    times = {page["url"]: page["fetchTime"] for page in _records(crawldb)}
    assert times["http://h0.org/p0"] == 1  # as first injected
    assert times["http://h3.org/p388"] == 2  # new
