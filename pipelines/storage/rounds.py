"""The crawl's round records: ``CRAWL_DIR/rounds/round-NNNN.json``.

``crawl`` writes one JSON object per round once the round's crawldb is
published, and never changes it after. They are what the crawl's summary,
``beamcrawl report`` and a resumed crawl read: the round's counts, its times
and every counter of its jobs. A crawl directory made by the separate
commands has none; readers then make do with the crawldb and the segments.

Each file is written whole (:func:`write_whole`: renamed into place on local
disk, one ``FileSystems.create`` and so one object on an object store); a
file that cannot be read as a round record is skipped by :func:`read_rounds`
with a log line, never fatal.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
from dataclasses import asdict, dataclass, field
from typing import Any

from apache_beam.io.filesystems import FileSystems

from pipelines.storage import paths

_LOG = logging.getLogger(__name__)

DIR_NAME = "rounds"
_PREFIX = "round-"


@dataclass(frozen=True)
class RoundRecord:
    """One completed round of a crawl.

    The counts add up: ``sum(fetched) + sum(unfetched) == generated``.
    """

    round: int
    """1 for the crawl directory's first round; a resumed crawl goes on counting."""
    segment: str
    """The round's segment directory."""
    started_ms: int
    ended_ms: int
    generated: int
    """URLs in the round's fetch list."""
    fetched: dict[str, int] = field(default_factory=dict)
    """Fetched URLs by protocol status label (SUCCESS, NOTFOUND, EXCEPTION ...)."""
    unfetched: dict[str, int] = field(default_factory=dict)
    """Generated URLs not fetched, by reason (e.g. the fetcher's time limit)."""
    parsed: dict[str, int] = field(default_factory=dict)
    """Parsed pages by parse status label."""
    new_urls: int = 0
    """URLs the round's update added to the crawldb."""
    crawldb: dict[str, int] = field(default_factory=dict)
    """The crawldb after the round: records by db status label."""
    counters: dict[str, int] = field(default_factory=dict)
    """Every counter of the round's jobs, as ``step:name``."""
    segments: list[str] = field(default_factory=list)
    """Every segment directory of the round (more than one with
    generate's ``--maxNumSegments``); ``segment`` is the first."""

    @property
    def seconds(self) -> float:
        return (self.ended_ms - self.started_ms) / 1000.0

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> RoundRecord:
        """Raises ValueError for anything but a round record."""
        data: Any = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        try:
            record = cls(**data)
        except TypeError as exc:
            raise ValueError(str(exc)) from None
        if not isinstance(record.round, int) or record.round < 1:
            raise ValueError(f"round {record.round!r} is not a round number")
        return record


def rounds_dir(crawl_dir: str) -> str:
    """The directory of a crawl's round records."""
    return FileSystems.join(crawl_dir, DIR_NAME)


def record_path(crawl_dir: str, number: int) -> str:
    """Where round ``number``'s record is written."""
    return FileSystems.join(rounds_dir(crawl_dir), f"{_PREFIX}{number:04d}.json")


def write_round(crawl_dir: str, record: RoundRecord) -> str:
    """Write ``record`` as its round's file; returns the path."""
    path = record_path(crawl_dir, record.round)
    write_whole(path, record.to_json().encode("utf-8"))
    return path


def write_whole(path: str, data: bytes) -> None:
    """Write a small file that readers see whole or not at all.

    On local disk a temporary file beside it is renamed over it; on an
    object store one ``FileSystems.create`` is one object.
    """
    if not paths.is_local(path):
        with FileSystems.create(path) as out:
            out.write(data)
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temp = f"{path}.tmp-{secrets.token_hex(4)}"
    try:
        with open(temp, "wb") as f:
            f.write(data)
        os.replace(temp, path)
    finally:
        with contextlib.suppress(OSError):
            os.remove(temp)


def read_rounds(crawl_dir: str) -> list[RoundRecord]:
    """The crawl's round records in round order; none for a directory without."""
    records: dict[int, RoundRecord] = {}
    for meta in paths.match(paths.under(rounds_dir(crawl_dir), f"{_PREFIX}*.json")):
        try:
            with FileSystems.open(meta.path) as f:
                record = RoundRecord.from_json(f.read().decode("utf-8"))
        except (OSError, ValueError, UnicodeDecodeError) as exc:
            _LOG.warning("skipped round record %s: %s", meta.path, exc)
            continue
        records[record.round] = record
    return [records[n] for n in sorted(records)]
