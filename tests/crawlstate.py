"""What a crawl directory holds, as its readers see it, piece by piece.

A piece is the live version of the crawldb or the linkdb, or one part
(``generate``, ``fetch``, ``parse``) of a visible segment. The live version
is the one the newest ``published/<seq>.json`` names, found as the README
tells other tools to find it (plain json, no beamcrawl code). Hidden names
(a job's staging directories) are not pieces.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from tests.avrofiles import read_pages
from tests.crawlrecords import without_wall_clock

DATABASES = ("crawldb", "linkdb")
PARTS = ("generate", "fetch", "parse")

State = dict[str, list[Any]]


def has_parts(directory: Path) -> bool:
    """Whether ``directory`` holds an Avro part file."""
    return any(directory.glob("part-*.avro"))


def kept_versions(database: Path) -> list[Path]:
    """The version the newest ``published`` object names, and its backup."""
    pointers = sorted((database / "published").glob("*.json"))
    if not pointers:
        return [database / "current", database / "old"]  # an older beamcrawl's
    body = json.loads(pointers[-1].read_text())
    return [database / body[key] for key in ("version", "previous") if body[key]]


def live_version(database: Path) -> Path | None:
    """The published version; None if there is none."""
    found = kept_versions(database)
    return found[0] if found and has_parts(found[0]) else None


def lock_objects(database: Path) -> list[Path]:
    """The lock objects a job asking for or holding the lock wrote."""
    return sorted((database / ".lock").glob("*")) + sorted(database.glob(".locked"))


def unpublished_versions(database: Path) -> list[str]:
    """Version directories that are neither published nor the backup."""
    kept = {path.name for path in kept_versions(database)}
    return sorted(
        path.name for path in (database / "versions").glob("*") if path.name not in kept
    )


def crawl_state(crawl_dir: Path) -> State:
    """Every piece of ``crawl_dir``: its records, read in full with fastavro.

    Reading the backup too checks that every version is readable, though
    only the live one is a piece.
    """
    state: State = {}
    for name in DATABASES:
        database = crawl_dir / name
        for version in kept_versions(database):
            read_pages(version)
        live = live_version(database)
        if live is not None:
            state[name] = read_pages(live)
    segments = crawl_dir / "segments"
    for segment in sorted(os.listdir(segments)) if segments.is_dir() else []:
        if segment.startswith((".", "_")):
            continue
        for part in PARTS:
            if (segments / segment / part).is_dir():
                state[f"{segment}/{part}"] = read_pages(segments / segment / part)
    return state


def masked(state: State) -> State:
    """``state`` with the wall-clock values of every record masked."""
    return {
        piece: [without_wall_clock(record, {}) for record in records]
        for piece, records in state.items()
    }


def same_records(state: State, other: State, mask_clock: bool) -> bool:
    """Whether two states hold the same records (wall clock masked if asked)."""
    return masked(state) == masked(other) if mask_clock else state == other


def pieces_between(
    state: State, before: State, after: State, mask_clock: bool
) -> dict[str, str]:
    """Which of ``before`` and ``after`` each piece of ``state`` equals.

    Keys are the pieces of all three states; the value is ``"before"`` (equal
    record for record), ``"after"`` (equal, with the wall clock masked if
    ``mask_clock``) or ``"neither"``. A missing piece equals a missing one.
    """
    view = masked if mask_clock else dict
    seen, expected = view(state), view(after)
    found = {}
    for piece in sorted({*state, *before, *after}):
        if state.get(piece) == before.get(piece):
            found[piece] = "before"
        elif seen.get(piece) == expected.get(piece):
            found[piece] = "after"
        else:
            found[piece] = "neither"
    return found
