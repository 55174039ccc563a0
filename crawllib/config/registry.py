"""The registry: every property beamcrawl reads, by name, with its description.

One source of truth for each property's name, default, kind of value,
description and departure from Nutch (the entries are in
:mod:`crawllib.config.catalog`, by area). From it come the defaults of
:class:`~crawllib.config.properties.Properties`, the check of the properties
a user gives (:mod:`crawllib.config.checks`), ``beamcrawl conf`` and the
reference ``docs/configuration.md`` (:mod:`crawllib.config.reference`).
``tests/crawllib/config/test_registry.py`` proves that every property the
code reads is here, of the kind the code reads it as.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from types import MappingProxyType

from crawllib.config.catalog import AREAS
from crawllib.config.schema import Property

__all__ = ["AREAS", "DEFAULTS", "PROPERTIES", "close_names", "lookup"]


def _by_name() -> dict[str, Property]:
    entries: dict[str, Property] = {}
    for _, properties in AREAS:
        for prop in properties:
            if prop.name in entries:
                raise ValueError(f"property {prop.name} is registered twice")
            entries[prop.name] = prop
    return entries


PROPERTIES: Mapping[str, Property] = MappingProxyType(_by_name())
"""Every registered property, by name."""

DEFAULTS: Mapping[str, str] = MappingProxyType(
    {name: prop.default for name, prop in PROPERTIES.items()}
)
"""beamcrawl's default of every property, as text."""


def lookup(name: str) -> Property | None:
    """The registered property ``name``, or None."""
    return PROPERTIES.get(name)


def close_names(name: str, limit: int = 3) -> list[str]:
    """The registered names closest to ``name`` (what a typo meant), best first."""
    by_lower = {known.lower(): known for known in PROPERTIES}
    matches = difflib.get_close_matches(name.lower(), by_lower, n=limit, cutoff=0.8)
    return [by_lower[match] for match in matches]
