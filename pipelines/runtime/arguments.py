"""The command line's parser, without Beam: ``search`` starts in half a second.

:func:`job_parser` gives every command ``-D`` and ``--conf``; its errors are
a :class:`~crawllib.errors.ConfigError` (one line, exit 2). Re-exported by
:mod:`pipelines.runtime.options`, which adds the Beam side.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, NoReturn

from crawllib.errors import ConfigError


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose errors are ConfigError (one line, exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise ConfigError(f"{self.prog}: {message}")


def job_parser(prog: str, description: str) -> ArgumentParser:
    """A parser with the options every command takes: ``-D`` and ``--conf``."""
    parser = ArgumentParser(prog=prog, description=description, allow_abbrev=False)
    parser.add_argument(
        "-D",
        dest="defines",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="set a Nutch property (repeatable)",
    )
    parser.add_argument(
        "--conf",
        dest="conf_files",
        action="append",
        default=[],
        metavar="FILE",
        help="a nutch-site.xml (or name=value) file; repeatable, later wins",
    )
    return parser


LINK_POLICY_PROPERTY = "parse.link.policy"


def add_link_policy_argument(parser: ArgumentParser) -> None:
    """``--linkPolicy SPEC``: ``-D parse.link.policy=SPEC``, loaded at once.

    An unloadable spec is a :class:`~crawllib.errors.ConfigError` while the
    command line is read, before any job runs.
    """
    parser.add_argument(
        "--linkPolicy",
        action=_LinkPolicyAction,
        metavar="SPEC",
        help="which outlinks to follow: package.module:name or path/file.py:name "
        "(a LinkPolicy, its class, or a function of a Link; sets parse.link.policy)",
    )


class _LinkPolicyAction(argparse.Action):
    """Checks the spec, then adds it to the ``-D`` values (so steps inherit it)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        from crawllib.urls.linkpolicy import load_link_policy  # not at start-up

        spec = str(values)
        load_link_policy(spec)
        setattr(namespace, self.dest, spec)
        defines = [*getattr(namespace, "defines", []), f"{LINK_POLICY_PROPERTY}={spec}"]
        namespace.defines = defines
