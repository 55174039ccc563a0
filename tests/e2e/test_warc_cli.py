"""``beamcrawl warc`` on real crawls: the demo site and Python's docs."""

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from apache_beam.io.filesystems import FileSystems
from cdxj_indexer import CDXJIndexer  # type: ignore[import-untyped]
from warcio.archiveiterator import ArchiveIterator  # type: ignore[import-untyped]

from crawllib.fetch.records import IP_ADDRESS, REQUEST, RESPONSE_HEADERS
from pipelines.cli import main
from pipelines.demo import DEMO_PROPERTIES, SITE_DIR, DemoSite
from pipelines.storage import fs
from tests.avrofiles import read_pages

FLAGS = [f"-D{p}" for p in DEMO_PROPERTIES] + ["-Dfetcher.server.delay=0.05"]
WIRE = {IP_ADDRESS, REQUEST, RESPONSE_HEADERS}

EXPECTED_RESPONSES = {
    "main/": "200 OK",
    "main/about.html": "200 OK",
    "main/contact.html": "200 OK",
    "main/docs/": "200 OK",
    "main/docs/history.html": "200 OK",
    "main/docs/history-copy.html": "200 OK",
    "main/docs/keepers.html": "200 OK",  # GBK
    "main/missing.html": "404 Not Found",
    "main/old-news.html": "301 Moved Permanently",
    "blog/": "200 OK",
    "blog/posts/spring.html": "200 OK",
    "blog/posts/storm.html": "200 OK",
}


class Export:
    """A demo crawl and its WARC export (one per module)."""

    def __init__(self, root: Path) -> None:
        self.site = DemoSite().start()
        try:
            seeds = root / "seeds.txt"
            seeds.write_text(self.site.url("main") + "/\n")
            self.crawl = root / "crawl"
            args = ["crawl", "--seeds", str(seeds), str(self.crawl), "3", *FLAGS]
            assert main(args) == 0
            self.names = {self.site.url("main"): "main", self.site.url("blog"): "blog"}
        finally:
            self.site.stop()
        self.out = root / "warc"
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr):
            segments = str(self.crawl / "segments")
            assert main(["warc", str(self.out), "--dir", segments]) == 0
        self.summary = stderr.getvalue().strip().splitlines()[-1]
        self.files = sorted(self.out.iterdir())

    def name(self, url: str) -> str:
        for base, name in self.names.items():
            if url.startswith(base + "/"):
                return name + url[len(base) :]
        raise AssertionError(url)


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    return Export(tmp_path_factory.mktemp("warc"))


def _records(path):
    with open(path, "rb") as stream:
        yield from _records_of(stream)


def test_demo_crawl_gives_a_request_and_a_response_per_fetch(export):
    assert len(export.files) == 1
    records = list(_records(export.files[0]))
    assert records[0][0].rec_type == "warcinfo"
    responses: dict[str, Any] = {}
    requests: dict[str, Any] = {}
    for record, _ in records[1:]:
        name = export.name(record.rec_headers.get_header("WARC-Target-URI"))
        kind = {"response": responses, "request": requests}[record.rec_type]
        assert name not in kind
        kind[name] = record
    assert {n: r.http_headers.statusline for n, r in responses.items()} == (
        EXPECTED_RESPONSES
    )
    assert set(requests) == set(EXPECTED_RESPONSES)  # none for robots-denied
    for name, response in responses.items():
        host = "127.0.0.1" if name.startswith("main/") else "127.0.0.2"
        assert response.rec_headers.get_header("WARC-IP-Address") == host
        request = requests[name]
        assert request.rec_headers.get_header("WARC-IP-Address") == host
        assert request.rec_headers.get_header("WARC-Concurrent-To") == (
            response.rec_headers.get_header("WARC-Record-ID")
        )
        assert request.http_headers.get_header("User-Agent") == (
            "beamcrawl-demo/Nutch-1.23-SNAPSHOT"
        )
    moved = responses["main/old-news.html"].http_headers
    assert moved.get_header("Location") == "/about.html"


def test_payloads_are_the_segments_content(export):
    stored = {}
    for segment in sorted((export.crawl / "segments").iterdir()):
        for page in read_pages(segment / "fetch"):
            if page["protocolStatus"]["code"] != 18:  # ROBOTS_DENIED
                stored[export.name(page["url"])] = page
    payloads = {
        export.name(record.rec_headers.get_header("WARC-Target-URI")): payload
        for record, payload in _records(export.files[0])
        if record.rec_type == "response"
    }
    assert set(payloads) == set(stored)
    for name, payload in payloads.items():
        assert payload == (stored[name]["content"] or b""), name
    gbk = (SITE_DIR / "main" / "docs" / "keepers.html").read_bytes()
    assert payloads["main/docs/keepers.html"] == gbk  # as served, not re-encoded
    with pytest.raises(UnicodeDecodeError):
        gbk.decode("utf-8")


