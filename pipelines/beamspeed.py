"""Per-pipeline costs of Beam 2.62 that beamcrawl takes off, without changing results.

Beam asks ``userstate.get_dofn_specs`` whether each DoFn has state or
timers some twenty times per DoFn while it builds, translates and runs a
pipeline; every call walks all of the DoFn's methods through
``inspect.signature``. That is about half a second per pipeline here, and a
crawl round runs two pipelines. The answer depends only on the DoFn
instance's methods, which do not change, so it is remembered per instance
(weakly: a DoFn that goes away takes its entry with it).

Beam also reads a function's arguments through ``inspect.signature`` each
time it applies, checks and runs a transform
(``core.get_function_args_defaults``, ~0.1 s per pipeline); the arguments of
a function do not change either, so they are remembered per function.
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any

from apache_beam.transforms import core, userstate

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


_original_get_function_args_defaults = core.get_function_args_defaults
_arguments: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _remembered_get_function_args_defaults(f: Any) -> Any:
    """Beam's answer for ``f``, remembered per function.

    A bound method is remembered under its function (the answer leaves out
    ``self``, whatever the instance).
    """
    function = getattr(f, "__func__", f)
    bound = function is not f
    try:
        args, defaults = _arguments[function][bound]
        return list(args), list(defaults)
    except (KeyError, TypeError):  # TypeError: not weakly referable or hashable
        pass
    args, defaults = _original_get_function_args_defaults(f)
    with contextlib.suppress(TypeError):
        _arguments.setdefault(function, {})[bound] = (tuple(args), tuple(defaults))
    return args, defaults


def install() -> None:
    """Remember DoFn specs and function arguments (idempotent)."""
    userstate.get_dofn_specs = _remembered_get_dofn_specs
    core.get_function_args_defaults = _remembered_get_function_args_defaults
