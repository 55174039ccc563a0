"""Crawl benchmark: ``beamcrawl crawl`` to exhaustion beside Scrapy, same web, same run.

Usage: python bench/crawl_bench.py [--hosts 40] [--pages 250] [--no-scrapy]
       [--keep DIR] [beamcrawl flags ...]

The web is ``bench/synthweb.py``'s (hosts x pages of ~15 KB HTML with ~30
links, most to the same host, three to other hosts), written to files and
served by nginx (Debian's package; ``apt-get install nginx-light``) on
127.0.0.<h+1>:18800, one address per host, in its own process; without
nginx the web's own Python server stands in (slower: say so when quoting).

Both crawlers start from each host's first page and stop when nothing is
left: ``beamcrawl crawl`` with fetcher.server.delay=0, 64 threads, one
connection per host and a large --topN (any further arguments are passed
to it, e.g. Beam flags); Scrapy's CrawlSpider (``bench/scrapy_crawl.py``)
with CONCURRENT_REQUESTS=64, CONCURRENT_REQUESTS_PER_DOMAIN=1,
DOWNLOAD_DELAY=0, ROBOTSTXT_OBEY=True. Printed: pages/s (HTTP 200 pages
over the wall time of the whole command, start-up included) and the ratio,
CPU and peak RSS of each command, and beamcrawl's steps (wall s and CPU ms
per page fetched in the crawl, from the crawl's own log).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synthweb import PORT, SyntheticWeb, host_address, page_html, page_url

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ROUND = re.compile(r"^crawl: round (\d+): generated (\d+): fetched (.*), new urls")
_STEP = re.compile(r"\s*([^,]+?) ([\d.]+) s cpu ([\d.]+) s")


@dataclass
class Run:
    """One crawler's run: wall, CPU (s), peak RSS (MB), pages."""

    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    pages: int = 0
    rounds: int = 0
    steps: dict[str, list[float]] = field(default_factory=dict)

    @property
    def pages_per_s(self) -> float:
        return self.pages / self.wall_s


_RUSAGE = (
    "import json, resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "cpu = usage.ru_utime + usage.ru_stime\n"
    "print('RUSAGE', json.dumps([cpu, usage.ru_maxrss]), file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _measured(command: list[str]) -> tuple[Run, str, str]:
    """Run ``command``: wall time, and CPU and peak RSS with all its children.

    A small Python parent runs it and reports what getrusage says of it (the
    CPU of the command and its descendants, the peak RSS of the largest).
    """
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _RUSAGE, *command],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[1:4])} failed:\n{done.stderr[-3000:]}")
    err, _, usage = done.stderr.rpartition("RUSAGE ")
    cpu, max_rss_kb = json.loads(usage)
    return Run(wall_s=wall, cpu_s=cpu, peak_rss_mb=max_rss_kb / 1024), done.stdout, err


def _write_web(root: str, hosts: int, pages: int) -> None:
    for host in range(hosts):
        directory = os.path.join(root, f"h{host}")
        os.makedirs(directory)
        for page in range(pages):
            with open(os.path.join(directory, f"p{page}.html"), "wb") as handle:
                handle.write(page_html(host, page, hosts, pages))


def _nginx_conf(work: str, hosts: int) -> str:
    servers = "".join(
        f"  server {{ listen {host_address(h)}:{PORT}; root {work}/web/h{h}; "
        "location = /robots.txt { return 404; } }\n"
        for h in range(hosts)
    )
    temp = os.path.join(work, "nginx-temp")
    return (
        f"worker_processes 1;\ndaemon off;\npid {work}/nginx.pid;\n"
        f"error_log {work}/nginx-error.log;\n"
        "events { worker_connections 4096; }\n"
        "http {\n  access_log off;\n  default_type text/html;\n"
        "  types { text/html html; }\n  sendfile on;\n  tcp_nodelay on;\n"
        "  keepalive_requests 1000000;\n"
        f"  client_body_temp_path {temp}; proxy_temp_path {temp};\n"
        f"  fastcgi_temp_path {temp}; uwsgi_temp_path {temp}; scgi_temp_path {temp};\n"
        f"{servers}}}\n"
    )


