"""Per-pipeline costs of Beam 2.62 that beamcrawl takes off, without changing results.

Beam asks ``userstate.get_dofn_specs`` whether each DoFn has state or
timers some twenty times per DoFn while it builds, translates and runs a
pipeline; every call walks all of the DoFn's methods through
``inspect.signature``. That is about half a second per pipeline here, and a
crawl round runs two pipelines. The answer depends only on the DoFn
instance's methods, which do not change, so it is remembered per instance
(weakly: a DoFn that goes away takes its entry with it).
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any

from apache_beam.transforms import userstate

_original_get_dofn_specs = userstate.get_dofn_specs
_specs: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _remembered_get_dofn_specs(dofn: Any) -> Any:
    try:
        return _specs[dofn]
    except (KeyError, TypeError):  # TypeError: not weakly referable or hashable
        pass
    specs = _original_get_dofn_specs(dofn)
    with contextlib.suppress(TypeError):
        _specs[dofn] = specs
    return specs


def install() -> None:
    """Remember DoFn specs (idempotent)."""
    userstate.get_dofn_specs = _remembered_get_dofn_specs
