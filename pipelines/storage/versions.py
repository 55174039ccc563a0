"""A crawldb's (or linkdb's) versions: whole directories, published by one object.

On an object store a rename is a copy of every object and then a delete, so
Nutch's install (rename ``current`` to ``old``, the new version to
``current``) can stop halfway and leave a version half old, half new. Here
no version is ever renamed or changed once written::

    <db>/versions/<id>/part-*.avro   one job's output, written whole
    <db>/published/<seq>.json        publishes a version: written last
    <db>/current -> versions/<id>    local disk only: a symlink, so that
    <db>/old -> versions/<id>        current/part-*.avro reads as before

A job writes its new version under ``versions/``; only when the pipeline
succeeded does it write the next ``published/<seq>.json`` (one small new
object: it appears whole or not at all, on every Beam filesystem, and is
never overwritten), naming the version and the one kept as its backup
(``db.preserve.backup``). Readers take the highest ``published`` object.
A job killed before that leaves an unpublished version, which the next
lock holder deletes; killed after, the new version is the current one.
Versions other than the current one and its backup, and older ``published``
objects, are deleted after each publish.

A crawldb written by an older beamcrawl (``current/`` and ``old/``
directories) is read as it is and becomes versioned on its first write: on
local disk ``current/`` is renamed into ``versions/`` after the first
``published`` object names it.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import posixpath
import secrets
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from crawllib.errors import CorruptFileError, CrawlDbMissingError, CrawlError
from pipelines.runtime import interrupts, jobstate
from pipelines.storage import failures as storefailures
from pipelines.storage import fs, locks, partfiles, paths

_LOG = logging.getLogger(__name__)

VERSIONS = "versions"
PUBLISHED = "published"
CURRENT = "current"
OLD = "old"
_LEGACY_NEW_PREFIX = "tmp-"
_POINTER_SUFFIX = ".json"
_READ_ATTEMPTS = 5


@dataclass(frozen=True)
class Pointer:
    """What one ``published/<seq>.json`` says, paths relative to the db."""

    seq: int
    version: str
    previous: str | None


def new_version_dir(db: str) -> str:
    """A fresh ``<db>/versions/<id>`` for a job's new version (not published)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    new_dir = FileSystems.join(db, VERSIONS, f"{stamp}-{secrets.token_hex(4)}")
    jobstate.changing(db, new_dir, f"{db} is unchanged", f"{db} was updated")
    return new_dir


def current_version(db: str) -> str | None:
    """The directory of ``db``'s current version; None if it has none.

    The newest published version; for a db an older beamcrawl wrote,
    ``current/`` (or ``old/``, where its install stopped between renames).
    """
    return _current_of(db, latest_pointer(db))


def _current_of(db: str, pointer: Pointer | None) -> str | None:
    candidates = [pointer.version] if pointer else []
    for relative in [*candidates, CURRENT, OLD]:
        path = FileSystems.join(db, relative)
        if partfiles.has_parts(path):
            if relative == OLD and not pointer:
                _LOG.warning("%s has no current version; reading %s", db, path)
            return path
    return None


def exists(db: str) -> bool:
    """Whether ``db`` has a current version."""
    return current_version(db) is not None


def require(db: str) -> str:
    """The part-file glob of ``db``'s current version; a user error if none.

    Raises:
        CrawlDbMissingError: no crawldb (or linkdb) at ``db``.
    """
    current = current_version(db)
    if current is None:
        raise CrawlDbMissingError(f"no crawldb at {db} (no published version in it)")
    return partfiles.parts_pattern(current)


def kept_versions(db: str) -> list[str]:
    """The directories of the current version and its backup, if any."""
    pointer = latest_pointer(db)
    names = [pointer.version, pointer.previous] if pointer else [CURRENT, OLD]
    return [FileSystems.join(db, name) for name in names if name]


@contextlib.contextmanager
def locked(db: str, force: bool = False) -> Iterator[None]:
    """Hold ``db``'s lock (:mod:`~pipelines.storage.locks`), tidied of leftovers.

    Raises:
        CrawlDbLockedError: another job holds it and ``force`` is false.
    """
    with locks.hold(db, force=force):
        tidy(db)
        yield


def latest_pointer(db: str) -> Pointer | None:
    """The newest ``published`` object of ``db``, None if there is none.

    Raises:
        CorruptFileError: the newest one is not a pointer this module wrote.
    """
    for _ in range(_READ_ATTEMPTS):
        paths = _pointer_paths(db)
        if not paths:
            return None
        try:
            return _read_pointer(paths[-1])
        except FileNotFoundError:
            continue  # removed by a publish since the listing: list again
    raise CorruptFileError(f"{db}: its published versions keep disappearing")


