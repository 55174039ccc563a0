"""``readdb --verify`` and ``--salvage``: find damaged part files, keep what reads.

Every job checks the part files it reads
(:func:`pipelines.storage.partfiles.check_parts`) and refuses a damaged one.
These are the tools for what comes next:
:func:`verify` decodes every record of every part file of a crawldb or
linkdb (the current version and its backup) and says which files are
whole; :func:`salvage` writes the records of the current version's readable
blocks into a new crawldb, with a count of what was lost. Both run in the launching
process through Beam's FileSystems (local disk or an object store).
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

import fastavro
from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from crawllib.avro import check as avrocheck
from crawllib.errors import ConfigError
from crawllib.terminal import printable
from crawllib.webpage import schema
from pipelines.storage import fs, partfiles, versions


def verify(db: str, out: TextIO | None = None) -> int:
    """Check every part file of ``db``'s versions; 0 if all are whole, else 2."""
    out = out or sys.stdout
    name, fields = partfiles.webpage_schema_check()
    damaged = files = records = 0
    for version in versions.kept_versions(db):
        for path, size in partfiles.part_paths(partfiles.parts_pattern(version)):
            files += 1
            try:
                with fs.open_raw(path) as stream:
                    count = avrocheck.read_file(stream, size, name, fields)
            except avrocheck.AvroFileError as exc:
                damaged += 1
                print(printable(f"DAMAGED {path}: {exc}"), file=out)
            else:
                records += count
                print(printable(f"ok      {path}: {count} records"), file=out)
    if not files:
        raise ConfigError(f"beamcrawl readdb: no part files in {db}")
    print(
        f"part files: {files}, damaged: {damaged}, records in the whole ones: "
        f"{records}",
        file=out,
    )
    return 2 if damaged else 0


def salvage(db: str, out_db: str, out: TextIO | None = None) -> int:
    """Write the readable records of ``db``'s current version into ``out_db``."""
    out = out or sys.stderr
    if fs.dir_exists(out_db):
        raise ConfigError(f"beamcrawl readdb: {out_db} exists and is not empty")
    name, fields = partfiles.webpage_schema_check()
    records: list[Any] = []
    lost = 0
    unknown = False
    current = versions.current_version(db)
    for path, size in (
        partfiles.part_paths(partfiles.parts_pattern(current)) if current else []
    ):
        try:
            with fs.open_raw(path) as stream:
                result = avrocheck.salvage_file(stream, size, name, fields)
        except avrocheck.AvroFileError as exc:
            print(printable(f"{path}: nothing readable: {exc}"), file=out)
            unknown = True
            continue
        records.extend(result.records)
        lost += result.lost
        unknown = unknown or result.unknown_loss
        for problem in result.problems:
            print(printable(f"{path}: {problem}"), file=out)
    with versions.locked(out_db), versions.new_version(out_db) as new_dir:
        target = FileSystems.join(new_dir, "part-00000-of-00001.avro")
        with FileSystems.create(
            target, compression_type=CompressionTypes.UNCOMPRESSED
        ) as handle:
            fastavro.writer(handle, fastavro.parse_schema(schema()), records, "deflate")
    if unknown:
        loss = f"{lost} records lost, and more whose number is unknown"
    else:
        loss = f"{lost} records lost"
    print(printable(f"salvaged {len(records)} records into {out_db}; {loss}"), file=out)
    return 0
