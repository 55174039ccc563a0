"""BucketedInvertLinks gives the records and counters InvertLinks gives."""

from __future__ import annotations

import os
import random
from pathlib import Path

import apache_beam as beam

from crawllib.config import LinkDbConfig, UrlConfig, load_properties
from crawllib.db.buckets import Bucketing
from crawllib.status import CrawlStatus
from crawllib.webpage import ParseStatusRecord, WebPage, new_page
from pipelines.invertlinks import InvertLinks
from pipelines.runtime.options import counters
from pipelines.storage import bucketfiles, io
from pipelines.transforms.bucketlinks import BucketedInvertLinks
from tests.avrofiles import read_pages

CONFIG = LinkDbConfig(urls=UrlConfig.from_properties(load_properties()), max_inlinks=6)
SUCCESS: ParseStatusRecord = {"majorCode": 1, "minorCode": 0, "args": []}
LAYOUT = Bucketing(8)


def _parsed(rng: random.Random, count: int, stamp: int) -> list[WebPage]:
    pages = []
    for n in range(count):
        outlinks: dict[str, str | None] = {
            f"http://t{rng.randrange(40)}.org/p{rng.randrange(5)}": f"a{stamp}-{k}"
            for k in range(rng.randrange(6))
        }
        outlinks[f"http://s{n}.com/inside"] = "internal: ignored"
        pages.append(
            new_page(
                f"http://s{n}.com/",
                status=CrawlStatus.FETCHED,
                parseStatus=SUCCESS,
                fetchTime=stamp,
                outlinks=outlinks,
            )
        )
    return pages


def _plain(
    parsed: list[WebPage], current: list[WebPage], out: str
) -> tuple[list[WebPage], dict[str, int]]:
    with beam.Pipeline() as p:
        pages = p | "Parsed" >> beam.Create(parsed)
        inputs = (pages, p | "Current" >> beam.Create(current)) if current else pages
        _ = inputs | InvertLinks(CONFIG) | io.WriteWebPages(out)
    return read_pages(out), counters(p.result, "LinkDb")


def _bucketed(
    parsed: list[WebPage], current_dir: str | None, out: str, tmp: str
) -> tuple[list[WebPage], dict[str, int]]:
    half = len(parsed) // 2
    with beam.Pipeline() as p:
        segments = (
            p | "Segment0" >> beam.Create(parsed[:half]),
            p | "Segment1" >> beam.Create(parsed[half:]),
        )
        _ = segments | BucketedInvertLinks(
            CONFIG, current_dir, out, LAYOUT, os.path.join(tmp, "runs")
        )
    bucketfiles.write_layout(out, LAYOUT)
    for bucket in range(LAYOUT.count):  # each file holds its bucket, sorted
        path = bucketfiles.bucket_path(out, bucket, LAYOUT.count)
        urls = [page["url"] for page in bucketfiles.read_pages(path)]
        assert urls == sorted(urls)
        assert {LAYOUT.bucket_of(url) for url in urls} <= {bucket}
    return read_pages(out), counters(p.result, "LinkDb")


def _write_bucketed(directory: str, pages: list[WebPage]) -> None:
    for bucket in range(LAYOUT.count):
        mine = sorted(
            (page for page in pages if LAYOUT.bucket_of(page["url"]) == bucket),
            key=lambda page: page["url"],
        )
        bucketfiles.write_bucket(directory, bucket, LAYOUT, iter(mine))
    bucketfiles.write_layout(directory, LAYOUT)


def test_rounds_merged_bucket_by_bucket_give_invertlinks_records(
    tmp_path: Path,
) -> None:
    rng = random.Random(7)
    round1 = _parsed(rng, 60, 1)
    plain1, plain_counts1 = _plain(round1, [], str(tmp_path / "plain1"))
    bucketed1, counts1 = _bucketed(round1, None, str(tmp_path / "b1"), str(tmp_path))
    assert len(bucketed1) > 20
    assert (bucketed1, counts1) == (plain1, plain_counts1)

    # round 2 merges the bucketed linkdb; one record there has a target the
    # normalizers now rename (to a URL in another bucket) and one a source
    # the filters now reject
    renamed = new_page("HTTP://T0.ORG:80/p0", inlinks={"http://old.com/": "old"})
    filtered = new_page("http://t4.org/p2", inlinks={"http://x.com/?q=1": "gone"})
    current = sorted([*bucketed1, renamed, filtered], key=lambda page: page["url"])
    assert LAYOUT.bucket_of(renamed["url"]) != LAYOUT.bucket_of("http://t0.org/p0")
    _write_bucketed(str(tmp_path / "current"), current)
    round2 = _parsed(rng, 50, 2)
    plain2, plain_counts2 = _plain(round2, current, str(tmp_path / "plain2"))
    bucketed2, counts2 = _bucketed(
        round2, str(tmp_path / "current"), str(tmp_path / "b2"), str(tmp_path)
    )
    assert "HTTP://T0.ORG:80/p0" not in {page["url"] for page in plain2}
    assert any("http://old.com/" in page["inlinks"] for page in plain2)
    assert plain_counts2["existing_inlinks_rejected"] >= 1
    assert (bucketed2, counts2) == (plain2, plain_counts2)


def test_an_unbucketed_linkdb_is_converted(tmp_path: Path) -> None:
    rng = random.Random(8)
    legacy_pages, _ = _plain(_parsed(rng, 40, 1), [], str(tmp_path / "legacy"))
    round2 = _parsed(rng, 30, 2)
    plain, plain_counts = _plain(round2, legacy_pages, str(tmp_path / "plain"))
    bucketed, counts = _bucketed(
        round2, str(tmp_path / "legacy"), str(tmp_path / "b"), str(tmp_path)
    )
    assert (bucketed, counts) == (plain, plain_counts)
