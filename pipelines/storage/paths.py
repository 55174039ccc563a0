r"""Literal paths where Beam reads glob patterns: ``crawl[1]``, ``a*b``, ``why?``.

Beam's ``FileSystems.match`` reads every path as a pattern (``*`` and ``?``
within a name, ``[...]`` a set of characters, ``**`` across directories;
``FileSystem.translate_pattern``) and says "there is no way to quote
meta-characters". Beam also matches where no pattern is meant: the local
and the GCS filesystem's ``delete`` match the paths they are given, and
Beam's file sinks match their output directory to find and rename what
they wrote. A crawl directory named ``crawl[1]`` was then a pattern that
matched ``crawl1``: a job found no lock objects (and took the lock beside a
running job) and its sink found no files (a traceback).

There is a way to quote after all, through the pattern's own syntax:
``[*]`` and ``[?]`` are sets of one character. ``[[]`` would be one too,
but Python's ``re`` warns of a "possible nested set" for it, so ``[`` is
written as the set of everything but what precedes and follows it in
Unicode: the Python string ``"[!\x00-Z\\-\U0010ffff]"``, which
``translate_pattern`` makes the expression ``[^\x00-Z\\-\U0010ffff]``.
The quoting works on every filesystem whose ``match`` is Beam's (local,
S3, GCS, HDFS): each lists what starts with the text before the first
special character and keeps the names the translated pattern matches. (The
listing then starts higher up: on local disk Beam walks the directory that
holds the first quoted name.)

:func:`escape` quotes a path, :func:`under` makes a pattern of a literal
directory and a pattern of names; :func:`match` lists, :func:`delete`
deletes literally on every filesystem, and :class:`LiteralSink` is Beam's
file sink with its own output quoted.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import shutil
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar, cast

from apache_beam.io.filebasedsink import FileBasedSink
from apache_beam.io.filesystem import BeamIOError, FileMetadata
from apache_beam.io.filesystems import FileSystems
from apache_beam.transforms.ptransform import PTransform

_QUOTED = {"[": "[!\x00-Z\\-\U0010ffff]", "*": "[*]", "?": "[?]"}
_SPECIAL = re.compile(r"[\[*?]")
_MATCHING_DELETE = (None, "file", "gs")
"""Schemes whose filesystem's ``delete`` matches the paths it is given."""


def escape(path: str) -> str:
    """``path`` as a pattern that matches exactly ``path``.

    A relative local path whose first name is quoted starts with ``./``:
    Beam lists the directory of what precedes the first special character,
    which would otherwise be ``""`` (and list nothing). What such a pattern
    matches starts with ``./`` too: compare names, not whole paths.
    """
    quoted = _SPECIAL.sub(lambda found: _QUOTED[found[0]], path)
    if quoted != path and is_local(path) and not os.path.isabs(path):
        first = path.split(os.sep, 1)[0]
        if _SPECIAL.search(first):
            return os.path.join(os.curdir, quoted)
    return quoted


def under(directory: str, pattern: str) -> str:
    """A pattern of names (``part-*.avro``, ``**``) in the literal ``directory``."""
    return FileSystems.join(escape(directory), pattern)


def match(pattern: str, limit: int | None = None) -> list[FileMetadata]:
    """The files matching ``pattern`` (at most ``limit``); none if there are none."""
    results = FileSystems.match([pattern], None if limit is None else [limit])
    return list(results[0].metadata_list) if results else []


def is_local(path: str) -> bool:
    """Whether ``path`` is on the local filesystem."""
    return FileSystems.get_scheme(path) in (None, "file")


def delete(paths: Iterable[str]) -> None:
    """Delete these files (not directories), each named literally; gone ones too.

    Raises:
        OSError: a file that is there could not be deleted.
    """
    paths = list(paths)
    if not paths:
        return
    if is_local(paths[0]):
        for path in paths:
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)
        return
    scheme = FileSystems.get_scheme(paths[0])
    if scheme in _MATCHING_DELETE:
        present = [meta.path for path in paths for meta in match(escape(path))]
        if present:
            FileSystems.delete([escape(path) for path in present])
        return
    FileSystems.delete(paths)