class NginxWeb:
    """The web's files served by nginx in its own process, stopped by pid."""

    def __init__(self, work: str, hosts: int, pages: int) -> None:
        self.work, self.hosts, self.pages = work, hosts, pages
        self._process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> NginxWeb:
        _write_web(os.path.join(self.work, "web"), self.hosts, self.pages)
        os.makedirs(os.path.join(self.work, "nginx-temp"))
        conf = os.path.join(self.work, "nginx.conf")
        with open(conf, "w") as handle:
            handle.write(_nginx_conf(self.work, self.hosts))
        self._process = subprocess.Popen(["nginx", "-c", conf, "-p", self.work])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self._process.poll() is None:
            with socket.socket() as sock:
                if sock.connect_ex((host_address(self.hosts - 1), PORT)) == 0:
                    time.sleep(0.2)  # still running: the port is nginx's own
                    if self._process.poll() is None:
                        return self
            time.sleep(0.1)
        raise SystemExit("nginx did not start; see nginx-error.log")

    def __exit__(self, *exc: object) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait()


def _beamcrawl(seeds: str, work: str, extra: list[str]) -> Run:
    command = [
        sys.executable, "-m", "pipelines.cli", "crawl", "--seeds", seeds,
        os.path.join(work, "crawl"), "100", "--topN", "10000000",
        "-Dhttp.agent.name=beamcrawl-bench", "-Dfetcher.server.delay=0",
        "-Dfetcher.threads.fetch=64", "-Dfetcher.threads.per.queue=1", *extra,
    ]  # fmt: skip
    run, _, err = _measured(command)
    for line in err.splitlines():
        if match := _ROUND.match(line):
            run.rounds += 1
            success = re.search(r"SUCCESS=(\d+)", match.group(3))
            run.pages += int(success.group(1)) if success else 0
        elif "steps: " in line:
            for name, wall, cpu in _STEP.findall(line.split("steps: ", 1)[1]):
                total = run.steps.setdefault(name, [0.0, 0.0])
                total[0] += float(wall)
                total[1] += float(cpu)
    return run


def _scrapy(seeds: str) -> Run:
    script = os.path.join(ROOT, "bench", "scrapy_crawl.py")
    run, out, _ = _measured([sys.executable, script, seeds])
    stats = json.loads(out.strip().splitlines()[-1])
    run.pages = int(stats.get("downloader/response_status_count/200", 0))
    return run


def _report(beam: Run, scrapy: Run | None, size: str) -> None:
    print(f"\n## {size}\n")
    print("| | pages | wall | pages/s | CPU | peak RSS |")
    print("|---|---|---|---|---|---|")
    for name, run in (("beamcrawl crawl", beam), ("Scrapy CrawlSpider", scrapy)):
        if run is not None:
            print(
                f"| {name} | {run.pages} | {run.wall_s:.1f} s | {run.pages_per_s:.1f}"
                f" | {run.cpu_s:.1f} s | {run.peak_rss_mb:.0f} MB |"
            )
    if scrapy is not None:
        print(f"\nbeamcrawl / Scrapy: **{beam.pages_per_s / scrapy.pages_per_s:.2f}x**")
    print(f"\nbeamcrawl's steps over {beam.rounds} rounds:\n")
    print("| step | wall | CPU | CPU ms/page |")
    print("|---|---|---|---|")
    for name, (wall, cpu) in beam.steps.items():
        print(
            f"| {name} | {wall:.1f} s | {cpu:.1f} s | {1000 * cpu / beam.pages:.2f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hosts", type=int, default=40)
    parser.add_argument("--pages", type=int, default=250)
    parser.add_argument("--no-scrapy", dest="scrapy", action="store_false")
    parser.add_argument("--keep", help="keep the crawl here (a new directory)")
    args, extra = parser.parse_known_args()
    work = tempfile.mkdtemp(prefix="crawl-bench-")
    os.chmod(work, 0o755)  # nginx's workers run as another user
    seeds = os.path.join(work, "seeds.txt")
    with open(seeds, "w") as handle:
        handle.write("".join(page_url(h, 0) + "\n" for h in range(args.hosts)))
    try:
        web = (
            NginxWeb(work, args.hosts, args.pages)
            if shutil.which("nginx")
            else SyntheticWeb(args.hosts, args.pages)
        )
        if not shutil.which("nginx"):
            print("nginx not found: the Python server serves the web", file=sys.stderr)
        with web:
            beam = _beamcrawl(seeds, work, extra)
            scrapy = _scrapy(seeds) if args.scrapy else None
        _report(beam, scrapy, f"{args.hosts} hosts x {args.pages} pages")
        if args.keep:
            shutil.copytree(os.path.join(work, "crawl"), args.keep)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
