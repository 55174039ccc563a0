"""Per-pipeline costs of Beam that beamcrawl takes off, without changing results.

Nothing changes when this module is imported: :func:`install` replaces two
of Beam's functions and boto3's client set-up in Beam's S3 filesystem, for
the whole process. The ``beamcrawl`` command installs them before it builds
a pipeline (``pipelines.cli``); a library user opts in with
``beamcrawl.install_speedups()``. Beam (2.62 to 2.77 at least) offers no
supported way to remember these answers.

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

Beam's S3 filesystem makes a new boto3 session and client for every
operation (each ``FileSystems.match``, ``open``, ``delete`` ...), loading
botocore's service models again: about 0.2 s of CPU each. boto3's clients
are thread-safe, so one client per set of S3 settings is made and shared.
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from typing import Any

from apache_beam.options.pipeline_options import S3Options
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


def installed() -> bool:
    """Whether :func:`install` has replaced Beam's functions in this process."""
    return (
        userstate.get_dofn_specs is _remembered_get_dofn_specs
        and core.get_function_args_defaults is _remembered_get_function_args_defaults
    )


_S3_SETTINGS = (
    "s3_access_key_id", "s3_secret_access_key", "s3_session_token",
    "s3_endpoint_url", "s3_disable_ssl", "s3_region_name", "s3_api_version",
    "s3_verify",
)  # fmt: skip
_s3_clients: dict[tuple[Any, ...], Any] = {}
_s3_lock = threading.Lock()


def s3_settings(options: Any) -> tuple[Any, ...]:
    """The S3 settings Beam's boto3 client is made from (options or a dict)."""
    if isinstance(options, dict):
        return tuple(options.get(name) for name in _S3_SETTINGS)
    s3 = options.view_as(S3Options)
    return tuple(getattr(s3, name) for name in _S3_SETTINGS)


def _share_s3_clients() -> None:
    try:
        from apache_beam.io.aws.clients.s3 import boto3_client
    except ImportError:  # no apache-beam[aws]
        return
    client_class = boto3_client.Client
    boto3 = getattr(boto3_client, "boto3", None)
    if getattr(client_class, "beamcrawl_shared", False) or boto3 is None:
        return
    original_init = client_class.__init__

    def init(self: Any, options: Any) -> None:
        key = s3_settings(options)
        with _s3_lock:
            shared = _s3_clients.get(key)
        if shared is None:
            original_init(self, options)
            with _s3_lock:
                _s3_clients.setdefault(key, self.client)
            return
        self.client = shared
        self._download_request = None
        self._download_stream = None
        self._download_pos = 0

    client_class.__init__ = init  # type: ignore[method-assign]
    setattr(client_class, "beamcrawl_shared", True)  # noqa: B010


def install() -> None:
    """Remember DoFn specs and function arguments; share S3 clients (idempotent).

    Replaces ``apache_beam.transforms.userstate.get_dofn_specs``,
    ``apache_beam.transforms.core.get_function_args_defaults`` and, with
    apache-beam[aws], the ``__init__`` of Beam's boto3 client, in this process.
    """
    userstate.get_dofn_specs = _remembered_get_dofn_specs
    core.get_function_args_defaults = _remembered_get_function_args_defaults
    _share_s3_clients()
