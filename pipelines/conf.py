"""``beamcrawl conf [NAME]``: the effective configuration, and where it came from.

Without NAME it prints every property beamcrawl reads, by area, one line
each: name, value (``${...}`` expanded) and where the value came from
(``default``, ``--conf FILE`` or ``-D``), then the properties given that
beamcrawl does not read. ``beamcrawl conf NAME`` prints one property: its
value and origin, type, default, Nutch's default (and why beamcrawl's
differs) and what it does. It takes ``-D`` and ``--conf`` as every command
does, and checks them the same way (a bad value is one line and exit 2).
No Beam is imported: it answers at once.
"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Sequence

from crawllib.config import checks, registry
from crawllib.config.properties import Properties, load_properties
from crawllib.config.schema import Property
from crawllib.errors import ConfigError
from crawllib.terminal import printable
from pipelines.runtime.arguments import ArgumentParser, job_parser

_WIDTH = 78


def run(argv: Sequence[str] | None = None) -> int:
    """``beamcrawl conf``: print the configuration, or one property."""
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    props = load_properties(args.conf_files, args.defines, check=True)
    if args.name is None:
        lines = all_lines(props, given_only=args.given)
    else:
        lines = property_lines(props, args.name)
    print("\n".join(printable(line) for line in lines))
    return 0


def parser() -> ArgumentParser:
    """The command line of ``beamcrawl conf``."""
    parser = job_parser(
        "beamcrawl conf",
        "Print the effective configuration and where each value came from.",
    )
    parser.add_argument(
        "name", nargs="?", metavar="NAME", help="one property, described in full"
    )
    parser.add_argument(
        "--given",
        action="store_true",
        help="only the properties a --conf file or -D set",
    )
    return parser


def all_lines(props: Properties, given_only: bool = False) -> list[str]:
    """Every registered property (or only those given), by area, then unknown ones.

    Each line is ``name  value  origin``; a value that expands ``${...}``
    is shown expanded.
    """
    lines: list[str] = []
    width = max(len(name) for name in registry.PROPERTIES)
    for title, properties in registry.AREAS:
        shown = [p for p in properties if props.is_set(p.name) or not given_only]
        if not shown:
            continue
        lines += ["", f"# {title}"] if lines else [f"# {title}"]
        lines += [_line(props, prop.name, width) for prop in shown]
    unread = [name for name in props.given() if registry.lookup(name) is None]
    if unread:
        lines += ["", "# Given, but not read by beamcrawl"]
        lines += [_line(props, name, width) for name in unread]
    return lines


def _line(props: Properties, name: str, width: int) -> str:
    return f"{name:<{width}}  {_shown(props[name])}  ({props.origin(name)})"


def _shown(value: str) -> str:
    """A value as printed: quoted when empty or when white space starts or ends it."""
    return f'"{value}"' if value == "" or value != value.strip() else value


def property_lines(props: Properties, name: str) -> list[str]:
    """One property described: value and origin, type, defaults, description.

    Raises:
        ConfigError: ``name`` is neither registered nor given (with the
            closest registered names).
    """
    prop = registry.lookup(name)
    if prop is None:
        if props.is_set(name):
            declared = checks.is_declared(name, props)
            note = " (declared: it does not warn)" if declared else ""
            return [
                f"{name} = {_shown(props[name])}",
                f"  from:     {props.origin(name)}",
                f"  beamcrawl does not read it{note}",
            ]
        raise ConfigError(f"conf: {checks.unknown_line(name)}")
    return _described(props, prop)


def _described(props: Properties, prop: Property) -> list[str]:
    value = _shown(props[prop.name])
    raw = props.raw(prop.name)
    if raw != props[prop.name]:
        value += f"  ({raw})"
    lines = [f"{prop.name} = {value}", f"  from:     {props.origin(prop.name)}"]
    lines.append(f"  type:     {prop.type_name}")
    lines.append(f"  default:  {prop.default or '(empty)'}")
    if prop.own:
        lines.append("  Nutch:    beamcrawl's own; Nutch has no such property")
    elif prop.nutch_default is not None:
        lines.append(f"  Nutch:    {prop.nutch_default or '(empty)'}")
    else:
        lines.append("  Nutch:    the same default")
    if prop.why:
        lines += _wrapped("  why:      ", prop.why.replace("`", ""))
    if not prop.used:
        lines.append("  effect:   none in beamcrawl (accepted for Nutch's sake)")
    lines.append("")
    lines += _wrapped("  ", prop.description.replace("`", ""))
    return lines


def _wrapped(first: str, text: str) -> list[str]:
    indent = " " * len(first) if first.strip() else first
    return textwrap.wrap(
        text, _WIDTH, initial_indent=first, subsequent_indent=indent
    ) or [first.rstrip()]


if __name__ == "__main__":  # as `beamcrawl conf`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["conf", *sys.argv[1:]]))
