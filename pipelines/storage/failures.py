"""A store that refuses a write or a read: one line naming the path, not a traceback.

A full disk (``ENOSPC``, ``EDQUOT``), a read-only file system (``EROFS``)
or a directory this user may not write (``EACCES``, ``EPERM``; an object
store's 403) fails a job wherever it happens: in this process (the lock,
publishing a version) or in a worker, where Beam wraps the ``OSError`` in a
``RuntimeError`` naming the step (or, on a portable runner, reports only
its text). :func:`failure` finds it in any of these; the CLI prints
:meth:`StoreFailure.line` and exits 2. Nothing is lost: the job's clean-up
ran before, and nothing half-written was published.
"""

from __future__ import annotations

import contextlib
import errno
import re
from collections.abc import Iterator
from dataclasses import dataclass

from pipelines.runtime import jobstate

_REASONS = {
    errno.ENOSPC: ("no space left on device", "free some space"),
    errno.EDQUOT: ("disk quota exceeded", "free some space"),
    errno.EROFS: ("read-only file system", "make it writable"),
    errno.EACCES: ("permission denied", "give this user access"),
    errno.EPERM: ("operation not permitted", "give this user access"),
}
_FORBIDDEN = ("permission denied", "give these credentials access")
_ERRNO_TEXT = re.compile(r"\[Errno (\d+)\] [^:\]\[]*(?:: '((?:[^'\\]|\\.)*)')?")


@dataclass(frozen=True)
class StoreFailure:
    """What the store refused, and where."""

    reason: str
    advice: str
    path: str | None

    def line(self) -> str:
        """The command's one line: the path, what stays as it was, what to do."""
        path = self.path or jobstate.writing()
        how = f"stopped, {self.reason}" + (f" ({path})" if path else "")
        return jobstate.stopped_line(how, self.advice)


@contextlib.contextmanager
def naming(path: str) -> Iterator[None]:
    """An ``OSError`` of the block that names no file names ``path``.

    A ``write`` or ``close`` that fails (``ENOSPC``) does not say on which
    file; the caller knows.
    """
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, path) from exc


def failure(exc: BaseException) -> StoreFailure | None:
    """The storage failure behind ``exc`` (its causes, Beam's wrapping); or None."""
    for found, path in _chain(exc, None):
        if isinstance(found, OSError) and found.errno in _REASONS:
            reason, advice = _REASONS[found.errno]
            return StoreFailure(reason, advice, found.filename or path)
        if _http_status(found) == 403:
            return StoreFailure(*_FORBIDDEN, path)
    for found, path in _chain(exc, None):
        text = _ERRNO_TEXT.search(str(found))
        if text and int(text[1]) in _REASONS:
            reason, advice = _REASONS[int(text[1])]
            return StoreFailure(reason, advice, text[2] or path)
    return None


def _chain(
    exc: BaseException | None, path: str | None, depth: int = 0
) -> Iterator[tuple[BaseException, str | None]]:
    """``exc``, its cause and context, and a BeamIOError's errors by path."""
    if exc is None or depth > 20:
        return
    yield exc, path
    details = getattr(exc, "exception_details", None)
    if isinstance(details, dict):
        for key, inner in details.items():
            if isinstance(inner, BaseException):
                where = key if isinstance(key, str) else path
                yield from _chain(inner, where, depth + 1)
    yield from _chain(exc.__cause__, path, depth + 1)
    if not exc.__suppress_context__:
        yield from _chain(exc.__context__, path, depth + 1)


def _http_status(exc: BaseException) -> int | None:
    """The HTTP status of an object store's error: S3's ``code``, GCS's ``code``."""
    code = getattr(exc, "code", None)
    if isinstance(code, int) and type(exc).__module__.startswith(
        ("apache_beam.io.aws", "google.", "botocore")
    ):
        return code
    return None
