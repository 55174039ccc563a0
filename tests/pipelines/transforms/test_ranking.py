"""The ranking combiner: cut on each worker, the same best candidates in all."""

from __future__ import annotations

import random

import pytest

from pipelines.transforms.ranking import Candidate, _CappedBestFn


def _reference(candidates: list[Candidate], cap: int, limit: int) -> list[Candidate]:
    """Each host's best ``cap``, then the best ``limit`` of all: in one place."""
    per_host: dict[str, list[Candidate]] = {}
    for candidate in sorted(candidates):
        per_host.setdefault(candidate[2], []).append(candidate)
    capped = [c for best in per_host.values() for c in best[:cap]]
    return sorted(capped)[:limit]


@pytest.mark.parametrize("seed", range(40))
def test_cut_per_worker_gives_the_global_best(seed: int) -> None:
    rng = random.Random(seed)
    hosts = [f"h{n}" for n in range(rng.randrange(1, 30))]
    candidates = [
        (-rng.choice([0.5, 1.0, 2.0, rng.random()]), f"http://u{n}/", rng.choice(hosts))
        for n in range(rng.randrange(0, 600))
    ]
    cap, limit = rng.randrange(1, 8), rng.randrange(1, 60)
    combine = _CappedBestFn(cap, limit)
    rng.shuffle(candidates)
    workers = [combine.create_accumulator() for _ in range(rng.randrange(1, 9))]
    for candidate in candidates:
        worker = rng.randrange(len(workers))
        workers[worker] = combine.add_input(workers[worker], candidate)
    while len(workers) > 1:  # merged in random groups, as runners do
        rng.shuffle(workers)
        split = rng.randrange(2, len(workers) + 1)
        workers = [combine.merge_accumulators(workers[:split]), *workers[split:]]
    assert combine.extract_output(workers[0]) == _reference(candidates, cap, limit)
