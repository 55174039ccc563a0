"""Three rounds of the whole loop on the two-host demo site (real servers)."""

import os
import signal
import struct
import subprocess
import sys
import time

import pytest

from crawllib.status import CrawlStatus
from pipelines.cli import main
from pipelines.demo import DEMO_PROPERTIES
from tests.avrofiles import read_pages
from tests.crawlrecords import crawl_records

FLAGS = [f"-D{p}" for p in DEMO_PROPERTIES] + ["-Dfetcher.server.delay=0.05"]

EXPECTED = {
    "main/": CrawlStatus.FETCHED,
    "main/about.html": CrawlStatus.FETCHED,
    "main/contact.html": CrawlStatus.FETCHED,
    "main/docs/": CrawlStatus.FETCHED,
    "main/docs/history.html": CrawlStatus.FETCHED,
    "main/docs/history-copy.html": CrawlStatus.DUPLICATE,  # same signature, lower score
    "main/docs/keepers.html": CrawlStatus.FETCHED,
    "main/missing.html": CrawlStatus.GONE,  # 404
    "main/old-news.html": CrawlStatus.REDIR_PERM,  # 301 to about.html
    "main/private/members.html": CrawlStatus.GONE,  # robots.txt Disallow
    "blog/": CrawlStatus.FETCHED,
    "blog/posts/spring.html": CrawlStatus.FETCHED,
    "blog/posts/storm.html": CrawlStatus.FETCHED,  # meta refresh
    "blog/posts/storm-2026.html": CrawlStatus.UNFETCHED,  # found in round 3
}


def _crawl(tmp_path, site, name, *extra):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(site.url("main") + "/\n")
    crawl_dir = tmp_path / name
    assert (
        main(["crawl", "--seeds", str(seeds), str(crawl_dir), "3", *FLAGS, *extra]) == 0
    )
    return crawl_dir


def _by_path(site, pages):
    names = {site.url("main"): "main", site.url("blog"): "blog"}
    found = {}
    for page in pages:
        for base, name in names.items():
            if page["url"].startswith(base + "/"):
                found[name + page["url"][len(base) :]] = page
    return found


def _cash(page):
    raw = page["metadata"].get("_csh_")
    return struct.unpack(">f", raw)[0] if raw else 0.0


def test_three_rounds_of_the_demo_site(tmp_path, demo_site, capsys):
    crawl_dir = _crawl(tmp_path, demo_site, "crawl")
    err = capsys.readouterr().err
    assert "round 1: generated 1: fetched SUCCESS=1, new urls 8" in err
    round_two = "generated 8: fetched SUCCESS=5 MOVED=1 NOTFOUND=1 ROBOTS_DENIED=1,"
    assert f"round 2: {round_two}" in err
    assert "round 3: generated 4" in err
    pages = _by_path(demo_site, read_pages(crawl_dir / "crawldb" / "current"))
    assert {path: page["status"] for path, page in pages.items()} == EXPECTED
    assert pages["main/docs/keepers.html"]["title"] == "灯塔守护人日志"
    assert pages["blog/posts/storm-2026.html"]["inlinks"] == {
        demo_site.url("blog") + "/posts/storm.html": ""
    }
    assert pages["blog/posts/storm-2026.html"]["markers"]["dist"] == "3"
    # OPIC: the seed's cash flowed out; nothing was created or lost but
    # what dangling pages (no kept outlinks) hold on to
    assert pages["main/"]["score"] > 1.0
    assert all(page["score"] > 0 for page in pages.values())
    total_cash = sum(_cash(page) for page in pages.values())
    assert 0 < total_cash <= 1.0 + 1e-6
    linkdb = {p["url"]: p for p in read_pages(crawl_dir / "linkdb" / "current")}
    about = linkdb[demo_site.url("main") + "/about.html"]
    assert set(about["inlinks"]) == {demo_site.url("blog") + "/posts/spring.html"}
    assert len(os.listdir(crawl_dir / "segments")) == 3


def test_the_same_crawl_on_the_portable_runner(tmp_path, demo_site, portable_flags):
    direct = _crawl(tmp_path, demo_site, "direct")
    portable = _crawl(tmp_path, demo_site, "portable", *portable_flags)
    # every field of every record, exactly (scores too), but the wall clock
    assert crawl_records(portable) == crawl_records(direct)


