"""Parsing in worker processes gives what parsing in the job's process gives."""

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import fastavro
import pytest

from crawllib.avro.encode import encode_webpage
from crawllib.config import ParseConfig, load_properties
from crawllib.parse.parse import PageParser
from crawllib.parse.pool import (
    WORKER_DIED,
    EncodedParse,
    EncodedParseBatch,
    ParseBatch,
    parse_without_content,
    prestart,
    shutdown_pool,
    worker_died,
)
from crawllib.status import CrawlStatus, ParseMajor
from crawllib.webpage import new_page
from crawllib.webpage import schema as webpage_schema

CONFIG = ParseConfig.from_properties(load_properties())


def _page(n: int, paragraphs: int = 1) -> Any:
    html = (
        f"<html><head><title>Page {n}</title></head><body>"
        + f"<p>text {n} <b>bold</b></p>" * paragraphs
        + f'<a href="/p{n + 1}.html">next</a><a href="http://b.org/{n}">b</a>'
        + "</body></html>"
    ).encode()
    return new_page(
        f"http://a.com/p{n}.html",
        content=html,
        status=CrawlStatus.FETCHED,
        contentType="text/html",
        markers={"_gnmrk_": "s1", "_ftcmrk_": "s1"},
    )


@pytest.fixture(autouse=True)
def _fresh_pool():
    shutdown_pool()
    yield
    shutdown_pool()


def _in_process(pages, config=CONFIG):
    parser = PageParser(config)
    try:
        return [parse_without_content(parser, page) for page in pages]
    finally:
        parser.close()


def _by_workers(pages, config, processes, batch_type=ParseBatch):
    batch = batch_type(config, processes=processes)
    out = [parsed for page in pages for parsed in batch.submit(page)]
    return out + list(batch.drain())


def test_pages_come_back_parsed_as_in_process_and_in_order():
    pages = [_page(n) for n in range(40)]
    out = _by_workers(pages, CONFIG, 2)
    assert out == _in_process(pages)
    assert out[3]["title"] == "Page 3"
    assert out[3]["content"] is None


def _encoded(parsed):
    status = parsed["parseStatus"]
    major = None if status is None else status["majorCode"]
    return EncodedParse(major, encode_webpage(parsed))


def test_an_encoding_batch_gives_each_parse_as_its_avro_record():
    pages = [_page(n) for n in range(20)]
    pages[5] = {**pages[5], "contentType": "application/x-unknown"}  # notparsed
    pages[7] = {**pages[7], "url": "not a url"}  # a failed parse
    out = _by_workers(pages, CONFIG, 2, EncodedParseBatch)
    want = _in_process(pages)
    assert out == [_encoded(parsed) for parsed in want]
    assert [item.major for item in out[4:8]] == [
        ParseMajor.SUCCESS, ParseMajor.NOTPARSED, ParseMajor.SUCCESS, ParseMajor.FAILED
    ]  # fmt: skip
    schema = fastavro.parse_schema(webpage_schema())
    assert fastavro.schemaless_reader(io.BytesIO(out[3].record), schema) == want[3]


def test_at_most_max_pending_pages_wait():
    batch = ParseBatch(CONFIG, processes=1, max_pending=3)
    given: list[Any] = []
    for n in range(10):
        given += batch.submit(_page(n))
        assert n + 1 - len(given) <= 3
    given += batch.drain()
    assert [page["title"] for page in given] == [f"Page {n}" for n in range(10)]


@pytest.mark.parametrize("batch_type", [ParseBatch, EncodedParseBatch])
def test_killed_workers_lose_no_page(caplog, batch_type):
    # whole chunks, so drain() hands nothing to the pool while it breaks:
    # CPython 3.11's ProcessPoolExecutor can hang at exit when a submit races
    # the breakdown (a worker it spawns keeps the dead pool's queue open)
    # (chunks of 8 pages here: max_pending // (2 * processes))
    pages = [_page(n, paragraphs=20_000) for n in range(1 + 2 * 8)]
    batch = batch_type(CONFIG, processes=2, max_pending=32)
    out = list(batch.submit(pages[0]))
    out += batch.drain()  # the pool is up
    from crawllib.parse import pool as parsepool

    assert parsepool._POOL is not None
    pool = parsepool._POOL[1]
    for page in pages[1:]:
        out += batch.submit(page)
    for pid in list(pool._processes):
        os.kill(pid, signal.SIGKILL)
    out += batch.drain()
    want = _in_process(pages)
    assert out == (want if batch_type is ParseBatch else list(map(_encoded, want)))
    assert "a parser process died" in caplog.text


