"""Parse pages in worker processes, so a job's parsing uses more than one core.

Parsing is pure CPU work and Python runs one thread at a time, so a fetch
job that parses in its own process uses one core however many it has. A
:class:`ParseBatch` hands each page to a pool of worker processes (each with
its own :class:`~crawllib.parse.parse.PageParser`) and gives the parsed pages
back in the order they were handed in; the workers' outlink tallies come
back with them (:meth:`ParseBatch.take_link_counts`); an
:class:`EncodedParseBatch` gives them back Avro-encoded, for a job that only
writes them. The result is exactly what
:func:`parse_without_content` gives in the job's own process, but after a
parse that overruns ``parser.timeout``: a worker stops it with SIGALRM and
the next page waits its turn, where the job's own thread may turn the next
page away as busy while the stuck parse finishes a C call
(:mod:`crawllib.parse.timelimit`).

The worker processes are shared by every batch in the process and outlive a
job (a crawl runs many jobs in one process); each chunk of pages carries its
batch's configuration (pickled once per batch), and a worker builds a new
parser when the configuration changes. They are started on first use, or
ahead of it by :func:`prestart` (the command line starts them while it
imports Beam, so their own start-up costs no wall time). A worker that dies
(a crash in a C library, the OOM killer) fails nothing but the pages it
could have been parsing: those are parsed once more, one at a time, in a
fresh pool, and a page that kills a worker again is recorded as a failed
parse.
"""

from __future__ import annotations

import atexit
import collections
import concurrent.futures
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures.process import BrokenProcessPool
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar, cast

from crawllib.avro.encode import encode_webpage
from crawllib.config import ParseConfig
from crawllib.parse.parse import PageParser
from crawllib.status import ParseMajor, ParseMinor
from crawllib.webpage import ParseStatusRecord, WebPage

_LOG = logging.getLogger(__name__)
_Parsed = tuple[list[Any], dict[str, int]]  # pages or EncodedParse, link tallies
WORKER_DIED = "the parser process died"


class EncodedParse(NamedTuple):
    """A parsed page as :func:`parse_without_content` gives it, Avro-encoded.

    Attributes:
        major: the major code of its parse status (None: not parsed).
        record: its Avro binary encoding (:func:`~crawllib.avro.encode.encode_webpage`).
    """

    major: int | None
    record: bytes


def encoded(page: WebPage) -> EncodedParse:
    """``page`` as an :class:`EncodedParse`."""
    status = page["parseStatus"]
    return EncodedParse(
        None if status is None else status["majorCode"], encode_webpage(page)
    )


def parse_without_content(parser: PageParser, page: WebPage) -> WebPage:
    """The parsed record as the parse part stores it: without the raw content."""
    return {**parser.parse_page(page), "content": None}


def worker_died(page: WebPage) -> WebPage:
    """``page`` with a failed parse: its parse killed the worker process twice."""
    status: ParseStatusRecord = {
        "majorCode": int(ParseMajor.FAILED),
        "minorCode": int(ParseMinor.EXCEPTION),
        "args": [WORKER_DIED],
    }
    return {**page, "parseStatus": status, "content": None}


_Out = TypeVar("_Out")


