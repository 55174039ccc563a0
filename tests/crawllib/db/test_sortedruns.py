"""Sorted runs: spill, read back by bucket range, merge, join."""

from __future__ import annotations

import io
import itertools
import random

import pytest

from crawllib.db import sortedruns
from crawllib.db.buckets import bucket_of
from crawllib.db.sortedruns import (
    RunFormatError,
    grouped,
    join_sorted,
    merge_runs,
    read_range,
    spill,
)


def _by_bucket(
    items: list[tuple[str, int]], count: int
) -> dict[int, list[tuple[str, int]]]:
    buckets: dict[int, list[tuple[str, int]]] = {}
    for item in items:
        buckets.setdefault(bucket_of(item[0], count), []).append(item)
    return buckets


def test_spilled_buckets_read_back_sorted() -> None:
    rng = random.Random(3)
    items = [
        (f"http://h{rng.randrange(50)}.org/{rng.random()}", n) for n in range(9000)
    ]
    stream = io.BytesIO()
    ranges, pickled_bytes = spill(stream, _by_bucket(items, 16))
    assert pickled_bytes > len(stream.getvalue())  # before compression
    assert set(ranges) == {bucket_of(url, 16) for url, _ in items}
    starts = sorted(ranges.values())
    assert all(a[1] == b[0] for a, b in itertools.pairwise(starts))  # back to back
    for bucket, (start, end) in ranges.items():
        back = list(read_range(stream, start, end))
        expected = sorted(i for i in items if bucket_of(i[0], 16) == bucket)
        assert back == expected


def test_frames_hold_at_most_frame_items(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sortedruns, "FRAME_ITEMS", 3)
    stream = io.BytesIO()
    items = [(f"u{n:03}", n) for n in range(10)]
    ranges, _ = spill(stream, {0: list(reversed(items))})
    assert list(read_range(stream, *ranges[0])) == items


def test_a_cut_run_is_an_error_not_fewer_records() -> None:
    stream = io.BytesIO()
    ranges, _ = spill(stream, {0: [("a", 1), ("b", 2)]})
    start, end = ranges[0]
    cut = io.BytesIO(stream.getvalue()[: end - 3])
    with pytest.raises(RunFormatError, match="cut short"):
        list(read_range(cut, start, end))
    garbage = io.BytesIO(stream.getvalue()[:8] + b"x" * (end - 8))
    with pytest.raises(RunFormatError, match="bad frame"):
        list(read_range(garbage, start, end))


def test_merge_and_group_keep_equal_urls_together_in_run_order() -> None:
    runs = [[("a", 1), ("c", 1)], [("a", 2), ("b", 2), ("c", 2)], [("c", 3)]]
    merged = list(merge_runs(runs))
    assert [url for url, _ in merged] == ["a", "a", "b", "c", "c", "c"]
    assert list(grouped(merged)) == [
        ("a", [("a", 1), ("a", 2)]),
        ("b", [("b", 2)]),
        ("c", [("c", 1), ("c", 2), ("c", 3)]),
    ]
    assert list(grouped([])) == []


def test_join_is_a_full_outer_join_in_url_order() -> None:
    pages = [{"url": "b"}, {"url": "d"}, {"url": "e"}]
    groups = [("a", [("a", 1)]), ("d", [("d", 2)]), ("f", [("f", 3)])]
    joined = list(join_sorted(pages, lambda p: p["url"], groups))
    assert joined == [
        ("a", None, [("a", 1)]),
        ("b", {"url": "b"}, []),
        ("d", {"url": "d"}, [("d", 2)]),
        ("e", {"url": "e"}, []),
        ("f", None, [("f", 3)]),
    ]
    assert list(join_sorted([], lambda p: p["url"], [])) == []


def test_join_refuses_unsorted_input() -> None:
    pages = [{"url": "b"}, {"url": "a"}]
    with pytest.raises(RunFormatError, match="not sorted"):
        list(join_sorted(pages, lambda p: p["url"], []))
