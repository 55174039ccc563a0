"""``beamcrawl crawl --seeds SEEDS CRAWL_DIR ROUNDS``: the whole loop, like bin/crawl.

Inject the seeds into ``CRAWL_DIR/crawldb``, then for each round: generate a
segment under ``CRAWL_DIR/segments``, fetch and parse it, update the
crawldb, invert its links into ``CRAWL_DIR/linkdb`` and mark duplicates.
The loop stops early when generate selects nothing. Every ``-D``,
``--conf`` and Beam flag is passed to each step, so the same command runs on
any runner. One summary line per round; each round's record is written to
``CRAWL_DIR/rounds/`` when its crawldb is published, and the crawl ends with
the summary of all of them (``pipelines.runtime.summary``). ROUNDS is the
directory's total: run again, the crawl goes on with the next round
(``pipelines.runtime.resume``).

On a local runner the crawl uses both cores and fewer pipelines: each
round's fetch, parse, updatedb and dedup run as one pipeline
(``pipelines.transforms.fetchupdate``; ``--separateJobs`` turns that off), and
invertlinks runs in a child process beside the loop (``pipelines.runtime.sidejob``),
but for the last round's, which has nothing to run beside.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Sequence

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
from pipelines.runtime import interrupts, jobstate
from pipelines.runtime import resume as resumer
from pipelines.runtime.options import (
    Job,
    describe,
    now_ms,
    parse_job_args,
)
from pipelines.runtime.roundcounts import GENERATED, RoundCounts
from pipelines.runtime.sidejob import SideJob, SideJobFailed, side_job_errors
from pipelines.runtime.steptimes import StepTimes
from pipelines.runtime.summary import summary_lines
from pipelines.storage.rounds import read_rounds, write_round
from pipelines.transforms import fetchupdate

_LOG = logging.getLogger(__name__)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the crawl; 0 when at least the injection succeeded."""
    cli = parse_job_args(parser(), sys.argv[1:] if argv is None else argv)
    return run_request(request(cli), cli)


def run_request(request: CrawlRequest, job: Job) -> int:
    """The checked request (``pipelines.cli``): the crawl; see :func:`execute`."""
    return execute(request, job)


def execute(request: CrawlRequest, job: Job, summary: bool = True) -> int:
    """Inject, then the rounds; 0 when at least the injection succeeded.

    A crawl directory with rounds done goes on with the next round
    (``pipelines.runtime.resume``); ROUNDS is the directory's total. On a
    local runner, invertlinks runs in a child process beside the loop. With
    ``summary``, the rounds, totals, files and next commands end it (stdout).
    """
    settings = StepSettings.of(request, job)  # a bad setting: before inject
    resume = resumer.plan(request.crawl_dir, request.crawldb, request.segments_dir)
    line = resume.line(request.crawl_dir, request.rounds)
    if line is not None:
        print(line, file=sys.stderr)
    if resume.next_round <= request.rounds:
        side = SideJob() if job.is_local() else None
        try:
            _inject(request, settings, job)
            _mark_start(request)
            _relink(request, settings, job, side, resume.relink)
            _rounds(request, settings, job, side, resume)
        except SideJobFailed as exc:
            print(f"beamcrawl: crawl: {exc}", file=sys.stderr)
            return 1
        finally:
            if side is not None:
                side.finish()
    if summary:
        print(
            "\n".join(summary_lines(request.crawl_dir, read_rounds(request.crawl_dir)))
        )
    return 0


def _mark_start(request: CrawlRequest) -> None:
    before = resumer.mark_start(request.crawl_dir, request.segments_dir, now_ms())
    if before:
        print(
            f"crawl: {request.crawl_dir} has {len(before)} segments from before "
            "its first crawl with round records; counting rounds from 1",
            file=sys.stderr,
        )


def _relink(
    request: CrawlRequest,
    settings: StepSettings,
    job: Job,
    side: SideJob | None,
    segments: tuple[str, ...],
) -> None:
    """Invert the links of the last rounds again: an interrupted crawl may not have."""
    if not segments:
        return
    if side is None:
        with jobstate.step("invertlinks of the rounds done"):
            invertlinks.execute(
                InvertLinksRequest(
                    request.linkdb, segments, settings.linkdb, force=request.force
                ),
                job.step("invertlinks"),
            )
        return
    argv = [request.linkdb, *segments, *request.child_flags, *job.beam_flags]
    argv += ["--force"] if request.force else []
    side.start("invertlinks of the rounds done", ["invertlinks", *argv])


def _inject(request: CrawlRequest, settings: StepSettings, job: Job) -> None:
    with jobstate.step("the inject step"):
        injected = inject.execute(
            InjectRequest(
                request.crawldb, request.seeds, settings.inject, force=request.force
            ),
            job.step("inject"),
        )
    print(
        f"crawl: injected {injected.get('urls_injected_unique', 0)} urls",
        file=sys.stderr,
    )


def _rounds(
    request: CrawlRequest,
    settings: StepSettings,
    job: Job,
    side: SideJob | None,
    resume: resumer.Resume,
) -> None:
    """The rounds, from the first not done until ROUNDS or until nothing is due."""
    nothing_due_before_ms = 0  # a round's pipeline found no URL due before this
    unfinished = resume.unfinished
    for number in range(resume.next_round, request.rounds + 1):
        if now_ms() < nothing_due_before_ms:
            _LOG.info("no URL is due: generate not run")
            print(f"crawl: round {number}: nothing to fetch, stopping", file=sys.stderr)
            break
        outcome = _round(number, request, settings, job, side, unfinished)
        unfinished = None
        if outcome is None:
            print(f"crawl: round {number}: nothing to fetch, stopping", file=sys.stderr)
            break
        nothing_due_before_ms = outcome
        jobstate.completed(f"rounds 1 to {number}" if number > 1 else "round 1")
    if side is not None:
        side.wait()
        _LOG.info("invertlinks in a child process: %.1f s", side.seconds)


