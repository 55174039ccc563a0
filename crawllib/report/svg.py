"""A small SVG chart renderer: stacked bars (vertical or horizontal) and lines.

Charts are drawn as inline SVG text, with nothing fetched from anywhere.
Every string a chart shows is escaped here (a host named ``<script>`` is
drawn as those letters), so callers pass the web's strings as they are.
Each drawn value carries ``data-series``, ``data-category`` and
``data-value`` attributes and a ``<title>`` tooltip, so a reader (or a
test) can read the exact numbers back off the page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

PALETTE = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
)  # fmt: skip
"""Series colours in order (Tableau 10), reused after the tenth series."""

_WIDTH = 720
_ROW = 22  # height of one horizontal bar's row
_LABEL_CHARS = 38  # longer category labels are cut (the tooltip keeps them whole)


@dataclass(frozen=True, slots=True)
class Series:
    """One named series: a value per category, an optional fixed colour."""

    name: str
    values: tuple[float, ...]
    color: str | None = None


@dataclass(frozen=True, slots=True)
class Chart:
    """What to draw: ``kind`` is ``bars``, ``hbars`` (horizontal) or ``line``.

    Bars of several series are stacked; a line chart draws one line per
    series over the categories, evenly spaced.
    """

    key: str
    """The chart's id on the page (``data-chart``)."""
    kind: str
    title: str
    categories: tuple[str, ...]
    series: tuple[Series, ...]
    x_label: str = ""
    y_label: str = ""


def render(chart: Chart) -> str:
    """The chart as an ``<svg>`` element."""
    if chart.kind == "hbars":
        return _hbars(chart)
    if chart.kind == "bars":
        return _vbars(chart)
    if chart.kind == "line":
        return _line(chart)
    raise ValueError(f"no chart kind {chart.kind!r}")


def format_value(value: float) -> str:
    """An integer as such, another number to three significant digits."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.3g}"


def nice_max(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 x 10^k at or above ``value`` (1 for 0)."""
    if value <= 0:
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= value:
            return step * power
    return 10 * power


def _color(chart: Chart, index: int) -> str:
    return chart.series[index].color or PALETTE[index % len(PALETTE)]


def _totals(chart: Chart) -> list[float]:
    return [
        sum(s.values[i] for s in chart.series) for i in range(len(chart.categories))
    ]


def _open(chart: Chart, height: int) -> list[str]:
    key, title = escape(chart.key), escape(chart.title)
    return [
        f'<svg class="chart" data-chart="{key}" xmlns="http://www.w3.org/2000/svg" '
        f'width="{_WIDTH}" height="{height}" viewBox="0 0 {_WIDTH} {height}" '
        f'role="img" aria-label="{title}">',
        f"<title>{title}</title>",
    ]


def _cut(label: str) -> str:
    return label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "\u2026"


def _mark(chart: Chart, series: int, category: int, shape: str) -> str:
    """A value's shape (``<rect/>``, ``<circle/>``) with its data and tooltip."""
    name, where = chart.series[series].name, chart.categories[category]
    value = chart.series[series].values[category]
    text = f"{where} \u00b7 {name}: {format_value(value)}"
    return (
        f'<g class="value" data-series="{escape(name)}" '
        f'data-category="{escape(where)}" data-value="{format_value(value)}">'
        f"{shape}<title>{escape(text)}</title></g>"
    )


def _legend(chart: Chart, y: int) -> list[str]:
    if len(chart.series) < 2:
        return []
    parts, x = [], 10
    for index, series in enumerate(chart.series):
        name = _cut(series.name)
        width = 24 + 7 * len(name)
        if x + width > _WIDTH:
            x, y = 10, y + 18
        parts.append(
            f'<rect x="{x}" y="{y - 10}" width="12" height="12" '
            f'fill="{_color(chart, index)}"/>'
            f'<text class="legend" x="{x + 16}" y="{y}">{escape(name)}</text>'
        )
        x += width
    return parts


def _legend_rows(chart: Chart) -> int:
    if len(chart.series) < 2:
        return 0
    rows, x = 1, 10
    for series in chart.series:
        width = 24 + 7 * len(_cut(series.name))
        if x + width > _WIDTH:
            rows, x = rows + 1, 10
        x += width
    return rows


