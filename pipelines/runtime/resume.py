"""Where a crawl directory's crawl stopped, and how ``crawl`` goes on from there.

``crawl`` writes ``CRAWL_DIR/rounds/crawl.json`` when it first runs on a
directory (:func:`mark_start`: the segments that were there before it) and a
round record when each round's crawldb is published
(:mod:`pipelines.storage.rounds`). Run again, it reads both (:func:`plan`):
the rounds done are the records; ROUNDS is the directory's total, so it
goes on with the next round, up to ROUNDS.

A segment that is in no record and was not there before is a round that
was interrupted (:class:`Unfinished`). It is finished rather than generated
anew: with ``generate.update.crawldb`` its URLs carry the generate mark in
the crawldb and a new generate would leave them out for
``crawl.gen.delay``. Whether its update reached the crawldb is read from
the crawldb: a fetched page's record names its segment (``batchId``).

A crawl interrupted in one round may not have inverted the links of the
round before (invertlinks runs beside the next round on a local runner):
the segments of the last two rounds are inverted again
(:attr:`Resume.relink`); merging the same inlinks twice changes nothing.
"""

from __future__ import annotations

import json
import posixpath
from dataclasses import dataclass, field
from typing import Any, cast

import fastavro
from apache_beam.io.filesystems import FileSystems

from crawllib.webpage import WebPage
from pipelines.runtime import progress
from pipelines.storage import fs, partfiles, paths, rounds, versions
from pipelines.storage.rounds import RoundRecord
from pipelines.storage.segments import FETCH, GENERATE, list_segments

START_NAME = "crawl.json"
RELINK_ROUNDS = 2


@dataclass(frozen=True)
class Unfinished:
    """The segments of an interrupted round: generated, maybe fetched, no record."""

    segments: tuple[str, ...]
    fetched: tuple[str, ...]
    """Those of ``segments`` with fetch output."""
    updated: bool
    """The crawldb holds the round's update (then only dedup is left)."""
    generated: int
    """URLs in the segments' fetch lists."""

    def describe(self) -> str:
        names = ", ".join(_name(s) for s in self.segments)
        if self.updated:
            return f"segment {names} was fetched and updated: finishing the round"
        if self.fetched:
            return f"segment {names} was fetched, not updated: updating the crawldb"
        return f"segment {names} was generated, not fetched: fetching it"


@dataclass(frozen=True)
class Resume:
    """A crawl directory's rounds so far."""

    done: list[RoundRecord] = field(default_factory=list)
    unfinished: Unfinished | None = None
    relink: tuple[str, ...] = ()
    """Segments whose links are inverted again before going on."""

    @property
    def next_round(self) -> int:
        return self.done[-1].round + 1 if self.done else 1

    @property
    def resuming(self) -> bool:
        return bool(self.done) or self.unfinished is not None

    def line(self, crawl_dir: str, total: int) -> str | None:
        """The line that says where the crawl goes on; None for a new crawl."""
        if not self.resuming:
            return None
        where = f"crawl: resuming {crawl_dir}: "
        done = _done(self.done, total)
        if self.next_round > total:
            return where + f"{done}, nothing left to do"
        line = where + f"{done}, going on with round {self.next_round}"
        if self.unfinished is not None:
            line += f" ({self.unfinished.describe()})"
        return line


def _done(done: list[RoundRecord], total: int) -> str:
    if not done:
        return f"no round of {total} done"
    first, last = done[0].round, done[-1].round
    if first == last:
        return f"round {last} of {total} done"
    return f"rounds {first}-{last} of {total} done"


def plan(crawl_dir: str, crawldb: str, segments_dir: str) -> Resume:
    """Where the crawl of ``crawl_dir`` stopped (a new crawl: nothing done)."""
    start = read_start(crawl_dir)
    done = rounds.read_rounds(crawl_dir)
    if start is None and not done:
        return Resume()
    known = {_name(s) for s in (start or {}).get("segments_before", [])}
    for record in done:
        known.update(_name(s) for s in [record.segment, *record.segments])
    left = [s for s in list_segments(segments_dir) if _name(s) not in known]
    relink = tuple(s for record in done[-RELINK_ROUNDS:] for s in _segments(record))
    unfinished = _unfinished(crawldb, segments_dir, left) if left else None
    return Resume(done, unfinished, relink)


def _segments(record: RoundRecord) -> list[str]:
    return record.segments or ([record.segment] if record.segment else [])


def _unfinished(crawldb: str, segments_dir: str, left: list[str]) -> Unfinished:
    with_fetch = {_name(s) for s in list_segments(segments_dir, (FETCH,))}
    fetched = tuple(s for s in left if _name(s) in with_fetch)
    generated = sum(
        progress.count_records(partfiles.parts_pattern(FileSystems.join(s, GENERATE)))
        for s in left
    )
    updated = bool(fetched) and _holds_update(crawldb, {_name(s) for s in fetched})
    return Unfinished(tuple(left), fetched, updated, generated)


def _holds_update(crawldb: str, names: set[str]) -> bool:
    """Whether a crawldb record names one of the segments ``names`` (``batchId``)."""
    if not versions.exists(crawldb):
        return False
    for path, _ in partfiles.part_paths(versions.require(crawldb)):
        with fs.open_raw(path) as stream:
            for record in fastavro.reader(stream):
                if cast(WebPage, record)["batchId"] in names:
                    return True
    return False


def _name(segment: str) -> str:
    return posixpath.basename(segment.rstrip("/"))


def start_path(crawl_dir: str) -> str:
    """``CRAWL_DIR/rounds/crawl.json``."""
    return FileSystems.join(rounds.rounds_dir(crawl_dir), START_NAME)


def read_start(crawl_dir: str) -> dict[str, Any] | None:
    """The crawl's start note; None when ``crawl`` never ran on the directory."""
    path = start_path(crawl_dir)
    if not paths.match(paths.escape(path)):
        return None
    with FileSystems.open(path) as f:
        data = json.loads(f.read().decode("utf-8"))
    return data if isinstance(data, dict) else {}


def mark_start(crawl_dir: str, segments_dir: str, started_ms: int) -> list[str]:
    """Note the start of the directory's crawl, once; returns the segments before.

    A directory from before round records (or made by the separate
    commands) keeps its segments; the crawl counts its rounds from 1.
    """
    if read_start(crawl_dir) is not None:
        return []
    before = list_segments(segments_dir)
    note = {"started_ms": started_ms, "segments_before": before}
    text = json.dumps(note, indent=1, sort_keys=True) + "\n"
    rounds.write_whole(start_path(crawl_dir), text.encode("utf-8"))
    return before
