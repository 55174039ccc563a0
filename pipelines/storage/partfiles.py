"""Directories of WebPage Avro part files: finding, checking and moving them.

A crawldb version or a segment's part is a directory of
``part-SSSSS-of-NNNNN.avro`` files. A set that is not whole (a job killed
while an object store copied its files into place) or a file that is not
whole WebPage Avro is refused with one line, never read as fewer records.
The Beam transforms that read and write them are in :mod:`pipelines.storage.io`.
"""

from __future__ import annotations

import os
import posixpath
import re

from apache_beam.io.filesystems import FileSystems

from crawllib.avro import check as avrocheck
from crawllib.errors import CorruptFileError
from crawllib.webpage import schema
from pipelines.storage import fs, paths

PART_PREFIX = "part"
PART_SUFFIX = ".avro"

DAMAGED_HINT = "see docs/data-on-disk.md, 'Damaged files'"


def webpage_schema_check() -> tuple[str, frozenset[str]]:
    """The full name and the field names a WebPage part file's schema must have."""
    webpage = schema()
    name = f"{webpage['namespace']}.{webpage['name']}"
    return name, frozenset(field["name"] for field in webpage["fields"])


def part_paths(pattern: str) -> list[tuple[str, int]]:
    """(path, size) of the files matching ``pattern``, in name order."""
    return sorted((meta.path, meta.size_in_bytes) for meta in paths.match(pattern))


def check_parts(pattern: str) -> None:
    """Refuse any file matching ``pattern`` that is not whole WebPage Avro.

    An empty, cut-short, garbage or foreign file would otherwise be read as
    fewer records (or stop the job with a traceback), and a job that writes
    would make the loss permanent.

    Raises:
        CorruptFileError: one line naming the file and what is wrong.
    """
    name, fields = webpage_schema_check()
    found = part_paths(pattern)
    for path, size in found:
        with fs.open_raw(path) as stream:
            try:
                avrocheck.check_file(stream, size, name, fields)
            except avrocheck.AvroFileError as exc:
                raise CorruptFileError(f"{path}: {exc}; {DAMAGED_HINT}") from None
    for directory, problem in incomplete_sets([path for path, _ in found]).items():
        raise CorruptFileError(
            f"{directory}: {problem} (a job stopped while its files were moved "
            f"into place: run it again); {DAMAGED_HINT}"
        )


_SHARD = re.compile(r"-(\d+)-of-(\d+)" + re.escape(PART_SUFFIX) + "$")


def incomplete_sets(paths: list[str]) -> dict[str, str]:
    """Directories whose ``part-SSSSS-of-NNNNN`` files are not one whole set.

    Each file of a Beam job's output carries the number of files written; on
    an object store they are copied into place one by one, so a job killed
    meanwhile leaves some. Returns what is wrong, by directory.
    """
    shards: dict[str, dict[int, set[int]]] = {}
    for path in paths:
        match = _SHARD.search(posixpath.basename(path))
        if match:
            sets = shards.setdefault(posixpath.dirname(path), {})
            sets.setdefault(int(match[2]), set()).add(int(match[1]))
    problems = {}
    for directory, sets in shards.items():
        if len(sets) > 1:
            totals = " and ".join(f"of-{total}" for total in sorted(sets))
            problems[directory] = f"part files of different jobs ({totals})"
            continue
        ((total, present),) = sets.items()
        if len(present) < total:
            problems[directory] = f"only {len(present)} of its {total} part files"
    return problems


def parts_state(directory: str) -> str:
    """``absent``, ``whole`` or ``incomplete``: the part files of ``directory``."""
    paths = [path for path, _ in part_paths(parts_pattern(directory))]
    if not paths:
        return "absent"
    return "incomplete" if incomplete_sets(paths) else "whole"


def parts_pattern(directory: str) -> str:
    """The glob of the Avro part files in a version or segment directory.

    The directory is quoted (:func:`pipelines.storage.paths.escape`): the glob
    matches the files in exactly that directory.
    """
    return paths.under(directory, f"{PART_PREFIX}-*{PART_SUFFIX}")


def has_parts(directory: str) -> bool:
    """Whether ``directory`` holds at least one Avro part file."""
    return bool(paths.match(parts_pattern(directory), limit=1))


def move_parts(source: str, target: str) -> None:
    """Rename the Avro part files of ``source`` into ``target``."""
    found = [meta.path for meta in paths.match(parts_pattern(source))]
    if found:
        targets = [FileSystems.join(target, posixpath.basename(p)) for p in found]
        FileSystems.rename(found, targets)


def rename_dir(source: str, target: str) -> None:
    """Move a finished job's output directory to its final name."""
    if fs.is_local(source):
        os.rename(source, target)
    else:
        move_parts(source, target)
        fs.remove_dir(source)
