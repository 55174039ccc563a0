"""Rejected seed lines are reported with file and line: the first five, then a count.

Through the real ``inject`` and ``crawl`` commands and the library's
``ReadSeedLines | Inject`` on real files (a directory, a gzipped file, the
same on an S3 store), and ``Inject`` on plain strings.
"""

import gzip
import logging

import apache_beam as beam
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import InjectConfig, load_properties
from pipelines.cli import main
from pipelines.inject import Inject, list_seed_files
from pipelines.runtime.options import counters
from pipelines.transforms.seedfiles import ReadSeedLines
from tests.avrofiles import read_pages
from tests.objectstores import run_beamcrawl, store_in_use

FLAGS = ["-Dhttp.agent.name=seedtest", "-Dinjector.current.time=1700000000000"]


def _seeds(tmp_path):
    """Two seed files: eight bad lines, one not UTF-8, three good URLs."""
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "a.txt").write_bytes(
        b"# comment\n"
        b"http://127.0.0.1:9/one\n"
        b"htp:/x\n"  # a.txt:3
        b"nourl\n"  # a.txt:4
        b"http://[bad/\r\n"  # a.txt:5
        b"http://\xff\xfe.com/\n"  # a.txt:6, not UTF-8
        b"http://127.0.0.1:9/two\tnutch.score=zero\n"  # a.txt:7, field ignored
    )
    (seeds / "b.txt.gz").write_bytes(
        gzip.compress(b"ftp//b1\nhttp://127.0.0.1:9/three\nb3 no scheme\nb4\nb5\n")
    )
    return seeds


def _warnings(err):
    return [line.split(": ", 1)[1] for line in err.splitlines() if " WARNING " in line]


def _rejected(warnings):
    """The reports of the reader (not UTF-8) and of Inject, each in its order."""
    rejected = [w for w in warnings if "rejected" in w]
    undecodable = [w for w in rejected if w.endswith("not UTF-8")]
    return undecodable + [w for w in rejected if w not in undecodable]


def _expected(seeds):
    a, b = seeds / "a.txt", seeds / "b.txt.gz"
    return [
        f"{a}:6: rejected 'http://\\\\xff\\\\xfe.com/': not UTF-8",
        f"{a}:3: rejected 'htp:/x': malformed URL (unknown protocol: htp)",
        f"{a}:4: rejected 'nourl': malformed URL (no protocol: nourl)",
        f"{a}:5: rejected 'http://[bad/': "
        "malformed URL (invalid authority field: [bad)",
        f"{b}:1: rejected 'ftp//b1': malformed URL (no protocol: ftp//b1)",
        f"{b}:3: rejected 'b3 no scheme': malformed URL (no protocol: b3 no scheme)",
        "... and 2 more rejected seed lines (counted as injector/urls_rejected)",
    ]


def test_beamcrawl_inject_reports_the_first_five_with_file_and_line(tmp_path, capsys):
    seeds = _seeds(tmp_path)
    crawldb = tmp_path / "crawldb"
    capsys.readouterr()

    code = main(["inject", str(crawldb), str(seeds), *FLAGS])

    assert code == 0
    err = capsys.readouterr().err
    warnings = _warnings(err)
    assert _rejected(warnings) == _expected(seeds)
    assert [w for w in warnings if "field ignored" in w] == [
        f"{seeds / 'a.txt'}:7: seed field ignored, not a valid number: "
        "'nutch.score=zero' (further ones only counted as injector/fields_invalid)"
    ]
    assert "urls_rejected=8" in err.splitlines()[-1]
    assert [page["url"] for page in read_pages(crawldb / "current")] == [
        "http://127.0.0.1:9/one",
        "http://127.0.0.1:9/three",
        "http://127.0.0.1:9/two",
    ]


def test_beamcrawl_crawl_reports_them_the_same(tmp_path, capsys):
    seeds = _seeds(tmp_path)
    capsys.readouterr()

    code = main(["crawl", "--seeds", str(seeds), str(tmp_path / "crawl"), "1",
                 *FLAGS, "-Dfetcher.server.delay=0"])  # fmt: skip

    assert code == 0
    warnings = _warnings(capsys.readouterr().err)
    assert _rejected(warnings) == _expected(seeds)


def test_the_library_reads_places_and_inject_reports_plain_strings(
    pipeline, tmp_path, caplog
):
    seeds = _seeds(tmp_path)
    config = InjectConfig.from_properties(load_properties())
    with caplog.at_level(logging.WARNING), pipeline as p:
        lines = p | ReadSeedLines(list_seed_files(str(seeds)))
        texts = lines | "Where" >> beam.Map(lambda line: (line.where(), line.text))
        assert_that(
            texts | beam.Filter(lambda item: item[1].startswith("http://127")),
            equal_to([(f"{seeds / 'a.txt'}:2", "http://127.0.0.1:9/one"),
                      (f"{seeds / 'a.txt'}:7",
                       "http://127.0.0.1:9/two\tnutch.score=zero"),
                      (f"{seeds / 'b.txt.gz'}:2", "http://127.0.0.1:9/three")]),
            label="Places",
        )  # fmt: skip
        plain = p | "Plain" >> beam.Create(["a1", "a2", "http://ok.com/", "a3"])
        urls = plain | "InjectPlain" >> Inject(config, 1) | beam.Map(lambda x: x["url"])
        assert_that(urls, equal_to(["http://ok.com/"]), label="Urls")

    assert counters(p.result, "injector")["urls_rejected"] == 4
    messages = [r.getMessage() for r in caplog.records if "rejected" in r.getMessage()]
    assert sorted(messages) == sorted([
        f"{seeds / 'a.txt'}:6: rejected 'http://\\\\xff\\\\xfe.com/': not UTF-8",
        "rejected 'a1': malformed URL (no protocol: a1)",
        "rejected 'a2': malformed URL (no protocol: a2)",
        "rejected 'a3': malformed URL (no protocol: a3)",
    ])  # fmt: skip


def test_beamcrawl_seed_files_on_an_object_store(request, monkeypatch, tmp_path):
    store = store_in_use(request, monkeypatch, "s3")
    local = _seeds(tmp_path)
    for name in ("a.txt", "b.txt.gz"):
        target = store.url("seeds", name)
        as_is = CompressionTypes.UNCOMPRESSED  # b.txt.gz is gzipped already
        with FileSystems.create(target, compression_type=as_is) as out:
            out.write((local / name).read_bytes())
    crawldb = store.url("crawldb")

    done = run_beamcrawl(store, "inject", crawldb, store.url("seeds"), *FLAGS)

    warnings = _warnings(done.stderr)
    assert _rejected(warnings) == [
        line.replace(str(local), store.url("seeds")) for line in _expected(local)
    ]
    assert "urls_injected_unique=3," in done.stderr.splitlines()[-1]
