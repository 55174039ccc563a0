"""Segment directories: ``<segments>/<yyyyMMddHHmmss>/{generate,fetch,parse}/``.

A job writes a segment's part under a staging name beside it and renames it
into place when the pipeline succeeded, so a failed job leaves no
half-written segment part behind.
"""

from __future__ import annotations

import logging
import os
import posixpath
import secrets
import time
from collections.abc import Sequence

from apache_beam.io.filesystems import FileSystems

from crawllib.errors import ConfigError, CrawlError
from pipelines.runtime import interrupts, jobstate
from pipelines.storage import fs, partfiles, paths

_LOG = logging.getLogger(__name__)

GENERATE = "generate"
FETCH = "fetch"
PARSE = "parse"
PARTS = (GENERATE, FETCH, PARSE)


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
        if not fs.dir_exists(FileSystems.join(segments_dir, name)):
            names.append(name)
        seconds += 1
    return names


def staging_dir(segments_dir: str, name: str) -> str:
    """Where a job writes segment ``name`` before it is complete."""
    staging = FileSystems.join(segments_dir, f".{name}.tmp-{secrets.token_hex(4)}")
    segment = FileSystems.join(segments_dir, name)
    jobstate.changing(
        segment,
        staging,
        f"no segment was added to {segments_dir}",
        f"segment {segment} was added",
    )
    return staging


def install_segment(staging: str, segment: str) -> None:
    """Move a completed staging directory to its segment name."""
    with interrupts.deferred():  # a signal meanwhile: once it is in place
        _install_segment(staging, segment)
        jobstate.published(segment)


def _install_segment(staging: str, segment: str) -> None:
    if FileSystems.get_scheme(segment) in (None, "file"):
        os.makedirs(os.path.dirname(os.path.abspath(segment)), exist_ok=True)
        os.rename(staging, segment)
        return
    for part in (GENERATE, FETCH, PARSE):
        source = FileSystems.join(staging, part)
        if partfiles.has_parts(source):
            partfiles.move_parts(source, FileSystems.join(segment, part))
    fs.remove_dir(staging)


def list_segments(segments_dir: str, parts: Sequence[str] = PARTS) -> list[str]:
    """The segments in ``segments_dir`` that have any of ``parts``, by name.

    Names starting with ``.`` or ``_`` (a job's staging directories) are
    skipped, as Hadoop's input listing skips them.
    """
    names: set[str] = set()
    part_file = f"{partfiles.PART_PREFIX}-*{partfiles.PART_SUFFIX}"
    for part in parts:
        pattern = paths.under(segments_dir, f"*/{paths.escape(part)}/{part_file}")
        for meta in paths.match(pattern):
            name = posixpath.basename(posixpath.dirname(posixpath.dirname(meta.path)))
            if not name.startswith((".", "_")):
                names.add(name)
    return [FileSystems.join(segments_dir, name) for name in sorted(names)]


def staged_parts(segment: str, parts: Sequence[str]) -> dict[str, str]:
    """Fresh staging directories (``SEGMENT/.<part>.tmp``) for a job's parts.

    Raises:
        CrawlError: the segment has no fetch list, or ``fetch`` is asked for
            and the segment is already fetched.
    """
    source = FileSystems.join(segment, GENERATE)
    if not partfiles.has_parts(source):
        raise CrawlError(f"no fetch list at {source}")
    fetched = FileSystems.join(segment, FETCH)
    parsed = FileSystems.join(segment, PARSE)
    if FETCH in parts and partfiles.parts_state(fetched) == "incomplete":
        # an object store copied some of its files when the fetch was killed:
        # it never finished, so nothing read it
        _LOG.warning("removing %s and %s: a fetch stopped installing them", fetched,
                     parsed)  # fmt: skip
        fs.remove_dir(fetched)
        fs.remove_dir(parsed)
    if FETCH in parts and fs.dir_exists(fetched):
        raise CrawlError(
            f"segment {segment} is already fetched ({fetched} exists); "
            f"to fetch it again, remove {fetched} and {parsed}"
        )
    staged = {part: staged_part(segment, part, parts) for part in parts}
    for path in staged.values():
        fs.remove_dir(path)
    return staged


def staged_part(segment: str, part: str, parts: Sequence[str] = ()) -> str:
    """The staging directory (``SEGMENT/.<part>.tmp``) of a job writing ``part``.

    ``parts``: all the parts the job writes (default: this one).
    """
    written = tuple(parts) or (part,)
    are, were = ("are", "were") if len(written) > 1 else ("is", "was")
    names = " and ".join(written)
    jobstate.changing(
        segment,
        FileSystems.join(segment, f".{written[0]}.tmp"),
        f"{segment}'s {names} {are} unchanged",
        f"{segment}'s {names} {were} written",
    )
    return FileSystems.join(segment, f".{part}.tmp")


def install_parts(segment: str, staged: dict[str, str]) -> None:
    """Move staged parts into place (after the job that wrote them succeeded).

    A part being replaced (a segment parsed again) is first renamed aside to
    ``SEGMENT/.<part>.old`` and removed last: a job killed meanwhile leaves
    the part whole or missing, never some of its files.
    """
    with interrupts.deferred():  # a signal meanwhile: once all are in place
        for part, path in staged.items():
            target = FileSystems.join(segment, part)
            aside = FileSystems.join(segment, f".{part}.old")
            fs.remove_dir(aside)
            if fs.dir_exists(target):
                partfiles.rename_dir(target, aside)
            partfiles.rename_dir(path, target)
            fs.remove_dir(aside)
        jobstate.published(segment)


def remove_staged(staged: dict[str, str]) -> None:
    """Remove what is left of staged parts (nothing, once installed)."""
    for path in staged.values():
        fs.remove_dir(path)


def part_dirs(
    segments: Sequence[str], segment_dirs: Sequence[str], part: str, command: str
) -> list[str]:
    """The ``part`` directories of the named segments, then of each ``--dir``'s.

    Raises:
        CrawlError: a named segment lacks ``part``, a directory has none.
        ConfigError: neither a segment nor a directory given.
    """
    found = []
    done = {GENERATE: "generated", FETCH: "fetched", PARSE: "parsed"}[part]
    for segment in segments:
        source = FileSystems.join(segment, part)
        if not partfiles.has_parts(source):
            raise CrawlError(f"segment {segment} is not {done} (no {source})")
        found.append(source)
    for directory in segment_dirs:
        listed = list_segments(directory, (part,))
        if not listed:
            raise CrawlError(f"no {done} segments in {directory}")
        found.extend(FileSystems.join(segment, part) for segment in listed)
    if not found:
        raise ConfigError(f"beamcrawl {command}: give a SEGMENT or --dir SEGMENTS_DIR")
    return list(dict.fromkeys(found))
