"""Hash buckets of URLs: the layout that lets a round touch a crawldb bucket by bucket.

A bucketed crawldb (or linkdb) version holds ``count`` part files,
``part-BBBBB-of-NNNNN.avro``, where file ``B`` holds exactly the URLs whose
bucket is ``B``, sorted by URL. A round's records for the crawldb (the
fetched pages, the links by target) are cut into the same buckets and
sorted the same way, so that bucket ``B`` of the new version is one merge
of bucket ``B`` of the old one with bucket ``B`` of the round: no shuffle of
the crawldb, and memory for one bucket of the round at a time.

The bucket of a URL is the CRC-32 (ISO-HDLC, as zlib, Java's
``java.util.zip.CRC32`` and Python's ``zlib.crc32``) of its UTF-8 bytes,
modulo the bucket count. Counts are powers of two, so that doubling the
count splits each bucket in two (``B`` into ``B`` and ``B + count``) and a
version can be re-bucketed in one streaming pass. URLs sort by code point,
which is the order of their UTF-8 bytes.

This module is plain Python: the Beam transforms that read and write
bucketed files are in ``pipelines``.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

HASH = "crc32-utf8"
"""The name of the hash recorded in a bucketed version's metadata."""

RECORDS_PER_BUCKET = 50_000
"""The bucket size :func:`bucket_count` aims at when no count is set."""

MAX_BUCKETS = 1 << 16


def bucket_of(url: str, count: int) -> int:
    """The bucket (``0 .. count-1``) of ``url`` among ``count`` buckets."""
    return zlib.crc32(url.encode("utf-8", "surrogatepass")) % count


def bucket_count(records: int, per_bucket: int = RECORDS_PER_BUCKET) -> int:
    """The bucket count for about ``records`` URLs: a power of two, at least 1.

    The smallest power of two that keeps buckets at or under ``per_bucket``
    records (at most :data:`MAX_BUCKETS`).
    """
    if per_bucket < 1:
        raise ValueError(f"per_bucket must be at least 1, not {per_bucket}")
    count = 1
    while count * per_bucket < records and count < MAX_BUCKETS:
        count *= 2
    return count


def is_valid_count(count: int) -> bool:
    """Whether ``count`` can be a bucket count (a power of two, 1..MAX_BUCKETS)."""
    return 1 <= count <= MAX_BUCKETS and count & (count - 1) == 0


GROWTH = 4
"""How much fuller than :data:`RECORDS_PER_BUCKET` buckets grow before re-bucketing."""


def choose_layout(
    configured: int, estimated_records: int, current: Bucketing | None
) -> Bucketing:
    """The layout of a new version: ``configured`` (``db.buckets``) if not 0.

    Otherwise the current layout while its buckets hold less than
    :data:`GROWTH` times :data:`RECORDS_PER_BUCKET` records each, else (and
    for a crawldb not bucketed yet) the count :func:`bucket_count` gives for
    ``estimated_records``.
    """
    if configured:
        return Bucketing(configured)
    if current is not None and (
        estimated_records <= current.count * RECORDS_PER_BUCKET * GROWTH
        or current.count >= MAX_BUCKETS
    ):
        return current
    return Bucketing(bucket_count(estimated_records))


@dataclass(frozen=True)
class Bucketing:
    """How a version's records are laid out: ``count`` buckets by ``hash``."""

    count: int
    hash: str = HASH

    def __post_init__(self) -> None:
        if not is_valid_count(self.count):
            raise ValueError(
                f"a bucket count is a power of two from 1 to {MAX_BUCKETS}, "
                f"not {self.count}"
            )
        if self.hash != HASH:
            raise ValueError(f"unknown bucket hash {self.hash!r} (known: {HASH})")

    def bucket_of(self, url: str) -> int:
        """The bucket of ``url`` in this layout."""
        return bucket_of(url, self.count)

    def sources(self, bucket: int, other: Bucketing) -> list[int]:
        """The buckets of ``other`` that hold the URLs of ``bucket`` of this layout.

        With power-of-two counts a bucket of the larger layout lies in one
        bucket of the smaller, and a bucket of the smaller spans
        ``larger/smaller`` buckets of the larger.
        """
        if other.count <= self.count:
            return [bucket % other.count]
        return list(range(bucket, other.count, self.count))

    def as_json(self) -> dict[str, Any]:
        """The metadata form: ``{"buckets": count, "hash": name}``."""
        return {"buckets": self.count, "hash": self.hash}

    @classmethod
    def from_json(cls, values: dict[str, Any]) -> Bucketing:
        """The layout :meth:`as_json` wrote.

        Raises:
            ValueError: not a layout this version of beamcrawl knows.
        """
        count = values.get("buckets")
        if not isinstance(count, int) or isinstance(count, bool):
            raise ValueError(f"no bucket count in {values!r}")
        return cls(count, str(values.get("hash", "")))
