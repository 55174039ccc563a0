"""RankCandidates: candidates sorted through run files, walked from the best down."""

from __future__ import annotations

import collections
import dataclasses
import json
import random
from pathlib import Path

import apache_beam as beam
import pytest

from crawllib.config import GenerateConfig, load_properties
from crawllib.db.generate import SegmentAssigner, host_cap
from pipelines.transforms.ranking import Candidate, RankCandidates

CONFIG = GenerateConfig.from_properties(load_properties())


def _reference(
    candidates: list[Candidate], config: GenerateConfig
) -> list[tuple[str, int]]:
    """Nutch's SelectorReducer over all of them, in one place, in memory."""
    cap = host_cap(config.max_count, config.max_num_segments)
    assigner = SegmentAssigner(config.top_n, config.max_count, config.max_num_segments)
    placed: collections.Counter[str] = collections.Counter()
    assigned = []
    for _, url, host in sorted(candidates):
        if cap is not None:
            if placed[host] >= cap:
                continue
            placed[host] += 1
        segment = assigner.assign(host)
        if assigner.done:
            break
        if segment is not None:
            assigned.append((url, segment))
    return sorted(assigned)


@pytest.mark.parametrize("seed", range(6))
def test_the_segments_one_ordered_pass_over_all_candidates_gives(
    tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    hosts = [f"h{n}" for n in range(rng.randrange(1, 300))]
    count = [50, 3_000, 25_000][seed % 3]  # 25,000: several sorted runs
    candidates = [  # ties in score: broken by URL
        (-rng.choice([0.5, 1.0, 2.0, rng.random()]), f"http://u{n}/", rng.choice(hosts))
        for n in range(count)
    ]
    config = dataclasses.replace(
        CONFIG,
        top_n=rng.randrange(1, count + 10),
        max_count=rng.choice([-1, 1, 7, 100]),
        max_num_segments=rng.choice([1, 1, 3]),
    )
    runs, out = tmp_path / "runs", tmp_path / "out"
    with beam.Pipeline() as p:
        _ = (
            p
            | beam.Create([(host, c) for c in candidates for host in [c[2]]])
            | RankCandidates(config, str(runs))
            | beam.Map(json.dumps)
            | beam.io.WriteToText(str(out))
        )
    lines = [
        line for path in tmp_path.glob("out*") for line in path.read_text().splitlines()
    ]
    got = sorted(tuple(json.loads(line)) for line in lines)

    assert got == _reference(candidates, config)
    assert got  # something was ranked
    assert list(runs.iterdir()) == []  # the run files read are deleted
