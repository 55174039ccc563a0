"""Property tests of the seed-line parser (hypothesis): a Seed or None, never raises.

Seed lines with metadata (scores and intervals that are no numbers, extra
tabs, ``=`` in odd places) and arbitrary text parse to None (blank and
comment lines) or a :class:`Seed` of the documented types, and a seed built
from valid UTF-8 (what the inject job hands over) gives a record that
writes to Avro.
"""

from __future__ import annotations

import io
import math

import fastavro
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawllib.config import InjectConfig, UrlConfig
from crawllib.db.inject import Seed, parse_seed_line, seed_page
from crawllib.javanum import INT_MAX
from crawllib.webpage import schema
from tests.crawllib.fuzz.strategies import seed_lines

FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
CONFIG = InjectConfig(urls=UrlConfig())
PARSED = fastavro.parse_schema(schema())


def assert_seed(seed: Seed) -> None:
    """The documented shape of a Seed."""
    assert isinstance(seed, Seed)
    assert isinstance(seed.url, str)
    assert seed.line
    assert not seed.line.startswith("#")
    assert seed.url == seed.line.split("\t")[0].strip()
    assert seed.score is None or math.isfinite(seed.score)
    interval = seed.fetch_interval_s
    assert interval is None or (type(interval) is int and 0 <= interval <= INT_MAX)
    assert type(seed.fixed_interval) is bool
    assert not seed.fixed_interval or interval is not None
    for key, value in seed.metadata:
        assert isinstance(key, str)
        assert isinstance(value, str)
    assert all(isinstance(field, str) for field in seed.invalid_fields)


@FUZZ
@given(st.one_of(seed_lines(), st.text(max_size=40)))
def test_any_seed_line_gives_a_seed_or_none(line):
    seed = parse_seed_line(line)
    if seed is None:
        stripped = line.strip()
        assert not stripped or stripped.startswith("#")
    else:
        assert_seed(seed)


@FUZZ
@given(seed_lines().map(lambda line: line.encode("utf-8", "replace").decode()))
def test_a_seed_from_utf8_text_gives_a_record_that_writes_to_avro(line):
    seed = parse_seed_line(line)
    if seed is None:
        return
    page = seed_page(seed, seed.url, CONFIG, 1_700_000_000_000)
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, PARSED, page)
    buffer.seek(0)
    assert fastavro.schemaless_reader(buffer, PARSED) == page
