"""``beamcrawl crawl --seeds SEEDS CRAWL_DIR ROUNDS``: the whole loop, like bin/crawl.

Inject the seeds into ``CRAWL_DIR/crawldb``, then for each round: generate a
segment under ``CRAWL_DIR/segments``, fetch and parse it, update the
crawldb, invert its links into ``CRAWL_DIR/linkdb`` and mark duplicates.
The loop stops early when generate selects nothing. Every ``-D``,
``--conf`` and Beam flag is passed to each step, so the same command runs on
any runner. One summary line per round.

On a local runner the crawl uses both cores and fewer pipelines: each
round's fetch, parse, updatedb and dedup run as one pipeline
(``pipelines.transforms.fetchupdate``; ``--separateJobs`` turns that off), and
invertlinks runs in a child process beside the loop (``pipelines.runtime.sidejob``),
but for the last round's, which has nothing to run beside.
"""

from __future__ import annotations

import logging
import resource
import sys
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

from pipelines import dedup, fetch, generate, inject, invertlinks, updatedb
from pipelines.cli.crawl import CrawlRequest as CrawlRequest
from pipelines.cli.crawl import StepSettings, parser, request
from pipelines.cli.crawl import property_flags as property_flags
from pipelines.cli.dedup import DedupRequest
from pipelines.cli.fetch import FetchRequest
from pipelines.cli.generate import GenerateRequest
from pipelines.cli.inject import InjectRequest
from pipelines.cli.invertlinks import InvertLinksRequest
from pipelines.cli.updatedb import UpdateRequest
from pipelines.runtime import jobstate
from pipelines.runtime.options import (
    Job,
    describe,
    now_ms,
    parse_job_args,
)
from pipelines.runtime.sidejob import SideJob, SideJobFailed, side_job_errors
from pipelines.transforms import fetchupdate

_LOG = logging.getLogger(__name__)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the crawl; 0 when at least the injection succeeded."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: CrawlRequest, job: Job) -> int:
    """The checked request (``pipelines.cli``): the crawl; see :func:`execute`."""
    return execute(request, job)


def execute(request: CrawlRequest, job: Job) -> int:
    """Inject, then the rounds; 0 when at least the injection succeeded.

    On a local runner, invertlinks runs in a child process beside the loop.
    """
    settings = StepSettings.of(request, job)  # a bad setting: before inject
    side = SideJob() if job.is_local() else None
    try:
        _inject(request, settings, job)
        _rounds(request, settings, job, side)
    except SideJobFailed as exc:
        print(f"beamcrawl: crawl: {exc}", file=sys.stderr)
        return 1
    finally:
        if side is not None:
            side.finish()
    return 0


def _inject(request: CrawlRequest, settings: StepSettings, job: Job) -> None:
    with jobstate.step("the inject step"):
        injected = inject.execute(
            InjectRequest(request.crawldb, request.seeds, settings.inject),
            job.step("inject"),
        )
    print(
        f"crawl: injected {injected.get('urls_injected_unique', 0)} urls",
        file=sys.stderr,
    )


def _rounds(
    request: CrawlRequest, settings: StepSettings, job: Job, side: SideJob | None
) -> None:
    """The rounds, until ROUNDS or until nothing is due."""
    nothing_due_before_ms = 0  # a round's pipeline found no URL due before this
    for number in range(1, request.rounds + 1):
        if now_ms() < nothing_due_before_ms:
            _LOG.info("no URL is due: generate not run")
            print(f"crawl: round {number}: nothing to fetch, stopping", file=sys.stderr)
            break
        outcome = _round(number, request, settings, job, side)
        if outcome is None:
            print(f"crawl: round {number}: nothing to fetch, stopping", file=sys.stderr)
            break
        nothing_due_before_ms = outcome
    if side is not None:
        side.wait()
        _LOG.info("invertlinks in a child process: %.1f s", side.seconds)


def _round(
    number: int,
    request: CrawlRequest,
    settings: StepSettings,
    job: Job,
    side: SideJob | None,
) -> int | None:
    """One round: generate, fetch and parse, updatedb, invertlinks, dedup.

    Returns None when generate selected nothing, else the time before which
    no URL is due (0: some may be due at once).
    """
    started = time.monotonic()
    steps = _Steps(number)
    written, selected = steps.timed(
        "generate",
        generate.execute,
        GenerateRequest(request.crawldb, request.segments_dir, settings.generate),
        job.step("generate"),
    )
    if not written:
        return None
    one_pipeline = side is not None and not request.separate_jobs
    if one_pipeline:
        counts = steps.timed(
            "fetch+parse+updatedb+dedup",
            fetchupdate.execute,
            _round_request(request, settings, written),
            job,
        )
        fetched, updated = counts.fetched, counts.updated
        due_before_ms = 0 if counts.may_be_due else counts.due_by_ms
        last = number == request.rounds or not counts.may_be_due
    else:
        fetched, updated = _fetch_and_update(steps, request, settings, written, job)
        due_before_ms, last = 0, number == request.rounds
    _invert_links(steps, number, request, settings, written, job, side, last)
    if not one_pipeline:
        steps.timed(
            "dedup",
            dedup.execute,
            DedupRequest(request.crawldb, settings.dedup, settings.update.keep_backup),
            job.step("dedup"),
        )
    _report(number, steps, selected, fetched, updated, started)
    return due_before_ms