def test_a_page_that_kills_its_worker_twice_is_a_failed_parse():
    failed: Any = worker_died(_page(1))
    assert failed["parseStatus"]["majorCode"] == ParseMajor.FAILED
    assert failed["parseStatus"]["args"] == [WORKER_DIED]
    assert failed["content"] is None
    assert failed["text"] is None


def test_processes_must_be_positive():
    with pytest.raises(ValueError, match="processes"):
        ParseBatch(CONFIG, processes=0)


# A page of 300,000 paragraphs takes over a second to parse, a small one a
# millisecond: 0.2 s stops the first and not the second on any machine.
SHORT_TIMEOUT = ParseConfig.from_properties(
    load_properties(defines=["parser.timeout=0.2"])
)


@pytest.mark.parametrize("use_alarm", [False, True], ids=["thread", "alarm"])
def test_a_parse_past_parser_timeout_fails_and_the_next_one_parses(use_alarm):
    parser = PageParser(SHORT_TIMEOUT, use_alarm=use_alarm)
    try:
        slow: Any = parser.parse_page(_page(1, paragraphs=300_000))
        # on the helper thread, the slow parse stops once libxml2 returns:
        # until then the next page is turned away as busy
        for _ in range(100):
            quick: Any = parser.parse_page(_page(2))
            if quick["parseStatus"]["majorCode"] == ParseMajor.SUCCESS:
                break
            assert not use_alarm, "with the alarm the next page waits its turn"
            assert quick["parseStatus"]["args"][0].startswith("parser busy")
    finally:
        parser.close()
    assert slow["parseStatus"]["majorCode"] == ParseMajor.FAILED
    assert slow["parseStatus"]["args"] == ["parse timed out after 0.2 s"]
    assert quick["parseStatus"]["majorCode"] == ParseMajor.SUCCESS
    assert quick["title"] == "Page 2"


def test_worker_processes_stop_a_parse_past_parser_timeout():
    batch = ParseBatch(SHORT_TIMEOUT, processes=1)
    out: list[Any] = list(batch.submit(_page(1, paragraphs=300_000)))
    out += batch.submit(_page(2))
    out += batch.drain()
    assert [page["parseStatus"]["majorCode"] for page in out] == [
        ParseMajor.FAILED,
        ParseMajor.SUCCESS,
    ]


def test_pages_go_in_chunks_and_the_last_ones_on_drain():
    batch = ParseBatch(CONFIG, processes=1, max_pending=64)
    pages = [_page(n) for n in range(ParseBatch.CHUNK + 3)]
    out: list[Any] = []
    for page in pages:
        out += batch.submit(page)
    assert len(out) <= ParseBatch.CHUNK  # the last 3 wait for drain
    out += batch.drain()
    assert out == _in_process(pages)


_ORPHAN_SCRIPT = """
import os, sys
from crawllib.config import ParseConfig, load_properties
from crawllib.parse.pool import ParseBatch
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from crawllib.webpage import schema as webpage_schema
batch = ParseBatch(ParseConfig.from_properties(load_properties()), 2)
page = new_page("http://a.com/", content=b"<p>x</p>", status=CrawlStatus.FETCHED,
                contentType="text/html", markers={"_gnmrk_": "s", "_ftcmrk_": "s"})
list(batch.submit(page)); list(batch.drain())
def parent_of(n):
    return open(f"/proc/{n}/stat").read().split(")")[1].split()[1]
me = str(os.getpid())
children = [int(n) for n in os.listdir("/proc") if n.isdigit() and parent_of(n) == me]
print(" ".join(map(str, children)), flush=True)
sys.stdin.read()  # until killed
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_workers_exit_when_their_parent_is_killed():
    with subprocess.Popen(
        [sys.executable, "-c", _ORPHAN_SCRIPT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as parent:
        assert parent.stdout is not None
        children = [int(pid) for pid in parent.stdout.readline().split()]
        assert len(children) >= 2  # the two workers (and the resource tracker)
        assert all(_alive(pid) for pid in children)

        parent.send_signal(signal.SIGKILL)
        parent.wait()

    deadline = time.monotonic() + 60  # a liveness guard, not a measured time
    while any(_alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in children if _alive(pid)]
    for pid in left:  # do not leave them behind if the test fails
        os.kill(pid, signal.SIGKILL)
    assert not left


def _worker_pids() -> set[int]:
    from crawllib.parse import pool as parsepool

    assert parsepool._POOL is not None
    return set(parsepool._POOL[1]._processes)


def test_prestarted_workers_parse_batches_of_any_configuration():
    prestart(2)
    started = _worker_pids()
    assert len(started) == 2
    one_link = ParseConfig.from_properties(
        load_properties(defines=["db.max.outlinks.per.page=1"])
    )
    pages = [_page(n) for n in range(20)]
    for config in (CONFIG, one_link, CONFIG):
        out = _by_workers(pages, config, 2)
        assert out == _in_process(pages, config)
        expected = 1 if config is one_link else 2
        assert {len(page["outlinks"]) for page in out} == {expected}
    assert _worker_pids() == started  # the same two processes did it all


def test_a_batch_of_another_size_replaces_the_prestarted_pool():
    prestart(2)
    started = _worker_pids()
    out = _by_workers([_page(1)], CONFIG, 1)
    assert out == _in_process([_page(1)])
    assert len(_worker_pids()) == 1
    assert not _worker_pids() & started
    with pytest.raises(ValueError, match="processes"):
        prestart(0)


_POLICY = """
from crawllib.urls.linkpolicy import NutchLinkPolicy

