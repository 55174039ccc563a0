"""A crawldb's (or linkdb's) lock, safe on local disk and on object stores.

Nutch's lock is a file created if absent. Beam's ``FileSystems`` has no
create-if-absent, and gcp-storage-emulator ignores the ``ifGenerationMatch=0``
of a conditional create on GCS (moto honours S3's ``If-None-Match``), so the
lock needs only what every Beam filesystem gives: a whole object appears
at once, and a listing made after a write sees it (S3 since December 2020,
GCS, HDFS and local disks are strongly consistent)::

    <db>/.lock/<UTC time>-<random>.asking   a job asking for the lock
    <db>/.lock/<UTC time>-<random>.held     the job holding it

A job writes its ``.asking`` object (its owner: host, pid, command, time),
then lists ``.lock/``. It has the lock if it sees only its own object; it
then writes ``.held`` and deletes ``.asking``, and deletes ``.held`` when
done. Two jobs cannot both have it: each listed after its own write, so the
second writer's listing sees the first's object, and the first always has
one there until it releases. When jobs ask at the same moment and see each
other, all withdraw at once but the first asking one by name (names start
with the time), which waits for them to go, unless a ``.held`` object says
a job already has the lock; so exactly one runs. A job killed while holding
the lock leaves its object:
the next job is refused with a line naming it, and ``--force`` removes it
(Nutch's ``-force``). A lock whose holder is provably dead
(:mod:`pipelines.storage.lockowner`: written on this host since its boot,
by a process no longer running) is named stale; on a local disk it is
removed with one log line, and the job goes on. A ``.locked`` file left by
an older beamcrawl counts as a held lock too (never known to be stale).
"""

from __future__ import annotations

import contextlib
import logging
import os
import posixpath
import secrets
import time
from collections.abc import Iterator

from apache_beam.io.filesystem import CompressionTypes
from apache_beam.io.filesystems import FileSystems

from crawllib.errors import CrawlDbLockedError
from pipelines.runtime import interrupts
from pipelines.storage import failures as storefailures
from pipelines.storage import fs, lockowner, paths

_LOG = logging.getLogger(__name__)

LOCK_DIR = ".lock"
ASK_SUFFIX = ".asking"
HELD_SUFFIX = ".held"
LEGACY_LOCK = ".locked"
WAIT_S = 10.0
"""How long the first of several jobs asking at once waits for the others."""
_POLL_S = 0.1


@contextlib.contextmanager
def hold(db: str, force: bool = False, wait_s: float = WAIT_S) -> Iterator[None]:
    """Hold ``db``'s lock for the duration.

    Raises:
        CrawlDbLockedError: another job holds it (or left it behind) and
            ``force`` is false.
    """
    asking = _lock_path(db)
    held = asking.removesuffix(ASK_SUFFIX) + HELD_SUFFIX
    if force:
        _break(db, holders(db))
    try:  # from the first write: whatever stops the job (a signal) releases it
        _write(asking)
        _wait_alone(db, asking, wait_s)
        _write(held)
        _delete(asking)
        yield
    finally:
        with interrupts.deferred():  # released whole, even if a signal comes
            _delete(asking)
            _delete(held)
            if fs.is_local(db):  # no empty directory left behind on local disk
                with contextlib.suppress(OSError):
                    os.rmdir(FileSystems.join(db, LOCK_DIR))


def holders(db: str) -> list[str]:
    """The lock objects in ``db`` now (a held or a left-behind lock first)."""
    return _in_order(db)


def _lock_path(db: str) -> str:
    now = time.time()
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f"{now % 1:.3f}"[1:]
    name = f"{stamp}Z-{secrets.token_hex(6)}{ASK_SUFFIX}"
    return FileSystems.join(db, LOCK_DIR, name)


def _write(path: str) -> None:
    with (
        storefailures.naming(path),
        FileSystems.create(path, compression_type=CompressionTypes.UNCOMPRESSED) as f,
    ):
        f.write(lockowner.lock_text().encode())


def _in_order(db: str) -> list[str]:
    """The lock objects: held ones first, then the asking ones by name.

    A name starts with the time its job asked; it never changes, so every
    job sees the same order (a file's modification time would not do: it
    moves while the file is written).
    """
    pattern = paths.under(FileSystems.join(db, LOCK_DIR), "*")
    found = [
        (not meta.path.endswith(HELD_SUFFIX), posixpath.basename(meta.path), meta.path)
        for meta in paths.match(pattern)
        if meta.path.endswith((ASK_SUFFIX, HELD_SUFFIX))
    ]
    legacy = FileSystems.join(db, LEGACY_LOCK)
    if FileSystems.exists(legacy):
        found.append((False, "", legacy))
    return [path for *_, path in sorted(found)]


def _wait_alone(db: str, mine: str, wait_s: float) -> None:
    deadline = time.monotonic() + wait_s
    broken: set[str] = set()
    while True:
        ordered = _in_order(db)
        name = posixpath.basename(mine)  # (a listing may spell the db otherwise)
        others = [path for path in ordered if posixpath.basename(path) != name]
        if not others:
            return
        if others[0] == ordered[0] or time.monotonic() >= deadline:
            blocking = others[0]  # held, or asking before this job
            if blocking not in broken and _break_if_stale(db, blocking):
                broken.add(blocking)
                continue
            raise _locked(db, blocking)
        time.sleep(_POLL_S)


def _break_if_stale(db: str, lock: str) -> bool:
    """Remove ``lock`` if it is on local disk and its holder is provably dead."""
    text = _read_owner(lock)
    if not fs.is_local(db) or text is None or not lockowner.is_stale(text):
        return False
    _LOG.warning(
        "removing the stale lock %s (%s: %s)",
        lock,
        lockowner.described(text),
        lockowner.stale_reason(text).removeprefix("stale: "),
    )
    _delete(lock)
    return True


def _break(db: str, stale: list[str]) -> None:
    for path in stale:
        text = _read_owner(path)
        owner = lockowner.described(text) if text is not None else "gone meanwhile"
        _LOG.warning("--force: removing the lock %s (%s)", path, owner)
        _delete(path)


def _delete(path: str) -> None:
    with contextlib.suppress(OSError):
        paths.delete([path])


def _read_owner(path: str) -> str | None:
    """What a lock object says; None if it is gone (its job moved on)."""
    try:
        with FileSystems.open(
            path, compression_type=CompressionTypes.UNCOMPRESSED
        ) as f:
            return bytes(f.read(1000)).decode("utf-8", "replace").strip()
    except Exception:  # noqa: BLE001 - GCS raises its own NotFound, S3 an OSError
        return None


def _locked(db: str, lock: str) -> CrawlDbLockedError:
    """The one line for a refused job, naming a lock object that is there.

    The object seen may be gone by now (an asking job that got the lock and
    wrote its ``.held``): the holders are listed again.
    """
    owner = _read_owner(lock)
    for other in [] if owner else holders(db):
        owner = _read_owner(other)
        if owner:
            lock = other
            break
    text = owner or ""
    if lockowner.is_stale(text):  # not broken: not on a local disk
        return CrawlDbLockedError(
            f"{db} is locked by another job, no longer running: the lock is "
            f"stale ({lock}: {lockowner.described(text)}; "
            f"{lockowner.stale_reason(text)}); delete the lock or pass --force"
        )
    return CrawlDbLockedError(
        f"{db} is locked by another job ({lock}: {lockowner.described(text)}); "
        "if none is running, delete the lock or pass --force"
    )
