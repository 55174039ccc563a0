"""ShowProgress and the board: counts through a real pipeline, hooks, pickling.

The live display itself is drawn on a real pseudo-terminal in
tests/e2e/test_demo.py.
"""

import io as stdio

import apache_beam as beam
import fastavro
from apache_beam.internal import pickler
from apache_beam.testing.util import assert_that, equal_to
from rich.console import Console

from crawllib.fetch.progress import FetchSnapshot
from crawllib.webpage import new_page, schema
from pipelines.runtime import progress
from pipelines.runtime.progress import Board, ShowProgress

N = 2500  # more than progress.CHECK_EVERY: a count that logs itself checks


def test_show_progress_passes_elements_through_and_counts_on_the_board(pipeline):
    with progress.shown(live=False) as board:
        with pipeline as p:
            numbers = p | beam.Create(range(N))
            once = numbers | "Once" >> ShowProgress("generate")
            # a second ShowProgress of one label adds to the same line
            _ = numbers | "Again" >> ShowProgress("generate", total=2 * N)
            _ = numbers | "Other" >> ShowProgress("updatedb")
            assert_that(once, equal_to(list(range(N))))
        assert board.counts() == {"generate": 2 * N, "updatedb": N}
    assert progress.current() is None


def test_without_a_board_a_short_job_logs_nothing_and_counts_on(pipeline, caplog):
    caplog.set_level("INFO", logger="pipelines.runtime.progress")
    with pipeline as p:
        out = p | beam.Create(range(N)) | ShowProgress("generate")
        assert_that(out, equal_to(list(range(N))))
    assert caplog.records == []


def test_a_board_opened_twice_is_the_same_board():
    with progress.shown(live=False) as outer, progress.shown() as inner:
        assert inner is outer
        assert progress.current() is outer


def test_fetchers_report_only_to_a_live_board():
    assert progress.fetch_hook() is None  # no board: the fetcher logs
    with progress.shown(live=False):
        assert progress.fetch_hook() is None  # no terminal: the fetcher logs
    board = Board(live=True)  # not started: nothing is drawn
    board.expect("fetch", 10)
    one, two = board.fetch_hook("fetch"), board.fetch_hook("fetch")
    one(FetchSnapshot(pages=3, bytes=300, done=2, total=None, queues=1, queued=4,
                      active=1, elapsed_s=2.0))  # fmt: skip
    two(FetchSnapshot(pages=1, bytes=100, done=1, total=None, queues=1, queued=0,
                      active=0, elapsed_s=1.0))  # fmt: skip
    assert board.counts() == {"fetch": 3}
    out = stdio.StringIO()
    Console(file=out, width=120).print(board._render())
    line = " ".join(out.getvalue().split())
    assert line.endswith(
        "3/10 4 pages, 400 bytes, 2.0 pages/s, 2 queues, 1 active, ETA 0:05"
    )
    assert line.startswith("fetch ")


def test_a_pickled_count_never_carries_the_board():
    fn = progress._CountFn("generate", None)
    with progress.shown(live=False) as board:
        fn.start_bundle()
        list(fn.process("x"))
        copy = pickler.loads(pickler.dumps(fn))
        assert copy._cell is None
        assert board.counts() == {"generate": 1}


def test_count_records_reads_block_counts(tmp_path):
    webpage = fastavro.parse_schema(schema())
    for part, count in (
        ("part-00000-of-00002.avro", 700),
        ("part-00001-of-00002.avro", 5),
    ):
        pages = [new_page(f"http://a.com/{part}/{n}") for n in range(count)]
        with open(tmp_path / part, "wb") as handle:
            fastavro.writer(handle, webpage, pages, codec="deflate", sync_interval=2000)
    assert progress.count_records(str(tmp_path / "part-*.avro")) == 705
