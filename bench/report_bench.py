"""Report benchmark: ``beamcrawl report`` vs a plain fastavro read of the same files.

Usage: python bench/report_bench.py [--records 500000] [--hosts 100000]
       [--fetched 200000] [--repeat 3]

A synthetic crawl directory: a crawldb of ``records`` pages over ``hosts``
hosts (more than the report's host table holds, so it lets hosts go) and
one segment whose ``fetch/`` and ``parse/`` hold ``fetched`` pages (2 KB of
content each, one in ten a 404, one in twenty refused). ``beamcrawl report``
runs in a subprocess, so its peak memory (max RSS) is its own; the baseline
reads the same files with ``fastavro.reader`` and counts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import fastavro

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from synthetic import crawldb_pages

from crawllib.webpage import WebPage, new_page, schema

NOW_MS = 1_700_000_000_000


def _write(path: str, records: Iterable[Mapping[str, Any]]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        fastavro.writer(handle, fastavro.parse_schema(schema()), records, "deflate")


def _fetched(urls: list[str], parsed: bool) -> Iterator[WebPage]:
    for n, url in enumerate(urls):
        code, http = (14, b"404") if n % 10 == 0 else (1, b"200")
        metadata = {"_response.headers_": b"HTTP/1.1 " + http + b" X\r\n\r\n"}
        if n % 20 == 1:
            code, metadata = 16, {}
        fields: dict[str, Any] = {
            "fetchTime": NOW_MS + n * 10,
            "protocolStatus": {"code": code, "args": [], "lastModified": 0},
            "metadata": metadata,
        }
        if parsed:
            fields["parseStatus"] = {"majorCode": 1, "minorCode": 0, "args": []}
        else:
            fields["content"] = b"<html><body>" + b"x" * 2000 + b"</body></html>"
        yield new_page(url, **fields)


def _make(work: str, records: int, hosts: int, fetched: int) -> list[str]:
    pages = list(crawldb_pages(records, hosts=hosts, now_ms=NOW_MS))
    files = [os.path.join(work, "crawldb", "current", "part-00000-of-00001.avro")]
    _write(files[0], pages)
    urls = [p["url"] for p in pages[:fetched]]
    for part in ("fetch", "parse"):
        files.append(
            os.path.join(work, "segments", "s1", part, "part-00000-of-00001.avro")
        )
        _write(files[-1], _fetched(urls, part == "parse"))
    return files


_REPORT = """
import sys
from pipelines.cli import main
code = main(["report", sys.argv[1]])
status = open("/proc/self/status").read().split("VmHWM:")[1].split()[0]
print(status, file=sys.stderr)
sys.exit(code)
"""


def _time_report(work: str) -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of ``beamcrawl report``, as its process saw it.

    The child reports its own peak (VmHWM, Linux): ``ru_maxrss``, from here
    or in the child, counts this process's memory too, which the child
    shares until it runs the new program.
    """
    command = [sys.executable, "-c", _REPORT, work]
    started = time.perf_counter()
    done = subprocess.run(
        command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    elapsed = time.perf_counter() - started
    peak_kb = int(done.stderr.decode().strip().splitlines()[-1])
    return elapsed, peak_kb / 1024


def _time_fastavro(files: list[str]) -> float:
    started = time.perf_counter()
    for path in files:
        with open(path, "rb") as handle:
            for _ in fastavro.reader(handle):
                pass
    return time.perf_counter() - started


def main() -> None:
    """Build the crawl directory once, then time both readers ``--repeat`` times."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=int, default=500_000)
    parser.add_argument("--hosts", type=int, default=100_000)
    parser.add_argument("--fetched", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="report-bench-") as work:
        files = _make(work, args.records, args.hosts, args.fetched)
        size_mb = sum(os.path.getsize(f) for f in files) / 2**20
        report, peak, plain = [], 0.0, []
        for _ in range(args.repeat):
            elapsed, peak = _time_report(work)
            report.append(elapsed)
            plain.append(_time_fastavro(files))
        page_kb = os.path.getsize(os.path.join(work, "report.html")) / 1024
    r, b = statistics.median(report), statistics.median(plain)
    print(
        f"report of {args.records} crawldb records over {args.hosts} hosts and "
        f"{args.fetched} fetched ({size_mb:.0f} MiB of Avro): median {r:.1f} s "
        f"(fastavro read alone {b:.1f} s, ratio {r / b:.2f}), "
        f"peak RSS {peak:.0f} MiB, page {page_kb:.0f} KiB"
    )


if __name__ == "__main__":
    main()
