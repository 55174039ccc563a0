"""Sorted runs: an external sort by (bucket, URL) that never holds more than a buffer.

A job that must bring a round's records into the crawldb's bucket order
(a fetched page under its URL, a link under its target) gathers them in a
bounded buffer; when it is full the buffer is *spilled*: each bucket's
records sorted by URL and written to one run file, bucket after bucket,
and the byte range of every bucket noted. A bucket's merge then reads its
range from every run and merges them (:func:`merge_runs`) with the
crawldb's bucket file, in URL order (:func:`join_sorted`).

The run files are the job's own scratch files, deleted when it ends; their
frames are zlib-compressed pickles of record lists (the records are plain
tuples, dicts, strings and numbers). Items are tuples whose first element
is the URL they sort by.
"""

from __future__ import annotations

import heapq
import pickle
import struct
import zlib
from collections.abc import Iterable, Iterator
from typing import IO, Any, Protocol, TypeVar

Item = tuple[Any, ...]
"""A record of a run: ``(url, ...)``."""

ItemT = TypeVar("ItemT", bound=tuple[Any, ...])
PageT = TypeVar("PageT")

_FRAME_HEAD = struct.Struct(">II")
"""(bucket, length of the compressed frame that follows)."""

FRAME_ITEMS = 2_000
"""Items per frame: the unit a reader decompresses at once."""


class ReadableStream(Protocol):
    """What :func:`read_range` reads: a file, ``io.BytesIO``, or a lazy range reader."""

    def seek(self, offset: int, whence: int = ..., /) -> int: ...

    def read(self, size: int = ..., /) -> bytes: ...


class RunFormatError(ValueError):
    """A run file that is not what :func:`spill` wrote (cut short or garbage)."""


def _url(item: Item) -> Any:
    return item[0]


def spill(
    stream: IO[bytes], items_by_bucket: dict[int, list[Item]]
) -> tuple[dict[int, tuple[int, int]], int]:
    """Write one run: each bucket's items sorted by URL, buckets in order.

    The lists are sorted in place. Returns each non-empty bucket's
    ``(start, end)`` byte range in ``stream`` (which starts at offset 0),
    and the bytes the items took pickled, before compression: a measure of
    what they held in memory, which the compressed size is not (a record
    that repeats its neighbours compresses a hundredfold).
    """
    ranges: dict[int, tuple[int, int]] = {}
    offset = pickled_bytes = 0
    for bucket in sorted(items_by_bucket):
        items = items_by_bucket[bucket]
        if not items:
            continue
        items.sort(key=_url)
        start = offset
        for first in range(0, len(items), FRAME_ITEMS):
            pickled = pickle.dumps(items[first : first + FRAME_ITEMS], protocol=5)
            frame = zlib.compress(pickled, 1)
            stream.write(_FRAME_HEAD.pack(bucket, len(frame)))
            stream.write(frame)
            offset += _FRAME_HEAD.size + len(frame)
            pickled_bytes += len(pickled)
        ranges[bucket] = (start, offset)
    return ranges, pickled_bytes


def read_range(stream: ReadableStream, start: int, end: int) -> Iterator[Item]:
    """The items :func:`spill` wrote in ``[start, end)`` of ``stream``, in order.

    Raises:
        RunFormatError: the range does not hold whole frames.
    """
    stream.seek(start)
    offset = start
    while offset < end:
        head = stream.read(_FRAME_HEAD.size)
        if len(head) != _FRAME_HEAD.size:
            raise RunFormatError(f"run file cut short at byte {offset}")
        _, length = _FRAME_HEAD.unpack(head)
        frame = stream.read(length)
        if len(frame) != length:
            raise RunFormatError(f"run file cut short at byte {offset}")
        try:
            items = pickle.loads(zlib.decompress(frame))
        except (zlib.error, pickle.UnpicklingError, EOFError) as exc:
            raise RunFormatError(f"bad frame at byte {offset}: {exc}") from None
        yield from items
        offset += _FRAME_HEAD.size + length


def merge_runs(runs: Iterable[Iterable[ItemT]]) -> Iterator[ItemT]:
    """The items of sorted runs, merged into one stream sorted by URL.

    Items with equal URLs come in the order of ``runs`` (stable).
    """
    return heapq.merge(*runs, key=_url)


def grouped(items: Iterable[ItemT]) -> Iterator[tuple[str, list[ItemT]]]:
    """``(url, its items)`` from items sorted by URL."""
    url: Any = None
    group: list[ItemT] = []
    for item in items:
        if group and item[0] != url:
            yield url, group
            group = []
        url = item[0]
        group.append(item)
    if group:
        yield url, group


def join_sorted(
    pages: Iterable[PageT],
    page_url: Any,
    groups: Iterable[tuple[str, list[ItemT]]],
) -> Iterator[tuple[str, PageT | None, list[ItemT]]]:
    """A full outer merge join of pages and item groups, both sorted by URL.

    ``page_url(page)`` gives a page's URL. Yields ``(url, page or None,
    items)`` for every URL of either side, in URL order.

    Raises:
        RunFormatError: a side is not sorted (a URL goes backwards).
    """
    page_iter = iter(pages)
    group_iter = iter(groups)
    page = next(page_iter, None)
    group = next(group_iter, None)
    last: Any = None
    url: Any
    found: PageT | None
    items: list[ItemT]
    while page is not None or group is not None:
        url_p = page_url(page) if page is not None else None
        url_g = group[0] if group is not None else None
        if url_g is None or (url_p is not None and url_p < url_g):
            url, found, items = url_p, page, []
            page = next(page_iter, None)
        elif url_p is None or url_g < url_p:
            url, found, items = url_g, None, group[1]  # type: ignore[index]
            group = next(group_iter, None)
        else:
            url, found, items = url_p, page, group[1]  # type: ignore[index]
            page = next(page_iter, None)
            group = next(group_iter, None)
        if last is not None and url <= last:
            raise RunFormatError(f"not sorted by URL: {url!r} after {last!r}")
        last = url
        yield url, found, items