def _report(
    number: int,
    steps: _Steps,
    selected: dict[str, int],
    fetched: dict[str, int],
    updated: dict[str, int],
    started: float,
) -> None:
    """The round's summary line, and its steps' times and outlinks in the log."""
    print(_summary(number, selected, fetched, updated, started), file=sys.stderr)
    _LOG.info("round %d steps: %s", number, steps)
    links = {name: n for name, n in fetched.items() if name.startswith("Links/")}
    if links:
        _LOG.info("round %d outlinks: %s", number, describe(links))


def _round_request(
    request: CrawlRequest, settings: StepSettings, written: list[str]
) -> fetchupdate.FetchUpdateRequest:
    return fetchupdate.FetchUpdateRequest(
        request.crawldb,
        tuple(written),
        settings.fetch,
        settings.parse,
        settings.update,
        settings.generate.max_interval_s,
    )


def _fetch_and_update(
    steps: _Steps,
    request: CrawlRequest,
    settings: StepSettings,
    written: list[str],
    job: Job,
) -> tuple[dict[str, int], dict[str, int]]:
    """Fetch and parse each segment, then updatedb: the fetch and update counters."""
    fetched: dict[str, int] = {}
    for segment in written:
        fetch_request = FetchRequest(segment, settings.fetch, settings.parse)
        for name, count in steps.timed(
            "fetch", fetch.execute, fetch_request, job.step("fetch")
        ).items():
            fetched[name] = fetched.get(name, 0) + count
    update_request = UpdateRequest(request.crawldb, tuple(written), settings.update)
    updated = steps.timed(
        "updatedb", updatedb.execute, update_request, job.step("updatedb")
    )
    return fetched, updated


def _invert_links(
    steps: _Steps,
    number: int,
    request: CrawlRequest,
    settings: StepSettings,
    written: list[str],
    job: Job,
    side: SideJob | None,
    last: bool,
) -> None:
    """Invertlinks of the round: here, or in a child process beside the loop.

    A child is not worth its start-up for the last round, which has nothing
    to run beside it.
    """
    invert = InvertLinksRequest(request.linkdb, tuple(written), settings.linkdb)
    label, here = f"invertlinks of round {number}", job.step("invertlinks")
    if side is None:
        steps.timed("invertlinks", invertlinks.execute, invert, here)
        return
    steps.wait("invertlinks (waiting)", side)
    if last:
        with side_job_errors(label, "invertlinks"):
            steps.timed("invertlinks", invertlinks.execute, invert, here)
    else:
        argv = [request.linkdb, *written, *request.child_flags, *job.beam_flags]
        side.start(label, ["invertlinks", *argv])


def _summary(
    round_number: int,
    selected: dict[str, int],
    fetched: dict[str, int],
    updated: dict[str, int],
    started: float,
) -> str:
    statuses = ", ".join(
        f"{name}={count}"
        for name, count in sorted(fetched.items())
        if name.isupper() and name != "bytes_downloaded"
    )
    return (
        f"crawl: round {round_number}: generated {selected.get('GENERATED', 0)}, "
        f"fetched {statuses or 'nothing'}, new urls {updated.get('urls_added', 0)}, "
        f"{time.monotonic() - started:.1f} s"
    )


_R = TypeVar("_R")
_Q = TypeVar("_Q")


class _Steps:
    """Runs a round's jobs and keeps their wall and CPU times, for the log.

    CPU is this process's and its finished children's (user + system). Each
    step is named to ``pipelines.runtime.jobstate`` (``round 2's generate``).
    """

    def __init__(self, round_number: int) -> None:
        self.seconds: dict[str, tuple[float, float]] = {}
        self._round = round_number

    def timed(
        self, name: str, execute: Callable[[_Q, Job], _R], request: _Q, job: Job
    ) -> _R:
        """``execute(request, job)``, timed as step ``name``."""
        started, cpu_started = time.monotonic(), _cpu_s()
        try:
            with jobstate.step(f"round {self._round}'s {name}"):
                return execute(request, job)
        finally:
            wall, cpu = self.seconds.get(name, (0.0, 0.0))
            self.seconds[name] = (
                wall + time.monotonic() - started,
                cpu + _cpu_s() - cpu_started,
            )

    def wait(self, name: str, side: SideJob) -> None:
        """Wait for ``side``'s job, counting the wait as step ``name``."""
        started = time.monotonic()
        try:
            side.wait()
        finally:
            wall, cpu = self.seconds.get(name, (0.0, 0.0))
            self.seconds[name] = (wall + time.monotonic() - started, cpu)

    def __str__(self) -> str:
        return ", ".join(
            f"{name} {wall:.1f} s cpu {cpu:.1f} s"
            for name, (wall, cpu) in self.seconds.items()
        )


def _cpu_s() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


if __name__ == "__main__":  # as `beamcrawl crawl`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["crawl", *sys.argv[1:]]))
