"""Generate's reduce side as Beam: candidates to (url, segment).

Nutch's SelectorReducer walks one reducer's candidates from the best down,
sorted on disk by Hadoop's shuffle; :class:`RankCandidates` gives the same
answer over all of them: light ``(-sort, url, host)`` tuples sorted in
bounded buffers spilled to run files, then walked from the best down in
one place, as far as the segments can hold.
"""

from __future__ import annotations

import collections
import tempfile
from collections.abc import Iterable, Iterator

import apache_beam as beam
from apache_beam.io.filesystems import FileSystems
from apache_beam.metrics.metric import Metrics
from apache_beam.pvalue import AsList, PCollection
from apache_beam.transforms.combiners import Count

from crawllib.config import GenerateConfig
from crawllib.db.buckets import Bucketing
from crawllib.db.generate import SegmentAssigner, host_cap
from crawllib.db.sortedruns import Item
from pipelines.transforms.sortmerge import RunRange, SortIntoBuckets, bucket_items

NAMESPACE = "Generator"

Candidate = tuple[float, str, str]
"""(-sort value, url, count key): rank order is tuple order."""


class RankCandidates(
    beam.PTransform[PCollection[tuple[str, Candidate]], PCollection[tuple[str, int]]]
):
    """Candidates to (url, segment): the SelectorReducer over all fetch lists.

    Without ``--topN`` hosts do not interact, so each host is assigned on its
    own. With it, every candidate is sorted into rank order through sorted
    run files under ``runs_dir``, a directory every worker can reach
    (:class:`~pipelines.transforms.sortmerge.SortIntoBuckets` with one
    bucket), and one pass walks them
    from the best down, each host up to what it could ever place
    (:func:`~crawllib.db.generate.host_cap`), until the segments are full:
    memory is a sort buffer and a count per host, whatever the crawldb's
    size or ``--topN``. The pass deletes the run files it read; without
    ``runs_dir`` they go to a new local temporary directory.
    """

    def __init__(self, config: GenerateConfig, runs_dir: str | None = None) -> None:
        super().__init__()
        self._config = config
        self._runs_dir = runs_dir

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
        overflowing: list[str] | AsList = []
        if cap is not None:
            overflowing = AsList(
                candidates
                | "CountPerHost" >> Count.PerKey()
                | "OverCap" >> beam.FlatMap(_over_cap, cap)
            )
        runs_dir = self._runs_dir or tempfile.mkdtemp(prefix="beamcrawl-rank-")
        return (
            candidates
            | "AsRankItems" >> beam.Map(_rank_item)
            | "SortByRank" >> SortIntoBuckets(Bucketing(1), runs_dir)
            | "AssignInOrder" >> beam.ParDo(_AssignInOrderFn(config, cap), overflowing)
        )


def _rank_item(keyed: tuple[str, Candidate]) -> Item:
    """``((-sort, url), host)``: sorted by its first part, rank order."""
    neg_sort, url, key = keyed[1]
    return (neg_sort, url), key


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


class _AssignInOrderFn(beam.DoFn):
    """With topN: one pass over all the candidates, from the best down."""

    def __init__(self, config: GenerateConfig, cap: int | None) -> None:
        self._config = config
        self._cap = cap

    def process(
        self, bucket_ranges: tuple[int, list[RunRange]], overflowing: Iterable[str]
    ) -> Iterator[tuple[str, int]]:
        """``overflowing``: the hosts already counted as over their cap."""
        _, ranges = bucket_ranges
        config, cap = self._config, self._cap
        assigner = SegmentAssigner(
            config.top_n, config.max_count, config.max_num_segments
        )
        placed: collections.Counter[str] = collections.Counter()
        for (_, url), key in bucket_items(ranges):
            if cap is not None:
                if placed[key] >= cap:  # counted by _over_cap
                    continue
                placed[key] += 1
            segment = assigner.assign(key)
            if assigner.done:
                break
            if segment is not None:
                yield url, segment
        _count_overflow(assigner.skipped, len(assigner.overflowed - set(overflowing)))
        runs = sorted({path for path, _, _ in ranges})
        if runs:
            FileSystems.delete(runs)