def test_updatedb_killed_midway_leaves_the_crawldb_whole(tmp_path, demo_site, capsys):
    crawl_dir = _crawl(tmp_path, demo_site, "crawl")
    crawldb = crawl_dir / "crawldb"
    before = read_pages(crawldb / "current")
    versions_before = set(os.listdir(crawldb / "versions"))
    segments = sorted(str(p) for p in (crawl_dir / "segments").iterdir())
    command = [
        sys.executable,
        "-m",
        "pipelines.cli",
        "updatedb",
        str(crawldb),
        *segments,
    ]
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and process.poll() is None:
            if set(os.listdir(crawldb / "versions")) - versions_before:
                process.send_signal(signal.SIGKILL)
                break
            time.sleep(0.01)
    finally:
        process.wait()
    assert process.returncode == -signal.SIGKILL
    assert read_pages(crawldb / "current") == before
    assert main(["readdb", str(crawldb), "--stats"]) == 0  # readable, whole
    assert list((crawldb / ".lock").glob("*.held"))
    capsys.readouterr()
    # its holder is gone (killed here, on this host): the lock is broken, logged
    assert main(["updatedb", str(crawldb), *segments]) == 0
    assert "removing the stale lock" in capsys.readouterr().err
    assert not list((crawldb / ".lock").glob("*"))
    assert len(read_pages(crawldb / "current")) == len(before)


def test_invertlinks_runs_beside_the_loop_and_its_failure_ends_the_crawl(
    tmp_path, demo_site, capsys
):
    crawl_dir = _crawl(tmp_path, demo_site, "crawl")
    assert "invertlinks in a child process" in capsys.readouterr().err
    assert read_pages(crawl_dir / "linkdb" / "current")  # written by the child

    seeds = tmp_path / "seeds.txt"
    # 2 rounds: round 1's runs in a child; 1 round: the last runs in-process
    failures = {}
    for rounds in ("2", "1"):
        broken = tmp_path / f"broken-{rounds}"
        broken.mkdir()
        (broken / "linkdb").write_text("a file where the linkdb belongs")
        code = main(["crawl", "--seeds", str(seeds), str(broken), rounds, *FLAGS])
        err = capsys.readouterr().err.replace(str(broken), "CRAWL")
        assert code == 1
        failures[rounds] = [
            line for line in err.splitlines() if line.startswith("beamcrawl:")
        ]
        assert read_pages(broken / "crawldb" / "current")  # the loop went on
    assert failures["1"] == failures["2"]  # the same line either way
    assert len(failures["1"]) == 1
    assert failures["1"][0].startswith(
        "beamcrawl: crawl: invertlinks of round 1 failed: "
    )


def test_a_round_that_leaves_nothing_due_ends_the_crawl_without_a_generate(
    tmp_path, demo_site, capsys
):
    # --topN 3 leaves due URLs after the early rounds: those must go on
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(demo_site.url("main") + "/\n")
    ends = {}
    for name, extra in (("fused", []), ("separate", ["--separateJobs"])):
        crawl = ["crawl", "--seeds", str(seeds), str(tmp_path / name), "20"]
        assert main([*crawl, "--topN", "3", *FLAGS, *extra]) == 0
        err = capsys.readouterr().err
        ends[name] = [line for line in err.splitlines() if "nothing to fetch" in line]
        assert ("generate not run" in err) == (name == "fused")
    assert ends["fused"] == ends["separate"]
    assert len(ends["fused"]) == 1
    assert "round 1:" not in ends["fused"][0]
    assert crawl_records(tmp_path / "fused") == crawl_records(tmp_path / "separate")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--threads", "0"], "beamcrawl: --threads 0 is invalid: expected 1 or more"),
        (
            ["--threads", "-3"],
            "beamcrawl: --threads -3 is invalid: expected 1 or more",
        ),
        (
            ["-Dfetcher.threads.fetch=0"],
            "beamcrawl: property fetcher.threads.fetch='0' is invalid: "
            "expected 1 or more",
        ),
    ],
)
def test_a_crawl_without_fetcher_threads_is_one_line_before_inject(
    tmp_path, flags, message
):
    # with no fetcher thread a local fetch would wait forever: refused at once
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://127.0.0.1:9/\n")
    crawl_dir = tmp_path / "crawl"
    command = [sys.executable, "-m", "pipelines.cli", "crawl", "--seeds", str(seeds)]
    command += [str(crawl_dir), "1", *FLAGS, *flags]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (2, message + "\n")
    assert not crawl_dir.exists()
