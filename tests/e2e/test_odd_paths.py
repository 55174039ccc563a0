"""Directories named ``crawl [1]*?é`` work for every command, on every store.

Beam reads paths as glob patterns (``pipelines.storage.paths``): ``crawl[1]`` used to
be a pattern matching ``crawl1``, so a job found no lock objects and its
sink found no files. Here the same crawl runs in a plain directory and in
an odd one, relative to the working directory (the first name quoted), and
on S3 and GCS under an odd prefix; each writes the same records.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import fastavro
import pytest
from apache_beam.io.filesystems import FileSystems

from pipelines.cli import main
from pipelines.demo import DEMO_PROPERTIES
from pipelines.storage import fs, locks, partfiles, paths, versions
from tests.avrofiles import read_pages
from tests.crawlrecords import crawl_records
from tests.objectstores import run_beamcrawl, store_in_use

ODD = "crawl [1]*?é"
FLAGS = [f"-D{p}" for p in DEMO_PROPERTIES] + ["-Dfetcher.server.delay=0.05"]
DECOYS = ["crawl 1xé", "crawl ]1]*?é", "crawl [1]abé", "crawl [1]*?e"]
"""Names the unquoted pattern of ``ODD`` matches (or nearly): never listed."""


@pytest.fixture(params=["local", "s3", "gs"])
def root(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> str:
    """A directory on local disk, or a fresh bucket on S3 or GCS."""
    if request.param == "local":
        return str(tmp_path)
    return store_in_use(request, monkeypatch, request.param).root


def _write(path: str, data: bytes = b"x") -> None:
    if paths.is_local(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with FileSystems.create(path) as f:
        f.write(data)


def test_a_quoted_directory_matches_itself_and_nothing_else(root):
    for name in [ODD, *DECOYS]:
        _write(FileSystems.join(root, name, "part-00000-of-00001.avro"))
        _write(FileSystems.join(root, name, "sub", "deeper.txt"))
    odd = FileSystems.join(root, ODD)
    found = [meta.path for meta in paths.match(partfiles.parts_pattern(odd))]
    assert found == [FileSystems.join(odd, "part-00000-of-00001.avro")]
    everything = sorted(meta.path for meta in paths.match(paths.under(odd, "**")))
    assert everything == [
        FileSystems.join(odd, "part-00000-of-00001.avro"),
        FileSystems.join(odd, "sub", "deeper.txt"),
    ]
    assert partfiles.has_parts(odd)
    assert fs.dir_exists(odd)
    paths.delete([FileSystems.join(odd, "sub", "deeper.txt")])
    assert not paths.match(paths.under(FileSystems.join(odd, "sub"), "*"))
    fs.remove_dir(odd)
    assert not fs.dir_exists(odd)
    for name in DECOYS:  # untouched
        assert partfiles.has_parts(FileSystems.join(root, name))
        assert paths.match(
            paths.escape(FileSystems.join(root, name, "sub", "deeper.txt"))
        )


def test_a_second_job_is_refused_the_lock_of_an_odd_crawldb(tmp_path, capsys):
    # the quoted listing sees the first job's lock object: before, the
    # pattern matched nothing and the lock granted itself to every job
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://example.com/\n")
    crawldb = str(tmp_path / "crawl[1]" / "crawldb")
    assert main(["inject", crawldb, str(seeds)]) == 0
    capsys.readouterr()
    with locks.hold(crawldb):
        assert main(["inject", crawldb, str(seeds)]) == 2
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"beamcrawl: {crawldb} is locked by another job (")
    assert locks.holders(crawldb) == []
    assert main(["inject", crawldb, str(seeds)]) == 0


def _crawl(crawl_dir: str, seeds: Path, *extra: str) -> None:
    argv = ["crawl", "--seeds", str(seeds), crawl_dir, "2", *FLAGS, *extra]
    assert main(argv) == 0


def test_a_whole_crawl_in_an_odd_directory(tmp_path, demo_site, monkeypatch, capsys):
    seeds = tmp_path / f"seeds {ODD}"  # a seeds directory, itself odd
    seeds.mkdir()
    (seeds / "urls [1].txt").write_text(demo_site.url("main") + "/\n")
    _crawl(str(tmp_path / "plain"), seeds)
    monkeypatch.chdir(tmp_path)  # relative: the first name of the path is quoted
    _crawl(ODD, Path(seeds.name), "--separateJobs")
    _crawl(f"{ODD}-round", Path(seeds.name))
    expected = crawl_records(tmp_path / "plain")
    assert crawl_records(tmp_path / ODD) == expected
    assert crawl_records(tmp_path / f"{ODD}-round") == expected
    assert sorted(os.listdir(tmp_path / ODD / "crawldb")) == [
        "current", "old", "published", "versions",
    ]  # fmt: skip

    crawldb, segments = f"{ODD}/crawldb", f"{ODD}/segments"
    segment = f"{segments}/{sorted(os.listdir(tmp_path / segments))[-1]}"
    capsys.readouterr()
    assert main(["readdb", crawldb, "--stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    for argv in (
        ["readdb", crawldb, "--url", demo_site.url("main") + "/"],
        ["readdb", crawldb, "--dump", f"{ODD}/dump [db]"],
        ["readdb", crawldb, "--verify"],
        ["readdb", crawldb, "--salvage", f"{ODD}/salvaged?"],
        ["readseg", segment, "--list"],
        ["readseg", "--dir", segments, "--list"],
        ["readseg", segment, "--dump", f"{ODD}/dump [seg]"],
        ["warc", f"{ODD}/warc*", "--dir", segments],
        ["index", f"{ODD}/index", crawldb, "--dir", segments],
        ["index", f"{ODD}/solr", crawldb, segment, "--format", "solr"],
        ["search", f"{ODD}/index", "lighthouse"],
        ["dedup", crawldb],
        ["updatedb", crawldb, segment],
        ["generate", crawldb, segments],
    ):
        assert main(argv) == 0, (argv, capsys.readouterr().err[-2000:])
    assert stats["total"] == len(expected["crawldb"])
    dumped = (tmp_path / ODD / "dump [db]").glob("part-*.jsonl")
    assert sum(len(p.read_text().splitlines()) for p in dumped) == stats["total"]
    assert len(read_pages(tmp_path / ODD / "salvaged?" / "current")) == stats["total"]
    assert list((tmp_path / ODD / "dump [seg]" / "fetch").glob("part-*.jsonl"))
    assert list((tmp_path / ODD / "warc*").glob("*.warc.gz"))
    assert list((tmp_path / ODD / "solr").glob("part-*.json"))
    leftovers = [
        path
        for path in (tmp_path / ODD).rglob("*")
        if (path.name.startswith(("beam-temp", ".")) or ".tmp" in path.name)
        and (tmp_path / ODD / "index") not in path.parents  # tantivy's own files
    ]
    assert leftovers == []


@pytest.mark.slow
@pytest.mark.parametrize("scheme", ["s3", "gs"])
def test_the_crawl_jobs_on_a_store_under_an_odd_prefix(
    scheme, request, demo_site, tmp_path, monkeypatch
):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(demo_site.url("main") + "/\n")
    local = tmp_path / "local"
    assert main(["crawl", "--seeds", str(seeds), str(local), "2", *FLAGS]) == 0
    store = store_in_use(request, monkeypatch, scheme)  # after main()'s local options
    # gcp-storage-emulator writes an object's name unquoted into its
    # mediaLink, so a "?" in it starts the download URL's query: no "?" on GCS
    crawl_dir = store.url(ODD if scheme == "s3" else ODD.replace("?", ""))
    # each job on its own: inject, generate, fetch, parse, updatedb, invertlinks,
    # dedup, every one reading and writing the store under the odd prefix
    argv = ["crawl", "--seeds", str(seeds), crawl_dir, "2", "--separateJobs", *FLAGS]
    run_beamcrawl(store, *argv)
    crawldb = FileSystems.join(crawl_dir, "crawldb")
    current = versions.current_version(crawldb)
    assert current is not None
    records: list[Any] = []
    for path, _ in partfiles.part_paths(partfiles.parts_pattern(current)):
        with fs.open_raw(path) as stream:
            records.extend(fastavro.reader(stream))
    assert sorted(r["url"] for r in records) == sorted(
        r["url"] for r in read_pages(local / "crawldb" / "current")
    )
    stats = json.loads(
        run_beamcrawl(store, "readdb", crawldb, "--stats", "--json").stdout
    )
    assert stats["total"] == len(records)
    listed = run_beamcrawl(store, "readseg", "--dir", f"{crawl_dir}/segments", "--list")
    assert len(listed.stdout.splitlines()) == 3  # the header and two segments
    assert locks.holders(crawldb) == []
    with locks.hold(crawldb):
        refused = run_beamcrawl(store, "dedup", crawldb, check=False)
    assert refused.returncode == 2
    assert "is locked by another job" in refused.stderr
    temporary = [
        meta.path
        for meta in paths.match(paths.under(crawl_dir, "**"))
        if "beam-temp" in meta.path or ".tmp" in meta.path or "/.lock/" in meta.path
    ]
    assert temporary == []
