"""BucketedDedup marks what Dedup marks, and keeps the crawldb's buckets."""

from __future__ import annotations

import random
from pathlib import Path

import apache_beam as beam
import pytest

from crawllib.db.buckets import Bucketing
from crawllib.db.dedup import DedupConfig
from crawllib.status import CrawlStatus
from crawllib.webpage import WebPage, new_page
from pipelines.dedup import Dedup
from pipelines.runtime.options import counters
from pipelines.storage import bucketfiles, io
from pipelines.transforms.bucketdedup import BucketedDedup
from tests.avrofiles import read_pages

LAYOUT = Bucketing(4)
STATUSES = [
    CrawlStatus.FETCHED,
    CrawlStatus.FETCHED,
    CrawlStatus.NOTMODIFIED,
    CrawlStatus.UNFETCHED,
    CrawlStatus.GONE,
]


def _crawldb(rng: random.Random, count: int) -> list[WebPage]:
    pages = [
        new_page(
            f"{rng.choice(['http', 'https'])}://h{rng.randrange(9)}.org/"
            f"{'p' * rng.randrange(1, 4)}{n}",
            status=int(rng.choice(STATUSES)),
            signature=None if rng.random() < 0.1 else bytes([rng.randrange(12)] * 16),
            score=rng.choice([0.5, 1.0, 2.0]),
            fetchTime=rng.choice([100, 200]),
        )
        for n in range(count)
    ]
    return sorted({page["url"]: page for page in pages}.values(), key=_url)


def _url(page: WebPage) -> str:
    return page["url"]


@pytest.mark.parametrize("group", ["none", "host", "domain"])
def test_the_same_pages_are_marked_and_the_buckets_kept(
    tmp_path: Path, group: str
) -> None:
    crawldb = _crawldb(random.Random(group), 400)
    config = DedupConfig.from_args(group, "fetchTime,score,httpsOverHttp,urlLength")
    current = str(tmp_path / "current")
    for bucket in range(LAYOUT.count):
        mine = [page for page in crawldb if LAYOUT.bucket_of(page["url"]) == bucket]
        bucketfiles.write_bucket(current, bucket, LAYOUT, iter(mine))

    with beam.Pipeline() as p:
        _ = (
            p
            | beam.Create(crawldb)
            | Dedup(config)
            | io.WriteWebPages(str(tmp_path / "plain"))
        )
    plain, plain_counts = (
        read_pages(str(tmp_path / "plain")),
        counters(p.result, "Dedup"),
    )
    with beam.Pipeline() as p:
        _ = p | BucketedDedup(
            config, current, str(tmp_path / "new"), LAYOUT, str(tmp_path / "runs")
        )
    bucketed, bucketed_counts = (
        read_pages(str(tmp_path / "new")),
        counters(p.result, "Dedup"),
    )

    assert plain_counts["documents_marked_duplicate"] > 10
    assert (bucketed, bucketed_counts) == (plain, plain_counts)
    for bucket in range(LAYOUT.count):  # each file holds its bucket, sorted
        path = bucketfiles.bucket_path(str(tmp_path / "new"), bucket, LAYOUT.count)
        urls = [page["url"] for page in bucketfiles.read_pages(path)]
        assert urls == sorted(urls)
        assert {LAYOUT.bucket_of(url) for url in urls} <= {bucket}