def publish(db: str, new_dir: str, keep_backup: bool = True) -> None:
    """Make ``new_dir`` (from :func:`new_version_dir`) ``db``'s current version.

    Call it holding ``db``'s lock, after the job that wrote ``new_dir``
    succeeded. The version it replaces is kept as the backup if
    ``keep_backup``; every other version is deleted.
    """
    if not partfiles.has_parts(new_dir):
        raise CrawlError(f"{new_dir}: no part files to publish")
    pointer = latest_pointer(db)
    before = _current_of(db, pointer)
    previous, legacy = None, None
    if keep_backup and before is not None:
        previous = _relative(db, before)
        if fs.is_local(db) and previous in (CURRENT, OLD) and _real_dir(before):
            legacy = before
            previous = _relative(db, new_version_dir(db)) + "-legacy"
    published = Pointer(
        pointer.seq + 1 if pointer else 1, _relative(db, new_dir), previous
    )
    with interrupts.deferred():  # a signal now: after the version is published
        _write_pointer(db, published)
        jobstate.published(db)
        if legacy is not None and previous is not None:
            os.rename(legacy, FileSystems.join(db, previous))
    tidy(db, published)


def roll_back(db: str) -> str:
    """Make the backup the current version again; the current one its backup.

    Call it holding the lock. Returns the directory now current.

    Raises:
        CrawlDbMissingError: there is no published backup to go back to.
    """
    pointer = latest_pointer(db)
    if pointer is None or pointer.previous is None:
        raise CrawlDbMissingError(f"{db} has no backup version to go back to")
    backup = FileSystems.join(db, pointer.previous)
    if not partfiles.has_parts(backup):
        raise CrawlDbMissingError(f"{db}: its backup {backup} has no part files")
    published = Pointer(pointer.seq + 1, pointer.previous, pointer.version)
    jobstate.changing(db, backup, f"{db} is unchanged", f"{db} was rolled back")
    with interrupts.deferred():
        _write_pointer(db, published)
        jobstate.published(db)
    tidy(db, published)
    return backup


@contextlib.contextmanager
def new_version(db: str, keep_backup: bool = True) -> Iterator[str]:
    """A directory for a job's new version: published if the block succeeds.

    If the block raises, the directory is removed and the current version
    stays; a killed job leaves it behind, for the next lock holder to clear.
    """
    new_dir = new_version_dir(db)
    try:
        yield new_dir
    except BaseException:
        fs.remove_dir(new_dir)
        raise
    publish(db, new_dir, keep_backup=keep_backup)


@dataclass(frozen=True)
class Replacement:
    """A job's hold on a crawldb (or linkdb): what it reads, where it writes."""

    current: str | None
    """The part-file glob of the current version, read under the lock; None:
    the database is new."""
    new_dir: str
    """The directory the job writes its new version to."""
    current_dir: str | None = None
    """The current version's directory (None: the database is new)."""

    @property
    def parts(self) -> str:
        """:attr:`current` of a database that must exist (not ``create``).

        Raises:
            CrawlDbMissingError: there is no current version.
        """
        if self.current is None:
            raise CrawlDbMissingError("no published version to read")
        return self.current


@contextlib.contextmanager
def replacing(
    db: str, *, keep_backup: bool = True, force: bool = False, create: bool = False
) -> Iterator[Replacement]:
    """Replace ``db``'s current version by what the block writes: the one way.

    The lock is held for the block; the current version is read under it;
    the new version is published if the block succeeds and removed if not,
    so ``db`` is as before or as after. ``create`` allows a new database
    (inject, invertlinks); otherwise a missing one is one line before the
    lock is taken.

    Raises:
        CrawlDbMissingError: no ``db`` and not ``create``.
        CrawlDbLockedError: another job holds it and ``force`` is false.
    """
    if not create:
        require(db)
    with locked(db, force=force), new_version(db, keep_backup) as new_dir:
        current = current_version(db)
        if current is None and not create:
            require(db)  # removed while we waited for the lock
        pattern = None if current is None else partfiles.parts_pattern(current)
        yield Replacement(pattern, new_dir, current)


def tidy(db: str, pointer: Pointer | None = None) -> None:
    """Delete what no published version needs; fix the local links.

    Call it holding the lock: unpublished versions are then from jobs that
    did not finish, never from a running one. Also finishes a migration
    from ``current/`` a killed job left halfway. ``pointer``: the one just
    published, if the caller knows it.
    """
    # after a publish, the version two back goes as a matter of course; at
    # the start of a job, a version to remove was left by a killed one
    log = _LOG.debug if pointer else _LOG.warning
    pointer = pointer or latest_pointer(db)
    if pointer is None:
        _remove_legacy_new_versions(db)
        return
    keep = {pointer.version, pointer.previous} - {None}
    if fs.is_local(db):
        _finish_local_migration(db, pointer)
        _link(db, CURRENT, pointer.version)
        _link(db, OLD, pointer.previous)
    for relative in _version_dirs(db) - keep:
        log("removing %s, not the current version or its backup", relative)
        fs.remove_dir(FileSystems.join(db, relative))
    for legacy in (CURRENT, OLD):
        if legacy not in keep and not fs.is_local(db):
            fs.remove_dir(FileSystems.join(db, legacy))
    _remove_legacy_new_versions(db)
    for path in _pointer_paths(db)[:-1]:
        _delete(path)