def test_summary_line(export):
    size = export.files[0].stat().st_size
    assert export.summary == (
        f"WARC: 1 files, 25 records, {size} bytes in {export.out} "
        "(files=1, request=12, response=12, skipped_no_response=1, warcinfo=1)"
    )


def test_warcio_check_and_cdxj_indexer_accept_the_files(export):
    warcio = Path(sys.executable).with_name("warcio")
    checked = subprocess.run(
        [str(warcio), "check", "-v", *map(str, export.files)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("digest pass") == 25
    assert "fail" not in checked.stdout
    lines = _cdxj(export.files)
    assert len(lines) == 12  # one per response
    statuses = sorted(json.loads(line.split(" ", 2)[2])["status"] for line in lines)
    assert statuses == ["200"] * 10 + ["301", "404"]


def _cdxj(paths):
    out = io.StringIO()
    CDXJIndexer(output=out, inputs=[str(p) for p in paths]).process_all()
    return out.getvalue().splitlines()


def test_beamcrawl_wire_metadata_stays_out_of_the_crawldb(export):
    crawldb = read_pages(export.crawl / "crawldb" / "current")
    assert len(crawldb) == 14
    assert [p["url"] for p in crawldb if WIRE & set(p["metadata"])] == []
    fetched = [
        page
        for segment in (export.crawl / "segments").iterdir()
        for page in read_pages(segment / "fetch")
    ]
    with_wire = [p for p in fetched if set(p["metadata"]) >= WIRE]
    assert len(with_wire) == 12


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nowhere/segment"], "segment nowhere/segment is not fetched"),
        (["--dir", "EMPTY"], "no fetched segments in"),
        ([], "give a SEGMENT or --dir SEGMENTS_DIR"),
        (["SEG", "--maxSize", "0"], "warc.export.max.size"),
    ],
)
def test_user_errors_are_one_line(tmp_path, capsys, args, message, export):
    empty = tmp_path / "empty"
    empty.mkdir()
    segment = str(sorted((export.crawl / "segments").iterdir())[0])
    args = [{"EMPTY": str(empty), "SEG": segment}.get(a, a) for a in args]
    assert main(["warc", str(tmp_path / "out"), *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert message in err[0]
    assert not (tmp_path / "out").exists()


def test_python_docs_crawl_exports_cleanly(pydocs_crawl, tmp_path, capsys):
    out = tmp_path / "warc"
    segments = str(pydocs_crawl.crawl_dir / "segments")
    assert main(["warc", str(out), "--dir", segments, "--maxSize", "4000000"]) == 0
    summary = capsys.readouterr().err.strip().splitlines()[-1]
    files = sorted(out.iterdir())
    assert len(files) > 1
    counts: dict[str, int] = {}
    for path in files:
        records = list(_records(path))
        assert records[0][0].rec_type == "warcinfo"
        for record, _ in records:
            counts[record.rec_type] = counts.get(record.rec_type, 0) + 1
    fetched = [
        page
        for segment in pydocs_crawl.segments
        for page in read_pages(segment / "fetch")
    ]
    assert counts["warcinfo"] == len(files)
    assert counts["request"] == counts["response"] == len(fetched)
    assert len(_cdxj(files)) == len(fetched)
    size = sum(p.stat().st_size for p in files)
    assert summary.startswith(
        f"WARC: {len(files)} files, {sum(counts.values())} records, {size} bytes"
    )


def _contents(records):
    return [
        (record.rec_type, record.rec_headers.get_header("WARC-Target-URI"), payload)
        for record, payload in records
        if record.rec_type != "warcinfo"
    ]


@pytest.mark.parametrize("store_name", ["s3_store", "gcs_store"])
def test_an_export_to_an_object_store_has_the_local_records(
    export, store_name, request, monkeypatch
):
    store = request.getfixturevalue(store_name)
    for key, value in store.env.items():
        monkeypatch.setenv(key, value)
    store.use()
    out = store.url("warc")
    segments = str(export.crawl / "segments")
    assert main(["warc", out, "--dir", segments, *store.flags]) == 0

    listed = FileSystems.match([f"{out}/**"])[0].metadata_list
    paths = sorted(meta.path for meta in listed)
    assert [p.rsplit("/", 1)[1].endswith(".warc.gz") for p in paths] == [True]
    with fs.open_raw(paths[0]) as stream:
        remote = list(_records_of(stream))
    assert remote[0][0].rec_type == "warcinfo"
    local = [r for path in export.files for r in _records(path)]
    assert _contents(remote) == _contents(local)


def _records_of(stream):
    for record in ArchiveIterator(stream, check_digests="raise"):
        yield record, record.content_stream().read()
