"""``Tagged``: what a DoFn's ``process`` yields besides its main output.

Write ``Iterator[WebPage | Tagged]`` for a DoFn that also yields
``TaggedOutput``. Type checkers see ``TaggedOutput``; Beam sees ``Any``, so
the main output's element type is left open. A bare ``TaggedOutput`` in the
hint would not do: Beam 2.78 takes it as the main output's element type and
then rejects the transforms after it (``CombinePerKey`` wants a key-value
pair, not "TaggedOutput or a pair"), while a parameterized
``TaggedOutput[Literal["tag"], T]`` is unknown to Beam before 2.78.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from apache_beam.pvalue import TaggedOutput as Tagged
else:
    Tagged = Any

__all__ = ["Tagged"]
