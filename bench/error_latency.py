"""How long a user error takes to be reported: each case in fresh processes.

Each case is a command line that is wrong (a missing agent name, a mistyped
flag, a bad value, a missing file, an unknown command). It runs N times,
each in a new ``python -c 'from pipelines.cli import main; ...'`` process,
and the median wall time to its exit is printed with its exit code and the
first line of its stderr. Run from the repository root in the project's
virtual environment::

    python bench/error_latency.py            # N=7
    python bench/error_latency.py --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_MAIN = "import sys; from pipelines.cli import main; sys.exit(main())"
_AGENT = "-Dhttp.agent.name=bench"


def cases(work: Path) -> dict[str, list[str]]:
    """The user errors, each a ``beamcrawl`` argument list."""
    seeds = work / "seeds.txt"
    seeds.write_text("http://127.0.0.1:9/\n", encoding="utf-8")
    crawl = str(work / "crawl")
    return {
        "crawl without agent name": ["crawl", "--seeds", str(seeds), crawl, "1"],
        "crawl --topn 5": [
            "crawl", "--seeds", str(seeds), crawl, "1", "--topn", "5", _AGENT,
        ],
        "crawl -D fetcher.server.delay=soon": [
            "crawl", "--seeds", str(seeds), crawl, "1", _AGENT,
            "-Dfetcher.server.delay=soon",
        ],
        "inject, missing seeds file": [
            "inject", str(work / "db"), str(work / "no-such-seeds.txt"),
        ],
        "generate --topN abc": [
            "generate", str(work / "db"), str(work / "segs"), "--topN", "abc",
        ],
        "fetch of a missing segment": ["fetch", str(work / "no-such-segment"), _AGENT],
        "unknown command": ["crawel", "--seeds", str(seeds)],
        "readdb --stat (for --stats)": ["readdb", str(work / "db"), "--stat"],
    }  # fmt: skip


def _once(argv: list[str]) -> tuple[float, int, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MAIN, *argv], capture_output=True, text=True
    )
    seconds = time.perf_counter() - started
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    return seconds, done.returncode, lines[-1] if lines else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per case")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        print("| case | median (s) | exit | last stderr line |")
        print("|---|---|---|---|")
        for name, argv in cases(work).items():
            runs = [_once(argv) for _ in range(args.repeat)]
            median = statistics.median(seconds for seconds, _, _ in runs)
            _, code, line = runs[-1]
            shown = line.replace("|", "\\|")[:110]
            print(f"| {name} | {median:.2f} | {code} | {shown} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
