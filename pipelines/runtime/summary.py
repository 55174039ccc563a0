"""The summary that ``crawl`` and ``demo`` end with, from the round records.

Per round: URLs generated, fetched by protocol status, not fetched, new
URLs and time; then the totals, where the crawl's files are and the
commands to try next, with the crawl's paths filled in.
"""

from __future__ import annotations

import functools
import shlex
from collections.abc import Iterable, Mapping, Sequence

from apache_beam.io.filesystems import FileSystems

from crawllib.terminal import printable
from pipelines.storage.rounds import RoundRecord
from pipelines.storage.segments import list_segments


def summary_lines(
    crawl_dir: str, records: Sequence[RoundRecord], search_word: str | None = None
) -> list[str]:
    """The whole summary: rounds, totals, files and next commands."""
    return [*round_lines(records), "", *next_steps(crawl_dir, search_word)]


def round_lines(records: Sequence[RoundRecord]) -> list[str]:
    """A table of the rounds, and a line of totals."""
    if not records:
        return ["No round records: nothing was crawled."]
    header = ("ROUND", "GENERATED", "FETCHED", "NOT FETCHED", "NEW URLS", "TIME")
    rows: list[tuple[str, ...]] = [header]
    rows += [
        (
            str(r.round),
            str(r.generated),
            _counts(r.fetched),
            _counts(r.unfetched),
            str(r.new_urls),
            f"{r.seconds:.1f} s",
        )
        for r in records
    ]
    fetched = _added(r.fetched for r in records)
    unfetched = _added(r.unfetched for r in records)
    seconds = sum(r.seconds for r in records)
    count = len(records)
    total = (
        f"Total: {count} round{'s' if count != 1 else ''}, "
        f"{sum(r.generated for r in records)} generated, "
        f"fetched {_counts(fetched)}, not fetched {_counts(unfetched)}, "
        f"{sum(r.new_urls for r in records)} new URLs, {seconds:.1f} s"
    )
    return ["Rounds:", *aligned(rows).splitlines(), total]


def _added(counts: Iterable[Mapping[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for one in counts:
        for name, count in one.items():
            total[name] = total.get(name, 0) + count
    return total


def _counts(counts: Mapping[str, int]) -> str:
    shown = [f"{name}={count}" for name, count in sorted(counts.items()) if count]
    return ", ".join(shown) or "-"


def aligned(rows: Sequence[tuple[str, ...]]) -> str:
    """Rows as columns padded to their widest cell (the last one unpadded)."""
    widths = [max(len(row[n]) for row in rows) for n in range(len(rows[0]) - 1)]
    lines = [
        "  ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[-1]])
        for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines)


def next_steps(crawl_dir: str, search_word: str | None = None) -> list[str]:
    """Where the crawl's files are and the commands to try on them, paths filled in.

    With ``search_word``, the search command looks for it; otherwise for a
    placeholder ``WORD``.
    """
    path = functools.partial(FileSystems.join, crawl_dir)
    crawldb, segments, linkdb = path("crawldb"), path("segments"), path("linkdb")
    index, found = path("index"), list_segments(segments)
    segment = found[-1] if found else FileSystems.join(segments, "SEGMENT")
    commands = [
        ["readdb", crawldb, "--stats"],
        ["readseg", segment, "--list"],
        ["report", crawl_dir],
        ["warc", path("warc"), "--dir", segments],
        ["index", index, crawldb, "--dir", segments, "--linkdb", linkdb],
        ["search", index, search_word or "WORD"],
    ]
    lines = [
        "Files:",
        f"  crawldb   {crawldb}",
        f"  segments  {segments}",
        f"  linkdb    {linkdb}",
        f"  rounds    {path('rounds')}",
        "",
        "Next, try:",
        *(f"  beamcrawl {shlex.join(command)}" for command in commands),
    ]
    return [printable(line) for line in lines]
