"""Every job, and the crawl loop, on a real Flink cluster: the DirectRunner's records.

The cluster is ``scripts/flink-local``'s (the ``flink`` fixture): a
JobManager and a TaskManager with two slots, jobs submitted through Beam's
Flink job server with ``--parallelism 2``. Each job runs on both runners
from copies of the same input, and what they write is compared field by
field, exactly; only wall-clock values (fetch times, the server's Date
header, response times) are masked, as ``tests/crawlrecords.py`` says.
"""

from __future__ import annotations

import itertools
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from crawllib.status import CrawlStatus
from pipelines.cli import main
from pipelines.demo import DEMO_PROPERTIES
from tests.avrofiles import read_pages
from tests.crawlrecords import crawl_records, without_wall_clock
from tests.processes import children_of

FLAGS = [f"-D{p}" for p in DEMO_PROPERTIES] + ["-Dfetcher.server.delay=0.05"]
CLOCK = ["-Dinjector.current.time=1700000000000", "-Dgenerate.curTime=1700000000000"]
SEGMENT = "20231114221320"  # generate.curTime as a segment name
PAGES = {
    "main": ["/", "/about.html", "/contact.html", "/docs/", "/docs/history.html",
             "/docs/history-copy.html", "/docs/keepers.html", "/missing.html",
             "/old-news.html", "/private/members.html"],
    "blog": ["/", "/posts/spring.html", "/posts/storm.html"],
}  # fmt: skip
_LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


class Twin:
    """The same command on the DirectRunner and on Flink, each on its own copy."""

    def __init__(self, root: Path, flink_flags: list[str], capsys: Any) -> None:
        self._root = root
        self._flink_flags = flink_flags
        self._capsys = capsys

    def run(
        self, step: str, start: Path | None, args: Callable[[Path], list[str]]
    ) -> tuple[Path, Path]:
        """Run on both; their stdout and job summaries must be equal."""
        outputs = []
        dirs = []
        for runner, flags in (("direct", []), ("flink", self._flink_flags)):
            work = self._root / step / runner
            if start is None:
                work.mkdir(parents=True)
            else:
                shutil.copytree(start, work, symlinks=True)
            self._capsys.readouterr()
            assert main([*args(work), *FLAGS, *flags]) == 0, runner
            out, err = self._capsys.readouterr()
            summary = [line for line in err.splitlines() if not _LOG_LINE.match(line)]
            outputs.append(_text(out, summary, work))
            dirs.append(work)
        assert outputs[1] == outputs[0], step
        return dirs[0], dirs[1]


def _text(out: str, summary: list[str], work: Path) -> tuple[str, list[str]]:
    return out.replace(str(work), "<dir>"), [
        s.replace(str(work), "<dir>") for s in summary
    ]


def _masked(directory: Path) -> list[dict[str, Any]]:
    return [without_wall_clock(page, {}) for page in read_pages(directory)]


def test_every_job_on_flink_writes_the_direct_runners_records(
    tmp_path, demo_site, flink, capsys
):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(
        "".join(
            demo_site.url(h) + p + "\n" for h, paths in PAGES.items() for p in paths
        )
    )
    twin = Twin(tmp_path, flink.loopback, capsys)
    segment = Path("segments", SEGMENT)

    d, f = twin.run(
        "inject", None, lambda w: ["inject", str(w / "db"), str(seeds), *CLOCK]
    )
    assert len(read_pages(d / "db" / "current")) == 13
    assert read_pages(f / "db" / "current") == read_pages(d / "db" / "current")

    args = ["--numFetchers", "2", *CLOCK]
    d, f = twin.run(
        "generate", d, lambda w: ["generate", str(w / "db"), str(w / "segments"), *args]
    )
    generated = read_pages(d / segment / "generate")
    assert {p["markers"]["_partition_"] for p in generated} == {"0", "1"}
    assert read_pages(f / segment / "generate") == generated
    assert read_pages(f / "db" / "current") == read_pages(d / "db" / "current")

    d, f = twin.run("fetch", d, lambda w: ["fetch", str(w / segment)])
    assert _masked(f / segment / "fetch") == _masked(d / segment / "fetch")

    d, f = twin.run("parse", d, lambda w: ["parse", str(w / segment)])
    assert read_pages(f / segment / "parse") == read_pages(d / segment / "parse")
    parsed = d

    d, f = twin.run(
        "updatedb", parsed, lambda w: ["updatedb", str(w / "db"), str(w / segment)]
    )
    assert _masked(f / "db" / "current") == _masked(d / "db" / "current")

    d, f = twin.run("dedup", d, lambda w: ["dedup", str(w / "db")])
    statuses = {p["url"]: p["status"] for p in read_pages(d / "db" / "current")}
    assert (
        statuses[demo_site.url("main") + "/docs/history-copy.html"]
        == CrawlStatus.DUPLICATE
    )
    assert read_pages(f / "db" / "current") == read_pages(d / "db" / "current")

    twin.run("readdb", d, lambda w: ["readdb", str(w / "db"), "--stats"])
    twin.run("readdb-json", d, lambda w: ["readdb", str(w / "db"), "--stats", "--json"])

    d, f = twin.run(
        "invertlinks",
        parsed,
        lambda w: ["invertlinks", str(w / "linkdb"), str(w / segment)],
    )
    assert read_pages(d / "linkdb" / "current")
    assert read_pages(f / "linkdb" / "current") == read_pages(d / "linkdb" / "current")

    twin.run("readseg", parsed, lambda w: ["readseg", str(w / segment), "--list"])
    d, f = twin.run(
        "dump",
        parsed,
        lambda w: ["readseg", str(w / segment), "--dump", str(w / "out")],
    )
    dumped = _dumped(d / "out")
    assert sorted(dumped) == ["fetch", "generate", "parse"]
    assert _dumped(f / "out") == dumped
    # one Beam job server (a JVM) started for all the jobs above
    assert len(_job_servers()) == 1


