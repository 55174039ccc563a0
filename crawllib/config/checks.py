"""The check of the properties a user gives: kinds of value, unknown names.

Every property given by ``-D`` or a ``--conf`` file is checked when the
command line's properties are loaded, whether or not the command's steps
read it: a registered one must parse as its kind
(:meth:`~crawllib.config.schema.Kind.parse`, the rule the typed getters use,
so its one-line error is theirs); an unknown one gives one warning line with
the closest registered names, and the job goes on (Nutch ignores unknown
properties, and a site file may hold some for other tools).

Your own code may read properties of its own. Declare them so that they do
not warn: list them in ``properties.declared`` (names, or prefixes ending in
``*``), or call :func:`declare_properties` from Python, for instance at the
top of a link policy's module (the check loads the policy that
``parse.link.policy`` names before it warns).
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING

from crawllib.config import registry
from crawllib.config.catalog.declared import DECLARED_PROPERTY

if TYPE_CHECKING:
    from crawllib.config.properties import Properties

_LOG = logging.getLogger(__name__)

_DECLARED: set[str] = set()
"""Names and ``prefix*`` patterns declared from Python, for this process.

Only the check reads them, in the process that loads the command line's
properties (never a worker), so it holds no state a job depends on."""

_LINK_POLICY_PROPERTY = "parse.link.policy"


def declare_properties(*names: str) -> None:
    """Declare properties your code reads, so that giving them does not warn.

    Args:
        names: property names, or prefixes ending in ``*`` (``mypolicy.*``).
    """
    _DECLARED.update(name.strip() for name in names if name.strip())


def check_given(props: Properties) -> list[str]:
    """Check every property given (not only defaulted); warn of unknown names.

    Returns:
        The names given that are neither registered nor declared, each of
        which was logged once as a warning with the closest known names.

    Raises:
        ConfigError: a registered property's value is not of its kind, or a
            link policy that had to be loaded to find declarations is bad.
    """
    given = props.given()
    unknown = _undeclared(props, [n for n in given if registry.lookup(n) is None])
    if unknown and props.is_set(_LINK_POLICY_PROPERTY):
        _load_link_policy(props)  # its module may declare what it reads
        unknown = _undeclared(props, unknown)
    for name in unknown:
        _warn_unknown(unknown_line(name))
    for name in given:
        prop = registry.lookup(name)
        if prop is not None:
            props.parse(name, prop.kind)
    return unknown


def unknown_line(name: str) -> str:
    """The line about an unknown property: its name and the closest known ones."""
    close = registry.close_names(name)
    if close:
        return f"unknown property {name} (did you mean {' or '.join(close)}?)"
    return (
        f"unknown property {name}: beamcrawl does not read it (declare your "
        f"own in {DECLARED_PROPERTY}; see beamcrawl conf)"
    )


def is_declared(name: str, props: Properties) -> bool:
    """Whether ``name`` is declared: in ``properties.declared`` or from Python."""
    patterns = _DECLARED | set(props.get_list(DECLARED_PROPERTY))
    return any(_matches(name, pattern) for pattern in patterns)


def _matches(name: str, pattern: str) -> bool:
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern


def _undeclared(props: Properties, names: list[str]) -> list[str]:
    return [name for name in names if not is_declared(name, props)]


def _load_link_policy(props: Properties) -> None:
    spec = props.get_str(_LINK_POLICY_PROPERTY)
    if spec:
        from crawllib.urls.linkpolicy import load_link_policy  # the user's code

        load_link_policy(spec)


@functools.cache
def _warn_unknown(line: str) -> None:
    """Log ``line`` once per process (a crawl loads its properties once per step)."""
    _LOG.warning("%s", line)
