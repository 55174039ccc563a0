"""``beamcrawl demo`` as a user runs it: the live display on a terminal, the report.

One demo runs with stderr on a pseudo-terminal (rich draws its display
there), one with stderr a pipe (plain log lines only). Stdout is a pipe in
both, so the report is the plain table.
"""

import os
import re
import select
import shlex
import subprocess
import sys

import pytest

from pipelines.cli import main
from tests.test_import_effects import DEPENDENCY_NOTICE

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
HIDE_CURSOR, SHOW_CURSOR = "\x1b[?25l", "\x1b[?25h"
PORT = re.compile(r"127\.0\.0\.(\d):\d+")


def _on_terminal(command):
    """Run ``command`` with stderr on a pseudo-terminal: (code, stdout, terminal)."""
    controller, terminal_end = os.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "160", "LINES": "40"}
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=terminal_end, env=env
    )
    os.close(terminal_end)
    chunks = []
    try:
        while True:  # read the terminal until the process closes it
            ready, _, _ = select.select([controller], [], [], 300)
            assert ready, "the demo hung"
            try:
                data = os.read(controller, 65536)
            except OSError:  # EIO: the other end is closed
                break
            if not data:
                break
            chunks.append(data)
        stdout, _ = process.communicate(timeout=60)
    finally:
        os.close(controller)
    return process.returncode, stdout.decode(), b"".join(chunks).decode()


