"""The examples, each run as a user runs it, against the news site on loopback.

The test serves ``examples/newssite.py`` (the paper on 127.0.0.31, the wire
service on 127.0.0.32) and runs each example's script in a new process with
this interpreter, or the ``beamcrawl`` command, from the repository root as
the example READMEs say. Outputs are compared exactly.
"""

import json
import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from examples import newssite
from tests.avrofiles import read_pages
from tests.test_import_effects import DEPENDENCY_NOTICE

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
FAST = "fetcher.server.delay=0.05"
SITE_PAGES = {"/", "/news/", "/sport/", "/about/", newssite.ARCHIVE}
LIGHTHOUSE = "/news/2026/01/lighthouse-restored.html"


@pytest.fixture(scope="module")
def site():
    news = newssite.NewsSite("127.0.0.31", "127.0.0.32").start()
    yield news
    news.stop()


def _run(command, timeout_s=180):
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=timeout_s
    )
    assert done.returncode == 0, done.stderr[-3000:]
    # no dependency's FutureWarning or "apitools not found" on a plain run
    assert not DEPENDENCY_NOTICE.search(done.stderr), done.stderr[-3000:]
    return done.stdout, done.stderr


def _crawldb_urls(crawldb):
    return sorted(page["url"] for page in read_pages(Path(crawldb, "current")))


def test_news_search_crawls_internal_pages_and_finds_the_lighthouse(site, tmp_path):
    work = tmp_path / "news"
    script = EXAMPLES / "news_search" / "news_search.py"
    search = ["--query", "lighthouse keepers", "--delay", "0.05"]
    out, err = _run(
        [sys.executable, script, "--site", f"{site.url}/", "--dir", work, *search]
    )

    hits = out.splitlines()
    assert len(hits) == 5
    assert hits[0] == f"1. {site.url}{LIGHTHOUSE}  Harbour lighthouse lamp restored"
    rounds = [line for line in err.splitlines() if line.startswith("round ")]
    assert rounds == [
        "round 1: fetched SUCCESS=1",  # the home page
        "round 2: fetched ROBOTS_DENIED=1, SUCCESS=8",  # 3 sections, archive, 4 top
        "round 3: fetched NOTFOUND=1, SUCCESS=20",  # the other 20 stories, one gone
    ]
    assert f"indexed 29 pages in {work}/index" in err.splitlines()
    # internal links only, query strings removed: no wire service, no utm_, no ?year=
    paths = SITE_PAGES | {newssite.DRAFTS, newssite.GONE_STORY}
    paths |= {a.path for a in newssite.ARTICLES}
    assert _crawldb_urls(work / "crawldb") == sorted(site.url + p for p in paths)
    scanned = (work / "scanned").glob("round-3-*.txt")
    lines = sorted(line for f in scanned for line in f.read_text().splitlines())
    top = {a.path for a in newssite.TOP_STORIES}
    assert lines == sorted(
        [f"{site.url}{newssite.GONE_STORY}\tNOTFOUND"]
        + [f"{site.url}{a.path}\tok" for a in newssite.ARTICLES if a.path not in top]
    )


@pytest.mark.parametrize("runner", ["direct", "portable"])
def test_csv_fetch_writes_one_json_line_per_url(site, tmp_path, request, runner):
    paper, wire = site.url, site.wire_url
    rows = [
        "url,label",
        f"{paper}/,home",
        f"{paper}{LIGHTHOUSE},harbour",
        f"{paper}{LIGHTHOUSE},harbour",  # a duplicate: fetched once
        f"{paper}{newssite.GONE_STORY},gone",
        f"{paper}{newssite.DRAFTS},staff",
        f"{wire}/wire/glacier-survey.html,wire",
        "",
        "not a url,nothing",  # rejected: counted and dropped
    ]
    csv_file = tmp_path / "urls.csv"
    csv_file.write_text("\n".join(rows) + "\n")
    script = EXAMPLES / "csv_fetch" / "csv_fetch.py"
    # on workers apart from the script (as on Flink), as docs/library.md says
    beam_flags = []
    if runner == "portable":
        beam_flags = [*request.getfixturevalue("portable_flags"), "--pickle_library"]
        beam_flags.append("cloudpickle")

    out = tmp_path / "pages"
    _run([sys.executable, script, csv_file, "--out", out, "-D", FAST, *beam_flags])

    lines = (tmp_path / "pages.jsonl").read_text().splitlines()
    # outlinks are those Nutch's default filters keep: no query, mailto: or ftp:
    # links. Home: 3 sections, 3 top stories, drafts, the wire; the story: home,
    # /news/, one related story, the wire; the wire page: the paper.
    title = "Harbour lighthouse lamp restored"
    wire_title = "Students return from a glacier survey - Coastal Wire"
    assert sorted(lines) == sorted(
        [
            _summary(f"{paper}/", "home", "Riverton Daily", 8),
            _summary(f"{paper}{LIGHTHOUSE}", "harbour", title, 4),
            _summary(f"{paper}{newssite.GONE_STORY}", "gone", None, 0, "NOTFOUND"),
            _summary(f"{paper}{newssite.DRAFTS}", "staff", None, 0, "ROBOTS_DENIED"),
            _summary(f"{wire}/wire/glacier-survey.html", "wire", wire_title, 1),
        ]
    )


