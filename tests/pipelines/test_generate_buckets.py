"""generate from a bucketed crawldb (Emit merge-joined bucket by bucket) writes
what the side-input Emit writes from the same pages."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import apache_beam as beam
import pytest

from crawllib.config import GenerateConfig, UrlConfig, load_properties
from crawllib.db.buckets import Bucketing
from crawllib.status import CrawlStatus
from crawllib.webpage import WebPage, new_page
from pipelines.generate import CRAWLDB_TAG, Generate, segment_tag
from pipelines.runtime.options import counters
from pipelines.storage import bucketfiles, io
from tests.avrofiles import read_pages

LAYOUT = Bucketing(4)
NOW = 1_700_000_000_000
CONFIG = GenerateConfig(urls=UrlConfig.from_properties(load_properties()))


def _crawldb(rng: random.Random) -> list[WebPage]:
    statuses = [CrawlStatus.UNFETCHED, CrawlStatus.FETCHED, CrawlStatus.GONE]
    pages = []
    for n in range(240):
        url = f"http://h{rng.randrange(9)}.org/p{n}.html"
        due = NOW - 1 if rng.random() < 0.8 else NOW + 86_400_000
        status = int(rng.choice(statuses))
        pages.append(new_page(url, status=status, score=rng.random(), fetchTime=due))
    return sorted(pages, key=lambda page: page["url"])


def _write_bucketed(directory: Path, crawldb: list[WebPage]) -> None:
    for bucket in range(LAYOUT.count):
        mine = [page for page in crawldb if LAYOUT.bucket_of(page["url"]) == bucket]
        bucketfiles.write_bucket(str(directory), bucket, LAYOUT, iter(mine))
    bucketfiles.write_layout(str(directory), LAYOUT, len(crawldb))


def _generate(
    out: Path, crawldb: list[WebPage], config: GenerateConfig, **bucketed: Any
) -> tuple[dict[str, list[WebPage]], dict[str, int]]:
    """Each output's records (sorted) and the Generator counters."""
    generate = Generate(config, NOW, NOW + 7, ["s1", "s2"][: config.max_num_segments],
                        **bucketed)  # fmt: skip
    with beam.Pipeline() as p:
        outputs = p | beam.Create(crawldb) | generate
        for tag, pages in outputs.items():
            _ = pages | f"Write{tag}" >> io.WriteWebPages(str(out / tag))
    found = {
        tag: sorted(read_pages(str(out / tag)), key=repr)
        for tag in [segment_tag(n) for n in range(1, config.max_num_segments + 1)]
        + [CRAWLDB_TAG] * config.update_crawldb
    }
    return found, counters(p.result, "Generator")


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"top_n": 50, "max_count": 4},
        {"top_n": 60, "max_count": 5, "max_num_segments": 2},
        {"max_count": 3, "update_crawldb": True},
    ],
    ids=["all", "topn-per-host", "two-segments", "update-crawldb"],
)
def test_the_same_fetch_lists_as_the_side_input_emit(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    rng = random.Random(str(sorted(options)))
    config = dataclasses.replace(CONFIG, **options)
    crawldb = _crawldb(rng)
    version = tmp_path / "version"
    _write_bucketed(version, crawldb)

    expected, expected_counts = _generate(tmp_path / "plain", crawldb, config)
    got, got_counts = _generate(
        tmp_path / "bucketed", crawldb, config,
        runs_dir=str(tmp_path / "runs"), bucketed=(str(version), LAYOUT),
    )  # fmt: skip

    assert got == expected
    assert got_counts == expected_counts
    assert 20 < expected_counts["GENERATED"] < len(crawldb)
    if config.update_crawldb:
        assert len(got[CRAWLDB_TAG]) == len(crawldb)


def test_a_bucketed_emit_needs_a_runs_dir(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="runs_dir"):
        Generate(CONFIG, NOW, NOW, ["s"], bucketed=(str(tmp_path), LAYOUT))
