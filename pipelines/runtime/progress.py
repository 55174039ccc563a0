"""Progress a user can see: a live display on a terminal, log lines elsewhere.

A job opens the process's :class:`Board` with :func:`shown` around its
pipeline. On a terminal (stderr a tty) the board is a live rich display,
one line per step (``fetch``: pages, bytes, pages/s, queues, ETA;
``generate``/``updatedb``: records), drawn above nothing else: while it is
live, the log handlers write through rich, which prints their lines above
the display; it is removed when the job ends. Elsewhere the board logs one
line per step every :data:`LOG_EVERY_S`, and nothing for a shorter job.

The steps report into the board of their own process, if it has one:
:class:`ShowProgress` counts the elements passing through it, and the fetch
job gives :func:`fetch_hook` to its fetchers. A worker of another process (a
Flink task manager, a parse worker) has no board: there ShowProgress logs
its count every :data:`LOG_EVERY_S` and the fetcher logs its own lines. The
board is found when a bundle starts, by process id; a DoFn holds only its
label, never the display, so pickling one never pickles a terminal.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import apache_beam as beam
from apache_beam.pvalue import PCollection
from rich.console import Console, RenderableType
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from crawllib.avro import check as avrocheck
from crawllib.fetch import progress
from crawllib.fetch.progress import FetchSnapshot
from pipelines.storage import fs, partfiles

_LOG = logging.getLogger(__name__)
T = TypeVar("T")

LOG_EVERY_S = 10.0
"""How often a step's count is logged where there is no terminal."""
CHECK_EVERY = 1024
"""Elements between two looks at the clock, where a count logs itself."""
_NEVER = sys.maxsize
_SERIALS = itertools.count(1)


class ShowProgress(beam.PTransform[PCollection[T], PCollection[T]]):
    """Pass elements through unchanged, counting them on the step's progress line.

    Several ShowProgress of one ``label`` add up on one line. Without a
    board in the process (a remote worker) the count is logged every
    :data:`LOG_EVERY_S`. No counters.
    """

    def __init__(self, label: str, total: int | None = None) -> None:
        super().__init__()
        self._label = label
        self._total = total

    def expand(self, elements: PCollection[T]) -> PCollection[T]:
        return elements | "Count" >> beam.ParDo(_CountFn(self._label, self._total))


@dataclass
class _Cell:
    """One DoFn instance's count; a board reads it, or it logs itself."""

    label: str
    board: int
    """The serial number of the board it counts on; 0: none, it logs itself."""
    count: int = 0
    check_at: int = _NEVER
    started_s: float = field(default_factory=time.monotonic)
    logged_s: float = field(default_factory=time.monotonic)

    def check(self) -> None:
        """Log the count if the period passed (no board); look again later."""
        self.check_at = self.count + CHECK_EVERY
        now = time.monotonic()
        if now - self.logged_s >= LOG_EVERY_S:
            self.logged_s = now
            _LOG.info(
                "%s",
                progress.records_line(self.label, self.count, now - self.started_s),
            )


class _CountFn(beam.DoFn):
    def __init__(self, label: str, total: int | None) -> None:
        self._label = label
        self._total = total
        self._cell: _Cell | None = None

    def start_bundle(self) -> None:
        board = current()
        serial = 0 if board is None else board.serial
        if self._cell is not None and self._cell.board == serial:
            return
        if board is None:
            self._cell = _Cell(self._label, 0, check_at=CHECK_EVERY)
        else:
            self._cell = board.cell(self._label, self._total)

    def process(self, element: T) -> Iterator[T]:
        cell = self._cell
        assert cell is not None
        cell.count += 1
        if cell.count >= cell.check_at:
            cell.check()
        yield element

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_cell": None}


class _Line:
    """One step on the board: record counts, or the fetchers' snapshots."""

    def __init__(self, label: str, total: int | None) -> None:
        self.label = label
        self.total = total
        self.cells: list[_Cell] = []
        self.fetches: dict[int, FetchSnapshot] = {}
        self.started_s = time.monotonic()
        self.counted = (0, self.started_s)
        """The last count seen, and when it changed: the rate stops with it."""

    def count(self, now_s: float) -> tuple[int, float]:
        """The count of records, and the seconds it took."""
        count = sum(cell.count for cell in self.cells)
        if count != self.counted[0]:
            self.counted = (count, now_s)
        return count, self.counted[1] - self.started_s

    def row(self, now_s: float) -> tuple[int, int | None, str]:
        """Completed, total and the words to show."""
        if self.fetches:
            snapshot = progress.combine(self.fetches.values())
            if self.total is not None:
                snapshot = progress.with_total(snapshot, self.total)
            return snapshot.done, snapshot.total, progress.fetch_words(snapshot)
        if not self.cells:
            return 0, self.total, "starting"
        count, elapsed_s = self.count(now_s)
        per_s = progress.rate(count, elapsed_s)
        return count, self.total, f"{count} records, {per_s:.0f} records/s"


