"""Inject benchmark: ``beamcrawl inject`` of N seed URLs vs a plain fastavro write.

Usage: python bench/inject_bench.py [--urls 1000000] [--repeat 3] [beam flags...]

Both sides run in the same process on the same data: the inject job (seed
file -> normalized, filtered, de-duplicated crawldb on the DirectRunner), and
a plain ``fastavro.writer`` of the very records inject produced (same schema,
same deflate codec). Prints medians and the ratio inject / fastavro.
"""

from __future__ import annotations

import argparse
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time

import fastavro

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from synthetic import write_seed_file

from crawllib.webpage import schema
from pipelines import inject


def _read_crawldb(crawldb: str) -> list[dict]:
    current = os.path.join(crawldb, "current")
    records: list[dict] = []
    for name in sorted(os.listdir(current)):
        with open(os.path.join(current, name), "rb") as handle:
            records.extend(fastavro.reader(handle))  # type: ignore[arg-type]
    return records


def _time_inject(seeds: str, crawldb: str, beam_flags: list[str]) -> float:
    shutil.rmtree(crawldb, ignore_errors=True)
    started = time.perf_counter()
    code = inject.run([crawldb, seeds, *beam_flags])
    elapsed = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"inject failed with {code}")
    return elapsed


def _time_fastavro(records: list[dict], path: str) -> float:
    parsed = fastavro.parse_schema(schema())
    started = time.perf_counter()
    with open(path, "wb") as handle:
        fastavro.writer(handle, parsed, records, codec="deflate")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--hosts", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args, beam_flags = parser.parse_known_args()
    logging.basicConfig(level=logging.WARNING)
    work = tempfile.mkdtemp(prefix="beamcrawl-bench-")
    try:
        seeds = os.path.join(work, "seeds.txt")
        write_seed_file(seeds, args.urls, args.hosts)
        crawldb = os.path.join(work, "crawldb")
        inject_s = [
            _time_inject(seeds, crawldb, beam_flags) for _ in range(args.repeat)
        ]
        records = _read_crawldb(crawldb)
        plain_s = [
            _time_fastavro(records, os.path.join(work, "plain.avro"))
            for _ in range(args.repeat)
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    inject_med, plain_med = statistics.median(inject_s), statistics.median(plain_s)
    print(f"seed lines:         {args.urls:,} over {args.hosts:,} hosts")
    print(f"records in crawldb: {len(records):,}")
    print(f"beam flags:         {' '.join(beam_flags) or '(DirectRunner defaults)'}")
    runs = [round(t, 2) for t in inject_s]
    print(
        f"inject:             median {inject_med:.2f} s of {runs}"
        f" = {args.urls / inject_med:,.0f} seed lines/s"
    )
    runs = [round(t, 2) for t in plain_s]
    print(
        f"fastavro write:     median {plain_med:.2f} s of {runs}"
        f" = {len(records) / plain_med:,.0f} records/s"
    )
    print(f"ratio inject/fastavro: {inject_med / plain_med:.1f}x")


if __name__ == "__main__":
    main()
