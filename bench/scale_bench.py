"""Scale benchmark (issue 29): each command's wall, CPU and peak RSS at size.

Usage: python bench/scale_bench.py --records 1000000 [--work DIR] [--repeat 1]
       [--commands generate,updatedb,invertlinks,readdb] [--no-baseline]
       [--no-beam] [--bucketed --no-baseline] [--json OUT] [beam flags...]

One legacy crawldb of ``records`` synthetic pages (``synthetic.crawldb_pages``:
10,000 hosts) and one segment of ``records / 10`` fetched and parsed pages
with 30 outlinks each (seven in ten to crawldb URLs, three to new ones), as
``updatedb_bench.py`` makes them, written streaming and cached in ``--work``
(``READY`` marks a complete set). Each command runs as a user runs it
(``python -m pipelines.cli CMD ...`` on the DirectRunner) in a subprocess,
then ``bench/scale_baseline.py CMD ...`` (plain Python, no Beam). inject
merges ``SEEDS`` seed URLs (half of them in the crawldb) into the crawldb
(no baseline program). Peak RSS is
the largest sum, sampled every 0.2 s, of the RSS of the process and all its
descendants; CPU is the children's user + system time. With ``--bucketed``
the commands run on the crawldb as ``beamcrawl bucketdb`` converts it (made
once, timed, cached as ``data-N/bucketed``): a crawl's steady state, where
updatedb merges into the buckets instead of converting the whole crawldb.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import threading
import time
from array import array
from collections.abc import Iterator
from typing import Any

import fastavro

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from synthetic import crawldb_pages

from crawllib.avro.encode import compile_encoder
from crawllib.webpage import WebPage, new_page, schema

NOW_MS = 1_700_000_000_000
PART = "part-00000-of-00001.avro"
COMMANDS = ("generate", "updatedb", "invertlinks", "readdb", "inject")
SEEDS = 10_000
"""inject's seeds: half of them crawldb URLs, half new."""
BASELINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scale_baseline.py")


