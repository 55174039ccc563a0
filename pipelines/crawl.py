"""``beamcrawl crawl --seeds SEEDS CRAWL_DIR ROUNDS``: the whole loop, like bin/crawl.

Inject the seeds into ``CRAWL_DIR/crawldb``, then for each round: generate a
segment under ``CRAWL_DIR/segments``, fetch and parse it, update the
crawldb, invert its links into ``CRAWL_DIR/linkdb`` and mark duplicates.
The loop stops early when generate selects nothing. Every ``-D``,
``--conf`` and Beam flag is passed to each step, so the same command runs on
any runner. One summary line per round.

On a local runner the crawl uses both cores and fewer pipelines: each
round's fetch, parse, updatedb and dedup run as one pipeline
(``pipelines.transforms.crawlround``; ``--separateJobs`` turns that off), and
invertlinks runs in a child process beside the loop (``pipelines.runtime.sidejob``),
but for the last round's, which has nothing to run beside.
"""

from __future__ import annotations

import logging
import resource
import sys
import time
from collections.abc import Sequence
from typing import Any

from apache_beam.io.filesystems import FileSystems

from crawllib.config import FetcherConfig, ParseConfig
from crawllib.errors import ConfigError
from pipelines import dedup, fetch, generate, inject, invertlinks, updatedb
from pipelines.runtime import jobstate, runners
from pipelines.runtime.arguments import add_link_policy_argument
from pipelines.runtime.options import (
    ArgumentParser,
    JobArgs,
    describe,
    job_parser,
    now_ms,
    parse_job_args,
)
from pipelines.runtime.sidejob import SideJob, SideJobFailed, side_job_errors
from pipelines.transforms import crawlround

_LOG = logging.getLogger(__name__)


def run(argv: Sequence[str] | None = None) -> int:
    """Run the crawl; 0 when at least the injection succeeded."""
    job = parse_job_args(_parser(), sys.argv[1:] if argv is None else argv)
    args = job.args
    if args.rounds < 1:
        raise ConfigError(f"ROUNDS {args.rounds} is invalid: expected 1 or more")
    ParseConfig.from_properties(job.properties)  # a bad one (link policy) before inject
    FetcherConfig.from_properties(job.properties)  # no agent name: before inject
    crawl_dir = args.crawl_dir
    crawldb = FileSystems.join(crawl_dir, "crawldb")
    segments = FileSystems.join(crawl_dir, "segments")
    linkdb = FileSystems.join(crawl_dir, "linkdb")
    shared = _shared_flags(job)
    local = runners.is_local(job.pipeline_options())
    side = SideJob() if local else None
    try:
        return _loop(job, shared, crawldb, segments, linkdb, side)
    except SideJobFailed as exc:
        print(f"beamcrawl: crawl: {exc}", file=sys.stderr)
        return 1
    finally:
        if side is not None:
            side.finish()


def _loop(
    job: JobArgs,
    shared: list[str],
    crawldb: str,
    segments: str,
    linkdb: str,
    side: SideJob | None,
) -> int:
    """Inject, then the rounds; invertlinks runs as a side job when ``side``.

    A local run (``side`` given) runs each round's fetch, parse, updatedb
    and dedup as one pipeline, unless ``--separateJobs``.
    """
    args = job.args
    local = side is not None
    with jobstate.step("the inject step"):
        injected = inject.execute(_job(inject.parser(), [crawldb, args.seeds, *shared]))
    print(
        f"crawl: injected {injected.get('urls_injected_unique', 0)} urls",
        file=sys.stderr,
    )
    nothing_due_before_ms = 0  # a round's pipeline found no URL due before this
    for round_number in range(1, args.rounds + 1):
        started = time.monotonic()
        steps = _Steps(round_number)
        if now_ms() < nothing_due_before_ms:
            print(
                f"crawl: round {round_number}: nothing to fetch, stopping",
                file=sys.stderr,
            )
            _LOG.info("no URL is due: generate not run")
            break
        generate_args = [crawldb, segments, *shared]
        if args.topN is not None:
            generate_args += ["--topN", str(args.topN)]
        if args.numFetchers is not None:
            generate_args += ["--numFetchers", str(args.numFetchers)]
        written, selected = steps.run("generate", generate, generate_args)
        if not written:
            print(
                f"crawl: round {round_number}: nothing to fetch, stopping",
                file=sys.stderr,
            )
            break
        last = round_number == args.rounds
        if local and not args.separateJobs:
            counts = steps.run_round(job, crawldb, written, args.threads)
            fetched, updated = counts.fetched, counts.updated
            if not counts.may_be_due:
                nothing_due_before_ms = counts.due_by_ms
                last = True
        else:
            fetched, updated = _separate_jobs(steps, args, crawldb, written, shared)
        invert_args = [linkdb, *written, *shared]
        label = f"invertlinks of round {round_number}"
        if side is None:
            steps.run("invertlinks", invertlinks, invert_args)
        else:
            steps.wait("invertlinks (waiting)", side)
            if last:  # nothing runs beside it: here, without a child's start-up
                with side_job_errors(label, "invertlinks"):
                    steps.run("invertlinks", invertlinks, invert_args)
            else:
                side.start(label, ["invertlinks", *invert_args])
        if not local or args.separateJobs:
            steps.run("dedup", dedup, [crawldb, *shared])
        print(
            _summary(round_number, selected, fetched, updated, started), file=sys.stderr
        )
        _LOG.info("round %d steps: %s", round_number, steps)
        links = {name: n for name, n in fetched.items() if name.startswith("Links/")}
        if links:
            _LOG.info("round %d outlinks: %s", round_number, describe(links))
    if side is not None:
        side.wait()
        _LOG.info("invertlinks in a child process: %.1f s", side.seconds)
    return 0


