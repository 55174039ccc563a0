"""Hash buckets: the hash is the documented CRC-32, counts split cleanly."""

from __future__ import annotations

import collections
import random
import zlib

import pytest

from crawllib.db.buckets import (
    HASH,
    MAX_BUCKETS,
    Bucketing,
    bucket_count,
    bucket_of,
    is_valid_count,
)


def test_bucket_is_crc32_of_utf8_modulo_count() -> None:
    # the CRC-32 check value every implementation (Java's CRC32 too) gives
    assert bucket_of("123456789", 1 << 16) == 0xCBF43926 % (1 << 16)
    url = "http://example.com/caf\u00e9"
    assert bucket_of(url, 64) == zlib.crc32(url.encode("utf-8")) % 64
    assert bucket_of("http://example.com/", 1) == 0


def test_known_values_fix_the_hash() -> None:
    # fixed values: a change of hash would move every URL of every crawldb
    assert zlib.crc32(b"abc") == 0x352441C2
    assert bucket_of("abc", 1 << 16) == 0x352441C2 % (1 << 16)


def test_buckets_are_even_on_crawl_like_urls() -> None:
    rng = random.Random(5)
    urls = [
        f"http://host{rng.randrange(2000)}.example.org/p/{n}.html"
        for n in range(64_000)
    ]
    counts = collections.Counter(bucket_of(url, 64) for url in urls)
    assert len(counts) == 64
    assert max(counts.values()) < 1.15 * 1000
    assert min(counts.values()) > 0.85 * 1000


def test_doubling_splits_each_bucket_in_two() -> None:
    small, large = Bucketing(8), Bucketing(32)
    for n in range(2000):
        url = f"http://h{n % 37}.com/{n}"
        assert large.bucket_of(url) in small.sources(small.bucket_of(url), large)
        assert large.sources(large.bucket_of(url), small) == [small.bucket_of(url)]
    assert small.sources(3, large) == [3, 11, 19, 27]


@pytest.mark.parametrize(
    ("records", "count"),
    [(0, 1), (1, 1), (50_000, 1), (50_001, 2), (1_000_000, 32), (10_000_000, 256)],
)
def test_count_from_size(records: int, count: int) -> None:
    assert bucket_count(records) == count
    assert is_valid_count(count)


def test_count_is_capped() -> None:
    assert bucket_count(10**12) == MAX_BUCKETS
    with pytest.raises(ValueError, match="per_bucket"):
        bucket_count(10, per_bucket=0)


@pytest.mark.parametrize("count", [0, 3, 12, MAX_BUCKETS * 2, -4])
def test_bad_counts_are_refused(count: int) -> None:
    assert not is_valid_count(count)
    with pytest.raises(ValueError, match="power of two"):
        Bucketing(count)


def test_metadata_round_trip() -> None:
    layout = Bucketing(128)
    assert layout.as_json() == {"buckets": 128, "hash": HASH}
    assert Bucketing.from_json(layout.as_json()) == layout
    with pytest.raises(ValueError, match="unknown bucket hash"):
        Bucketing.from_json({"buckets": 4, "hash": "md5"})
    with pytest.raises(ValueError, match="no bucket count"):
        Bucketing.from_json({"hash": HASH})
    with pytest.raises(ValueError, match="no bucket count"):
        Bucketing.from_json({"buckets": True, "hash": HASH})


def test_layout_choice_keeps_a_count_until_buckets_grow_fourfold() -> None:
    from crawllib.db.buckets import choose_layout

    assert choose_layout(0, 1_000_000, None) == Bucketing(32)
    assert choose_layout(16, 1_000_000, Bucketing(32)) == Bucketing(16)
    kept = Bucketing(32)
    assert choose_layout(0, 32 * 50_000 * 4, kept) is kept
    assert choose_layout(0, 32 * 50_000 * 4 + 1, kept) == Bucketing(256)
    assert choose_layout(0, 10, Bucketing(64)) == Bucketing(64)  # never shrinks


def test_db_buckets_property_is_checked_at_the_door() -> None:
    from crawllib.config import UpdateConfig, load_properties
    from crawllib.errors import ConfigError

    assert UpdateConfig.from_properties(load_properties()).buckets == 0
    props = load_properties(defines=["db.buckets=128"])
    assert UpdateConfig.from_properties(props).buckets == 128
    for bad in ("3", "-2", "131072", "many"):
        with pytest.raises(ConfigError, match=r"db\.buckets"):
            UpdateConfig.from_properties(load_properties(defines=[f"db.buckets={bad}"]))