@pytest.fixture(scope="module")
def demos(tmp_path_factory):
    """Both demos, side by side: (tty crawl dir, result), (pipe crawl dir, result)."""
    dirs = [tmp_path_factory.mktemp(name) / "demo" for name in ("tty", "pipe")]
    commands = [
        [sys.executable, "-m", "pipelines.cli", "demo", "--dir", str(d)] for d in dirs
    ]
    piped = subprocess.Popen(
        commands[1], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        terminal = _on_terminal(commands[0])
        out, err = piped.communicate(timeout=300)
    finally:
        if piped.poll() is None:
            piped.kill()
            piped.wait()
    return (dirs[0], terminal), (dirs[1], (piped.returncode, out, err))


@pytest.fixture(scope="module")
def on_terminal(demos):
    return demos[0][1]


@pytest.fixture(scope="module")
def on_pipe(demos):
    crawl_dir, result = demos[1]
    return crawl_dir, *result


def test_a_terminal_shows_the_live_display_and_ends_it_cleanly(on_terminal):
    code, _, err = on_terminal
    assert code == 0, err[-2000:]
    # rich hides the cursor while it draws and shows it again when it ends:
    # once per job (2 per round: generate, then fetch+parse+updatedb)
    assert err.count(HIDE_CURSOR) == err.count(SHOW_CURSOR) == 6
    assert err.rindex(SHOW_CURSOR) > err.rindex(HIDE_CURSOR)
    text = ANSI.sub("", err)
    frames = [f for f in re.split(r"[\r\n]+", text) if f.strip()]
    fetch = [f for f in frames if f.startswith("fetch ") and "pages/s" in f]
    # round 2's fetch list holds 8 URLs; its last frame shows them all done
    assert any(
        re.fullmatch(
            r"fetch +━+ 8/8 8 pages, 1257 bytes, [\d.]+ pages/s, 0 queues, "
            r"0 active, ETA 0:00",
            frame.strip(),
        )
        for frame in fetch
    ), fetch
    assert any(re.match(r"generate +━+ 9 9 records", f) for f in frames), frames
    # log lines still come whole, on lines of their own, above the display
    assert any(
        f.startswith("crawl: round 3: generated 4: fetched SUCCESS=4") for f in frames
    )
    fetcher_line = re.compile(
        r"\S+ \S+ INFO crawllib.fetch.fetch: fetched 8 pages \(8 of 8 .*"
    )
    assert len([f for f in frames if fetcher_line.fullmatch(f)]) == 1
    assert text.rstrip().splitlines()[-1].startswith("demo: crawl directory ")


def test_a_pipe_gets_plain_log_lines_only(on_pipe):
    _, code, _, err = on_pipe
    assert code == 0, err[-2000:]
    assert "\x1b" not in err
    assert "\r" not in err
    assert "round 3: generated 4" in err
    line = re.compile(
        r"\S+ \S+ INFO crawllib.fetch.fetch: fetched 8 pages \(8 of 8 listed\), "
        r"\d+ bytes, [\d.]+ pages/s; 0 queues, 0 queued, 0 active; ETA 0:00"
    )
    assert len([ln for ln in err.splitlines() if line.fullmatch(ln)]) == 1


def test_the_demo_ends_with_a_report_of_the_crawl(on_pipe):
    crawl_dir, code, out, err = on_pipe
    assert code == 0, err[-2000:]
    assert "TOTAL urls:\t14" in out  # the crawldb statistics come first
    report = PORT.sub(r"host\1", out[out.index("\nCrawled ") :])
    assert "\x1b" not in report
    expected_rows = """
Crawled 14 URLs:
URL                                  STATUS         TITLE
http://host1/                        db_fetched     Harbour Lighthouse Society
http://host1/about.html              db_fetched     About the society
http://host1/contact.html            db_fetched
http://host1/docs/                   db_fetched     Documents
http://host1/docs/history-copy.html  db_duplicate   A short history
http://host1/docs/history.html       db_fetched     A short history
http://host1/docs/keepers.html       db_fetched     灯塔守护人日志
http://host1/missing.html            db_gone
http://host1/old-news.html           db_redir_perm
http://host1/private/members.html    db_gone
http://host2/                        db_fetched     Lighthouse blog
http://host2/posts/spring.html       db_fetched     Spring painting
http://host2/posts/storm-2026.html   db_unfetched
http://host2/posts/storm.html        db_fetched
"""
    rows, steps = report.split("\n\nFiles:\n")
    table = out[out.index("\nRounds:\n") : out.index("\nCrawled ")].splitlines()
    assert table[2].split() == ["ROUND", "GENERATED", "FETCHED", "NOT", "FETCHED",
                                "NEW", "URLS", "TIME"]  # fmt: skip
    assert [line.split()[:3] for line in table[3:6]] == [
        ["1", "1", "SUCCESS=1"], ["2", "8", "MOVED=1,"], ["3", "4", "SUCCESS=4"]
    ]  # fmt: skip
    assert table[6].startswith("Total: 3 rounds, 13 generated, fetched MOVED=1, ")
    # the URL column is as wide as the widest URL with its real port
    assert [r.split() for r in rows.strip().splitlines()] == [
        r.split() for r in expected_rows.strip().splitlines()
    ]
    segments = sorted((crawl_dir / "segments").iterdir())
    d = str(crawl_dir)
    assert steps.splitlines() == [
        f"  crawldb   {d}/crawldb",
        f"  segments  {d}/segments",
        f"  linkdb    {d}/linkdb",
        f"  rounds    {d}/rounds",
        "",
        "Next, try:",
        f"  beamcrawl readdb {d}/crawldb --stats",
        f"  beamcrawl readseg {segments[-1]} --list",
        f"  beamcrawl report {d}",
        f"  beamcrawl warc {d}/warc --dir {d}/segments",
        f"  beamcrawl index {d}/index {d}/crawldb --dir {d}/segments "
        f"--linkdb {d}/linkdb",
        f"  beamcrawl search {d}/index lighthouse",
        "",
        "Crawling safely: a page on the web never leads beamcrawl to an internal",
        "address or a local file; file: URLs are off unless protocol-file is in",
        "plugin.includes (docs/safety.md, 'Local files', says how to turn them on).",
    ]


def test_the_next_commands_it_suggests_work(on_pipe, capsys):
    crawl_dir, code, out, err = on_pipe
    assert code == 0, err[-2000:]
    suggested = out[out.index("Next, try:\n") :].split("\n\n")[0].splitlines()[1:]
    assert len(suggested) == 6
    for line in suggested:
        command = shlex.split(line)
        assert command[0] == "beamcrawl"
        assert main(command[1:]) == 0, line
    hits = capsys.readouterr().out
    assert "Harbour Lighthouse Society" in hits
    assert list((crawl_dir / "warc").glob("*.warc.gz"))


def test_a_plain_run_prints_no_dependency_warning(on_pipe):
    # no FutureWarning from Google's clients, no "apitools not found" from Beam
    _, code, _, err = on_pipe
    assert code == 0, err[-2000:]
    assert not DEPENDENCY_NOTICE.search(err), err[-3000:]
