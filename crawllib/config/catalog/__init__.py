"""The registry's entries, one module per area: every property beamcrawl reads.

Each module gives ``AREAS``: (title, properties) pairs, in the order the
reference (``docs/configuration.md``) shows them. :mod:`crawllib.config.registry`
puts them together; descriptions say what the property does in beamcrawl,
and where beamcrawl departs from Nutch, why.
"""

from __future__ import annotations

from crawllib.config.catalog import (
    crawldb,
    declared,
    fetcher,
    generate,
    http,
    outputs,
    parse,
    sitemap,
    urls,
)
from crawllib.config.schema import Property

Area = tuple[str, tuple[Property, ...]]
"""A title and its properties."""

AREAS: tuple[Area, ...] = (
    *http.AREAS,
    *fetcher.AREAS,
    *generate.AREAS,
    *crawldb.AREAS,
    *parse.AREAS,
    *urls.AREAS,
    *outputs.AREAS,
    *sitemap.AREAS,
    *declared.AREAS,
)
"""Every area of properties, in the reference's order."""
