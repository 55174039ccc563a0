"""Warnings about failures that repeat: the first few logged with their cause.

A job meets the same failure many times over: every host of a crawldb when
DNS is down, every malformed line of a seed file. Each is counted (a Beam
counter, by the caller); :func:`warn_first` logs only the first ``limit``
of a kind in the whole process, whichever worker thread, DoFn instance or
bundle meets them, with the cause (:func:`root_cause`: the innermost
exception's class and message, ``gaierror: [Errno -2] Name or service not
known``), and the last one it logs says that further ones are only counted,
and under which counter. A kind is a logger's: two modules' kinds never mix.

The state is the process's: a library user running several pipelines in
one process sees each kind's first ones once; :func:`forget` starts over.
"""

from __future__ import annotations

import logging
import threading

_LOCK = threading.Lock()
_SEEN: dict[tuple[str, str], int] = {}


def warn_first(
    logger: logging.Logger,
    kind: str,
    message: str,
    *args: object,
    cause: BaseException | str | None = None,
    counter: str = "",
    limit: int = 1,
) -> bool:
    """Log ``message % args`` if fewer than ``limit`` of ``kind`` were logged.

    Args:
        logger: the module's logger; the line is a WARNING.
        kind: what repeats (``failed_fetches``, ``rejected_seed``).
        message: a ``%``-format message, as ``logger.warning`` takes.
        *args: its arguments.
        cause: why: an exception (its :func:`root_cause` is appended) or a
            text already saying it.
        counter: the counter (``Sitemap/failed_fetches``) that counts every
            one, named on the last line logged.
        limit: how many of the kind are logged in this process.

    Returns:
        Whether this one was logged.
    """
    key = (logger.name, kind)
    with _LOCK:
        seen = _SEEN.get(key, 0)
        if seen >= limit:
            return False
        _SEEN[key] = seen + 1
    if cause is not None:
        text = root_cause(cause) if isinstance(cause, BaseException) else cause
        message, args = f"{message}: %s", (*args, text)
    if seen + 1 == limit:
        counted = f"counted as {counter}" if counter else "counted"
        message += f" (further ones only {counted})"
    logger.warning(message, *args)
    return True


def logged(logger: logging.Logger, kind: str) -> int:
    """How many of ``kind`` :func:`warn_first` logged in this process."""
    with _LOCK:
        return _SEEN.get((logger.name, kind), 0)


def forget() -> None:
    """Start over: each kind's first ones are logged again (tests; a new job)."""
    with _LOCK:
        _SEEN.clear()


def root_cause(exc: BaseException) -> str:
    """``Class: message`` of the innermost exception ``exc`` was caused by.

    Follows ``__cause__`` and ``__context__``, and the exceptions requests
    and urllib3 wrap in ``args`` or ``reason``, to the end:
    ``ConnectionError(MaxRetryError(NameResolutionError(gaierror)))`` gives
    ``gaierror: [Errno -2] Name or service not known``.
    """
    inner = innermost(exc)
    text = str(inner)
    return f"{type(inner).__name__}: {text}" if text else type(inner).__name__


def innermost(exc: BaseException) -> BaseException:
    """The exception at the end of ``exc``'s chain of causes (``exc`` if none)."""
    inner, seen = exc, {id(exc)}
    while (cause := _cause_of(inner)) is not None and id(cause) not in seen:
        seen.add(id(cause))
        inner = cause
    return inner


def _cause_of(exc: BaseException) -> BaseException | None:
    reason = getattr(exc, "reason", None)  # urllib3's MaxRetryError
    if isinstance(reason, BaseException):
        return reason
    for arg in exc.args:  # requests and urllib3 wrap the cause in args
        if isinstance(arg, BaseException):
            return arg
    return exc.__cause__ or exc.__context__
