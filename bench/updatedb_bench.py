"""UpdateDb benchmark: ``beamcrawl updatedb`` vs a plain fastavro read+write.

Usage: python bench/updatedb_bench.py [--records 1000000] [--fetched 100000]
       [--outlinks 30] [--repeat 3] [beam flags...]

A synthetic crawldb of ``records`` pages and one segment whose ``fetch/`` and
``parse/`` hold ``fetched`` fetched and parsed pages with ``outlinks`` links
each (seven in ten to pages already in the crawldb, three to new ones).
``beamcrawl updatedb`` runs in a subprocess, so its peak memory (max RSS) is
its own; the baseline, in the same run, reads the crawldb and the segment's
two parts with fastavro and writes the crawldb back.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import fastavro

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from synthetic import crawldb_pages

from crawllib.webpage import new_page, schema

NOW_MS = 1_700_000_000_000


def _write(path: str, records: Iterator[dict]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        fastavro.writer(handle, fastavro.parse_schema(schema()), records)


def _segment_pages(
    urls: list[str], fetched: int, outlinks: int, parsed: bool
) -> Iterator[dict]:
    rng = random.Random(11)
    for n, url in enumerate(urls[:fetched]):
        targets = {
            rng.choice(urls)
            if rng.random() < 0.7
            else f"http://new{n % 5000}.org/p{n}-{k}"
            for k in range(outlinks)
        }
        marks = {"_gnmrk_": "seg", "_ftcmrk_": "seg", "_partition_": "0"}
        fields: dict = {
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
        yield new_page(url, markers=marks, **fields)


def _make(work: str, records: int, fetched: int, outlinks: int) -> tuple[str, str]:
    crawldb, segment = (
        os.path.join(work, "crawldb"),
        os.path.join(work, "segments", "s1"),
    )
    pages = list(crawldb_pages(records, now_ms=NOW_MS))
    _write(os.path.join(crawldb, "current", "part-00000-of-00001.avro"), iter(pages))
    urls = [p["url"] for p in pages]
    for part, parsed in (("fetch", False), ("parse", True)):
        path = os.path.join(segment, part, "part-00000-of-00001.avro")
        _write(path, _segment_pages(urls, fetched, outlinks, parsed))
    return crawldb, segment


def _time_updatedb(crawldb: str, segment: str, flags: list[str]) -> tuple[float, float]:
    backup = crawldb + ".bak"
    if not os.path.exists(backup):
        shutil.copytree(crawldb, backup)
    shutil.rmtree(crawldb)
    shutil.copytree(backup, crawldb)
    command = [
        sys.executable,
        "-m",
        "pipelines.cli",
        "updatedb",
        crawldb,
        segment,
        *flags,
    ]
    started = time.perf_counter()
    subprocess.run(command, check=True)
    elapsed = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return elapsed, peak_mb


def _time_fastavro(crawldb: str, segment: str, out: str) -> float:
    started = time.perf_counter()
    for part in ("fetch", "parse"):
        with open(
            os.path.join(segment, part, "part-00000-of-00001.avro"), "rb"
        ) as handle:
            for _ in fastavro.reader(handle):
                pass
    source = os.path.join(crawldb + ".bak", "current", "part-00000-of-00001.avro")
    with open(source, "rb") as handle, open(out, "wb") as sink:
        reader = fastavro.reader(handle)
        fastavro.writer(sink, reader.writer_schema, reader, codec="deflate")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--fetched", type=int, default=100_000)
    parser.add_argument("--outlinks", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=3)
    args, flags = parser.parse_known_args()
    work = tempfile.mkdtemp(prefix="beamcrawl-bench-")
    try:
        crawldb, segment = _make(work, args.records, args.fetched, args.outlinks)
        update_runs = [
            _time_updatedb(crawldb, segment, flags) for _ in range(args.repeat)
        ]
        out = os.path.join(work, "copy.avro")
        plain = [_time_fastavro(crawldb, segment, out) for _ in range(args.repeat)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    times = [t for t, _ in update_runs]
    update_med, plain_med = statistics.median(times), statistics.median(plain)
    total = args.records + 2 * args.fetched
    print(f"crawldb {args.records:,} records; segment {args.fetched:,} fetched+parsed "
          f"pages x {args.outlinks} outlinks")  # fmt: skip
    runs = [round(t, 2) for t in times]
    peak = max(m for _, m in update_runs)
    print(f"updatedb:            median {update_med:.2f} s of {runs}", end="")
    print(f" = {total / update_med:,.0f} input records/s; peak RSS {peak:,.0f} MB")
    runs = [round(t, 2) for t in plain]
    print(f"fastavro read+write: median {plain_med:.2f} s of {runs}")
    print(f"ratio updatedb/fastavro: {update_med / plain_med:.1f}x")


if __name__ == "__main__":
    main()
