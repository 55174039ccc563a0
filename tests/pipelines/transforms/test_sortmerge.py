"""SortIntoBuckets on the DirectRunner: every item once, in its bucket, sorted."""

from __future__ import annotations

import os
import random
import tracemalloc
from pathlib import Path
from typing import Any

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.db import sortedruns
from crawllib.db.buckets import Bucketing
from pipelines.transforms.sortmerge import RunRange, SortIntoBuckets, bucket_items


def _merged(bucket: int, ranges: list[RunRange]) -> tuple[int, list[Any], int]:
    return bucket, list(bucket_items(ranges)), len(ranges)


def test_items_come_back_by_bucket_sorted_from_many_runs(tmp_path: Path) -> None:
    rng = random.Random(9)
    items = [
        (f"http://h{rng.randrange(30)}.org/{rng.random():.9f}", n) for n in range(3000)
    ]
    items += [(items[0][0], 99_999)]  # a URL twice
    layout = Bucketing(8)
    runs = str(tmp_path / "runs")
    with beam.Pipeline() as p:
        merged = (
            p
            | beam.Create(items, reshuffle=False)
            | SortIntoBuckets(layout, runs, buffer_items=250)
            | beam.MapTuple(_merged)
        )
        expected = [
            (bucket, sorted(i for i in items if layout.bucket_of(i[0]) == bucket))
            for bucket in range(8)
        ]
        assert_that(
            merged | beam.MapTuple(lambda b, found, _: (b, sorted(found))),
            equal_to(expected),
            label="EveryItemInItsBucket",
        )
        assert_that(
            merged
            | beam.MapTuple(
                lambda b, found, _: [i[0] for i in found] == sorted(i[0] for i in found)
            ),
            equal_to([True] * 8),
            label="SortedByUrl",
        )
        assert_that(
            merged | beam.MapTuple(lambda _, __, n: n > 1),
            equal_to([True] * 8),
            label="SeveralRunsPerBucket",
        )
    assert len(os.listdir(runs)) >= 3000 // 250


def test_empty_buckets_still_come(tmp_path: Path) -> None:
    layout = Bucketing(4)
    with beam.Pipeline() as p:
        merged = (
            p
            | beam.Create([("http://a.org/", 1)])
            | SortIntoBuckets(layout, str(tmp_path / "runs"))
            | beam.MapTuple(lambda b, ranges: (b, len(list(bucket_items(ranges)))))
        )
        one = layout.bucket_of("http://a.org/")
        assert_that(merged, equal_to([(b, 1 if b == one else 0) for b in range(4)]))


def _one_bucket_runs(tmp_path: Path, runs: int, items: int) -> list[RunRange]:
    rng = random.Random(4)
    ranges = []
    for run in range(runs):
        path = tmp_path / f"run-{run}"
        bucket_of_all = {
            0: [(f"http://h.org/{rng.getrandbits(64):x}", n) for n in range(items)]
        }
        with path.open("wb") as stream:
            ((start, end),) = sortedruns.spill(stream, bucket_of_all)[0].values()
        ranges.append((str(path), start, end))
    return ranges


def test_a_merge_holds_a_chunk_of_each_range_not_the_bucket(tmp_path: Path) -> None:
    # the ranking's case: one bucket, every run a long range of it
    ranges = _one_bucket_runs(tmp_path, runs=2, items=300_000)
    stored = sum(end - start for _, start, end in ranges)
    tracemalloc.start()
    try:
        count, last = 0, ""
        for url, _ in bucket_items(ranges, read_bytes=1024 * 1024):
            assert url >= last
            count, last = count + 1, url
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == 600_000
    print(f"stored {stored} B, peak {peak} B")
    assert peak < stored / 4


def test_items_that_compress_well_spill_by_their_pickled_size(tmp_path: Path) -> None:
    # 2 KB of repeats: ~30 bytes compressed, so a 16 MiB run would be 200,000
    items = [(f"http://h.org/{n:05}", "x" * 2000 + str(n)) for n in range(12_000)]
    runs = str(tmp_path / "runs")
    with beam.Pipeline() as p:
        counts = (
            p
            | beam.Create(items, reshuffle=False)
            | SortIntoBuckets(Bucketing(1), runs, buffer_bytes=1024 * 1024)
            | beam.MapTuple(lambda _, ranges: len(list(bucket_items(ranges))))
        )
        assert_that(counts, equal_to([12_000]))
    # the first run: 10,000 items, before any size is known; then ~500 a run
    assert len(os.listdir(runs)) >= 5
