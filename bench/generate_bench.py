"""Generate benchmark: ``beamcrawl generate`` over a big crawldb vs fastavro read+write.

Usage: python bench/generate_bench.py [--records 1000000] [--topN 100000]
       [--max-count 50] [--repeat 3] [beam flags...]

The crawldb is synthetic (``synthetic.crawldb_pages``: ~10,000 hosts). Both
sides run in the same process: the generate job (select, rank under topN and
generate.max.count, partition, write the segment), and a plain fastavro read
of the crawldb file plus a write of all its records to another file.
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

from synthetic import crawldb_pages

from crawllib.webpage import schema
from pipelines import generate

NOW_MS = 1_700_000_000_000


def _write_crawldb(crawldb: str, records: int) -> str:
    current = os.path.join(crawldb, "current")
    os.makedirs(current)
    path = os.path.join(current, "part-00000-of-00001.avro")
    with open(path, "wb") as handle:
        fastavro.writer(
            handle,
            fastavro.parse_schema(schema()),
            crawldb_pages(records, now_ms=NOW_MS),
        )
    return path


def _time_generate(crawldb: str, segments: str, args: list[str]) -> float:
    shutil.rmtree(segments, ignore_errors=True)
    started = time.perf_counter()
    code = generate.run([crawldb, segments, f"-Dgenerate.curTime={NOW_MS}", *args])
    elapsed = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"generate failed with {code}")
    return elapsed


def _time_fastavro(path: str, out: str) -> float:
    started = time.perf_counter()
    with open(path, "rb") as source:
        reader = fastavro.reader(source)
        with open(out, "wb") as sink:
            fastavro.writer(sink, reader.writer_schema, reader, codec="deflate")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--topN", type=int, default=100_000)
    parser.add_argument("--max-count", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args, beam_flags = parser.parse_known_args()
    logging.basicConfig(level=logging.WARNING)
    work = tempfile.mkdtemp(prefix="beamcrawl-bench-")
    try:
        crawldb = os.path.join(work, "crawldb")
        path = _write_crawldb(crawldb, args.records)
        job = ["--topN", str(args.topN), f"-Dgenerate.max.count={args.max_count}",
               *beam_flags]  # fmt: skip
        segments = os.path.join(work, "segments")
        gen_s = [_time_generate(crawldb, segments, job) for _ in range(args.repeat)]
        out = os.path.join(work, "copy.avro")
        plain_s = [_time_fastavro(path, out) for _ in range(args.repeat)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    gen_med, plain_med = statistics.median(gen_s), statistics.median(plain_s)
    print(f"crawldb records:    {args.records:,} over 10,000 hosts")
    print(f"job:                --topN {args.topN} generate.max.count={args.max_count}")
    print(f"beam flags:         {' '.join(beam_flags) or '(DirectRunner defaults)'}")
    runs = [round(t, 2) for t in gen_s]
    print(f"generate:           median {gen_med:.2f} s of {runs}"
          f" = {args.records / gen_med:,.0f} records/s")  # fmt: skip
    runs = [round(t, 2) for t in plain_s]
    print(f"fastavro read+write: median {plain_med:.2f} s of {runs}"
          f" = {args.records / plain_med:,.0f} records/s")  # fmt: skip
    print(f"ratio generate/fastavro: {gen_med / plain_med:.1f}x")


if __name__ == "__main__":
    main()
