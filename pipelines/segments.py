"""Segment directories: ``<segments>/<yyyyMMddHHmmss>/{generate,fetch,parse}/``.

A job writes a segment's part under a staging name beside it and renames it
into place when the pipeline succeeded, so a failed job leaves no
half-written segment part behind.
"""

from __future__ import annotations

import os
import secrets
import time

from apache_beam.io.filesystems import FileSystems

from pipelines import io

GENERATE = "generate"
FETCH = "fetch"
PARSE = "parse"


def segment_names(segments_dir: str, time_ms: int, count: int) -> list[str]:
    """``count`` new segment names from ``time_ms``, one second apart.

    Names are ``yyyyMMddHHmmss`` in local time, as Nutch's
    ``Generator.generateSegmentName``; a name already taken moves on a second
    (where Nutch sleeps a second between names).
    """
    names: list[str] = []
    seconds = time_ms // 1000
    while len(names) < count:
        name = time.strftime("%Y%m%d%H%M%S", time.localtime(seconds))
        if not FileSystems.exists(FileSystems.join(segments_dir, name)):
            names.append(name)
        seconds += 1
    return names


def staging_dir(segments_dir: str, name: str) -> str:
    """Where a job writes segment ``name`` before it is complete."""
    return FileSystems.join(segments_dir, f".{name}.tmp-{secrets.token_hex(4)}")


def install_segment(staging: str, segment: str) -> None:
    """Move a completed staging directory to its segment name."""
    if FileSystems.get_scheme(segment) in (None, "file"):
        os.makedirs(os.path.dirname(os.path.abspath(segment)), exist_ok=True)
        os.rename(staging, segment)
        return
    for part in (GENERATE, FETCH, PARSE):
        source = FileSystems.join(staging, part)
        if io.has_parts(source):
            io.move_parts(source, FileSystems.join(segment, part))
    io.remove_dir(staging)
