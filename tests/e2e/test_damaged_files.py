"""Damaged part files (crawldb, segment, linkdb): one line, exit 2, nothing changed.

The damage is done to real files written by real jobs; every job is run
through the CLI in this process.
"""

import os
import shutil

import fastavro
import pytest

from crawllib.status import CrawlStatus
from crawllib.webpage import new_page, schema
from pipelines.cli import main
from tests.avrofiles import read_pages

CLOCK = "-Dinjector.current.time=1700000000000"
SEEDS = 3000  # a crawldb of several Avro blocks


@pytest.fixture(scope="module")
def crawl(tmp_path_factory):
    """A crawldb, a generated segment with whole fetch and parse parts, a linkdb."""
    root = tmp_path_factory.mktemp("crawl")
    seeds = root / "seeds.txt"
    seeds.write_text("".join(f"http://h{n % 50}.example/p{n}\n" for n in range(SEEDS)))
    assert main(["inject", str(root / "crawldb"), str(seeds), CLOCK]) == 0
    assert main(["generate", str(root / "crawldb"), str(root / "segments"), CLOCK]) == 0
    (segment,) = (root / "segments").iterdir()
    for part in ("fetch", "parse"):
        _write(segment / part / "part-00000-of-00001.avro", _fetched(20))
    shutil.copytree(root / "crawldb" / "current", root / "linkdb" / "current")
    return root


def _fetched(count):
    return [
        new_page(
            f"http://h{n % 50}.example/p{n}",
            status=int(CrawlStatus.FETCHED),
            markers={"_gnmrk_": "b", "_ftcmrk_": "b", "__prsmrk__": "b"},
        )
        for n in range(count)
    ]


def _write(path, records, writer_schema=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        fastavro.writer(
            handle, fastavro.parse_schema(writer_schema or schema()), records
        )


def _damage(path, kind):
    data = path.read_bytes()
    if kind == "empty":
        path.write_bytes(b"")
        return "empty file (0 bytes)"
    if kind == "cut":
        path.write_bytes(data[: len(data) * 2 // 3])
        return "cut short"
    if kind == "garbage":
        path.write_bytes(os.urandom(len(data)))
        return "not an Avro container file"
    other = {
        "type": "record",
        "name": "Other",
        "fields": [{"name": "url", "type": "string"}],
    }
    _write(path, [{"url": "http://x/"}], other)
    return "of another schema"


def _snapshot(root):
    files = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, "rb") as handle:
                files[os.path.relpath(path, root)] = handle.read()
    return files


@pytest.fixture
def copy(crawl, tmp_path):
    target = tmp_path / "crawl"
    shutil.copytree(crawl, target, symlinks=True)
    return target


def _refused(capsys, args, damaged, words, root):
    before = _snapshot(root)
    capsys.readouterr()

    assert main(args) == 2

    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert str(damaged) in lines[0]
    assert words in lines[0]
    assert _snapshot(root) == before  # no version, lock or segment part left


def _segment(root):
    (segment,) = (root / "segments").iterdir()
    return segment


def _crawldb_part(root, name="crawldb"):
    (part,) = (root / name / "current").resolve().iterdir()  # the version itself
    return part


@pytest.mark.parametrize("kind", ["empty", "cut", "garbage", "schema"])
@pytest.mark.parametrize("job", ["readdb", "generate", "updatedb", "dedup", "inject"])
def test_a_damaged_crawldb_part_stops_every_job(copy, capsys, kind, job):
    part = _crawldb_part(copy)
    words = _damage(part, kind)
    crawldb = str(copy / "crawldb")
    seeds = copy / "seeds.txt"
    args = {
        "readdb": ["readdb", crawldb, "--stats"],
        "generate": ["generate", crawldb, str(copy / "segments"), CLOCK],
        "updatedb": ["updatedb", crawldb, str(_segment(copy))],
        "dedup": ["dedup", crawldb],
        "inject": ["inject", crawldb, str(seeds), CLOCK],
    }[job]
    _refused(capsys, args, part, words, copy)


@pytest.mark.parametrize(
    ("part", "job"),
    [
        ("generate", "fetch"),
        ("fetch", "parse"),
        ("fetch", "updatedb"),
        ("parse", "updatedb"),
        ("parse", "invertlinks"),
    ],
)
def test_a_damaged_segment_part_stops_the_jobs_that_read_it(copy, capsys, part, job):
    segment = _segment(copy)
    if job == "fetch":  # a segment not fetched yet
        shutil.rmtree(segment / "fetch")
        shutil.rmtree(segment / "parse")
    (damaged,) = (segment / part).glob("part-*.avro")
    words = _damage(damaged, "cut")
    args = {
        "fetch": ["fetch", str(segment), "-Dhttp.agent.name=test"],
        "parse": ["parse", str(segment), "--force"],
        "updatedb": ["updatedb", str(copy / "crawldb"), str(segment)],
        "invertlinks": ["invertlinks", str(copy / "linkdb"), str(segment)],
    }[job]
    _refused(capsys, args, damaged, words, copy)


def test_a_damaged_linkdb_part_stops_invertlinks(copy, capsys):
    part = _crawldb_part(copy, "linkdb")
    words = _damage(part, "garbage")
    args = ["invertlinks", str(copy / "linkdb"), str(_segment(copy))]
    _refused(capsys, args, part, words, copy)


def test_a_crawldb_without_a_version_is_a_user_error(copy, capsys):
    for name in ("versions", "published"):
        shutil.rmtree(copy / "crawldb" / name)
    for name in ("current", "old"):
        (copy / "crawldb" / name).unlink(missing_ok=True)
    before = _snapshot(copy)
    capsys.readouterr()

    assert main(["readdb", str(copy / "crawldb"), "--stats"]) == 2

    assert "no crawldb at" in capsys.readouterr().err
    assert _snapshot(copy) == before


def test_verify_names_the_damaged_file_and_salvage_keeps_the_whole_blocks(copy, capsys):
    crawldb = copy / "crawldb"
    part = _crawldb_part(copy)
    whole = read_pages(crawldb / "current")
    assert len(whole) == SEEDS
    capsys.readouterr()
    assert main(["readdb", str(crawldb), "--verify"]) == 0
    assert f"ok      {part}: {SEEDS} records" in capsys.readouterr().out

    part.write_bytes(part.read_bytes()[:-20])  # into the last of its blocks
    assert main(["readdb", str(crawldb), "--verify"]) == 2
    out = capsys.readouterr().out
    assert f"DAMAGED {part}: cut short" in out
    assert "part files: 1, damaged: 1," in out

    salvaged_db = copy / "salvaged"
    assert main(["readdb", str(crawldb), "--salvage", str(salvaged_db)]) == 0
    report = capsys.readouterr().err
    kept = read_pages(salvaged_db / "current")
    assert 0 < len(kept) < SEEDS
    assert all(page in whole for page in kept)
    assert f"salvaged {len(kept)} records into {salvaged_db}" in report
    assert main(["readdb", str(salvaged_db), "--verify"]) == 0
    assert main(["readdb", str(salvaged_db), "--stats"]) == 0
    assert f"TOTAL urls:\t{len(kept)}" in capsys.readouterr().out
