"""Flink benchmark: the same crawls on the DirectRunner and on a local Flink cluster.

Usage: python bench/flink_bench.py [--hosts 8] [--pages 50] [--rounds 10]
       [--submissions 5] [--no-demo] [--environment external|loopback]

Needs the cluster of ``scripts/flink-local start`` (two task slots). In one
run, each crawl runs as a ``beamcrawl crawl`` command on the DirectRunner,
then on Flink with ``--parallelism 2`` and two fetch lists per segment:

- the demo site (``beamcrawl demo``'s two hosts), three rounds;
- the synthetic multi-host web of ``bench/synthweb.py`` (``hosts`` x
  ``pages`` pages of ~15 KB with ~30 links), crawled to exhaustion;

and prints the wall time per round and per job (from the crawl's own log),
pages/s (HTTP 200 pages over the whole command, start-up included), and the
fixed cost of one job on each runner: ``readdb --stats`` of a one-record
crawldb, run in a new process each time (on Flink that includes starting
Beam's job server) and run again in one process (the job server shared).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synthweb import SyntheticWeb

from pipelines.demo import DEMO_PROPERTIES, DemoSite

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ROUND = re.compile(r"^crawl: round (\d+): generated (\d+): fetched (.*), new urls")
_STEPS = re.compile(r"round (\d+) steps: (.*)$")


@dataclass
class Crawl:
    """What one crawl command did and how long it took."""

    wall_s: float
    pages: int = 0
    rounds: dict[int, float] = field(default_factory=dict)
    steps: dict[str, float] = field(default_factory=dict)

    @property
    def pages_per_s(self) -> float:
        return self.pages / self.wall_s


def _beamcrawl(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pipelines.cli", *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args[:3])} failed:\n{done.stderr[-3000:]}")
    return done


def _crawl(seeds: list[str], rounds: int, flags: list[str]) -> Crawl:
    with tempfile.TemporaryDirectory() as work:
        seed_file = os.path.join(work, "seeds.txt")
        with open(seed_file, "w") as handle:
            handle.write("\n".join(seeds) + "\n")
        started = time.perf_counter()
        done = _beamcrawl(
            "crawl", "--seeds", seed_file, os.path.join(work, "crawl"), str(rounds),
            "--numFetchers", "2", "--topN", "100000", *flags,
        )  # fmt: skip
        crawl = Crawl(wall_s=time.perf_counter() - started)
    for line in done.stderr.splitlines():
        if match := _ROUND.match(line):
            success = re.search(r"SUCCESS=(\d+)", match.group(3))
            crawl.pages += int(success.group(1)) if success else 0
        elif match := _STEPS.search(line):
            for step in match.group(2).split(", "):
                name, seconds = step.split(" ")[:2]
                crawl.steps[name] = crawl.steps.get(name, 0.0) + float(seconds)
                crawl.rounds[int(match.group(1))] = crawl.rounds.get(
                    int(match.group(1)), 0.0
                ) + float(seconds)
    return crawl


def _report(name: str, direct: Crawl, flink: Crawl) -> None:
    print(f"\n## {name}\n")
    print("| | DirectRunner | Flink (parallelism 2) | ratio |")
    print("|---|---|---|---|")
    rows = [
        ("wall time of the command", direct.wall_s, flink.wall_s),
        *((f"round {n}", direct.rounds.get(n, 0), flink.rounds.get(n, 0))
          for n in sorted(direct.rounds)),
        *((f"{step} (all rounds)", direct.steps[step], flink.steps.get(step, 0))
          for step in direct.steps),
    ]  # fmt: skip
    for label, d, f in rows:
        print(f"| {label} | {d:.1f} s | {f:.1f} s | {f / d:.1f}x |")
    print(
        f"| pages fetched (HTTP 200) | {direct.pages} | {flink.pages} | |\n"
        f"| pages/s | {direct.pages_per_s:.2f} | {flink.pages_per_s:.2f} | "
        f"{flink.pages_per_s / direct.pages_per_s:.2f}x |"
    )


def _submissions(count: int, flags: list[str]) -> tuple[float, float]:
    """Median wall s of one small job: each in a new process; then in one process."""
    with tempfile.TemporaryDirectory() as work:
        seeds = os.path.join(work, "seeds.txt")
        with open(seeds, "w") as handle:
            handle.write("http://a.example.com/\n")
        crawldb = os.path.join(work, "db")
        _beamcrawl("inject", crawldb, seeds)
        fresh = []
        for _ in range(count):
            started = time.perf_counter()
            _beamcrawl("readdb", crawldb, "--stats", *flags)
            fresh.append(time.perf_counter() - started)
        code = (
            "import sys, time\n"
            "from pipelines.cli import main\n"
            "for _ in range(int(sys.argv[1])):\n"
            "    started = time.perf_counter()\n"
            "    assert main(['readdb', sys.argv[2], '--stats', *sys.argv[3:]]) == 0\n"
            "    print('took', time.perf_counter() - started, file=sys.stderr)\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", code, str(count + 1), crawldb, *flags],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        shared = [float(line.split()[1]) for line in done.stderr.splitlines()
                  if line.startswith("took ")][1:]  # fmt: skip
    return statistics.median(fresh), statistics.median(shared)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hosts", type=int, default=8)
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--submissions", type=int, default=5, help="0: skip")
    parser.add_argument("--no-demo", dest="demo", action="store_false")
    parser.add_argument(
        "--environment",
        choices=("external", "loopback"),
        default="external",
        help="where the crawls' Python code runs on Flink",
    )
    args = parser.parse_args()
    flink = _flink_flags(args.environment)

    if args.demo:
        _demo(flink)
    _synthetic(args, flink)
    if args.submissions:
        _fixed_costs(args.submissions)


def _demo(flink: list[str]) -> None:
    demo = DemoSite().start()
    try:
        props = [f"-D{p}" for p in DEMO_PROPERTIES] + ["-Dfetcher.server.delay=0.05"]
        seeds = [demo.url("main") + "/"]
        _report("demo site, 3 rounds", _crawl(seeds, 3, props),
                _crawl(seeds, 3, [*props, *flink]))  # fmt: skip
    finally:
        demo.stop()


def _synthetic(args: argparse.Namespace, flink: list[str]) -> None:
    props = ["-Dhttp.agent.name=beamcrawl-bench", "-Dfetcher.server.delay=0",
             "-Dfetcher.threads.fetch=16", "-Dfetcher.threads.per.queue=1"]  # fmt: skip
    with SyntheticWeb(args.hosts, args.pages) as web:
        direct = _crawl(web.seeds, args.rounds, props)
        on_flink = _crawl(web.seeds, args.rounds, [*props, *flink])
        _report(f"synthetic web, {args.hosts} hosts x {args.pages} pages, to "
                "exhaustion", direct, on_flink)  # fmt: skip


def _fixed_costs(submissions: int) -> None:
    print("\n## fixed cost of one job (readdb --stats of one record, medians)\n")
    print("| | new process per job | jobs in one process |")
    print("|---|---|---|")
    for name, flags in (
        ("DirectRunner", []),
        ("Flink, LOOPBACK workers", _flink_flags("loopback")),
        ("Flink, EXTERNAL workers", _flink_flags("external")),
    ):
        fresh, shared = _submissions(submissions, flags)
        print(f"| {name} | {fresh:.1f} s | {shared:.1f} s |")


def _flink_flags(environment: str) -> list[str]:
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "flinklocal.py"), "flags",
         "--environment", environment],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip


if __name__ == "__main__":
    main()
