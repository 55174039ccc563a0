"""Generate's reduce side as Beam: candidates to (url, segment).

Nutch's SelectorReducer walks one reducer's candidates from the best down;
:class:`RankCandidates` gives the same answer over all of them while
shuffling only light ``(-sort, url, host, flag)`` tuples, and keeps no more
than it must in one place (see its docstring).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import apache_beam as beam
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import PCollection
from apache_beam.transforms.combiners import Top

from crawllib.config import GenerateConfig
from crawllib.db.generate import SegmentAssigner, host_cap

NAMESPACE = "Generator"
STARVED = "RANKING_STARVED"

Candidate = tuple[float, str, str, bool]
"""(-sort value, url, count key, whether the host had candidates dropped)."""


class RankCandidates(
    beam.PTransform[PCollection[tuple[str, Candidate]], PCollection[tuple[str, int]]]
):
    """Candidates to (url, segment): the SelectorReducer over all fetch lists.

    Without ``--topN`` hosts do not interact, so each host is assigned on its
    own. With it, each host first keeps only the candidates it could ever
    place (:func:`~crawllib.db.generate.host_cap`), the best ``rank_window(config)`` of
    all are gathered and one pass assigns them in order. Should that pass run
    out before the segments are full while more candidates exist, it counts
    ``RANKING_STARVED`` and the driver runs again with a larger limit.
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
        if cap is not None:
            per_host = candidates | "BestPerHost" >> beam.CombinePerKey(_BestFn(cap))
            if config.top_n is None:
                return per_host | "AssignPerHost" >> beam.FlatMap(_assign_host, config)
            best = per_host | "Capped" >> beam.FlatMap(_capped)
        else:
            best = candidates | "Values" >> beam.Values()
        limit = rank_window(config)
        return (
            best
            | "Best" >> Top.Smallest(limit)
            | "AssignInOrder" >> beam.FlatMap(_assign_all, config, limit)
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


def _count_overflow(urls: int, hosts: int) -> None:
    if urls:
        Metrics.counter(NAMESPACE, "URLS_SKIPPED_PER_HOST_OVERFLOW").inc(urls)
    if hosts:
        Metrics.counter(NAMESPACE, "HOSTS_AFFECTED_PER_HOST_OVERFLOW").inc(hosts)


def _capped(
    keyed: tuple[str, tuple[list[Candidate], int]],
) -> Iterator[Candidate]:
    """A host's kept candidates, flagged when others of it were dropped."""
    _, (best, dropped) = keyed
    _count_overflow(dropped, 1 if dropped else 0)
    for neg_sort, url, key, _flag in best:
        yield neg_sort, url, key, dropped > 0


def _assign_host(
    keyed: tuple[str, tuple[list[Candidate], int]], config: GenerateConfig
) -> Iterator[tuple[str, int]]:
    """No topN: one host's candidates assigned on their own."""
    key, (best, dropped) = keyed
    assigner = SegmentAssigner(None, config.max_count, config.max_num_segments)
    for _, url, _, _ in best:
        segment = assigner.assign(key)
        if segment is not None:
            yield url, segment
    _count_overflow(
        dropped + assigner.skipped, 1 if dropped or assigner.overflowed else 0
    )


def _assign_all(
    best: list[Candidate], config: GenerateConfig, limit: int
) -> Iterator[tuple[str, int]]:
    """With topN: one ordered pass over the best candidates of all hosts."""
    assigner = SegmentAssigner(config.top_n, config.max_count, config.max_num_segments)
    for _, url, key, _ in best:
        segment = assigner.assign(key)
        if assigner.done:
            break
        if segment is not None:
            yield url, segment
    dropped_before = {key for _, _, key, flag in best if flag}
    _count_overflow(assigner.skipped, len(assigner.overflowed - dropped_before))
    if not assigner.done and len(best) >= limit:
        Metrics.counter(NAMESPACE, STARVED).inc()
