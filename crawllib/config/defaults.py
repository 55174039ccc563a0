"""beamcrawl's property defaults, by Nutch name: the registry's.

Values are strings, as in a Hadoop ``Configuration``; ``${name}`` refers to
another property. They are Nutch's (``conf/nutch-default.xml``, 1.x) except
where the registry (:mod:`crawllib.config.registry`, entries in
:mod:`crawllib.config.catalog`) gives Nutch's own and says why beamcrawl's
differs; ``docs/configuration.md`` lists them all.
"""

from crawllib.config.registry import DEFAULTS

NUTCH_DEFAULTS: dict[str, str] = dict(DEFAULTS)
"""Every registered property's default (kept under its old name)."""
