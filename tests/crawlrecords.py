"""Every record a crawl wrote, for comparing two crawls field by field.

Two crawls of the same site on two runners must write the same records but
for the wall clock: when a page was fetched (and so when it is due next),
when the segment was generated (its name), the server's ``Date`` header and
the measured response time. Those values are masked; a segment name is
replaced by its round ("segment 1") wherever it stands, so a record that
names the wrong segment still differs.
"""

from __future__ import annotations

import os
import re
from typing import Any

from tests.avrofiles import read_pages

WALL_CLOCK_FIELDS = ("fetchTime", "prevFetchTime", "modifiedTime", "prevModifiedTime")
WALL_CLOCK_METADATA = ("_ngt_", "_rs_")  # generate time; response time (ms)
WALL_CLOCK_HEADERS = ("Date",)
WALL_CLOCK_HEAD_LINES = {  # the stored request and response heads (store.http.*)
    "_response.headers_": re.compile(rb"(?im)^(Date):[^\r\n]*"),
    "_request_": re.compile(rb"(?im)^(If-Modified-Since):[^\r\n]*"),
}
PARTS = ("generate", "fetch", "parse")


def crawl_records(crawl_dir: Any) -> dict[str, list[dict[str, Any]]]:
    """The crawldb, linkdb and segment parts of a crawl, wall clock masked."""
    segments_dir = os.path.join(str(crawl_dir), "segments")
    segments = sorted(os.listdir(segments_dir))
    rounds = {name: f"segment {n}" for n, name in enumerate(segments, start=1)}
    found = {
        "crawldb": read_pages(os.path.join(str(crawl_dir), "crawldb", "current")),
        "linkdb": read_pages(os.path.join(str(crawl_dir), "linkdb", "current")),
    }
    for name in segments:
        for part in PARTS:
            path = os.path.join(segments_dir, name, part)
            if os.path.isdir(path):
                found[f"{rounds[name]}/{part}"] = read_pages(path)
    return {
        key: sorted(
            (without_wall_clock(record, rounds) for record in records),
            key=lambda record: (record["batchId"] or "", record["url"]),
        )
        for key, records in found.items()
    }


def without_wall_clock(
    record: dict[str, Any], segment_names: dict[str, str]
) -> dict[str, Any]:
    """``record`` with its wall-clock values masked and segment names renamed."""

    def rename(value: Any) -> Any:
        return segment_names.get(value, value) if isinstance(value, str) else value

    masked = {key: rename(value) for key, value in record.items()}
    for field in WALL_CLOCK_FIELDS:
        masked[field] = "<time>" if record[field] else record[field]
    masked["markers"] = {k: rename(v) for k, v in record["markers"].items()}
    masked["metadata"] = {
        k: b"<time>" if k in WALL_CLOCK_METADATA else _mask_head(k, v)
        for k, v in record["metadata"].items()
    }
    masked["headers"] = {
        k: "<time>" if k in WALL_CLOCK_HEADERS else v
        for k, v in record["headers"].items()
    }
    return masked


def _mask_head(key: str, value: bytes | None) -> bytes | None:
    """A stored HTTP head with its wall-clock header values masked."""
    pattern = WALL_CLOCK_HEAD_LINES.get(key)
    if pattern is None or value is None:
        return value
    return pattern.sub(rb"\1: <time>", value)
