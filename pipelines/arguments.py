"""The command line's parser, without Beam: ``search`` starts in half a second.

:func:`job_parser` gives every command ``-D`` and ``--conf``; its errors are
a :class:`~crawllib.errors.ConfigError` (one line, exit 2). Re-exported by
:mod:`pipelines.options`, which adds the Beam side.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

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
