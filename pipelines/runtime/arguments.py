"""The command line's parser, without Beam: ``search`` starts in half a second.

:func:`job_parser` gives every command ``-D`` and ``--conf``; its errors are
a :class:`~crawllib.errors.ConfigError` (one line, exit 2). Re-exported by
:mod:`pipelines.runtime.options`, which adds the Beam side.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

from crawllib.errors import ConfigError


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose errors are ConfigError (one line, exit 2)."""

    def error(self, message: str) -> NoReturn:
        unknown = message.removeprefix("unrecognized arguments: ")
        if unknown != message and unknown.startswith("-"):
            name = unknown.split()[0].partition("=")[0]
            raise ConfigError(unknown_flag_line(self, name))
        raise ConfigError(f"{self.prog}: {message}")


def unknown_flag_line(
    parser: argparse.ArgumentParser, name: str, others: Iterable[str] = ()
) -> str:
    """``beamcrawl crawl: unrecognized argument --topn (did you mean --topN?)``.

    The close ones are the parser's own flags, else ``others`` (Beam's),
    compared without case (``--topn`` is ``--topN`` mistyped).
    """
    line = f"{parser.prog}: unrecognized argument {name}"
    own = [flag for flag in parser._option_string_actions if flag.startswith("--")]
    close = _close(name, own) or _close(name, list(others))
    if close:
        line += f" (did you mean {' or '.join(close)}?)"
    return line


def _close(name: str, known: list[str]) -> list[str]:
    by_lower: dict[str, str] = {}
    for flag in known:
        by_lower.setdefault(flag.lower(), flag)
    found = difflib.get_close_matches(name.lower(), list(by_lower), n=3, cutoff=0.75)
    return [by_lower[flag] for flag in found]


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
