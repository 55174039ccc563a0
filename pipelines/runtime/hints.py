"""PTransforms whose ``expand`` Beam's type hints cannot describe.

A transform that takes a tuple of PCollections or one of two kinds of
input, or gives a dict or tuple of PCollections, is annotated for mypy and
readers; Beam 2.78 reads those annotations as type hints, finds them not
of its kind, and logs a warning at every use (twenty lines in a crawl).
:class:`NoExpandHints` keeps Beam from reading them: only hints given with
Beam's own decorators count, as before 2.78.
"""

from __future__ import annotations

from apache_beam.typehints.decorators import IOTypeHints, get_type_hints


class NoExpandHints:
    """Mix in before ``beam.PTransform``: no type hints from ``expand``."""

    def default_type_hints(self) -> IOTypeHints:
        """The class decorators' hints only (none: Beam checks nothing)."""
        return get_type_hints(self.__class__)