def _round(
    number: int,
    request: CrawlRequest,
    settings: StepSettings,
    job: Job,
    side: SideJob | None,
    unfinished: resumer.Unfinished | None = None,
) -> int | None:
    """One round: generate, fetch and parse, updatedb, invertlinks, dedup.

    An ``unfinished`` round (an interrupted crawl's) is not generated: its
    segments go on from where they stopped. The round's record is written
    as soon as its crawldb is published. Returns None when generate
    selected nothing, else the time before which no URL is due (0: some may
    be due at once).
    """
    started, started_ms = time.monotonic(), now_ms()
    steps, counts = StepTimes(number), RoundCounts()
    if unfinished is None:
        written, selected = steps.timed(
            "generate",
            generate.execute,
            GenerateRequest(
                request.crawldb,
                request.segments_dir,
                settings.generate,
                force=request.force,
            ),
            job.step("generate"),
        )
        if not written:
            return None
    else:
        written, selected = list(unfinished.segments), {GENERATED: unfinished.generated}
    counts.add("generate", selected)
    if unfinished is not None and unfinished.updated:  # fetched before it stopped
        counts.add("unfetched", {"uncounted": unfinished.generated})
    one_pipeline = side is not None and not request.separate_jobs
    one_pipeline = one_pipeline and (unfinished is None or not unfinished.fetched)
    if one_pipeline:
        round_counts = steps.timed(
            "fetch+parse+updatedb+dedup",
            fetchupdate.execute,
            _round_request(request, settings, written),
            job,
        )
        fetched, updated = round_counts.fetched, round_counts.updated
        counts.add("dedup", {dedup.MARKED: round_counts.duplicates})
        due_before_ms = 0 if round_counts.may_be_due else round_counts.due_by_ms
        last = number == request.rounds or not round_counts.may_be_due
    else:
        fetched, updated = _fetch_and_update(
            steps, request, settings, written, job, unfinished
        )
        due_before_ms, last = 0, number == request.rounds
    counts.add("fetch", fetched)
    counts.add("updatedb", updated)
    if one_pipeline:
        _write_record(request, number, counts, written, started_ms)
    _invert_links(steps, number, request, settings, written, job, side, last)
    if not one_pipeline:
        counts.add(
            "dedup",
            steps.timed(
                "dedup",
                dedup.execute,
                DedupRequest(
                    request.crawldb,
                    settings.dedup,
                    settings.update.keep_backup,
                    force=request.force,
                ),
                job.step("dedup"),
            ),
        )
        _write_record(request, number, counts, written, started_ms)
    _report(number, steps, selected, fetched, updated, started)
    return due_before_ms


def _write_record(
    request: CrawlRequest,
    number: int,
    counts: RoundCounts,
    written: list[str],
    started_ms: int,
) -> None:
    """The round's record: its crawldb is published, the round is done."""
    record = counts.record(number, written, started_ms, now_ms())
    with interrupts.deferred():  # a signal now: after the record is whole
        path = write_round(request.crawl_dir, record)
    _LOG.info("round %d recorded: %s", number, path)


def _report(
    number: int,
    steps: StepTimes,
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
        force=request.force,
    )


def _fetch_and_update(
    steps: StepTimes,
    request: CrawlRequest,
    settings: StepSettings,
    written: list[str],
    job: Job,
    unfinished: resumer.Unfinished | None = None,
) -> tuple[dict[str, int], dict[str, int]]:
    """Fetch and parse each segment, then updatedb: the fetch and update counters.

    Of an ``unfinished`` round, the segments fetched are not fetched again,
    and a crawldb that holds its update is not updated again.
    """
    fetched: dict[str, int] = {}
    if unfinished is not None and unfinished.updated:
        return fetched, {}
    done = unfinished.fetched if unfinished is not None else ()
    for segment in (s for s in written if s not in done):
        fetch_request = FetchRequest(segment, settings.fetch, settings.parse)
        for name, count in steps.timed(
            "fetch", fetch.execute, fetch_request, job.step("fetch")
        ).items():
            fetched[name] = fetched.get(name, 0) + count
    update_request = UpdateRequest(
        request.crawldb, tuple(written), settings.update, force=request.force
    )
    updated = steps.timed(
        "updatedb", updatedb.execute, update_request, job.step("updatedb")
    )
    return fetched, updated


def _invert_links(
    steps: StepTimes,
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
    invert = InvertLinksRequest(
        request.linkdb, tuple(written), settings.linkdb, force=request.force
    )
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
        argv += ["--force"] if request.force else []
        side.start(label, ["invertlinks", *argv])


def _summary(
    round_number: int,
    selected: dict[str, int],
    fetched: dict[str, int],
    updated: dict[str, int],
    started: float,
) -> str:
    counts = fetch.fetch_counts(selected.get("GENERATED", 0), fetched)
    return (
        f"crawl: round {round_number}: {counts.line()}, "
        f"new urls {updated.get('urls_added', 0)}, "
        f"{time.monotonic() - started:.1f} s"
    )


if __name__ == "__main__":  # as `beamcrawl crawl`: a user error is one line
    from pipelines.cli import main

    sys.exit(main(["crawl", *sys.argv[1:]]))
