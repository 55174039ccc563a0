"""Path names without Beam: joining them and telling local from object store.

The command line builds its requests (``CRAWL_DIR/crawldb``, "is this a
``gs://`` path") before Beam is imported; these give the answers Beam's
``FileSystems.join`` and ``FileSystems.get_scheme`` give.
"""

from __future__ import annotations

import os
import re

_SCHEME = re.compile(r"(?P<scheme>[a-zA-Z][-a-zA-Z0-9+.]*)://.*")


def scheme(path: str) -> str | None:
    """``gs`` for ``gs://bucket/x``; None for a local path (as Beam names them)."""
    match = _SCHEME.match(path.strip())
    return match.group("scheme").lower() if match else None


def is_local(path: str) -> bool:
    """Whether ``path`` is on this machine's disk (no scheme, or ``file://``)."""
    return scheme(path) in (None, "file")


def join(base: str, *parts: str) -> str:
    """``base/part/...``: ``os.path.join`` locally, ``/`` in an object store."""
    if scheme(base) is None:
        return os.path.join(base, *parts)
    joined = base
    for part in parts:
        joined = joined.rstrip("/") + "/" + part.lstrip("/")
    return joined


def missing_here(path: str) -> bool:
    """Whether ``path`` is a plain local path with nothing at it.

    An object store's path (or ``file://``) is not looked at: that needs
    Beam's filesystems, and is the job's to check.
    """
    return scheme(path) is None and not os.path.exists(path)
