import os
import time

import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.readseg import (
    HEADER,
    SegmentStats,
    combine_counts,
    list_line,
)
from pipelines.storage.segments import list_segments


def _local(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(ms // 1000))


def _page(n, status=CrawlStatus.FETCHED, fetch_time=0):
    return new_page(f"http://a.com/{n}", status=status, fetchTime=fetch_time)


def test_segment_stats_count_each_part(pipeline):
    records = [("s1", "generate", _page(n)) for n in range(4)]
    records += [("s1", "fetch", _page(n, fetch_time=1000 * (n + 5))) for n in range(3)]
    records += [("s1", "fetch", _page(9, CrawlStatus.GONE, fetch_time=99_000))]
    records += [("s1", "parse", _page(n)) for n in range(2)]
    records += [("s1", "parse", _page(9, CrawlStatus.GONE))]  # carried, not parsed
    records += [("s2", "generate", _page(1))]
    with pipeline as p:
        stats = p | beam.Create(records) | SegmentStats()
        assert_that(
            stats,
            equal_to(
                [
                    {
                        "segment": "s1",
                        "generated": 4,
                        "fetched": 4,
                        "fetch_start": 5000,
                        "fetch_end": 99_000,
                        "parsed": 2,
                    },
                    {
                        "segment": "s2",
                        "generated": 1,
                        "fetched": 0,
                        "fetch_start": None,
                        "fetch_end": None,
                        "parsed": 0,
                    },
                ]
            ),
        )


def test_combine_counts():
    assert combine_counts([]) == (0, 0, None, None, 0)
    assert combine_counts(
        [(1, 0, None, None, 0), (0, 1, 5, 7, 1), (0, 1, 3, 4, 0)]
    ) == (
        1,
        2,
        3,
        7,
        1,
    )


def test_nutch_list_format():
    assert (
        HEADER == "NAME\t\tGENERATED\tFETCHER START\t\tFETCHER END\t\tFETCHED\tPARSED"
    )
    figures = {
        "segment": "0",
        "generated": 4,
        "fetched": 3,
        "fetch_start": 1_700_000_000_000,
        "fetch_end": 1_700_000_060_999,
        "parsed": 2,
    }
    parts = {"generate", "fetch", "parse"}
    start, end = _local(1_700_000_000_000), _local(1_700_000_060_999)
    assert (
        list_line("20231114", figures, parts) == f"20231114\t4\t\t{start}\t{end}\t3\t2"
    )


def test_nutch_list_question_marks_for_missing_parts():
    figures = {"generated": 4, "fetched": 0, "fetch_start": None, "fetch_end": None}
    assert list_line("seg", figures, {"generate"}) == "seg\t4\t\t?\t\t?\t?\t?"
    assert list_line("seg", None, {"generate", "fetch"}) == "seg\t0\t\t?\t\t?\t0\t?"


def test_list_segments_by_name_skipping_staging(tmp_path):
    for name, part in [
        ("20240102000000", "generate"),
        ("20240101000000", "parse"),
        (".20240103000000.tmp-ab", "generate"),
        ("20240104000000", "other"),
    ]:
        os.makedirs(tmp_path / name / part)
        (tmp_path / name / part / "part-00000-of-00001.avro").write_bytes(b"")
    base = str(tmp_path)
    assert list_segments(base) == [
        os.path.join(base, "20240101000000"),
        os.path.join(base, "20240102000000"),
    ]
    assert list_segments(base, ("parse",)) == [os.path.join(base, "20240101000000")]
    assert list_segments(str(tmp_path / "missing")) == []
