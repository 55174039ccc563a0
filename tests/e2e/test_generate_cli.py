import os
import time

import pytest

from crawllib.db.generate import GENERATE_TIME_KEY
from pipelines.cli import main
from tests.avrofiles import read_pages

NOW = 1_700_000_000_000
CLOCK = [f"-Dinjector.current.time={NOW}", f"-Dgenerate.curTime={NOW}"]


@pytest.fixture
def crawldb(tmp_path):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(
        "".join(
            f"http://h{h}.example.com/p{i}.html\tnutch.score={h + i / 10}\n"
            for h in range(4)
            for i in range(5)
        )
    )
    db = tmp_path / "crawldb"
    assert main(["inject", str(db), str(seeds), *CLOCK]) == 0
    return db


def _generate(crawldb, segments, capsys, *args):
    capsys.readouterr()
    code = main(["generate", str(crawldb), str(segments), *CLOCK, *args])
    captured = capsys.readouterr()
    return code, captured.out.split(), captured.err


def test_generate_prints_the_segment_it_wrote(crawldb, tmp_path, capsys):
    segments = tmp_path / "segments"
    code, paths, err = _generate(crawldb, segments, capsys, "--topN", "6")
    assert code == 0
    assert len(paths) == 1
    name = time.strftime("%Y%m%d%H%M%S", time.localtime(NOW / 1000))
    assert os.path.basename(paths[0]) == name  # from generate.curTime
    records = read_pages(os.path.join(paths[0], "generate"))
    assert len(records) == 6
    assert {r["markers"]["_gnmrk_"] for r in records} == {name}
    assert "GENERATED=6" in err
    assert sorted(os.listdir(segments)) == [name]
    assert not (crawldb / ".locked").exists()


def test_nutch_max_num_segments_prints_every_segment(crawldb, tmp_path, capsys):
    code, paths, _ = _generate(
        crawldb, tmp_path / "segs", capsys,
        "--topN", "4", "--maxNumSegments", "3", "-Dgenerate.max.count=2",
    )  # fmt: skip
    assert code == 0
    assert len(paths) == 3
    sizes = [len(read_pages(os.path.join(p, "generate"))) for p in paths]
    assert sizes == [4, 4, 4]


def test_nutch_default_reselects_until_updatedb(crawldb, tmp_path, capsys):
    segments = tmp_path / "segments"
    first = _generate(crawldb, segments, capsys, "--topN", "5")[1]
    second = _generate(crawldb, segments, capsys, "--topN", "5")[1]
    urls = [[r["url"] for r in read_pages(os.path.join(p[0], "generate"))]
            for p in (first, second)]  # fmt: skip
    assert first != second
    assert urls[0] == urls[1]


def test_nutch_update_crawldb_blocks_reselection(crawldb, tmp_path, capsys):
    segments = tmp_path / "segments"
    update = "-Dgenerate.update.crawldb=true"
    code, paths, _ = _generate(crawldb, segments, capsys, "--topN", "5", update)
    assert code == 0
    marked = [
        r for r in read_pages(crawldb / "current") if GENERATE_TIME_KEY in r["metadata"]
    ]
    assert len(marked) == 5
    assert os.path.isdir(crawldb / "old")
    # the next five: the first five wait for updatedb
    code, again, _ = _generate(crawldb, segments, capsys, "--topN", "5", update)
    first = {r["url"] for r in read_pages(os.path.join(paths[0], "generate"))}
    second = {r["url"] for r in read_pages(os.path.join(again[0], "generate"))}
    assert code == 0
    assert not first & second
    # past crawl.gen.delay (7 days) they may be generated again
    code, later, _ = _generate(crawldb, segments, capsys, "--adddays", "8", update)
    assert code == 0
    assert len(read_pages(os.path.join(later[0], "generate"))) == 20


def test_nothing_selected_exits_1_and_leaves_no_segment(crawldb, tmp_path, capsys):
    segments = tmp_path / "segments"
    code, paths, err = _generate(crawldb, segments, capsys, "--adddays", "-1")
    assert code == 1
    assert paths == []
    assert err.strip().splitlines()[-1] == (
        "Generator: 0 records selected for fetching, exiting ..."
    )
    assert "SCHEDULE_REJECTED=20" in err
    assert not segments.exists() or os.listdir(segments) == []
    assert not (crawldb / ".locked").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--numFetchers", "0"], "--numFetchers 0 is invalid"),
        (["--topN", "-5"], "--topN -5 is invalid"),
        (["-Dgenerate.restrict.status=db_whatever"], "generate.restrict.status"),
        (["-Dgenerate.count.mode=ip"], "generate.count.mode"),
    ],
)
def test_bad_options_are_user_errors(crawldb, tmp_path, capsys, args, message):
    code, _, err = _generate(crawldb, tmp_path / "segments", capsys, *args)
    assert code == 2
    assert message in err


def test_locked_crawldb_is_refused(crawldb, tmp_path, capsys):
    (crawldb / ".locked").write_text("updatedb running")
    code, _, err = _generate(crawldb, tmp_path / "segments", capsys)
    assert code == 2
    assert "is locked" in err
    assert _generate(crawldb, tmp_path / "segments", capsys, "--force")[0] == 0


def test_missing_crawldb_is_a_user_error(tmp_path, capsys):
    code, _, err = _generate(tmp_path / "nothing", tmp_path / "segments", capsys)
    assert code == 2
    assert "no crawldb at" in err
