"""What every chart of the report shares: its section, colours and series."""

from __future__ import annotations

import collections
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from crawllib.report.svg import PALETTE, Chart, Series

STATUS_COLORS = {
    "SUCCESS": "#59a14f",
    "status_fetched": "#59a14f",
    "db_fetched": "#59a14f",
    "db_unfetched": "#bab0ac",
    "db_gone": "#e15759",
    "status_unfetched": "#bab0ac",
    "NOTFOUND": "#e15759",
    "status_gone": "#e15759",
    "EXCEPTION": "#b07aa1",
    "not fetched": "#d3d3d3",
    "success": "#59a14f",
}
"""Fixed colours of the commonest statuses, the same in every chart."""


@dataclass(frozen=True, slots=True)
class Section:
    """One chart of the report and what it says (or why it is missing)."""

    key: str
    title: str
    text: str
    chart: Chart | None = None


def series_of(
    names: Sequence[str], value: Callable[[str, int], float], count: int
) -> tuple[Series, ...]:
    """One series per name, its values by category index, each its own colour.

    A name in :data:`STATUS_COLORS` keeps its colour; the others take the
    palette's in order, skipping the colours already taken.
    """
    taken = {STATUS_COLORS[name] for name in names if name in STATUS_COLORS}
    spare = iter([c for c in PALETTE if c not in taken] or list(PALETTE))
    colors = {}
    for name in names:
        if name in STATUS_COLORS:
            colors[name] = STATUS_COLORS[name]
        else:
            colors[name] = next(spare, None) or PALETTE[len(colors) % len(PALETTE)]
    return tuple(
        Series(name, tuple(value(name, i) for i in range(count)), colors[name])
        for name in names
    )


def ordered(counters: Sequence[Mapping[str, int]]) -> list[str]:
    """Every key of ``counters``, largest overall first (ties by name)."""
    totals: collections.Counter[str] = collections.Counter()
    for counter in counters:
        totals.update(counter)
    return sorted(totals, key=lambda name: (-totals[name], name))
