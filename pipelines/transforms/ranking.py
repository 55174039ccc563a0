"""Generate's reduce side as Beam: candidates to (url, segment).

Nutch's SelectorReducer walks one reducer's candidates from the best down;
:class:`RankCandidates` gives the same answer over all of them while
shuffling only light ``(-sort, url, host)`` tuples, and keeps no more
than it must in one place (see its docstring).
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Iterator

import apache_beam as beam
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import AsList, PCollection
from apache_beam.transforms.combiners import Count, Top

from crawllib.config import GenerateConfig
from crawllib.db.generate import SegmentAssigner, host_cap

NAMESPACE = "Generator"
STARVED = "RANKING_STARVED"

Candidate = tuple[float, str, str]
"""(-sort value, url, count key): rank order is tuple order."""


class RankCandidates(
    beam.PTransform[PCollection[tuple[str, Candidate]], PCollection[tuple[str, int]]]
):
    """Candidates to (url, segment): the SelectorReducer over all fetch lists.

    Without ``--topN`` hosts do not interact, so each host is assigned on its
    own. With it, the best ``rank_window(config)`` of all candidates, each
    host keeping only those it could ever place
    (:func:`~crawllib.db.generate.host_cap`), are gathered and one pass
    assigns them in order. They are gathered by a combiner that cuts each
    worker's candidates the same way (a candidate with that many better ones
    beside it, its host's cut applied, has as many in the whole), so memory
    grows with ``--topN`` and the number of hosts, not with the crawldb.
    Should that pass run out before the segments are full while more
    candidates exist, it counts ``RANKING_STARVED`` and the driver runs again
    with a larger limit.
    """

    def __init__(self, config: GenerateConfig) -> None:
        super().__init__()
        self._config = config

    def expand(
        self, candidates: PCollection[tuple[str, Candidate]]
    ) -> PCollection[tuple[str, int]]:
        config = self._config
        cap = host_cap(config.max_count, config.max_num_segments)
        if config.top_n is None and cap is None:
            return candidates | "AllInSegment1" >> beam.Map(lambda kv: (kv[1][1], 1))
        if cap is not None and config.top_n is None:
            return (
                candidates
                | "BestPerHost" >> beam.CombinePerKey(_BestFn(cap))
                | "AssignPerHost" >> beam.FlatMap(_assign_host, config)
            )
        limit = rank_window(config)
        values = candidates | "Values" >> beam.Values()
        if cap is None:
            best = values | "Best" >> Top.Smallest(limit)
            overflowing: list[str] | AsList = []
        else:
            best = values | "Best" >> beam.CombineGlobally(_CappedBestFn(cap, limit))
            overflowing = AsList(
                candidates
                | "CountPerHost" >> Count.PerKey()
                | "OverCap" >> beam.FlatMap(_over_cap, cap)
            )
        return best | "AssignInOrder" >> beam.FlatMap(
            _assign_all, config, limit, overflowing
        )


def rank_window(config: GenerateConfig) -> int:
    """How many of the best candidates one ordered pass ranks.

    ``generate.rank.window`` if set, else twice what the segments can hold:
    enough unless host overflow skips as many candidates as it places.
    """
    if config.rank_window is not None:
        return config.rank_window
    top_n = config.top_n or 0
    return max(2 * top_n * config.max_num_segments, 1000)


class _BestFn(beam.CombineFn):
    """Per host: its ``cap`` best candidates in rank order, and how many it dropped."""

    def __init__(self, cap: int) -> None:
        self._cap = cap

    def create_accumulator(self) -> tuple[list[Candidate], int]:
        return [], 0

    def add_input(
        self, accumulator: tuple[list[Candidate], int], candidate: Candidate
    ) -> tuple[list[Candidate], int]:
        best, dropped = accumulator
        best.append(candidate)
        if len(best) > 2 * self._cap:
            best.sort()
            dropped += len(best) - self._cap
            del best[self._cap :]
        return best, dropped

    def merge_accumulators(
        self, accumulators: Iterable[tuple[list[Candidate], int]]
    ) -> tuple[list[Candidate], int]:
        merged: list[Candidate] = []
        dropped = 0
        for best, count in accumulators:
            merged.extend(best)
            dropped += count
        return self._trim(merged, dropped)

    def extract_output(
        self, accumulator: tuple[list[Candidate], int]
    ) -> tuple[list[Candidate], int]:
        return self._trim(*accumulator)

    def _trim(self, best: list[Candidate], dropped: int) -> tuple[list[Candidate], int]:
        best.sort()
        dropped += max(0, len(best) - self._cap)
        return best[: self._cap], dropped


class _CappedBestFn(beam.CombineFn):
    """The best ``limit`` candidates in rank order, at most ``cap`` of each host."""

    def __init__(self, cap: int, limit: int) -> None:
        self._cap = cap
        self._limit = limit

    def create_accumulator(self) -> list[Candidate]:
        return []

    def add_input(self, best: list[Candidate], candidate: Candidate) -> list[Candidate]:
        best.append(candidate)
        if len(best) >= 2 * self._limit:
            best[:] = self._cut(best)
        return best

    def merge_accumulators(
        self, accumulators: Iterable[list[Candidate]]
    ) -> list[Candidate]:
        merged: list[Candidate] = []
        for best in accumulators:
            merged.extend(best)
            if len(merged) >= 2 * self._limit:
                merged = self._cut(merged)
        return merged

    def extract_output(self, best: list[Candidate]) -> list[Candidate]:
        return self._cut(best)

    def _cut(self, candidates: list[Candidate]) -> list[Candidate]:
        kept: list[Candidate] = []
        per_host: collections.Counter[str] = collections.Counter()
        for candidate in sorted(candidates):
            host = candidate[2]
            if per_host[host] < self._cap:
                per_host[host] += 1
                kept.append(candidate)
                if len(kept) == self._limit:
                    break
        return kept


def _over_cap(host_count: tuple[str, int], cap: int) -> Iterator[str]:
    """A host with more candidates than it can place: counted, and named."""
    host, count = host_count
    if count > cap:
        _count_overflow(count - cap, 1)
        yield host


def _count_overflow(urls: int, hosts: int) -> None:
    if urls:
        Metrics.counter(NAMESPACE, "URLS_SKIPPED_PER_HOST_OVERFLOW").inc(urls)
    if hosts:
        Metrics.counter(NAMESPACE, "HOSTS_AFFECTED_PER_HOST_OVERFLOW").inc(hosts)


def _assign_host(
    keyed: tuple[str, tuple[list[Candidate], int]], config: GenerateConfig
) -> Iterator[tuple[str, int]]:
    """No topN: one host's candidates assigned on their own."""
    key, (best, dropped) = keyed
    assigner = SegmentAssigner(None, config.max_count, config.max_num_segments)
    for _, url, _ in best:
        segment = assigner.assign(key)
        if segment is not None:
            yield url, segment
    _count_overflow(
        dropped + assigner.skipped, 1 if dropped or assigner.overflowed else 0
    )


def _assign_all(
    best: list[Candidate],
    config: GenerateConfig,
    limit: int,
    overflowing: Iterable[str],
) -> Iterator[tuple[str, int]]:
    """With topN: one ordered pass over the best candidates of all hosts.

    ``overflowing``: the hosts already counted as over their cap.
    """
    assigner = SegmentAssigner(config.top_n, config.max_count, config.max_num_segments)
    for _, url, key in best:
        segment = assigner.assign(key)
        if assigner.done:
            break
        if segment is not None:
            yield url, segment
    _count_overflow(assigner.skipped, len(assigner.overflowed - set(overflowing)))
    if not assigner.done and len(best) >= limit:
        Metrics.counter(NAMESPACE, STARVED).inc()
