"""The same job on the DirectRunner and the PortableRunner gives the same crawldb."""

import os

from pipelines.cli import main
from tests.avrofiles import read_pages

SEEDS = """\
http://a.example.com/\tnutch.score=2\tlang=en
http://a.example.com/x/../y.html
http://b.example.org/
HTTP://B.EXAMPLE.ORG:80/#frag
http://c.example.net/logo.png
not a url
http://d.example.com/\tnutch.fetchInterval=60
"""


def _inject(crawldb, seeds, *flags):
    args = ["inject", crawldb, seeds, "-D", "injector.current.time=1700000000000"]
    assert main([*args, *flags]) == 0


def test_inject_on_portable_runner_matches_direct_runner(tmp_path, portable_flags):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(SEEDS)
    more = tmp_path / "more.txt"
    more.write_text("http://a.example.com/\tnutch.score=5\nhttp://e.example.com/\n")
    direct, portable = str(tmp_path / "direct"), str(tmp_path / "portable")
    for crawldb, flags in [(direct, []), (portable, portable_flags)]:
        _inject(crawldb, str(seeds), *flags)
        _inject(crawldb, str(more), "--update", *flags)

    records = read_pages(os.path.join(portable, "current"))
    assert [r["url"] for r in records] == [
        "http://a.example.com/",
        "http://a.example.com/y.html",
        "http://b.example.org/",
        "http://d.example.com/",
        "http://e.example.com/",
    ]
    assert records[0]["score"] == 5.0
    assert records[0]["metadata"]["lang"] == b"en"
    assert records == read_pages(os.path.join(direct, "current"))


def test_generate_on_portable_runner_matches_direct_runner(tmp_path, portable_flags):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(
        "".join(
            f"http://h{i % 5}.example.com/p{i}\tnutch.score={i}\n" for i in range(40)
        )
    )
    args = ["--topN", "6", "--maxNumSegments", "2", "--numFetchers", "3",
            "-Dgenerate.max.count=2", "-Dgenerate.update.crawldb=true",
            "-Dgenerate.curTime=1700000000000"]  # fmt: skip
    results = []
    for name, flags in [("direct", []), ("portable", portable_flags)]:
        crawldb, segments = str(tmp_path / name / "db"), str(tmp_path / name / "segs")
        _inject(crawldb, str(seeds), *flags)
        assert main(["generate", crawldb, segments, *args, *flags]) == 0
        results.append(
            (
                [
                    r
                    for n in sorted(os.listdir(segments))
                    for r in read_pages(os.path.join(segments, n, "generate"))
                ],
                read_pages(os.path.join(crawldb, "current")),
            )
        )

    (direct_segments, direct_db), (portable_segments, portable_db) = results
    assert len(portable_segments) == 12
    assert portable_segments == direct_segments
    assert portable_db == direct_db