def _write(path: str, records: Iterator[WebPage]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        fastavro.writer(handle, fastavro.parse_schema(schema()), records)


def _url(i: int, host: int) -> str:
    """The URL ``crawldb_pages`` gives record ``i`` on ``host`` (10,000 hosts)."""
    return (
        f"http://www{host % 3}.host{host}.site{host % 500}.com/dir{i % 50}/page{i}.html"
    )


def _crawldb(records: int, hosts: array[int]) -> Iterator[WebPage]:
    """``crawldb_pages``, noting each record's host number in ``hosts``."""
    for i, page in enumerate(crawldb_pages(records, now_ms=NOW_MS)):
        host = int(page["url"].split(".host", 1)[1].split(".", 1)[0])
        assert page["url"] == _url(i, host)
        hosts.append(host)
        yield page  # type: ignore[misc]


def _segment(hosts: array[int], fetched: int, parsed: bool) -> Iterator[WebPage]:
    """``updatedb_bench``'s segment pages, from the host numbers alone."""
    rng = random.Random(11)
    records = len(hosts)
    for n in range(fetched):
        targets = set()
        for k in range(30):
            if rng.random() < 0.7:
                i = rng.randrange(records)  # as rng.choice(urls)
                targets.add(_url(i, hosts[i]))
            else:
                targets.add(f"http://new{n % 5000}.org/p{n}-{k}")
        marks = {"_gnmrk_": "seg", "_ftcmrk_": "seg", "_partition_": "0"}
        fields: dict[str, Any] = {
            "status": 2,
            "fetchTime": NOW_MS,
            "prevFetchTime": NOW_MS - 86_400_000,
            "fetchInterval": 2_592_000,
            "score": 1.0,
            "protocolStatus": {"code": 1, "args": [], "lastModified": 0},
            "headers": {"Content-Type": "text/html"},
            "contentType": "text/html",
        }
        if parsed:
            marks["__prsmrk__"] = "seg"
            fields.update(
                parseStatus={"majorCode": 1, "minorCode": 0, "args": []},
                title=f"page {n}",
                signature=n.to_bytes(16, "big"),
                outlinks={t: f"link {k}" for k, t in enumerate(sorted(targets))},
            )
        else:
            fields["content"] = b"<html><body>" + b"x" * 2000 + b"</body></html>"
        yield new_page(_url(n, hosts[n]), markers=marks, **fields)


def make_data(work: str, records: int) -> str:
    """The cached data set of ``records`` under ``work``; returns its directory."""
    data = os.path.join(work, f"data-{records}")
    if os.path.exists(os.path.join(data, "READY")):
        return data
    shutil.rmtree(data, ignore_errors=True)
    hosts: array[int] = array("H")
    started = time.perf_counter()
    _write(os.path.join(data, "crawldb", "current", PART), _crawldb(records, hosts))
    for part, parsed in (("fetch", False), ("parse", True)):
        path = os.path.join(data, "segments", "s1", part, PART)
        _write(path, _segment(hosts, records // 10, parsed))
    with open(os.path.join(data, "READY"), "w", encoding="utf-8") as marker:
        marker.write(f"{records} records, {time.perf_counter() - started:.0f} s\n")
    return data


def _tree_rss_kb(pid: int) -> int:
    """The RSS of ``pid`` and all its descendants, in kB (0 once gone)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    todo.extend(int(c) for c in children.read().split())
        except (OSError, ValueError):
            continue
    return total


WATCHED: list[int] = []
"""Other processes whose trees count in peak RSS (``--watch-pid``: a cluster's)."""


def measure(command: list[str]) -> dict[str, Any]:
    """Run ``command``: wall s, CPU s, peak tree RSS MB, its stdout and stderr.

    The peak includes the trees of ``WATCHED`` (their whole RSS at the time,
    not only their growth); CPU counts the command's own processes only.
    ``rss_timeline`` is ``[seconds since start, tree RSS MB]`` once a second
    (where in a run its memory peaks), ``peak_at_s`` when it peaked.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started_ms = int(time.time() * 1000)
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    peak, peak_at = [0], [0.0]
    timeline: list[list[float]] = []

    def sample() -> None:
        while process.poll() is None:
            rss = _tree_rss_kb(process.pid) + sum(map(_tree_rss_kb, WATCHED))
            elapsed = time.perf_counter() - started
            if rss > peak[0]:
                peak[0], peak_at[0] = rss, elapsed
            if not timeline or elapsed - timeline[-1][0] >= 1.0:
                timeline.append([round(elapsed, 1), round(rss / 1024)])
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = process.communicate()
    wall = time.perf_counter() - started
    sampler.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if process.returncode not in (0,):
        sys.stderr.write(err[-3000:])
        raise SystemExit(f"{' '.join(command[:4])}... failed: {process.returncode}")
    return {"wall_s": wall, "cpu_s": cpu, "peak_rss_mb": peak[0] / 1024,
            "peak_at_s": round(peak_at[0], 1), "rss_timeline": timeline,
            "started_ms": started_ms, "ended_ms": int(time.time() * 1000),
            "stdout": out, "stderr": err}  # fmt: skip


def avro_count(directory: str) -> int:
    """Records in all the ``.avro`` files under ``directory`` (block headers only)."""
    count = 0
    for root, _, files in os.walk(directory):
        for name in files:
            if name.endswith(".avro") and not name.startswith("."):
                with open(os.path.join(root, name), "rb") as handle:
                    count += sum(b.num_records for b in fastavro.block_reader(handle))
    return count


def avro_digest(directory: str, clock: tuple[int, int] = (0, 0)) -> str:
    """An order-free digest of the records under ``directory``: the same
    records, however split into files and ordered, give the same digest.

    The sum, modulo 2**64, of an 8-byte BLAKE2b of each record's Avro
    encoding (by its file's schema). What came from the job's clock is
    masked first: a top-level number within ``clock`` (the run's start and
    end, epoch milliseconds: updatedb dates a new URL now) is 0, and a
    segment's name (in a generated record's marker) is ``SEGMENT``.
    """
    low, high = clock
    total = 0
    for root, _, files in os.walk(directory):
        parent = os.path.basename(os.path.dirname(root))
        segment = parent.encode() if re.fullmatch(r"\d{14}", parent) else None
        for name in files:
            if not name.endswith(".avro") or name.startswith("."):
                continue
            with open(os.path.join(root, name), "rb") as handle:
                reader = fastavro.reader(handle)
                encode = compile_encoder(reader.writer_schema)
                for record in reader:
                    for key, value in record.items():
                        if type(value) is int and low <= value <= high:
                            record[key] = 0
                    data = encode(record)
                    if segment:
                        data = data.replace(segment, b"SEGMENT")
                    hashed = hashlib.blake2b(data, digest_size=8).digest()
                    total += int.from_bytes(hashed, "little")
    return f"{total % 2**64:016x}"


def _restore(data: str, run: str) -> str:
    """A fresh copy of the pristine crawldb under ``run``; returns its path.

    ``data`` is the data set, or its ``bucketed`` directory (``make_bucketed``).
    """
    crawldb = os.path.join(run, "crawldb")
    shutil.rmtree(crawldb, ignore_errors=True)
    shutil.copytree(os.path.join(data, "crawldb"), crawldb)
    return crawldb


def make_bucketed(data: str, flags: list[str]) -> tuple[str, dict[str, Any] | None]:
    """The data set's crawldb as ``beamcrawl bucketdb`` leaves it, cached.

    Returns the directory holding it (``data/bucketed``, with the segment
    linked from ``data``) and the conversion's measurement (None if cached).
    """
    bucketed = os.path.join(data, "bucketed")
    if os.path.exists(os.path.join(bucketed, "READY")):
        return bucketed, None
    shutil.rmtree(bucketed, ignore_errors=True)
    os.makedirs(bucketed)
    os.symlink(os.path.join(data, "segments"), os.path.join(bucketed, "segments"))
    crawldb = _restore(data, bucketed)
    result = measure([sys.executable, "-m", "pipelines.cli", "bucketdb", crawldb,
                      "-Ddb.preserve.backup=false", *flags])  # fmt: skip
    result["records"] = avro_count(os.path.join(crawldb, "current"))
    for key in ("stdout", "stderr"):
        result.pop(key, None)
    with open(os.path.join(bucketed, "READY"), "w", encoding="utf-8") as marker:
        marker.write(json.dumps(result) + "\n")
    print(f"  bucketdb beamcrawl: {result['wall_s']:.1f} s, "
          f"{result['peak_rss_mb']:,.0f} MB (at {result['peak_at_s']:.0f} s), "
          f"{result['records']:,} records",
          file=sys.stderr, flush=True)  # fmt: skip
    return bucketed, result


def _commands(
    name: str, data: str, run: str, records: int, flags: list[str]
) -> tuple[list[str], list[str], str]:
    """(beamcrawl command, baseline command, output directory) of ``name``."""
    crawldb = _restore(data, run)
    segment = os.path.join(data, "segments", "s1")
    segments, linkdb = os.path.join(run, "segments"), os.path.join(run, "linkdb")
    shutil.rmtree(segments, ignore_errors=True)
    shutil.rmtree(linkdb, ignore_errors=True)
    beam = [sys.executable, "-m", "pipelines.cli", name]
    base = [sys.executable, BASELINE, name]
    if name == "generate":
        top_n = str(records // 10)
        beam += [crawldb, segments, "--topN", top_n, "-Dgenerate.max.count=50",
                 f"-Dgenerate.curTime={NOW_MS}"]  # fmt: skip
        base += [crawldb, segments, top_n, "50", str(NOW_MS)]
        return beam + flags, base, segments
    if name == "updatedb":
        beam += [crawldb, segment]
        base += [crawldb, segment]
        return beam + flags, base, os.path.join(crawldb, "current")
    if name == "invertlinks":
        beam += [linkdb, segment]
        base += [linkdb, segment]
        return beam + flags, base, os.path.join(linkdb, "current")
    if name == "inject":
        seeds = _seeds(data, run)
        beam += [crawldb, seeds, f"-Dinjector.current.time={NOW_MS}"]
        return beam + flags, [], os.path.join(crawldb, "current")
    beam += [crawldb, "--stats", f"-Dgenerate.curTime={NOW_MS}"]
    base += [crawldb, str(NOW_MS)]
    return beam + flags, base, ""


def _seeds(data: str, run: str) -> str:
    """A seed file of ``SEEDS`` URLs, half the crawldb's first ones, half new."""
    path = os.path.join(run, "seeds.txt")
    current = os.path.join(data, "crawldb", "current")
    first = sorted(n for n in os.listdir(current) if n.endswith(".avro"))[0]
    with open(os.path.join(current, first), "rb") as handle:
        reader = fastavro.reader(handle)
        known = [page["url"] for page in itertools.islice(reader, SEEDS // 2)]
    new = [f"http://new{n}.example.com/" for n in range(SEEDS - len(known))]
    with open(path, "w", encoding="utf-8") as out:
        out.write("".join(f"{url}\n" for url in known + new))
    return path


def _count(result: dict[str, Any], out_dir: str) -> int:
    if not out_dir:  # readdb: the total it printed
        match = re.search(r"TOTAL urls:\s+(\d+)", result["stdout"])
        return int(match.group(1)) if match else -1
    return avro_count(out_dir)


def _best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The median run by wall time, with the largest peak RSS of all."""
    ordered = sorted(runs, key=lambda r: r["wall_s"])
    median = dict(ordered[len(ordered) // 2])
    median["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
    median["walls"] = [round(r["wall_s"], 2) for r in runs]
    median["digests"] = sorted({r["digest"] for r in runs if "digest" in r})
    for key in ("stdout", "stderr"):
        median.pop(key, None)
    return median


def bench(
    name: str, data: str, run: str, records: int, args: argparse.Namespace,
    flags: list[str],
) -> dict[str, Any]:  # fmt: skip
    """Both sides of one command, ``args.repeat`` times each."""
    row: dict[str, Any] = {"command": name}
    sides = [("beamcrawl", 0)] * (not args.no_beam) + [("baseline", 1)] * (
        not args.no_baseline
    )
    for side, which in sides:
        if which and name == "inject":  # no baseline program for inject
            continue
        runs = []
        for _ in range(args.repeat):
            beam, base, out_dir = _commands(name, data, run, records, flags)
            result = measure(base if which else beam)
            result["records"] = _count(result, out_dir)
            if args.digest and out_dir:
                clock = (result["started_ms"] - 1000, result["ended_ms"] + 1000)
                result["digest"] = avro_digest(out_dir, clock)
            runs.append(result)
            print(f"  {name} {side}: {result['wall_s']:.1f} s, "
                  f"{result['peak_rss_mb']:,.0f} MB (at {result['peak_at_s']:.0f} s), "
                  f"{result['records']:,} records"
                  f"{', digest ' + result['digest'] if 'digest' in result else ''}",
                  file=sys.stderr, flush=True)  # fmt: skip
        row[side] = _best(runs)
    return row


def _cell(side: dict[str, Any] | None) -> str:
    if side is None:
        return "- | - | -"
    return (f"{side['wall_s']:.1f} s | {side['cpu_s']:.1f} s | "
            f"{side['peak_rss_mb']:,.0f} MB")  # fmt: skip


def table(records: int, rows: list[dict[str, Any]]) -> str:
    """The markdown table of one size."""
    lines = [
        f"{records:,} crawldb records ({records // 10:,} fetched x 30 outlinks):",
        "",
        "| command | beamcrawl wall | CPU | peak RSS | baseline wall | CPU | "
        "peak RSS | ratio (wall) | records (beamcrawl / baseline) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        beam, base = row.get("beamcrawl"), row.get("baseline")
        ratio = f"{beam['wall_s'] / base['wall_s']:.1f}x" if beam and base else "-"
        counts = " / ".join(
            f"{side['records']:,}" if side else "-" for side in (beam, base)
        )
        lines.append(f"| {row['command']} | {_cell(beam)} | {_cell(base)} | "
                     f"{ratio} | {counts} |")  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, action="append")
    parser.add_argument("--work", default=os.path.join(os.getcwd(), "scale-work"))
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--commands", default=",".join(COMMANDS))
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--no-beam", action="store_true")
    parser.add_argument("--json", dest="json_out")
    parser.add_argument(
        "--watch-pid", type=int, action="append", default=[],
        help="also count this process's tree in peak RSS (a Flink "
        "TaskManager, JobManager or worker pool: scripts/flink-local status)",
    )  # fmt: skip
    parser.add_argument(
        "--bucketed", action="store_true",
        help="run on the crawldb as bucketdb converts it (a crawl's steady "
        "state) instead of the legacy single-file one",
    )  # fmt: skip
    parser.add_argument(
        "--digest", action="store_true",
        help="also print an order-free digest of each run's output records "
        "(the same records on two runners give the same digest)",
    )  # fmt: skip
    args, flags = parser.parse_known_args()
    names = [n for n in args.commands.split(",") if n]
    WATCHED.extend(args.watch_pid)
    unknown = sorted(set(names) - set(COMMANDS))
    if unknown:
        raise SystemExit(f"scale_bench: no command {unknown[0]!r}")
    if args.bucketed and not args.no_baseline:
        raise SystemExit("scale_bench: --bucketed needs --no-baseline (the "
                         "baseline program reads the single-file crawldb)")  # fmt: skip
    results = []
    for records in args.records or [1_000_000]:
        data = make_data(args.work, records)
        run = os.path.join(args.work, f"run-{records}")
        result: dict[str, Any] = {"records": records, "beam_flags": flags}
        if args.bucketed:
            data, result["bucketdb"] = make_bucketed(data, flags)
        rows = [bench(n, data, run, records, args, flags) for n in names]
        results.append({**result, "rows": rows})
        print(table(records, rows) + "\n", flush=True)
        if result.get("bucketdb"):
            print(f"bucketdb (once, to make the bucketed crawldb): "
                  f"{_cell(result['bucketdb'])}\n", flush=True)  # fmt: skip
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as out:
            json.dump(results, out, indent=2)


if __name__ == "__main__":
    main()