class Board:
    """The process's progress display for one job; see the module docstring."""

    def __init__(self, live: bool) -> None:
        self.live = live
        self.serial = next(_SERIALS)
        self._lines: dict[str, _Line] = {}
        self._lock = threading.Lock()
        self._keys = itertools.count(1)
        self._stop = threading.Event()
        self._display: Live | None = None
        self._thread: threading.Thread | None = None
        self._streams: list[tuple[logging.StreamHandler[Any], Any]] = []

    def expect(self, label: str, total: int | None) -> None:
        """Set how many items the step ``label`` will see (the bar's end)."""
        self._line(label).total = total

    def cell(self, label: str, total: int | None) -> _Cell:
        """A new count on the line ``label`` (one per DoFn instance)."""
        line = self._line(label, total)
        cell = _Cell(label, self.serial)
        with self._lock:
            line.cells.append(cell)
        return cell

    def counts(self) -> dict[str, int]:
        """Each line's count so far: records, or fetch-list items done."""
        now = time.monotonic()
        with self._lock:
            return {label: line.row(now)[0] for label, line in self._lines.items()}

    def fetch_hook(self, label: str) -> Callable[[FetchSnapshot], None]:
        """A fetcher's ``on_progress``: its snapshots shown on the line ``label``."""
        line = self._line(label)
        key = next(self._keys)

        def show(snapshot: FetchSnapshot) -> None:
            with self._lock:
                line.fetches[key] = snapshot

        return show

    def _line(self, label: str, total: int | None = None) -> _Line:
        with self._lock:
            if label not in self._lines:
                self._lines[label] = _Line(label, total)
            return self._lines[label]

    def start(self) -> None:
        """Draw the live display, or start the thread that logs."""
        if not self.live:
            self._thread = threading.Thread(
                target=self._log_periodically, name="progress", daemon=True
            )
            self._thread.start()
            return
        stderr = sys.stderr
        self._display = Live(
            get_renderable=self._render,
            console=Console(file=stderr),
            transient=True,
            refresh_per_second=4,
            redirect_stdout=sys.stdout.isatty(),
            redirect_stderr=True,
        )
        self._display.start()
        for handler in logging.getLogger().handlers:
            if isinstance(handler, logging.StreamHandler) and handler.stream is stderr:
                self._streams.append((handler, handler.setStream(sys.stderr)))

    def stop(self) -> None:
        """Remove the display (log handlers write to stderr again), or stop logging."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self._display is not None:
            self._display.stop()
            for handler, stream in self._streams:
                handler.setStream(stream)

    def _render(self) -> RenderableType:
        now = time.monotonic()
        grid = Table.grid(padding=(0, 1))
        with self._lock:
            rows = [(line.label, *line.row(now)) for line in self._lines.values()]
        for label, completed, total, words in rows:
            bar = ProgressBar(total, completed, width=20, pulse=total is None)
            done = str(completed) if total is None else f"{completed}/{total}"
            grid.add_row(Text(label, style="bold"), bar, done, words)
        return grid

    def _log_periodically(self) -> None:
        while not self._stop.wait(LOG_EVERY_S):
            now = time.monotonic()
            with self._lock:
                lines = [line for line in self._lines.values() if line.cells]
                counts = [
                    (line.label, line.counted, *line.count(now)) for line in lines
                ]
            for label, before, count, elapsed_s in counts:
                if count != before[0]:
                    _LOG.info("%s", progress.records_line(label, count, elapsed_s))


_BOARDS: dict[int, Board] = {}
"""The open board by process id: a child process never draws its parent's."""


def current() -> Board | None:
    """This process's open board, if a job opened one."""
    return _BOARDS.get(os.getpid())


@contextlib.contextmanager
def shown(live: bool | None = None) -> Iterator[Board]:
    """Open the process's board for a job (a board already open is reused).

    Args:
        live: draw a live display; by default when stderr is a terminal.
    """
    board = current()
    if board is not None:
        yield board
        return
    if live is None:
        live = sys.stderr.isatty() and os.environ.get("TERM") != "dumb"
    board = Board(live)
    pid = os.getpid()
    board.start()
    _BOARDS[pid] = board
    try:
        yield board
    finally:
        del _BOARDS[pid]
        board.stop()


def fetch_hook(label: str = "fetch") -> Callable[[FetchSnapshot], None] | None:
    """A fetcher's ``on_progress`` for a live board here; None: let it log."""
    board = current()
    return board.fetch_hook(label) if board is not None and board.live else None


def count_records(pattern: str) -> int:
    """How many records the Avro files matching ``pattern`` hold, from block counts.

    Only the block headers are read (:func:`crawllib.avro.check.count_records`),
    no block is decompressed.
    """
    schema_name, fields = partfiles.webpage_schema_check()
    records = 0
    for path, size in partfiles.part_paths(pattern):
        with fs.open_raw(path) as stream:
            records += avrocheck.count_records(stream, size, schema_name, fields)
    return records