class SecondPageOnly(NutchLinkPolicy):
    def internal(self, link):
        return link.url.endswith("2.html")
"""


def test_prestarted_workers_import_a_policy_file_loaded_after_they_started(tmp_path):
    prestart(1)  # before the policy file's directory is on sys.path
    (tmp_path / "late_policy_module.py").write_text(_POLICY)
    spec = f"parse.link.policy={tmp_path / 'late_policy_module.py'}:SecondPageOnly"
    config = ParseConfig.from_properties(load_properties(defines=[spec]))
    try:
        pages = [_page(n) for n in range(3)]
        out = _by_workers(pages, config, 1)
        assert out == _in_process(pages, config)
        assert "http://a.com/p2.html" in out[1]["outlinks"]
        assert "http://a.com/p1.html" not in out[0]["outlinks"]
    finally:
        sys.path.remove(str(tmp_path))


_LATE_THREAD = """
import atexit, os, sys, threading
from crawllib.parse import pool

if __name__ == "__main__":
    pool.prestart(1)
    if sys.argv[1] == "close":
        pool.close_for_exit()  # what an interrupted command does, then:
    else:  # the race it closes: the pool stopped, the exit's clean-up run
        pool.stop_now()
        atexit._run_exitfuncs()
    # a thread of the job stopped halfway still parses
    late = threading.Thread(target=pool.prestart, args=(1,), daemon=True)
    late.start()
    late.join(2.0)
    print("late thread waits" if late.is_alive() else "late thread started a pool")
    sys.stdout.flush()
    atexit._run_exitfuncs()
    os._exit(0)
"""


def _run_script(script: Path, text: str, how: str) -> subprocess.CompletedProcess[str]:
    """``text`` run as a script of its own with ``how`` (a fresh process)."""
    script.write_text(text)
    return subprocess.run(
        [sys.executable, str(script), how],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=os.getcwd(),
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )


@pytest.mark.parametrize("how", ["close", "stop"])
def test_after_close_for_exit_a_late_parse_starts_no_pool_to_leak(tmp_path, how):
    done = _run_script(tmp_path / "late.py", _LATE_THREAD, how)
    assert done.returncode == 0, done.stderr
    if how == "close":
        assert done.stdout == "late thread waits\n"
        assert done.stderr == ""
    else:  # without it: a new pool's semaphores, warned of by the resource tracker
        assert done.stdout == "late thread started a pool\n"
        assert "leaked semaphore" in done.stderr


_FREED_ELSEWHERE = """
import atexit, gc, os, sys, threading, weakref
from crawllib.parse import pool

if __name__ == "__main__":
    pool.prestart(1)
    executor = pool._POOL[1]
    manager = executor._executor_manager_thread
    queue = weakref.ref(executor._call_queue)
    del executor
    if sys.argv[1] == "interrupted":
        pool.stop_now()  # the command's interrupt
    pool.close_for_exit()  # then its exit
    print("manager ended" if not manager.is_alive() else "manager runs")
    del manager
    # a thread of the stopped job drops the last reference, or collects garbage
    other = threading.Thread(target=gc.collect)
    other.start()
    other.join()
    print("kept" if queue() is not None else "freed by another thread")
    sys.stdout.flush()
    atexit._run_exitfuncs()
    os._exit(0)
"""


@pytest.mark.parametrize("how", ["closed", "interrupted"])
def test_after_close_for_exit_only_the_exits_clean_up_frees_the_semaphores(
    tmp_path, how
):
    done = _run_script(tmp_path / "freed.py", _FREED_ELSEWHERE, how)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    # else a semaphore freed by the other thread can be cut off by os._exit
    assert done.stdout == "manager ended\nkept\n"
