"""Round records: written whole, read back in order, damaged ones skipped."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pipelines.storage.rounds import RoundRecord, read_rounds, record_path, write_round


def _record(number: int) -> RoundRecord:
    return RoundRecord(
        round=number,
        segment=f"segments/2026120500000{number}",
        started_ms=1_000,
        ended_ms=3_500,
        generated=5,
        fetched={"SUCCESS": 3, "NOTFOUND": 1},
        unfetched={"fetcher time limit": 1},
        parsed={"SUCCESS": 3},
        new_urls=7,
        crawldb={"db_fetched": 3, "db_unfetched": 9},
        counters={"FetcherStatus:SUCCESS": 3},
    )


def test_round_records_read_back_in_round_order(tmp_path: Path) -> None:
    for number in (2, 10, 1):
        write_round(str(tmp_path), _record(number))
    records = read_rounds(str(tmp_path))
    assert [r.round for r in records] == [1, 2, 10]
    assert records[0] == _record(1)
    assert records[0].seconds == 2.5


def test_a_directory_without_rounds_has_none(tmp_path: Path) -> None:
    assert read_rounds(str(tmp_path)) == []


def test_a_damaged_record_is_skipped_with_a_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_round(str(tmp_path), _record(1))
    Path(record_path(str(tmp_path), 2)).write_text('{"round": "two"')
    with caplog.at_level(logging.WARNING):
        assert [r.round for r in read_rounds(str(tmp_path))] == [1]
    assert "round-0002.json" in caplog.text


def test_a_record_is_renamed_into_place_and_leaves_no_temporary_file(
    tmp_path: Path,
) -> None:
    first = RoundRecord(1, "s/1", 0, 1, 2)
    write_round(str(tmp_path), first)
    write_round(str(tmp_path), RoundRecord(1, "s/1", 0, 1, 3))  # replaced whole
    assert sorted(p.name for p in (tmp_path / "rounds").iterdir()) == [
        "round-0001.json"
    ]
    assert [r.generated for r in read_rounds(str(tmp_path))] == [3]
