"""Beam imported without its dependencies' notices about their own future.

None of these is anything a beamcrawl user can act on:

- with apache-beam[gcp] installed, importing Beam imports Google's client
  libraries, which warn (``FutureWarning``) about the Python and grpcio
  versions they will drop;
- Beam 2.77 without the gcp extra logs ``apitools not found`` through the
  root logger when it is imported (and, when the root logger has no handler
  yet, that call installs one: ``logging.basicConfig``);
- Beam's S3 filesystem calls its own deprecated ``list_prefix``, a
  ``BeamDeprecationWarning`` that Beam makes show once per process.

:func:`imports_quieted` silences them around an import and then puts the
warnings filters and the root logger back as they were: importing
``beamcrawl`` imports Beam inside it (``beamcrawl/_quiet.py``), so a
library user's process keeps its own filters and logging. The
``beamcrawl`` command, whose process is its own, sets them for good
(:func:`quiet_this_process`). This module imports no Beam.
"""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Iterator

_IGNORED: tuple[tuple[type[Warning], str, str], ...] = (
    (FutureWarning, "", r"google\."),  # Google's clients: Python, grpcio versions
    (DeprecationWarning, "list_prefix is deprecated", ""),  # Beam's S3 filesystem
)
"""(category, message regex, module regex) of the warnings silenced."""
_LOGGED = ("apitools not found",)
"""The start of the root logger's messages dropped."""


class _DropNotices(logging.Filter):
    """Drops the root logger's records that :data:`_LOGGED` names."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(_LOGGED)


def _ignore_warnings() -> None:
    for category, message, module in _IGNORED:
        warnings.filterwarnings("ignore", message, category, module)


@contextlib.contextmanager
def imports_quieted() -> Iterator[None]:
    """Inside: the notices above are silenced; after: filters and logging as before."""
    root = logging.getLogger()
    notices = _DropNotices()
    spare = None if root.handlers else logging.NullHandler()
    if spare is not None:  # keeps logging.warning() from calling basicConfig()
        root.addHandler(spare)
    root.addFilter(notices)
    try:
        with warnings.catch_warnings():
            _ignore_warnings()
            yield
    finally:
        root.removeFilter(notices)
        if spare is not None:
            root.removeHandler(spare)


def quiet_this_process() -> None:
    """Silence the notices for the rest of the process: the ``beamcrawl`` command.

    Beam makes its deprecation warnings show once when it is imported, ahead
    of these filters: the command imports Beam inside :func:`imports_quieted`,
    which takes that back.
    """
    _ignore_warnings()
    root = logging.getLogger()
    if not any(isinstance(f, _DropNotices) for f in root.filters):
        root.addFilter(_DropNotices())