def _separate_jobs(
    steps: _Steps,
    args: Any,
    crawldb: str,
    written: list[str],
    shared: list[str],
) -> tuple[dict[str, int], dict[str, int]]:
    """Fetch --parse of each segment, then updatedb: the fetch and update counters."""
    fetched: dict[str, int] = {}
    for segment in written:
        fetch_args = [segment, "--parse", *shared]
        if args.threads is not None:
            fetch_args += ["--threads", str(args.threads)]
        for name, count in steps.run("fetch", fetch, fetch_args).items():
            fetched[name] = fetched.get(name, 0) + count
    updated = steps.run("updatedb", updatedb, [crawldb, *written, *shared])
    return fetched, updated


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


class _Steps:
    """Runs a round's jobs and keeps their wall and CPU times, for the log.

    CPU is this process's and its finished children's (user + system). Each
    step is named to ``pipelines.runtime.jobstate`` (``round 2's generate``).
    """

    def __init__(self, round_number: int) -> None:
        self.seconds: dict[str, tuple[float, float]] = {}
        self._round = round_number

    def run(self, name: str, module: Any, argv: list[str]) -> Any:
        """``module.execute`` on ``argv`` parsed by ``module.parser()``."""
        started, cpu_started = time.monotonic(), _cpu_s()
        try:
            with jobstate.step(f"round {self._round}'s {name}"):
                return module.execute(_job(module.parser(), argv))
        finally:
            wall, cpu = self.seconds.get(name, (0.0, 0.0))
            self.seconds[name] = (
                wall + time.monotonic() - started,
                cpu + _cpu_s() - cpu_started,
            )

    def run_round(
        self, job: JobArgs, crawldb: str, segments: list[str], threads: int | None
    ) -> crawlround.RoundCounts:
        """The round's fetch, parse, updatedb and dedup as one pipeline."""
        started, cpu_started = time.monotonic(), _cpu_s()
        try:
            with jobstate.step(f"round {self._round}'s fetch+parse+updatedb+dedup"):
                return crawlround.execute(job, crawldb, segments, threads)
        finally:
            self.seconds["fetch+parse+updatedb+dedup"] = (
                time.monotonic() - started,
                _cpu_s() - cpu_started,
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


def _shared_flags(job: JobArgs) -> list[str]:
    """The -D, --conf and Beam flags every step gets."""
    flags = [f"-D{define}" for define in job.args.defines]
    for conf in job.args.conf_files:
        flags += ["--conf", conf]
    return flags + list(job.beam_flags)


def _job(parser: ArgumentParser, argv: list[str]) -> JobArgs:
    return parse_job_args(parser, argv)


def _parser() -> ArgumentParser:
    parser = job_parser("beamcrawl crawl", "Crawl: inject, then rounds of the loop.")
    parser.add_argument("--seeds", required=True, help="seed file or directory")
    parser.add_argument("crawl_dir", metavar="CRAWL_DIR")
    parser.add_argument("rounds", metavar="ROUNDS", type=int)
    parser.add_argument("--topN", type=int, help="URLs per round")
    parser.add_argument("--numFetchers", type=int, help="fetch lists per segment")
    parser.add_argument("--threads", type=int, help="fetcher threads")
    parser.add_argument(
        "--separateJobs",
        action="store_true",
        help="run fetch, updatedb and dedup as separate jobs also on a local "
        "runner (there they are one pipeline by default)",
    )
    add_link_policy_argument(parser)
    return parser


if __name__ == "__main__":
    sys.exit(run())
