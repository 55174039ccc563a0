"""inject's bucketed merge (MergeIntoBuckets) merges what MergeIntoCrawlDb does."""

from __future__ import annotations

import dataclasses
import random
import struct
from pathlib import Path
from typing import Any

import apache_beam as beam
import pytest

from crawllib.config import InjectConfig, load_properties
from crawllib.db.buckets import Bucketing
from crawllib.status import CrawlStatus
from crawllib.webpage import WebPage, new_page
from pipelines.inject import MergeIntoCrawlDb, merge_into_buckets
from pipelines.runtime.options import counters
from pipelines.storage import bucketfiles, io
from tests.avrofiles import read_pages

LAYOUT = Bucketing(4)
CONFIG = InjectConfig.from_properties(load_properties())
NOW_MS = 1_700_000_000_000


def _url(rng: random.Random, n: int) -> str:
    host = f"h{rng.randrange(12)}.org"
    if rng.random() < 0.1:  # normalized to another URL, maybe another bucket
        host = host.upper()
    suffix = ".png" if rng.random() < 0.05 else ""  # rejected by the filters
    return f"http://{host}/p{n % 300}{suffix}"


def _crawldb(rng: random.Random) -> list[WebPage]:
    statuses = [CrawlStatus.FETCHED, CrawlStatus.UNFETCHED, CrawlStatus.GONE]
    pages = {
        url: new_page(
            url, status=int(rng.choice(statuses)), score=rng.choice([0.5, 2.0])
        )
        for url in (_url(rng, n) for n in range(300))
    }
    return sorted(pages.values(), key=lambda page: page["url"])


def _injected(rng: random.Random, crawldb: list[WebPage]) -> list[WebPage]:
    pages = {}
    known = [page["url"] for page in rng.sample(crawldb, 100)]
    for n in range(300):  # a third of them in the crawldb already
        url = known[n // 3] if n % 3 == 0 else f"http://h{rng.randrange(12)}.org/n{n}"
        score = rng.choice([1.0, 3.0])
        pages[url] = new_page(
            url,
            status=CrawlStatus.UNFETCHED,
            fetchTime=NOW_MS,
            score=score,
            fetchInterval=rng.choice([2592000, 86400]),
            metadata={"_zone_": b"local", "_csh_": struct.pack(">f", score)},
            markers={"_injmrk_": "y", "dist": "0"},
        )
    return list(pages.values())


def _write_current(
    current: Path, crawldb: list[WebPage], layout: Bucketing | None
) -> None:
    if layout is None:  # an older crawldb: one unsorted part file
        with beam.Pipeline() as p:
            _ = p | beam.Create(crawldb) | io.WriteWebPages(str(current))
        return
    for bucket in range(layout.count):
        mine = [page for page in crawldb if layout.bucket_of(page["url"]) == bucket]
        bucketfiles.write_bucket(str(current), bucket, layout, iter(mine))
    bucketfiles.write_layout(str(current), layout, len(crawldb))


@pytest.mark.parametrize(
    "current_layout", [LAYOUT, None, Bucketing(2)], ids=["merged", "old", "rebucketed"]
)
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"overwrite": True},
        {"update": True},
        {"purge_404": True},
        {"filter_normalize_all": True, "purge_404": True},
    ],
    ids=["default", "overwrite", "update", "purge404", "normalizeall"],
)
def test_the_same_crawldb_as_merge_into_crawldb_in_sorted_buckets(
    tmp_path: Path, current_layout: Bucketing | None, options: dict[str, Any]
) -> None:
    rng = random.Random(f"{current_layout}{sorted(options)}")
    config = dataclasses.replace(CONFIG, **options)
    crawldb = _crawldb(rng)
    injected = _injected(rng, crawldb)
    current = tmp_path / "current"
    _write_current(current, crawldb, current_layout)

    with beam.Pipeline() as p:
        merged = (
            p | "Injected" >> beam.Create(injected),
            p | "Current" >> beam.Create(crawldb),
        ) | MergeIntoCrawlDb(config)
        _ = merged | io.WriteWebPages(str(tmp_path / "plain"))
    expected, expected_counts = (
        read_pages(str(tmp_path / "plain")),
        counters(p.result, "injector"),
    )
    new = tmp_path / "new"
    with beam.Pipeline() as p:
        _ = (
            p
            | beam.Create(injected)
            | merge_into_buckets(
                config, str(current), str(new), LAYOUT, str(tmp_path / "runs")
            )
        )

    got = read_pages(str(new))
    assert sorted(got, key=repr) == sorted(expected, key=repr)
    assert counters(p.result, "injector") == expected_counts
    assert expected_counts["urls_merged"] > 30
    if options.get("purge_404"):
        assert expected_counts["urls_purged_404"] > 10
    if options.get("filter_normalize_all"):
        assert expected_counts["urls_purged_filter"] > 3
        assert any(page["url"] != page["url"].lower() for page in crawldb)
    for bucket in range(LAYOUT.count):  # each file its bucket's URLs, sorted
        path = bucketfiles.bucket_path(str(new), bucket, LAYOUT.count)
        urls = [page["url"] for page in bucketfiles.read_pages(path)]
        assert urls == sorted(urls)
        assert {LAYOUT.bucket_of(url) for url in urls} <= {bucket}
