"""The report as one self-contained HTML page: inline CSS and SVG, no script.

Nothing on the page refers outside it (no font, stylesheet, script or
link), so the file can be mailed, archived or opened offline. Every string
that came from the crawl is escaped.
"""

from __future__ import annotations

import collections
import time
from html import escape

from crawllib.report import svg
from crawllib.report.charts import sections
from crawllib.report.figures import CrawlFigures
from crawllib.report.section import Section

_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 760px;
       color: #222; background: #fff; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
.meta { color: #666; }
.headline { display: flex; flex-wrap: wrap; gap: 0.6em; padding: 0; }
.headline li { list-style: none; border: 1px solid #ddd; border-radius: 4px;
               padding: 0.4em 0.8em; }
.headline b { display: block; font-size: 1.4em; }
.notes li { color: #8a5a00; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { border: 1px solid #ddd; padding: 0.2em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 0.5em 0; }
svg .tick, svg .legend, svg .total { font-size: 11px; fill: #333; }
svg .axis-title { font-size: 12px; fill: #555; }
svg .grid { stroke: #eee; } svg .axis { stroke: #999; }
"""


def headline(figures: CrawlFigures) -> list[tuple[str, int]]:
    """The crawl's headline numbers: (what, how many)."""
    fetches: collections.Counter[str] = collections.Counter()
    for segment in figures.segments.values():
        fetches.update(segment.fetched)
    return [
        ("URLs in the crawldb", figures.crawldb.records),
        (
            "fetched (status_fetched)",
            figures.crawldb.by_status.get("status_fetched", 0),
        ),
        ("hosts", len(figures.hosts) + figures.hosts.dropped),
        ("rounds recorded", len(figures.rounds)),
        ("segments", len(figures.segments)),
        ("fetch records", sum(fetches.values())),
        ("failed fetches", figures.fetch_errors),
    ]


def render_page(figures: CrawlFigures, crawl_dir: str, now_ms: int) -> str:
    """The whole report page for the crawl in ``crawl_dir``, made at ``now_ms``."""
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(now_ms / 1000))
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>beamcrawl report: {escape(crawl_dir)}</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>Crawl report</h1>",
        f'<p class="meta">{escape(crawl_dir)} &middot; made {when}</p>',
        '<ul class="headline">',
    ]
    parts += [
        f'<li data-figure="{escape(name)}"><b>{value}</b>{escape(name)}</li>'
        for name, value in headline(figures)
    ]
    parts.append("</ul>")
    if figures.notes:
        parts.append('<h2>What this report could not show</h2><ul class="notes">')
        parts += [f"<li>{escape(note)}</li>" for note in figures.notes]
        parts.append("</ul>")
    parts += [_section(section) for section in sections(figures)]
    parts += _rounds_table(figures)
    parts += _counters_table(figures)
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _section(section: Section) -> str:
    body = svg.render(section.chart) if section.chart else ""
    missing = "" if section.chart else ' class="missing"'
    return (
        f'<section id="{escape(section.key)}"{missing}><h2>{escape(section.title)}</h2>'
        f"<p>{escape(section.text)}</p>{body}</section>"
    )


def _rounds_table(figures: CrawlFigures) -> list[str]:
    if not figures.rounds:
        return []
    rows = [
        '<section id="rounds"><h2>Rounds</h2><table><tr><th>round</th>'
        "<th>generated</th><th>fetched</th><th>not fetched</th><th>new URLs</th>"
        "<th>crawldb</th><th>seconds</th></tr>"
    ]
    for r in figures.rounds:
        seconds = (r.ended_ms - r.started_ms) / 1000
        rows.append(
            f"<tr><td>{r.round}</td><td>{r.generated}</td>"
            f"<td>{sum(r.fetched.values())}</td><td>{sum(r.unfetched.values())}</td>"
            f"<td>{r.new_urls}</td><td>{sum(r.crawldb.values())}</td>"
            f"<td>{seconds:.1f}</td></tr>"
        )
    rows.append("</table></section>")
    return rows


def _counters_table(figures: CrawlFigures) -> list[str]:
    totals: collections.Counter[str] = collections.Counter()
    for r in figures.rounds:
        totals.update(r.counters)
    if not totals:
        return []
    rows = [
        '<section id="counters"><h2>Counters, all rounds</h2>'
        "<table><tr><th>counter</th><th>total</th></tr>"
    ]
    rows += [
        f"<tr><td>{escape(name)}</td><td>{totals[name]}</td></tr>"
        for name in sorted(totals)
    ]
    rows.append("</table></section>")
    return rows