def _relative(db: str, path: str) -> str:
    prefix = db.rstrip("/") + "/"
    if not path.startswith(prefix):
        raise ValueError(f"{path} is not in {db}")
    return path[len(prefix) :].rstrip("/")


def _real_dir(path: str) -> bool:
    return os.path.isdir(path) and not os.path.islink(path)


def _pointer_paths(db: str) -> list[str]:
    pattern = paths.under(FileSystems.join(db, PUBLISHED), f"*{_POINTER_SUFFIX}")
    found = [meta.path for meta in paths.match(pattern)]
    return sorted(p for p in found if _seq_of(p) is not None)


def _seq_of(path: str) -> int | None:
    stem = posixpath.basename(path).removesuffix(_POINTER_SUFFIX)
    return int(stem) if stem.isdigit() else None


def _read_pointer(path: str) -> Pointer:
    try:
        with fs.open_raw(path) as f:
            raw = bytes(f.read())
    except Exception:  # each filesystem says "not found" its own way
        if not FileSystems.exists(path):
            raise FileNotFoundError(path) from None
        raise
    try:
        data = json.loads(raw.decode("utf-8"))
        version, previous = data["version"], data.get("previous")
        if not isinstance(version, str) or not version.startswith(VERSIONS + "/"):
            raise ValueError(f"version {version!r}")
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptFileError(
            f"{path}: not a published-version object ({exc}); {partfiles.DAMAGED_HINT}"
        ) from None
    seq = _seq_of(path) or 0
    return Pointer(seq, version, previous if isinstance(previous, str) else None)


def _write_pointer(db: str, pointer: Pointer) -> None:
    body = {
        "version": pointer.version,
        "previous": pointer.previous,
        "published": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    data = (json.dumps(body, indent=1) + "\n").encode()
    path = FileSystems.join(db, PUBLISHED, f"{pointer.seq:010d}{_POINTER_SUFFIX}")
    if fs.is_local(path):
        with storefailures.naming(path):
            _write_local_atomically(path, data)
        return
    with (
        storefailures.naming(path),
        FileSystems.create(path, compression_type=CompressionTypes.UNCOMPRESSED) as f,
    ):
        f.write(data)  # one new object: it appears whole or not at all


def _write_local_atomically(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    temp = f"{path}.tmp-{secrets.token_hex(4)}"
    try:
        with open(temp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temp)
        raise


def _finish_local_migration(db: str, pointer: Pointer) -> None:
    """``current/`` renamed to the backup a first publish named, if not yet."""
    legacy = FileSystems.join(db, CURRENT)
    if pointer.previous and _real_dir(legacy):
        target = FileSystems.join(db, pointer.previous)
        if not os.path.exists(target):
            os.rename(legacy, target)


def _link(db: str, name: str, relative: str | None) -> None:
    """Point ``<db>/<name>`` at ``relative`` (a symlink), or remove it if None."""
    path = os.path.join(db, name)
    if _real_dir(path):
        shutil.rmtree(path)
    if relative is None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        return
    if os.path.islink(path) and os.readlink(path) == relative:
        return
    temp = f"{path}.link-{secrets.token_hex(4)}"
    os.symlink(relative, temp)
    os.replace(temp, path)


def _version_dirs(db: str) -> set[str]:
    """``versions/<id>`` of every version directory with anything in it."""
    root = FileSystems.join(db, VERSIONS)
    if fs.is_local(db):
        names = os.listdir(root) if os.path.isdir(root) else []
        return {f"{VERSIONS}/{name}" for name in names}
    found = set()
    for meta in paths.match(paths.under(root, "**")):
        rest = _relative(root, meta.path)
        found.add(f"{VERSIONS}/{rest.split('/', 1)[0]}")
    return found


def _remove_legacy_new_versions(db: str) -> None:
    """``tmp-*`` directories an older beamcrawl's killed job left."""
    if fs.is_local(db):
        names = os.listdir(db) if os.path.isdir(db) else []
        stale = [os.path.join(db, n) for n in names if n.startswith(_LEGACY_NEW_PREFIX)]
    else:
        pattern = paths.under(db, f"{_LEGACY_NEW_PREFIX}*/*")
        stale = sorted({posixpath.dirname(meta.path) for meta in paths.match(pattern)})
    for path in stale:
        _LOG.warning("removing %s, left by a job that did not finish", path)
        fs.remove_dir(path)


def _delete(path: str) -> None:
    with contextlib.suppress(OSError):
        paths.delete([path])