def delete_tree(directory: str) -> None:
    """Delete ``directory`` and everything under it, if it is there.

    On an object store a directory is a prefix: what is under ``directory/``.
    """
    if is_local(directory):
        if os.path.isdir(directory) and not os.path.islink(directory):
            shutil.rmtree(directory, ignore_errors=True)  # as much as can go
        else:
            with contextlib.suppress(FileNotFoundError):
                os.remove(directory)
        return
    found = [meta.path for meta in match(under(directory, "**"))]
    if FileSystems.exists(directory):
        found.append(directory)
    delete(found)


_ReadAll = TypeVar("_ReadAll", bound=PTransform)  # type: ignore[type-arg]


def reading_by_name(read_all: _ReadAll) -> _ReadAll:
    """Beam's ``ReadAllFromAvro`` or ``ReadAllFromText``, reading files by name.

    Those match each element (give them quoted patterns), then make a source
    of every file found, which matches that file's path once more, as a
    pattern: a file ``a[1].avro`` was read as ``a1.avro``, or not at all.
    Here the source is given the path quoted.
    """
    files = cast(Any, read_all)._read_all_files  # Beam's ReadAllFiles
    files._source_from_file = _SourceByName(files._source_from_file)
    return read_all


class _SourceByName:
    """A ReadAll's ``source_from_file`` that gets the file's path quoted."""

    def __init__(self, make: Callable[[str], Any]) -> None:
        self._make = make

    def __call__(self, path: str) -> Any:
        return self._make(escape(path))


class LiteralSink(FileBasedSink):
    """Beam's file sink, with its output prefix and temporary directory quoted.

    Subclass it as Beam's ``FileBasedSink`` (``open``, ``write_record``,
    ``close``). Beam's sink matches ``<prefix>*<suffix>`` to delete earlier
    output and to find what it renames, and deletes its temporary directory
    by a match; here each pattern quotes the literal part, and the temporary
    directory is deleted by name. These overrides are of Beam's private
    methods (there is no public way); tests/pipelines/storage runs them on
    the oldest and the newest Beam (.ci/run).
    """

    def _get_final_name_glob(self, num_shards: int, *window: Any) -> str:
        """Beam's glob of the final names, its literal prefix and suffix quoted.

        ``window``: Beam 2.7x names files per window (a batch job's sinks
        write one global window, which Beam names as none); 2.62 takes none.
        """
        prefix = self.file_path_prefix.get()
        suffix = self.file_name_suffix.get()
        glob = super()._get_final_name_glob(num_shards, *window)
        shards = glob[len(prefix) : len(glob) - len(suffix)]
        return escape(prefix) + shards + escape(suffix)

    def _check_state_for_finalize_write(
        self, writer_results: list[str], num_shards: int, *window: Any
    ) -> tuple[list[str], list[str], list[str], int]:
        """Beam's, but for the temporary directory's pattern, which is quoted."""
        if not writer_results:
            return [], [], [], 0
        temp_dir = FileSystems.split(writer_results[0])[0]
        written = {_name(meta.path) for meta in match(under(temp_dir, "*"))}
        dst_glob = self._get_final_name_glob(num_shards, *window)
        installed = {_name(meta.path) for meta in match(dst_glob)}
        src_files, dst_files, delete_files, skipped = [], [], [], 0
        for shard_num, src in enumerate(writer_results):
            dst = self._get_final_name(shard_num, num_shards, *window)
            if _name(src) not in written:
                if _name(dst) not in installed:
                    raise BeamIOError(f"src and dst files do not exist: {src}, {dst}")
                skipped += 1  # renamed by an earlier attempt
            elif _name(dst) in installed and _same(src, dst):
                delete_files.append(src)
            else:
                src_files.append(src)
                dst_files.append(dst)
        self._report_sink_lineage(dst_glob, dst_files)
        if FileSystems.get_scheme(dst_glob) in _MATCHING_DELETE:  # Beam deletes them
            delete_files = [escape(path) for path in delete_files]
        return src_files, dst_files, delete_files, skipped

    def finalize_write(
        self, init_result: str, writer_results: list[str], pre_finalize: Any
    ) -> Iterator[str]:
        yield from super().finalize_write(init_result, writer_results, pre_finalize)
        if _SPECIAL.search(init_result):  # Beam's delete read its name as a pattern
            delete_tree(init_result)


def _name(path: str) -> str:
    """The last name of ``path`` (what a match gave may start with ``./``)."""
    return posixpath.basename(path.rstrip("/"))


def _same(one: str, other: str) -> bool:
    return bool(FileSystems.checksum(one) == FileSystems.checksum(other))
