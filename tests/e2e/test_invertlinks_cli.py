import os

import pytest

from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.cli import main
from tests.avrofiles import read_pages
from tests.e2e.crafted import write_pages

SUCCESS = {"majorCode": 1, "minorCode": 0, "args": []}


def _parsed(url, outlinks, fetch_time=100):
    return new_page(
        url,
        status=CrawlStatus.FETCHED,
        parseStatus=SUCCESS,
        outlinks=outlinks,
        fetchTime=fetch_time,
    )


@pytest.fixture
def segments(tmp_path):
    base = tmp_path / "segments"
    write_pages(
        base / "20240101000000" / "parse",
        [_parsed("http://a.com/", {"http://b.com/": "first", "http://a.com/x": "in"})],
    )
    write_pages(
        base / "20240102000000" / "parse",
        [
            _parsed("http://c.com/", {"http://b.com/": "second"}, 200),
            _parsed("http://a.com/", {"http://b.com/": "newer"}, 200),
        ],
    )
    write_pages(base / "20240103000000" / "generate", [new_page("http://d.com/")])
    write_pages(base / ".20240104000000.tmp-1234" / "parse", [_parsed("http://e/", {})])
    return base


def _invert(linkdb, capsys, *args):
    capsys.readouterr()
    code = main(["invertlinks", str(linkdb), *map(str, args)])
    return code, capsys.readouterr().err


def _linkdb(linkdb):
    return {r["url"]: r["inlinks"] for r in read_pages(linkdb / "current")}


def test_nutch_invertlinks_creates_then_updates_the_linkdb(tmp_path, segments, capsys):
    linkdb = tmp_path / "linkdb"
    code, err = _invert(linkdb, capsys, segments / "20240101000000")
    assert code == 0
    assert err.strip().splitlines()[-1] == (
        "LinkDb: inlinks_inverted=1, internal_links_ignored=1, urls_written=1"
    )
    assert _linkdb(linkdb) == {"http://b.com/": {"http://a.com/": "first"}}
    code, err = _invert(linkdb, capsys, segments / "20240102000000")
    assert code == 0
    assert _linkdb(linkdb) == {
        "http://b.com/": {"http://a.com/": "newer", "http://c.com/": "second"}
    }
    # no old/, no lock
    assert sorted(os.listdir(linkdb)) == ["current", "published", "versions"]


def test_nutch_dir_takes_every_parsed_segment(tmp_path, segments, capsys):
    linkdb = tmp_path / "linkdb"
    code, err = _invert(linkdb, capsys, "--dir", segments)
    assert code == 0
    assert "inlinks_inverted=3" in err
    assert _linkdb(linkdb) == {
        "http://b.com/": {"http://a.com/": "newer", "http://c.com/": "second"}
    }


def test_nutch_properties_and_flags(tmp_path, capsys):
    segment = tmp_path / "seg"
    write_pages(
        segment / "parse",
        [
            _parsed(
                "http://A.com/?id=1", {"http://a.com/y": "x" * 20, "http://b.com/": ""}
            )
        ],
    )
    linkdb = tmp_path / "linkdb"
    args = [
        "--noNormalize",
        "--noFilter",
        "-Dlinkdb.ignore.internal.links=false",
        "-Dlinkdb.ignore.external.links=true",
        "-Dlinkdb.max.anchor.length=4",
    ]
    assert _invert(linkdb, capsys, segment, *args)[0] == 0
    assert _linkdb(linkdb) == {"http://a.com/y": {"http://A.com/?id=1": "xxxx"}}
    assert _invert(tmp_path / "other", capsys, segment)[0] == 0
    assert _linkdb(tmp_path / "other") == {}  # the source is filtered


def test_both_ignores_leave_the_linkdb_alone(tmp_path, segments, capsys):
    linkdb = tmp_path / "linkdb"
    code, _ = _invert(
        linkdb,
        capsys,
        segments / "20240101000000",
        "-Dlinkdb.ignore.external.links=true",
    )
    assert code == 0
    assert not linkdb.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{seg}/20240103000000"], "20240103000000 is not parsed (no "),
        (["{tmp}/nowhere"], "nowhere is not parsed"),
        (["--dir", "{tmp}/empty"], "no parsed segments in"),
        ([], "give a SEGMENT or --dir SEGMENTS_DIR"),
        (["{seg}/20240101000000", "-Dlinkdb.max.anchor.length=-1"], "anchor.length"),
    ],
)
def test_user_errors_are_one_line(tmp_path, segments, capsys, args, message):
    args = [a.format(seg=segments, tmp=tmp_path) for a in args]
    code, err = _invert(tmp_path / "linkdb", capsys, *args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert message in err
    assert not (tmp_path / "linkdb" / "current").exists()


def test_locked_linkdb_is_refused_unless_forced(tmp_path, segments, capsys):
    linkdb = tmp_path / "linkdb"
    linkdb.mkdir()
    (linkdb / ".locked").write_text("another invertlinks")
    code, err = _invert(linkdb, capsys, segments / "20240101000000")
    assert code == 2
    assert "is locked" in err
    assert len(err.strip().splitlines()) == 1
    assert _invert(linkdb, capsys, segments / "20240101000000", "--force")[0] == 0
    assert _linkdb(linkdb) == {"http://b.com/": {"http://a.com/": "first"}}
    assert not (linkdb / ".locked").exists()