def _summary(url, label, title, outlinks, error=None):
    """The JSON line csv_fetch writes: keys sorted, json.dumps' separators."""
    fields = {"url": url, "label": label, "title": title, "outlinks": outlinks}
    return json.dumps({**fields, "error": error}, sort_keys=True)


def test_news_policy_in_python_keeps_news_links_without_utm(site):
    script = EXAMPLES / "news_policy" / "run.py"

    out, _ = _run(
        [
            sys.executable,
            script,
            "--url",
            f"{site.url}/",
            "--url",
            f"{site.url}{newssite.ARCHIVE}",
        ]
    )

    base = site.url
    assert out.splitlines() == [
        f"{base}/",
        f"  {base}/news/",
        f"  {base}{LIGHTHOUSE}",  # linked with ?utm_source=home&utm_medium=web
        f"  {base}/news/2026/02/glacier-survey.html",
        f"  {base}/news/2026/04/clockwork-automata.html",
        f"  {base}/news/archive.html?year=2026",
        f"{base}/news/archive.html",
        f"  {base}/news/archive.html?year=2025",  # twice: once with utm_ parameters
        f"  {base}/news/archive.html?year=2026",
        "Links/external_dropped=1",
        "Links/internal_dropped=4",  # /sport/, /about/, a sport story, drafts
        "Links/internal_kept=8",
        "Links/internal_rewritten=2",
        "Links/other_dropped=2",  # mailto: and ftp:
    ]


def test_news_policy_from_the_command_line_crawls_news_only(site, tmp_path):
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    (seeds / "urls.txt").write_text(f"{site.url}/\n")
    beamcrawl = Path(sys.executable).with_name("beamcrawl")
    crawl_dir = tmp_path / "crawl"

    policy = ["--linkPolicy", "examples/news_policy/policy.py:NewsOnly"]
    defines = ["-D", "http.agent.name=newsbot", "-D", FAST, "-D"]
    defines.append("urlfilter.regex.file=examples/news_policy/regex-urlfilter.txt")
    _, err = _run(
        [beamcrawl, "crawl", "--seeds", seeds, crawl_dir, "3", *policy, *defines]
    )

    rounds = re.findall(r"crawl: round \d: (generated .*), [\d.]+ s", err)
    assert rounds == [
        "generated 1: fetched SUCCESS=1, new urls 5",
        "generated 5: fetched SUCCESS=5, new urls 19",
        "generated 19: fetched SUCCESS=18 NOTFOUND=1, new urls 1",
    ]
    news = {a.path for a in newssite.NEWS}
    archive = [f"{newssite.ARCHIVE}?year={year}" for year in newssite.YEARS]
    paths = {"/", "/news/", newssite.ARCHIVE, *archive, newssite.GONE_STORY, *news}
    urls = _crawldb_urls(crawl_dir / "crawldb")
    assert urls == sorted(site.url + p for p in paths)
    assert not [u for u in urls if "utm_" in u or "/sport/" in u]


def test_without_utm_keeps_the_other_parameters_in_order():
    from examples.news_policy.policy import without_utm

    url = "http://h/a?utm_source=x&year=2025&utm_medium=y&page=2#top"
    assert without_utm(url) == "http://h/a?year=2025&page=2#top"
    assert without_utm("http://h/a?utm_source=x") == "http://h/a"
    assert without_utm("http://h/a?q=utm_x") == "http://h/a?q=utm_x"


def test_news_site_runs_standalone_until_ctrl_c():
    script = str(EXAMPLES / "newssite.py")
    command = [sys.executable, script, "--host", "127.0.0.33", "--port", "0"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as server:
        assert server.stdout is not None
        first = server.stdout.readline()
        found = re.fullmatch(
            r"Riverton Daily: (http://127\.0\.0\.33:\d+)/  "
            r"\(Coastal Wire: http://127\.0\.0\.34:\d+/\)\n",
            first,
        )
        try:
            assert found, first
            with urllib.request.urlopen(f"{found[1]}/robots.txt") as answer:
                assert answer.read() == newssite.ROBOTS_TXT.encode()
            server.send_signal(signal.SIGINT)
            assert server.wait(timeout=30) == 0
        finally:
            if server.poll() is None:
                server.kill()
