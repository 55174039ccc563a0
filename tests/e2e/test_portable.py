"""The same job on the DirectRunner and the PortableRunner gives the same crawldb."""

import os
from typing import Any

import fastavro

from pipelines.cli import main

SEEDS = """\
http://a.example.com/\tnutch.score=2\tlang=en
http://a.example.com/x/../y.html
http://b.example.org/
HTTP://B.EXAMPLE.ORG:80/#frag
http://c.example.net/logo.png
not a url
http://d.example.com/\tnutch.fetchInterval=60
"""


def _records(crawldb):
    current = os.path.join(crawldb, "current")
    records: list[Any] = []
    for name in sorted(os.listdir(current)):
        with open(os.path.join(current, name), "rb") as handle:
            records.extend(fastavro.reader(handle))
    return sorted(records, key=lambda record: record["url"])


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

    records = _records(portable)
    assert [r["url"] for r in records] == [
        "http://a.example.com/",
        "http://a.example.com/y.html",
        "http://b.example.org/",
        "http://d.example.com/",
        "http://e.example.com/",
    ]
    assert records[0]["score"] == 5.0
    assert records[0]["metadata"] == {"lang": b"en"}
    assert records == _records(direct)