class _Batch(Generic[_Out]):
    """Pages handed to worker processes; parsed pages back in the same order.

    Pages go to the workers :data:`CHUNK` at a time (the pool's cost is per
    task: a future, a queue round trip and two pickles); the last ones go
    when :meth:`drain` is called. At most ``max_pending`` pages wait at a
    time: :meth:`submit` blocks on the oldest beyond that, so memory stays
    bounded when parsing is slower than fetching.
    """

    CHUNK = 32
    _ENCODED: ClassVar[bool]  # what the workers give back: EncodedParse

    def __init__(self, config: ParseConfig, processes: int, max_pending: int = 0):
        if processes < 1:
            raise ValueError(f"processes must be 1 or more, not {processes}")
        # with every chunk
        self._job = _Job(tuple(sys.path), pickle.dumps(config), self._ENCODED)
        self._processes = processes
        self._max_pending = max_pending or 64 * processes
        self._chunk = max(1, min(self.CHUNK, self._max_pending // (2 * processes)))
        self._open: list[WebPage] = []  # not handed over yet
        self._pending: collections.deque[
            tuple[list[WebPage], concurrent.futures.Future[_Parsed]]
        ] = collections.deque()
        self._waiting = 0  # pages handed over, not given back
        self._link_counts: dict[str, int] = {}

    def submit(self, page: WebPage) -> Iterator[_Out]:
        """Hand ``page`` to a worker; yields the parsed pages that are ready."""
        self._open.append(page)
        if len(self._open) >= self._chunk:
            self._hand_over()
        while self._waiting + len(self._open) > self._max_pending and self._pending:
            yield from self._next()
        yield from self.ready()

    def ready(self) -> Iterator[_Out]:
        """The parsed pages at the head of the line that are done, in order."""
        while self._pending and self._pending[0][1].done():
            yield from self._next()

    def drain(self) -> Iterator[_Out]:
        """Every page still pending, waiting for each in order."""
        self._hand_over()
        while self._pending:
            yield from self._next()

    def take_link_counts(self) -> dict[str, int]:
        """The outlink tallies of the pages given back since the last call."""
        counts, self._link_counts = self._link_counts, {}
        return counts

    def _hand_over(self) -> None:
        if self._open:
            chunk, self._open = self._open, []
            pool = _shared_pool(self._processes)
            future = _submit(pool, _parse_chunk, self._job, chunk)
            self._pending.append((chunk, future))
            self._waiting += len(chunk)

    def _next(self) -> list[_Out]:
        chunk, future = self._pending.popleft()
        self._waiting -= len(chunk)
        try:
            pages, counts = future.result()
        except BrokenProcessPool:
            return [self._alone(page) for page in chunk]
        self._add(counts)
        return cast("list[_Out]", pages)

    def _add(self, counts: dict[str, int]) -> None:
        for name, count in counts.items():
            self._link_counts[name] = self._link_counts.get(name, 0) + count

    def _alone(self, page: WebPage) -> _Out:
        """Parse ``page`` by itself in a fresh pool; failed if it kills that too."""
        _LOG.warning("a parser process died; parsing %s again alone", page["url"])
        for _ in range(2):
            pool = _shared_pool(self._processes)
            try:
                parsed, counts = _submit(pool, _parse_chunk, self._job, [page]).result()
            except BrokenProcessPool:
                continue
            self._add(counts)
            return cast("_Out", parsed[0])
        _LOG.warning("parsing %s killed the parser process twice", page["url"])
        died = worker_died(page)
        return cast("_Out", encoded(died) if self._ENCODED else died)


class ParseBatch(_Batch[WebPage]):
    """Parsed pages as :func:`parse_without_content` gives them."""

    _ENCODED = False


class EncodedParseBatch(_Batch[EncodedParse]):
    """Parsed pages as :class:`EncodedParse`: encoded by the worker processes.

    For a job that only writes them (``beamcrawl parse``): the job's process
    then neither unpickles nor encodes a parsed record, it writes its bytes.
    """

    _ENCODED = True


_POOL_LOCK = threading.Lock()
_POOL: tuple[int, concurrent.futures.ProcessPoolExecutor] | None = None
_CLOSED = False
"""Set by :func:`close_for_exit`: no pool is started again in this process."""
CLOSE_WAIT_S = 5.0
"""How long :func:`close_for_exit` waits for the stopped pool's manager thread."""
_WORKER: tuple[bytes, PageParser] | None = None  # a worker's config and parser


def prestart(processes: int) -> None:
    """Start ``processes`` workers now, so a later batch finds them ready.

    A worker's start-up (a new interpreter importing the parser) then runs
    beside whatever this process does meanwhile, such as importing Beam.
    """
    if processes < 1:
        raise ValueError(f"processes must be 1 or more, not {processes}")
    pool = _shared_pool(processes)
    for _ in range(processes):  # each submit to a busy pool spawns a worker
        _submit(pool, os.getpid)


def _submit(
    pool: concurrent.futures.ProcessPoolExecutor, fn: Any, *args: Any
) -> concurrent.futures.Future[Any]:
    """``pool.submit``, with SIGINT blocked in this thread meanwhile.

    A worker that the submit starts inherits the block: Ctrl-C, which the
    terminal sends to every process of the group, cannot interrupt its
    start-up (a traceback) before it ignores SIGINT (``_start_worker``).
    """
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return pool.submit(fn, *args)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _shared_pool(processes: int) -> concurrent.futures.ProcessPoolExecutor:
    """The process's pool of ``processes`` workers: started, or replaced if broken.

    After :func:`close_for_exit` it never returns: the process is ending.
    """
    global _POOL
    with _POOL_LOCK:
        if not _CLOSED:
            if _POOL is not None:
                known_processes, pool = _POOL
                broken = getattr(pool, "_broken", False)
                if known_processes == processes and not broken:
                    return pool
                pool.shutdown(wait=False, cancel_futures=True)
            pool = concurrent.futures.ProcessPoolExecutor(
                processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
            )
            _POOL = (processes, pool)
            return pool
    threading.Event().wait()  # a thread of a job stopped halfway: until os._exit
    raise AssertionError("unreachable")


def shutdown_pool() -> None:
    """Stop the worker processes (they are started again when needed)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is not None:
            _POOL[1].shutdown(wait=True, cancel_futures=True)
            _POOL = None


atexit.register(shutdown_pool)


class _Stopped(NamedTuple):
    """A pool :func:`stop_now` stopped, and what its shutdown let go of."""

    pool: concurrent.futures.ProcessPoolExecutor
    manager: Any  # its manager thread, which frees the queues as it ends
    queues: tuple[Any, Any]  # the call and result queues, with the semaphores


_STOPPED: list[_Stopped] = []
"""The pool stopped last (all of them once closed), kept until the next stop."""


def stop_now() -> None:
    """Stop the worker processes at once, dropping what they parse (an interrupt).

    :func:`shutdown_pool`, which runs at exit, would wait for each chunk
    being parsed. They are started again when needed.

    The stopped pool is kept (``_STOPPED``) until the next stop, so that it
    is not freed by whichever thread lets go of it last: see
    :func:`close_for_exit`.
    """
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            return
        pool, _POOL = _POOL[1], None
        if not _CLOSED:
            _STOPPED.clear()
        queues = (
            getattr(pool, "_call_queue", None),
            getattr(pool, "_result_queue", None),
        )
        # read before the shutdown, which clears them from the pool
        manager = getattr(pool, "_executor_manager_thread", None)
        _STOPPED.append(_Stopped(pool, manager, queues))
    processes: dict[int, multiprocessing.process.BaseProcess] = (
        getattr(pool, "_processes", None) or {}
    )
    for process in list(processes.values()):
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


def close_for_exit() -> None:
    """Stop the workers for good: the process ends next, by ``os._exit``.

    A thread of an interrupted job that still parses would otherwise start
    a new pool after the exit's clean-up ran, and its semaphores would be
    left to multiprocessing's resource tracker, which then warns of them on
    stderr. Such a thread now waits, until the process ends.

    The stopped pools (this one's, or the interrupt's :func:`stop_now`)
    stay kept until then, so their semaphores are freed by the exit's
    clean-up, in the thread that runs it, and by no other: a semaphore freed
    by another thread (the last reference dropped, or a garbage collection)
    could be cut off by ``os._exit`` between its unlink and its
    unregistering, which the tracker warns of too. Their manager threads
    are given up to ``CLOSE_WAIT_S`` to end first.
    """
    global _CLOSED
    with _POOL_LOCK:
        _CLOSED = True
    stop_now()
    with _POOL_LOCK:
        managers = [stopped.manager for stopped in _STOPPED]
    for manager in managers:
        if isinstance(manager, threading.Thread):
            manager.join(CLOSE_WAIT_S)


def _start_worker() -> None:
    # Ctrl-C reaches every process of the terminal's group: the parent stops
    # the workers (stop_now), which would otherwise each print a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a pending one is dropped
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(
            target=_exit_with_parent, args=(parent.sentinel,), daemon=True
        ).start()


def _exit_with_parent(sentinel: int) -> None:
    """End this worker when its parent is gone, even killed with SIGKILL.

    The pool's queues do not tell a worker that the parent died: each end is
    also held by the worker itself, so a worker left alone would wait forever.
    """
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


class _Job(NamedTuple):
    """What a worker needs besides the pages: the batch's configuration.

    ``paths``: this process's ``sys.path`` when the batch began. A worker
    started earlier (:func:`prestart`) did not get the directories added
    since, such as a link policy file's, which unpickling the configuration
    may need.
    """

    paths: tuple[str, ...]
    config: bytes  # the pickled ParseConfig
    encoded: bool  # give back EncodedParse


def _parse_chunk(job: _Job, pages: list[WebPage]) -> _Parsed:
    """The parsed pages and their outlink tallies (``Links`` counters).

    The worker's parser is built again only when the configuration differs
    from the last chunk's.
    """
    global _WORKER
    if _WORKER is None or _WORKER[0] != job.config:
        if _WORKER is not None:
            _WORKER[1].close()
        sys.path.extend(path for path in job.paths if path not in sys.path)
        config = pickle.loads(job.config)
        _WORKER = (job.config, PageParser(config, use_alarm=True))
    parser = _WORKER[1]
    parser.take_link_counts()  # none left over from a chunk that failed
    parsed = [parse_without_content(parser, page) for page in pages]
    if job.encoded:
        return [encoded(page) for page in parsed], parser.take_link_counts()
    return parsed, parser.take_link_counts()
