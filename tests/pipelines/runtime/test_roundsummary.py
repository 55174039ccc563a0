"""A round's counts to its record, the resume line, and the summary table."""

from pipelines.runtime.resume import Resume, Unfinished
from pipelines.runtime.roundcounts import RoundCounts
from pipelines.runtime.summary import round_lines
from pipelines.storage.rounds import RoundRecord


def _counts() -> RoundCounts:
    counts = RoundCounts()
    counts.add("generate", {"GENERATED": 10})
    counts.add("fetch", {"SUCCESS": 6, "NOTFOUND": 1, "bytes_downloaded": 900})
    counts.add("fetch", {"SUCCESS": 1, "success": 7})  # a second segment
    counts.add("fetch", {"hit_by_timelimit": 1, "Links/kept": 3})
    counts.add("updatedb", {"urls_added": 4, "status_fetched": 7, "status_gone": 1})
    return counts


def test_a_round_record_adds_up_and_names_what_was_not_fetched():
    record = _counts().record(2, ["s/a", "s/b"], 1_000, 4_500)
    assert record.round == 2
    assert (record.segment, record.segments) == ("s/a", ["s/a", "s/b"])
    assert record.generated == 10
    assert record.fetched == {"SUCCESS": 7, "NOTFOUND": 1}
    assert record.unfetched == {"time_limit": 1, "unaccounted": 1}
    assert sum(record.fetched.values()) + sum(record.unfetched.values()) == 10
    assert record.parsed == {"success": 7}
    assert record.new_urls == 4
    assert record.crawldb == {"status_fetched": 7, "status_gone": 1}
    assert record.counters["fetch:bytes_downloaded"] == 900
    assert record.counters["generate:GENERATED"] == 10
    assert record.seconds == 3.5
    assert RoundRecord.from_json(record.to_json()) == record


def _done(*numbers: int) -> list[RoundRecord]:
    return [RoundRecord(n, f"s/{n}", 0, 1000, 1) for n in numbers]


def test_the_resume_line_says_what_is_done_and_what_comes_next():
    assert Resume().line("c", 3) is None
    assert Resume(_done(1, 2)).line("c", 5) == (
        "crawl: resuming c: rounds 1-2 of 5 done, going on with round 3"
    )
    assert Resume(_done(1)).line("c", 3) == (
        "crawl: resuming c: round 1 of 3 done, going on with round 2"
    )
    assert Resume(_done(1, 2, 3)).line("c", 3) == (
        "crawl: resuming c: rounds 1-3 of 3 done, nothing left to do"
    )
    left = Unfinished(("s/20261205",), (), False, 8)
    assert Resume([], left).line("c", 2) == (
        "crawl: resuming c: no round of 2 done, going on with round 1 "
        "(segment 20261205 was generated, not fetched: fetching it)"
    )


def test_the_summary_table_has_a_row_per_round_and_the_totals():
    records = [_counts().record(n, [f"s/{n}"], 0, 2000) for n in (1, 2)]
    lines = round_lines(records)
    assert lines[0] == "Rounds:"
    assert lines[1].split() == [
        "ROUND", "GENERATED", "FETCHED", "NOT", "FETCHED", "NEW", "URLS", "TIME"
    ]  # fmt: skip
    assert lines[2].split() == [
        "1", "10", "NOTFOUND=1,", "SUCCESS=7", "time_limit=1,", "unaccounted=1",
        "4", "2.0", "s",
    ]  # fmt: skip
    assert lines[-1] == (
        "Total: 2 rounds, 20 generated, fetched NOTFOUND=2, SUCCESS=14, "
        "not fetched time_limit=2, unaccounted=2, 8 new URLs, 4.0 s"
    )
    assert round_lines([]) == ["No round records: nothing was crawled."]
