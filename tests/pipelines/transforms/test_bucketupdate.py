"""BucketedUpdate gives the records UpdateDb gives, round after round."""

from __future__ import annotations

import os
import random
import struct
from pathlib import Path

import apache_beam as beam

from crawllib.config import UpdateConfig, load_properties
from crawllib.db.buckets import Bucketing
from crawllib.webpage import ParseStatusRecord, WebPage, new_page
from pipelines.storage import bucketfiles, io
from pipelines.transforms.bucketupdate import BucketedUpdate
from pipelines.updatedb import UpdateDb
from tests.avrofiles import read_pages

NOW = 1_700_000_000_000
CONFIG = UpdateConfig.from_properties(load_properties())
PARSED: ParseStatusRecord = {"majorCode": 1, "minorCode": 0, "args": []}


def _crawldb(rng: random.Random, count: int) -> list[WebPage]:
    pages = []
    for n in range(count):
        status = rng.choice([1, 1, 2, 3, 4, 5])
        pages.append(
            new_page(
                f"http://h{n % 13}.org/p{n}",
                status=status,
                score=rng.random(),
                fetchTime=NOW - rng.randrange(10**9),
                metadata={"_csh_": struct.pack(">f", rng.random())},
            )
        )
    return pages


def _segment(
    rng: random.Random, urls: list[str], fetched: int, stamp: int
) -> list[WebPage]:
    records: list[WebPage] = []
    for url in rng.sample(urls, fetched):
        marks = {"_gnmrk_": "s", "_ftcmrk_": "s"}
        fetch = new_page(
            url,
            status=rng.choice([2, 2, 2, 3]),
            fetchTime=NOW + stamp,
            prevFetchTime=NOW - 10,
            score=1.0,
            metadata={"_csh_": struct.pack(">f", rng.random())},
            markers=marks,
            content=b"x" * 20,
        )
        records.append(fetch)
        if fetch["status"] == 2:
            outlinks: dict[str, str | None] = {
                (
                    rng.choice(urls)
                    if rng.random() < 0.7
                    else f"http://new{k}.org/{stamp}"
                ): f"a{k}"
                for k in range(rng.randrange(8))
            }
            records.append(
                {
                    **fetch,
                    "content": None,
                    "parseStatus": PARSED,
                    "signature": url.encode(),
                    "markers": {**marks, "__prsmrk__": "s"},
                    "outlinks": outlinks,
                }
            )
    return records


def _plain(old: list[WebPage], records: list[WebPage], out: str) -> list[WebPage]:
    with beam.Pipeline() as p:
        current = p | "Old" >> beam.Create(old)
        segment = p | "Records" >> beam.Create(records)
        _ = (current, segment) | UpdateDb(CONFIG, NOW) | io.WriteWebPages(out)
    return read_pages(out)


def _bucketed(
    old_dir: str, records: list[WebPage], out: str, tmp: str, count: int = 8
) -> list[WebPage]:
    layout = Bucketing(count)
    with beam.Pipeline() as p:
        _ = (
            p
            | beam.Create(records)
            | BucketedUpdate(
                CONFIG, NOW, old_dir, out, layout, os.path.join(tmp, "runs")
            )
        )
    bucketfiles.write_layout(out, layout)
    pages = read_pages(out)
    for bucket in range(count):  # each file holds its bucket, sorted
        path = bucketfiles.bucket_path(out, bucket, count)
        urls = [page["url"] for page in bucketfiles.read_pages(path)]
        assert urls == sorted(urls)
        assert {layout.bucket_of(url) for url in urls} <= {bucket}
    return pages


def test_two_rounds_give_updatedbs_records(tmp_path: Path) -> None:
    rng = random.Random(4)
    crawldb = _crawldb(rng, 300)
    urls = [page["url"] for page in crawldb]
    round1 = _segment(rng, urls, 60, 1) + _segment(rng, urls, 20, 2)  # two segments
    legacy = str(tmp_path / "legacy")
    with beam.Pipeline() as p:
        _ = p | beam.Create(crawldb) | io.WriteWebPages(legacy)

    plain1 = _plain(crawldb, round1, str(tmp_path / "plain1"))
    bucketed1 = _bucketed(legacy, round1, str(tmp_path / "b1"), str(tmp_path / "t1"))
    assert len(bucketed1) > len(crawldb)  # links added URLs
    assert bucketed1 == plain1

    round2 = _segment(rng, [page["url"] for page in plain1], 80, 3)
    plain2 = _plain(plain1, round2, str(tmp_path / "plain2"))
    bucketed2 = _bucketed(
        str(tmp_path / "b1"), round2, str(tmp_path / "b2"), str(tmp_path / "t2")
    )
    assert bucketed2 == plain2

    # the bucket count changes: the old buckets are read by the new ones'
    # (two merged into one, then one split in four), never sorted again
    plain = plain2
    for n, count in enumerate([4, 16], start=3):
        records = _segment(rng, [page["url"] for page in plain], 80, n)
        plain = _plain(plain, records, str(tmp_path / f"plain{n}"))
        bucketed = _bucketed(
            str(tmp_path / f"b{n - 1}"), records, str(tmp_path / f"b{n}"),
            str(tmp_path / f"t{n}"), count,
        )  # fmt: skip
        assert bucketed == plain
