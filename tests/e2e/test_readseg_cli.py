import base64
import json
import os
import time

import pytest

from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.cli import main
from tests.e2e.crafted import write_pages

T0 = 1_700_000_000_000
SUCCESS = {"majorCode": 1, "minorCode": 0, "args": []}
FAILED = {"majorCode": 2, "minorCode": 200, "args": ["boom"]}


def _local(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(ms // 1000))


@pytest.fixture
def segments(tmp_path):
    base = tmp_path / "segments"
    full = base / "20231114221320"
    write_pages(full / "generate", [new_page(f"http://a.com/{n}") for n in range(4)])
    fetched = [
        new_page("http://a.com/0", status=2, fetchTime=T0 + 5000, content=b"<p>hi"),
        new_page("http://a.com/1", status=2, fetchTime=T0 + 1000, content=b"\xff\x00"),
        new_page("http://a.com/2", status=CrawlStatus.GONE, fetchTime=T0 + 9000),
    ]
    write_pages(full / "fetch", fetched[:2])
    write_pages(full / "fetch", fetched[2:], part=1)
    write_pages(
        full / "parse",
        [
            {**fetched[0], "content": None, "parseStatus": SUCCESS, "title": "hi"},
            {**fetched[1], "content": None, "parseStatus": FAILED},
            fetched[2],  # carried through, not parsed
        ],
    )
    write_pages(base / "20231115000000" / "generate", [new_page("http://b.com/")])
    write_pages(base / "20231116000000" / "generate", [])
    write_pages(base / "20231116000000" / "fetch", [])
    return base


def _readseg(capsys, *args):
    capsys.readouterr()
    code = main(["readseg", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_nutch_list_one_segment(segments, capsys):
    code, out, _ = _readseg(capsys, segments / "20231114221320", "--list")
    assert code == 0
    start, end = _local(T0 + 1000), _local(T0 + 9000)
    assert out.splitlines() == [
        "NAME\t\tGENERATED\tFETCHER START\t\tFETCHER END\t\tFETCHED\tPARSED",
        f"20231114221320\t4\t\t{start}\t{end}\t3\t2",
    ]


def test_nutch_list_dir_with_missing_parts(segments, capsys):
    code, out, _ = _readseg(capsys, "--list", "--dir", segments)
    assert code == 0
    start, end = _local(T0 + 1000), _local(T0 + 9000)
    assert out.splitlines()[1:] == [
        f"20231114221320\t4\t\t{start}\t{end}\t3\t2",
        "20231115000000\t1\t\t?\t\t?\t?\t?",
        "20231116000000\t0\t\t?\t\t?\t0\t?",
    ]


def test_dump_writes_json_lines_per_part(segments, tmp_path, capsys):
    out = tmp_path / "dump"
    code, _, err = _readseg(capsys, segments / "20231114221320", "--dump", out)
    assert code == 0
    assert "written to" in err
    assert sorted(os.listdir(out)) == ["fetch", "generate", "parse"]
    records = {}
    for part in ("generate", "fetch", "parse"):
        lines = []
        for name in sorted(os.listdir(out / part)):
            assert name.startswith("part-")
            assert name.endswith(".jsonl")
            lines += (out / part / name).read_text().splitlines()
        records[part] = sorted(
            (json.loads(line) for line in lines), key=lambda r: r["url"]
        )
    assert [r["url"] for r in records["generate"]] == [
        f"http://a.com/{n}" for n in range(4)
    ]
    content = {r["url"]: r["content"] for r in records["fetch"]}
    assert content == {
        "http://a.com/0": "<p>hi",
        "http://a.com/1": "base64:" + base64.b64encode(b"\xff\x00").decode(),
        "http://a.com/2": None,
    }
    titles = {r["url"]: (r["title"], r["parseStatus"]) for r in records["parse"]}
    assert titles == {
        "http://a.com/0": ("hi", SUCCESS),
        "http://a.com/1": (None, FAILED),
        "http://a.com/2": (None, None),
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{tmp}/nowhere", "--list"], "no segment at"),
        (["--list", "--dir", "{tmp}/nowhere"], "no segments in"),
        (["--list"], "give a SEGMENT or --dir"),
        (["{seg}/20231114221320"], "one of the arguments --list --dump is required"),
        (
            ["{seg}/20231114221320", "{seg}/20231115000000", "--dump", "{tmp}/d"],
            "--dump takes one segment",
        ),
        (["{seg}/20231114221320", "--dump", "{seg}"], "is not empty"),
        (["{seg}/20231114221320", "--list", "--dump", "{tmp}/d"], "not allowed with"),
    ],
)
def test_user_errors_are_one_line(segments, tmp_path, capsys, args, message):
    args = [a.format(seg=segments, tmp=tmp_path) for a in args]
    code, out, err = _readseg(capsys, *args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert message in err
    assert out == ""


def test_list_a_fetched_and_parsed_segment(tmp_path, sites, capsys):
    site = sites("127.0.0.2")
    seeds = tmp_path / "seeds.txt"
    paths = ["/page/a", "/page/b", "/status/404", "/redirect/302"]
    seeds.write_text("".join(site.url(p) + "\n" for p in paths))
    clock = [
        "-Dinjector.current.time=1700000000000",
        "-Dgenerate.curTime=1700000000000",
    ]
    crawldb, segments = tmp_path / "crawldb", tmp_path / "segments"
    assert main(["inject", str(crawldb), str(seeds), *clock]) == 0
    assert main(["generate", str(crawldb), str(segments), *clock]) == 0
    (name,) = os.listdir(segments)
    fetch = ["--parse", "-Dhttp.agent.name=testbot", "-Dfetcher.server.delay=0.05"]
    assert main(["fetch", str(segments / name), *fetch]) == 0
    code, out, _ = _readseg(capsys, "--list", "--dir", segments)
    assert code == 0
    row = out.splitlines()[1].split("\t")
    assert row[:3] == [name, "4", ""]
    assert row[5:] == ["4", "2"]  # four fetch attempts, two pages parsed
    assert row[3] <= row[4]
