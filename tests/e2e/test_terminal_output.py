"""A page's terminal escapes are printed visibly, never sent to the terminal.

The page's title, text, an anchor, a response header and a meta tag hold
OSC 52 (writes the clipboard), CSI sequences, a C1 CSI and a CR. Every
command that prints page data prints them as ``\\x1b``-style escapes.
"""

import io
import json
import logging
import os
import re

import pytest

from pipelines import demo
from pipelines.cli import main, setup_logging

OSC52 = "\x1b]52;c;cHduZWQ=\x07"
TITLE = f"Keepers {OSC52}\x1b[2J\x9b31m end"
SHOWN_TITLE = "Keepers \\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\x9b31m end"
PAGE = (
    f"<html><head><title>{TITLE}</title>"
    "<meta name='description' content='d\x1b[1m'></head>"
    "<body><p>lighthouse \x1b[31mred\x1b[0m\r\nover</p>"
    "<a href='/bytes/b.html'>next \x1b[5m</a></body></html>"
)
FLAGS = ["-Dhttp.agent.name=termbot", "-Dfetcher.server.delay=0"]
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _clean(text: str) -> str:
    assert RAW_CONTROL.search(text) is None, repr(text)
    return text


@pytest.fixture
def hostile(site):
    site.files["a.html"] = ("text/html; charset=utf-8; x=\x1b[7m", PAGE.encode())
    site.files["b.html"] = ("text/html", b"<html><title>b</title></html>")
    return site.url("/bytes/a.html")


@pytest.fixture
def crawled(tmp_path, hostile):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(hostile + "\n")
    crawl = ["crawl", "--seeds", str(seeds), str(tmp_path / "crawl"), "1"]
    assert main([*crawl, *FLAGS]) == 0
    return tmp_path / "crawl", hostile


def test_parsechecker_prints_the_escapes_visibly(hostile, capsys):
    assert main(["parsechecker", hostile, *FLAGS]) == 0
    out = _clean(capsys.readouterr().out)
    assert f"Title: {SHOWN_TITLE}\n" in out
    assert "anchor: next \\x1b[5m\n" in out
    assert "Content-Type=text/html; charset=utf-8; x=\\x1b[7m " in out
    text = out.split("ParseText\n---------\n", 1)[1]
    shown_text = "lighthouse \\x1b[31mred\\x1b[0m over\nnext \\x1b[5m\n"
    assert text == f"{SHOWN_TITLE}\n{shown_text}"


def test_readdb_url_prints_one_line_per_field(crawled, capsys):
    crawl, url = crawled
    capsys.readouterr()
    assert main(["readdb", str(crawl / "crawldb"), "--url", url]) == 0
    lines = _clean(capsys.readouterr().out).splitlines()
    assert f"title:\t{SHOWN_TITLE}" in lines
    assert all(re.match(r"[a-zA-Z]+( \S+ )?:\t", line) for line in lines), lines


def test_readdb_stats_and_readseg_list_stay_clean(crawled, capsys):
    crawl, _ = crawled
    segments = crawl / "segments"
    (segment,) = os.listdir(segments)
    capsys.readouterr()
    assert main(["readdb", str(crawl / "crawldb"), "--stats"]) == 0
    assert main(["readseg", str(segments / segment), "--list"]) == 0
    captured = capsys.readouterr()
    _clean(captured.out)
    _clean(captured.err)


def test_search_prints_titles_and_snippets_escaped(crawled, capsys):
    crawl, _ = crawled
    index = crawl / "index"
    segments = str(crawl / "segments")
    assert main(["index", str(index), str(crawl / "crawldb"), "--dir", segments]) == 0
    capsys.readouterr()
    assert main(["search", str(index), "lighthouse"]) == 0
    out = _clean(capsys.readouterr().out)
    assert out.startswith("1. ")
    # the index keeps no C0 controls; a C1 CSI it keeps is escaped here
    assert "Keepers ]52;c;cHduZWQ=[2J\\x9b31m end" in out
    assert "**lighthouse** [31mred[0m over" in out
    assert main(["search", str(index), "lighthouse", "--json"]) == 0
    text = capsys.readouterr().out
    assert text.isprintable() or (text.endswith("\n") and text[:-1].isprintable())
    title = json.loads(text)["hits"][0]["title"]
    assert title == "Keepers ]52;c;cHduZWQ=[2J\x9b31m end"


def test_demo_report_escapes_titles_in_the_rich_table(crawled):
    crawl, _ = crawled

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for out in (Terminal(), io.StringIO()):
        demo.report(str(crawl), out)
        text = out.getvalue()
        assert "Keepers" in text
        assert "\\x1b]52" in text  # (rich folds the long title: a piece of it)
        for raw in ("\x1b]", "\x07", "\x1b[2J", "\x9b"):  # rich's own styles stay
            assert raw not in text


def test_log_lines_escape_what_they_quote(capsys):
    setup_logging()
    try:
        logging.getLogger("pipelines.test").warning("fetched %s", TITLE)
    finally:
        logging.getLogger().handlers.clear()
    err = _clean(capsys.readouterr().err)
    assert err.endswith(f"pipelines.test: fetched {SHOWN_TITLE}\n")
