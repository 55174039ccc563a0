"""Properties beamcrawl does not read but should not warn about."""

from __future__ import annotations

from crawllib.config.schema import Property, TextList

DECLARED_PROPERTY = "properties.declared"
"""The property that lists the names (and ``prefix.*``) a user's code reads."""

DECLARED = (
    Property(
        DECLARED_PROPERTY,
        "",
        TextList(label="list of names and prefix.*"),
        "Properties your own code reads (a link policy, a page processor, a "
        "script sharing your site file): names, or prefixes ending in `*` "
        "(`mypolicy.*`). beamcrawl does not warn about them as unknown.",
        own=True,
    ),
)

AREAS = (("Your own properties", DECLARED),)
