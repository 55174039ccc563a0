"""A job killed with SIGKILL leaves the previous crawldb whole and readable."""

import os
import signal
import subprocess
import sys
import time

from pipelines.cli import main
from tests.avrofiles import read_pages

NOW = "-Dinjector.current.time=1700000000000"


def _kill_when_writing(command, crawldb, timeout_s=120.0):
    versions_before = len(os.listdir(crawldb / "versions"))
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + timeout_s
    try:
        while time.monotonic() < deadline and process.poll() is None:
            if len(os.listdir(crawldb / "versions")) > versions_before:
                process.send_signal(signal.SIGKILL)
                break
            time.sleep(0.02)
    finally:
        process.wait()
    return process.returncode


def test_inject_killed_midway_leaves_the_crawldb_as_it_was(tmp_path, capsys):
    crawldb = tmp_path / "crawldb"
    first = tmp_path / "first.txt"
    first.write_text("http://a.com/\nhttp://b.com/\n")
    assert main(["inject", str(crawldb), str(first), NOW]) == 0
    before = read_pages(crawldb / "current")

    big = tmp_path / "big.txt"
    big.write_text(
        "".join(f"http://h{i % 997}.com/p{i}.html\n" for i in range(300_000))
    )
    command = [sys.executable, "-m", "pipelines.cli", "inject", str(crawldb), str(big)]
    assert _kill_when_writing(command, crawldb) == -signal.SIGKILL

    assert read_pages(crawldb / "current") == before
    assert list((crawldb / ".lock").glob("*.held"))
    capsys.readouterr()
    # its holder is gone (killed here, on this host): the lock is broken, logged
    assert main(["inject", str(crawldb), str(first), NOW]) == 0
    assert "removing the stale lock" in capsys.readouterr().err
    assert read_pages(crawldb / "current") == before
    assert sorted(os.listdir(crawldb)) == ["current", "old", "published", "versions"]
    assert len(os.listdir(crawldb / "versions")) == 2  # the killed job's is gone
