"""The counts of one crawl round, collected from the jobs it ran.

``crawl`` adds each job's counters as it returns (:meth:`RoundCounts.add`):
generate's, fetch's (with parse's), updatedb's and dedup's, or those of the
one-pipeline round, which names them as the separate jobs do. When the
round's crawldb is published, :meth:`RoundCounts.record` makes its
:class:`~pipelines.storage.rounds.RoundRecord`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from crawllib.fetch.unfetched import UNACCOUNTED, fetch_counts
from crawllib.status import CrawlStatus, ParseMajor
from pipelines.storage.rounds import RoundRecord

GENERATED = "GENERATED"
"""Generate's counter of the URLs in the round's fetch lists."""
URLS_ADDED = "urls_added"
"""Updatedb's counter of the URLs the round added to the crawldb."""
NOT_A_STATUS = frozenset({"bytes_downloaded"})
"""Fetch counters that are neither a protocol status nor a reason for a drop."""

_DB_LABELS = frozenset(status.label for status in CrawlStatus)
_PARSE_LABELS = frozenset(major.label for major in ParseMajor)


@dataclass
class RoundCounts:
    """Every counter of a round's jobs, by step (``generate``, ``fetch`` ...)."""

    steps: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, step: str, counts: Mapping[str, int]) -> None:
        """Add a job's counters under ``step`` (summed when it ran more than once)."""
        into = self.steps.setdefault(step, {})
        for name, count in counts.items():
            into[name] = into.get(name, 0) + int(count)

    def counters(self) -> dict[str, int]:
        """Every counter as ``step:name``."""
        return {
            f"{step}:{name}": count
            for step, counts in sorted(self.steps.items())
            for name, count in sorted(counts.items())
        }

    def record(
        self, number: int, segments: Sequence[str], started_ms: int, ended_ms: int
    ) -> RoundRecord:
        """The round's record; ``segments`` are the directories generate wrote."""
        fetched_counts = self.steps.get("fetch", {})
        updated = self.steps.get("updatedb", {})
        statuses = {
            name: count
            for name, count in fetched_counts.items()
            if name.isupper() and name not in NOT_A_STATUS
        }
        generated = self.steps.get("generate", {}).get(
            GENERATED, sum(statuses.values())
        )
        split = fetch_counts(generated, statuses, fetched_counts)
        fetched, unfetched = split.fetched, split.unfetched
        if self.steps.get("unfetched"):  # a round whose fetch nobody counted
            unfetched = {n: c for n, c in unfetched.items() if n != UNACCOUNTED}
            for name, count in self.steps["unfetched"].items():
                unfetched[name] = unfetched.get(name, 0) + count
        return RoundRecord(
            round=number,
            segment=segments[0] if segments else "",
            started_ms=started_ms,
            ended_ms=ended_ms,
            generated=generated,
            fetched=fetched,
            unfetched=unfetched,
            parsed={n: c for n, c in fetched_counts.items() if n in _PARSE_LABELS},
            new_urls=updated.get(URLS_ADDED, 0),
            crawldb={n: c for n, c in updated.items() if n in _DB_LABELS},
            counters=self.counters(),
            segments=list(segments),
        )
