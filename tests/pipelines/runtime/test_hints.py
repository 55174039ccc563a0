"""Transforms whose inputs or outputs Beam's hints cannot say log nothing when used.

Beam 2.78 reads ``expand``'s annotations as type hints and logs a warning
for each it cannot use (a tuple or dict of PCollections, a union): twenty
lines in a crawl. These run on the newest Beam in CI (scripts/check).
"""

from __future__ import annotations

import logging

import pytest

from crawllib.config import (
    CrawlConfig,
    GenerateConfig,
    LinkDbConfig,
    ParseConfig,
    UpdateConfig,
    load_properties,
)
from crawllib.db.buckets import Bucketing
from crawllib.db.dedup import DedupConfig
from pipelines.generate import Generate
from pipelines.parse import ParseForUpdate
from pipelines.transforms.bucketdedup import BucketedDedup
from pipelines.transforms.bucketlinks import BucketedInvertLinks
from pipelines.transforms.bucketupdate import BucketedUpdate
from pipelines.transforms.library import CrawlRound
from pipelines.transforms.sortmerge import SortIntoBuckets

PROPS = load_properties().with_values({"http.agent.name": "hints"})
ONE = Bucketing(1)
TRANSFORMS = {
    "Generate": lambda: Generate(GenerateConfig.from_properties(PROPS), 1, 1, ["s"]),
    "ParseForUpdate": lambda: ParseForUpdate(ParseConfig.from_properties(PROPS)),
    "CrawlRound": lambda: CrawlRound(CrawlConfig.from_properties(PROPS)),
    "SortIntoBuckets": lambda: SortIntoBuckets(ONE, "runs"),
    "BucketedUpdate": lambda: BucketedUpdate(
        UpdateConfig.from_properties(PROPS), 1, "old", "new", ONE, "runs"
    ),
    "BucketedDedup": lambda: BucketedDedup(
        DedupConfig.from_args("none", "score,fetchTime,urlLength"),
        "cur",
        "new",
        ONE,
        "runs",
    ),
    "BucketedInvertLinks": lambda: BucketedInvertLinks(
        LinkDbConfig.from_properties(PROPS), None, "new", ONE, "runs"
    ),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_no_type_hint_warning_when_beam_reads_the_hints(name, caplog):
    transform = TRANSFORMS[name]()
    with caplog.at_level(logging.WARNING):
        transform.default_type_hints()  # what Beam reads when it applies one
    assert [
        r.getMessage() for r in caplog.records if "type hint" in r.getMessage()
    ] == []