def _vbars(chart: Chart) -> str:
    left, top, plot_h = 60, 30 + 18 * _legend_rows(chart), 220
    bottom = top + plot_h
    height = bottom + 60
    n = max(1, len(chart.categories))
    slot = (_WIDTH - left - 20) / n
    bar_w = min(80.0, max(2.0, slot * 0.7))
    top_value = nice_max(max(_totals(chart), default=0))
    out = _open(chart, height)
    out += _legend(chart, 24)
    out += _y_axis(left, top, plot_h, top_value, chart.y_label)
    label_every = _label_every(chart.categories, _WIDTH - left - 20)
    for i, category in enumerate(chart.categories):
        x = left + i * slot + (slot - bar_w) / 2
        y = float(bottom)
        for s in range(len(chart.series)):
            h = chart.series[s].values[i] / top_value * plot_h
            if h > 0:
                y -= h
                rect = (
                    f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" '
                    f'height="{h:.1f}" fill="{_color(chart, s)}"/>'
                )
                out.append(_mark(chart, s, i, rect))
        total = sum(series.values[i] for series in chart.series)
        cx = x + bar_w / 2
        out.append(
            f'<text class="total" data-category="{escape(category)}" '
            f'x="{cx:.1f}" y="{y - 4:.1f}" text-anchor="middle">'
            f"{format_value(total)}</text>"
        )
        if i % label_every == 0:
            out.append(
                f'<text class="tick" x="{cx:.1f}" y="{bottom + 16}" '
                f'text-anchor="middle">{escape(_cut(category))}</text>'
            )
    out.append(_x_title(chart.x_label, (left + _WIDTH) / 2, height - 12))
    out.append("</svg>")
    return "".join(out)


def _hbars(chart: Chart) -> str:
    left, top = 250, 30 + 18 * _legend_rows(chart)
    rows = max(1, len(chart.categories))
    bottom = top + rows * _ROW
    height = bottom + 50
    plot_w = _WIDTH - left - 60
    top_value = nice_max(max(_totals(chart), default=0))
    out = _open(chart, height)
    out += _legend(chart, 24)
    for i, category in enumerate(chart.categories):
        y = top + i * _ROW + 3
        out.append(
            f'<text class="tick" x="{left - 6}" y="{y + 13}" text-anchor="end">'
            f"{escape(_cut(category))}<title>{escape(category)}</title></text>"
        )
        x = float(left)
        for s in range(len(chart.series)):
            w = chart.series[s].values[i] / top_value * plot_w
            if w > 0:
                rect = (
                    f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" '
                    f'height="{_ROW - 6}" fill="{_color(chart, s)}"/>'
                )
                out.append(_mark(chart, s, i, rect))
                x += w
        total = sum(series.values[i] for series in chart.series)
        out.append(
            f'<text class="total" data-category="{escape(category)}" '
            f'x="{x + 4:.1f}" y="{y + 13}">{format_value(total)}</text>'
        )
    out.append(f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{bottom}"/>')
    out.append(_x_title(chart.x_label, left + plot_w / 2, height - 14))
    out.append("</svg>")
    return "".join(out)


def _line(chart: Chart) -> str:
    left, top, plot_h = 60, 30 + 18 * _legend_rows(chart), 220
    bottom = top + plot_h
    height = bottom + 60
    n = len(chart.categories)
    step = (_WIDTH - left - 30) / max(1, n - 1)
    values = [v for series in chart.series for v in series.values]
    top_value = nice_max(max(values, default=0))
    out = _open(chart, height)
    out += _legend(chart, 24)
    out += _y_axis(left, top, plot_h, top_value, chart.y_label)
    label_every = _label_every(chart.categories, _WIDTH - left - 30)
    for i, category in enumerate(chart.categories):
        if i % label_every == 0:
            out.append(
                f'<text class="tick" x="{left + i * step:.1f}" y="{bottom + 16}" '
                f'text-anchor="middle">{escape(_cut(category))}</text>'
            )
    for s, series in enumerate(chart.series):
        points = [
            (left + i * step, bottom - v / top_value * plot_h)
            for i, v in enumerate(series.values)
        ]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        out.append(
            f'<polyline fill="none" stroke="{_color(chart, s)}" '
            f'stroke-width="2" points="{path}"/>'
        )
        for i, (x, y) in enumerate(points):
            dot = f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{_color(chart, s)}"/>'
            out.append(_mark(chart, s, i, dot))
    out.append(_x_title(chart.x_label, (left + _WIDTH) / 2, height - 12))
    out.append("</svg>")
    return "".join(out)


def _label_every(categories: tuple[str, ...], width: float) -> int:
    """Label every k-th category so that the labels do not overlap."""
    longest = max((len(_cut(c)) for c in categories), default=1)
    per_label = 6.5 * longest + 10  # px, at the ticks' font size
    return max(1, math.ceil(len(categories) * per_label / width))


def _y_axis(
    left: int, top: int, plot_h: int, top_value: float, label: str
) -> list[str]:
    out = []
    for k in range(5):
        value = top_value * k / 4
        y = top + plot_h - plot_h * k / 4
        out.append(
            f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{_WIDTH - 10}" '
            f'y2="{y:.1f}"/><text class="tick" x="{left - 6}" y="{y + 4:.1f}" '
            f'text-anchor="end">{format_value(value)}</text>'
        )
    middle = top + plot_h / 2
    out.append(
        f'<text class="axis-title" x="14" y="{middle:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {middle:.1f})">{escape(label)}</text>'
    )
    return out


def _x_title(label: str, x: float, y: float) -> str:
    return (
        f'<text class="axis-title" x="{x:.1f}" y="{y:.1f}" '
        f'text-anchor="middle">{escape(label)}</text>'
    )