def _job_servers() -> list[int]:
    """This process's children that run Beam's Flink job server jar."""
    return [
        pid
        for pid, cmdline in children_of(os.getpid()).items()
        if b"job-server" in cmdline
    ]


def _dumped(directory: Path) -> dict[str, list[str]]:
    """Each dumped part's JSON lines, in order."""
    return {
        part.name: sorted(
            line for file in part.iterdir() for line in file.read_text().splitlines()
        )
        for part in directory.iterdir()
    }


def _crawl(seeds: Path, crawl_dir: Path, *flags: str) -> None:
    args = ["crawl", "--seeds", str(seeds), str(crawl_dir), "3", "--numFetchers", "2"]
    assert main([*args, *FLAGS, *flags]) == 0


def _rounds(err: str) -> list[str]:
    """The crawl's round lines, without their wall time."""
    return [
        line.rsplit(", ", 1)[0]
        for line in err.splitlines()
        if line.startswith("crawl: ")
    ]


def test_three_round_crawl_on_flink_writes_the_direct_runners_records(
    tmp_path, demo_site, flink, capsys
):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(demo_site.url("main") + "/\n")
    _crawl(seeds, tmp_path / "direct")
    direct_rounds = _rounds(capsys.readouterr().err)
    _crawl(seeds, tmp_path / "flink", *flink.external)
    flink_rounds = _rounds(capsys.readouterr().err)

    # the job summaries come from Flink's metrics, and are the same
    assert flink_rounds == direct_rounds
    assert (
        direct_rounds[1] == "crawl: round 1: generated 1: fetched SUCCESS=1, new urls 8"
    )
    records = crawl_records(tmp_path / "flink")
    assert sorted(records) == sorted(crawl_records(tmp_path / "direct"))
    for key, pages in crawl_records(tmp_path / "direct").items():
        assert records[key] == pages, key


DELAY_S = 0.3


def test_politeness_holds_with_two_fetch_lists_on_two_task_slots(
    tmp_path, sites, flink, capsys
):
    hosts = [sites(f"127.0.0.{n}") for n in (1, 2, 3, 5)]
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("".join(h.url(f"/page/{n}\n") for h in hosts for n in range(6)))
    crawldb, segments = str(tmp_path / "db"), str(tmp_path / "segments")
    polite = ["-Dhttp.agent.name=polite-test", f"-Dfetcher.server.delay={DELAY_S}"]
    assert main(["inject", crawldb, str(seeds), *polite]) == 0
    assert main(["generate", crawldb, segments, "--numFetchers", "2", *polite]) == 0
    segment = os.path.join(segments, os.listdir(segments)[0])
    list_of = {
        urlsplit(p["url"]).hostname: p["markers"]["_partition_"]
        for p in read_pages(Path(segment, "generate"))
    }
    assert sorted(set(list_of.values())) == ["0", "1"]

    fetch = ["fetch", segment, "--threads", "8", *polite, *flink.external]
    assert main(fetch) == 0
    assert "SUCCESS=24" in capsys.readouterr().err

    for host in hosts:
        served = host.requests_for("/page/")
        assert len(served) == 6
        # never two requests in flight to one host, the delay between them
        assert max(r.in_flight for r in host.requests_for("/")) == 1
        assert min(_gaps(served)) >= DELAY_S - 0.01
    # the two fetch lists ran side by side on the two task slots
    spans: dict[str, list[float]] = {}
    for host in hosts:
        served = host.requests_for("/page/")
        span = spans.setdefault(list_of[host.host], [served[0].started, 0.0])
        span[:] = [min(span[0], served[0].started), max(span[1], served[-1].ended)]
    assert max(start for start, _ in spans.values()) < min(e for _, e in spans.values())


def _gaps(requests: list[Any]) -> list[float]:
    return [b.started - a.ended for a, b in itertools.pairwise(requests)]
