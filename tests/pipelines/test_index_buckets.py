"""BucketedIndexPages decides what IndexPages decides, for every bucket layout."""

from __future__ import annotations

import dataclasses
import pickle
import random
from pathlib import Path
from typing import Any

import apache_beam as beam
import pytest

from crawllib.config import IndexConfig
from crawllib.db.buckets import Bucketing
from crawllib.javanum import f32
from crawllib.status import CrawlStatus
from crawllib.webpage import WebPage, new_page
from pipelines.index import NAMESPACE, IndexPages
from pipelines.runtime.options import counters
from pipelines.storage import bucketfiles, io
from pipelines.transforms.bucketindex import BucketedIndexPages

SUCCESS = {"majorCode": 1, "minorCode": 0, "args": []}
STATUSES = [
    CrawlStatus.FETCHED,
    CrawlStatus.FETCHED,
    CrawlStatus.GONE,
    CrawlStatus.DUPLICATE,
    CrawlStatus.NOTMODIFIED,
]


def _url(rng: random.Random) -> str:
    return f"http://h{rng.randrange(6)}.org/p{rng.randrange(400)}"


def _data(rng: random.Random) -> tuple[list[WebPage], list[WebPage], list[WebPage]]:
    """(crawldb, parsed segment pages, linkdb) overlapping in part."""
    crawldb = {
        url: new_page(url, status=int(rng.choice(STATUSES)), score=f32(rng.random()))
        for url in (_url(rng) for _ in range(500))
    }
    parsed = []
    for url in rng.sample(sorted(crawldb), 150) + [_url(rng) for _ in range(30)]:
        for _ in range(rng.choice([1, 1, 2])):  # some URLs in two segments
            status = rng.choice(STATUSES[:3])
            ok = status == CrawlStatus.FETCHED
            parsed.append(
                new_page(
                    url,
                    status=int(status),
                    fetchTime=rng.randrange(1, 100),
                    title=f"t {url}" if ok else None,
                    text="some text" if ok else None,
                    parseStatus=SUCCESS if ok else None,
                )
            )
    linkdb = {
        url: new_page(url, inlinks={f"http://s{n}.org/": f"a{n}" for n in range(3)})
        for url in (_url(rng) for _ in range(300))
    }
    return list(crawldb.values()), parsed, list(linkdb.values())


def _write(directory: Path, pages: list[WebPage], layout: Bucketing | None) -> str:
    if layout is None:  # not bucketed: one part file, in no order
        with beam.Pipeline() as p:
            _ = p | beam.Create(pages) | io.WriteWebPages(str(directory))
        return str(directory)
    for bucket in range(layout.count):
        mine = sorted(
            (page for page in pages if layout.bucket_of(page["url"]) == bucket),
            key=lambda page: page["url"],
        )
        bucketfiles.write_bucket(str(directory), bucket, layout, iter(mine))
    bucketfiles.write_layout(str(directory), layout, len(pages))
    return str(directory)


def _saved(actions: beam.PCollection[Any], directory: Path) -> None:
    _ = (
        actions
        | "Encode" >> beam.Map(lambda action: pickle.dumps(action).hex())
        | "Save" >> beam.io.WriteToText(str(directory / "actions"))
    )


def _actions(directory: Path) -> list[Any]:
    lines = [
        line
        for path in sorted(directory.glob("actions*"))
        for line in path.read_text().splitlines()
    ]
    return [pickle.loads(bytes.fromhex(line)) for line in sorted(lines)]


@pytest.mark.parametrize(
    ("crawl_layout", "link_layout"),
    [
        (Bucketing(4), Bucketing(4)),
        (Bucketing(4), Bucketing(2)),  # fewer linkdb buckets: one holds two
        (Bucketing(4), Bucketing(16)),  # more: four split each, merged
        (Bucketing(4), None),  # the linkdb not bucketed: sorted in
        (None, Bucketing(2)),  # the crawldb not bucketed: sorted in
        (Bucketing(8), "none"),  # no linkdb at all
    ],
    ids=["same", "fewer", "more", "plainlinks", "plaincrawl", "nolinkdb"],
)
def test_the_same_actions_and_counters_as_index_pages(
    tmp_path: Path, crawl_layout: Bucketing | None, link_layout: object
) -> None:
    rng = random.Random(f"{crawl_layout}{link_layout}")
    crawldb, parsed, linkdb = _data(rng)
    config = dataclasses.replace(IndexConfig(), delete=True)
    crawldb_dir = _write(tmp_path / "crawldb", crawldb, crawl_layout)
    linkdb_dir = None
    if link_layout != "none":
        assert link_layout is None or isinstance(link_layout, Bucketing)
        linkdb_dir = _write(tmp_path / "linkdb", linkdb, link_layout)

    with beam.Pipeline() as p:
        inputs = [p | "Db" >> beam.Create(crawldb), p | "Parsed" >> beam.Create(parsed)]
        if linkdb_dir is not None:
            inputs.append(p | "Links" >> beam.Create(linkdb))
        _saved(tuple(inputs) | IndexPages(config), tmp_path / "plain")
    expected, expected_counts = (
        _actions(tmp_path / "plain"),
        counters(p.result, NAMESPACE),
    )
    with beam.Pipeline() as p:
        runs = str(tmp_path / "runs")
        bucketed = p | beam.Create(parsed)
        bucketed |= BucketedIndexPages(config, crawldb_dir, linkdb_dir, runs)
        _saved(bucketed, tmp_path / "bucketed")
    got = _actions(tmp_path / "bucketed")

    assert got == expected
    assert counters(p.result, NAMESPACE) == expected_counts
    assert expected_counts["indexed (add/update)"] > 20
    assert expected_counts["skipped (not in segments)"] > 200
    if linkdb_dir is not None:  # inlinks reached the documents
        assert any(action[1] and action[1].anchor for action in got)
