"""``beamcrawl report`` on real crawls, its page loaded in headless chromium.

The demo site is crawled by ``beamcrawl crawl``; the report of the crawl
directory is opened in a real browser (:mod:`tests.browser`), and every
chart must have drawn (a non-zero size), show the numbers this test counts
itself from ``readdb --stats --json`` and the segments' Avro files (read by
fastavro, not by beamcrawl's readers), log no console error and request
nothing but the page itself.
"""

import collections
import json
import shutil
from pathlib import Path
from urllib.parse import urlsplit

import fastavro
import pytest

from crawllib.status import ProtocolStatus
from pipelines.cli import main
from pipelines.demo import DEMO_PROPERTIES, DemoSite
from pipelines.storage.rounds import RoundRecord, read_rounds, write_round
from tests.browser import Browser
from tests.objectstores import run_beamcrawl, store_in_use

FLAGS = [f"-D{p}" for p in DEMO_PROPERTIES] + ["-Dfetcher.server.delay=0"]
NOT_ERRORS = {"SUCCESS", "MOVED", "TEMP_MOVED", "NOTMODIFIED"}

READ_PAGE = """(() => {
  const charts = {};
  for (const svg of document.querySelectorAll('svg.chart')) {
    const box = svg.getBoundingClientRect();
    const marks = [...svg.querySelectorAll('g.value')];
    charts[svg.dataset.chart] = {
      width: box.width, height: box.height,
      values: marks.map(g => [g.dataset.series, g.dataset.category,
                               Number(g.dataset.value)]),
      undrawn: marks.filter(g => {
        const b = g.firstElementChild.getBoundingClientRect();
        return !(b.width > 0 && b.height > 0);
      }).length,
      totals: Object.fromEntries([...svg.querySelectorAll('text.total')]
        .map(t => [t.dataset.category, Number(t.textContent)])),
    };
  }
  return {
    charts,
    figures: Object.fromEntries([...document.querySelectorAll('[data-figure]')]
      .map(li => [li.dataset.figure, Number(li.querySelector('b').textContent)])),
    missing: [...document.querySelectorAll('section.missing')].map(s => s.id),
    notes: [...document.querySelectorAll('.notes li')].map(li => li.textContent),
    counters: Object.fromEntries([...document.querySelectorAll('#counters tr')]
      .slice(1).map(tr => [tr.cells[0].textContent, Number(tr.cells[1].textContent)])),
    elements: document.querySelectorAll('script, img, iframe, link, object').length,
  };
})()"""


@pytest.fixture(scope="module")
def browser():
    running = Browser()
    yield running
    running.close()


@pytest.fixture(scope="module")
def demo_crawl(tmp_path_factory):
    """The demo site crawled three rounds by ``beamcrawl crawl``: its directory."""
    tmp = tmp_path_factory.mktemp("report")
    site = DemoSite().start()
    try:
        seeds = tmp / "seeds.txt"
        seeds.write_text(site.url("main") + "/\n")
        crawl_dir = tmp / "crawl"
        assert main(["crawl", "--seeds", str(seeds), str(crawl_dir), "3", *FLAGS]) == 0
        yield crawl_dir
    finally:
        site.stop()


def _copy(crawl_dir, tmp_path, rounds=False):
    """A copy of the crawl to write into; without its round records unless asked."""
    copy = tmp_path / "crawl"
    shutil.copytree(crawl_dir, copy)
    if not rounds:
        shutil.rmtree(copy / "rounds", ignore_errors=True)
    return copy


def _records(directory):
    found = []
    for path in sorted(Path(directory).glob("part-*.avro")):
        with path.open("rb") as f:
            found += list(fastavro.reader(f))
    return found


def _segments(crawl_dir):
    return sorted(p for p in (crawl_dir / "segments").iterdir() if p.is_dir())


def _crawldb_pages(crawl_dir, capsys):
    capsys.readouterr()
    assert main(["readdb", str(crawl_dir / "crawldb"), "--path"]) == 0
    return _records(capsys.readouterr().out.strip())


def _stats(crawl_dir, capsys):
    capsys.readouterr()
    assert main(["readdb", str(crawl_dir / "crawldb"), "--stats", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _values(chart):
    """{(series, category): value} of a chart, zeros left out."""
    return {(s, c): v for s, c, v in chart["values"] if v}


def _report(crawl_dir, out, browser, capsys):
    capsys.readouterr()
    assert main(["report", str(crawl_dir), "--html", str(out)]) == 0
    stdout = capsys.readouterr().out
    loaded = browser.load(out.as_uri(), READ_PAGE)
    assert loaded.errors == []
    assert loaded.requests == [out.as_uri()]  # nothing from outside the file
    assert loaded.value["elements"] == 0
    for key, chart in loaded.value["charts"].items():
        assert chart["width"] > 0, key
        assert chart["height"] > 0, key
        assert chart["undrawn"] == 0, key
    return stdout, loaded.value


def _status_label(code):
    return ProtocolStatus(code).name


def _parse_label(status):
    """Nutch's ParseStatusCodes names: major, then minor unless ok."""
    if status is None:
        return "notparsed"
    major = {0: "notparsed", 1: "success", 2: "failed"}[status["majorCode"]]
    minors = {
        100: "redirect",
        200: "exception",
        202: "truncated",
        203: "invalid_format",
        204: "missing_parts",
        205: "missing_content",
    }
    minor = status["minorCode"]
    return major if minor == 0 else f"{major}/{minors[minor]}"


def _http_code(page):
    head = page["metadata"].get("_response.headers_")
    return head.split(b" ")[1].decode() if head else "none"


def test_report_of_a_crawl_without_round_records(demo_crawl, tmp_path, browser, capsys):
    crawl_dir = _copy(demo_crawl, tmp_path)
    out = tmp_path / "report.html"
    stats = _stats(crawl_dir, capsys)
    pages = _crawldb_pages(crawl_dir, capsys)
    fetches = {s.name: _records(s / "fetch") for s in _segments(crawl_dir)}
    generated = {s.name: len(_records(s / "generate")) for s in _segments(crawl_dir)}
    all_fetches = [page for pages_ in fetches.values() for page in pages_]
    parses = {s.name: _records(s / "parse") for s in _segments(crawl_dir)}

    stdout, page = _report(crawl_dir, out, browser, capsys)

    assert f"report: {out}" in stdout
    assert f"URLs in the crawldb: {stats['total']}, " in stdout
    charts = page["charts"]
    assert _values(charts["status-by-round"]) == {
        (status, "now"): count for status, count in stats["status"].items()
    }
    expected_fetch = {}
    for name, records in fetches.items():
        for status, n in collections.Counter(
            _status_label(r["protocolStatus"]["code"]) for r in records
        ).items():
            expected_fetch[(status, name)] = n
        if generated[name] > len(records):
            expected_fetch[("not fetched", name)] = generated[name] - len(records)
    assert _values(charts["fetch-by-segment"]) == expected_fetch
    assert sum(v for _, _, v in charts["fetch-rate"]["values"]) == len(all_fetches)
    assert _values(charts["parse-by-segment"]) == collections.Counter(
        (_parse_label(r["parseStatus"]), name)
        for name, records in parses.items()
        for r in records
    )
    hosts = collections.Counter(urlsplit(p["url"]).hostname for p in pages)
    assert charts["hosts-pages"]["totals"] == hosts
    errors = collections.Counter(
        urlsplit(r["url"]).hostname
        for r in all_fetches
        if _status_label(r["protocolStatus"]["code"]) not in NOT_ERRORS
    )
    assert errors  # the demo site has a 404 and a robots.txt denial
    assert charts["hosts-errors"]["totals"] == errors
    assert _values(charts["host-http-codes"]) == collections.Counter(
        (_http_code(r), urlsplit(r["url"]).hostname) for r in all_fetches
    )
    assert _values(charts["host-fetch-status"]) == collections.Counter(
        (_status_label(r["protocolStatus"]["code"]), urlsplit(r["url"]).hostname)
        for r in all_fetches
    )
    depths = collections.Counter(p["markers"]["dist"] for p in pages)
    assert _values(charts["depth"]) == {("URLs", d): n for d, n in depths.items()}
    assert sum(v for _, _, v in charts["score"]["values"]) == len(pages)
    assert page["figures"]["URLs in the crawldb"] == stats["total"]
    assert page["figures"]["fetch records"] == len(all_fetches)
    assert page["figures"]["failed fetches"] == sum(errors.values())
    assert "crawldb-growth" in page["missing"]
    assert any("No round records" in note for note in page["notes"])


def test_report_draws_the_round_records(demo_crawl, tmp_path, browser, capsys):
    crawl_dir = _copy(demo_crawl, tmp_path)
    hostile = "<script>alert(1)</script>"
    written = []
    for number, segment in enumerate(_segments(crawl_dir), start=1):
        record = RoundRecord(
            round=number, segment=str(segment),
            started_ms=1_800_000_000_000 + number * 60_000,
            ended_ms=1_800_000_000_000 + number * 60_000 + 30_000,
            generated=len(_records(segment / "generate")),
            new_urls=3 * number,
            crawldb={"status_fetched": 2 * number, f"<img src=x onerror={hostile}>": 5},
            counters={"FetcherStatus:SUCCESS": number, hostile: 1},
        )  # fmt: skip
        write_round(str(crawl_dir), record)
        written.append(record)

    _, page = _report(crawl_dir, tmp_path / "report.html", browser, capsys)

    charts = page["charts"]
    assert _values(charts["status-by-round"]) == {
        (status, f"round {r.round}"): count
        for r in written
        for status, count in r.crawldb.items()
    }
    assert _values(charts["crawldb-growth"]) == {
        **{
            ("URLs in the crawldb", f"round {r.round}"): 2 * r.round + 5
            for r in written
        },
        **{("new URLs", f"round {r.round}"): 3 * r.round for r in written},
    }
    assert {c for _, c, _ in charts["fetch-by-segment"]["values"]} == {
        f"round {r.round}" for r in written
    }
    assert page["counters"] == {
        "FetcherStatus:SUCCESS": sum(r.round for r in written),
        hostile: len(written),
    }
    assert page["figures"]["rounds recorded"] == len(written)
    assert page["missing"] == []


def test_report_of_a_real_crawl_draws_its_own_round_records(
    demo_crawl, tmp_path, browser, capsys
):
    crawl_dir = _copy(demo_crawl, tmp_path, rounds=True)
    written = read_rounds(str(crawl_dir))
    assert [r.round for r in written] == [1, 2, 3]  # crawl wrote them
    stats = _stats(crawl_dir, capsys)

    _, page = _report(crawl_dir, tmp_path / "report.html", browser, capsys)

    charts = page["charts"]
    assert _values(charts["crawldb-growth"]) == {
        ("URLs in the crawldb", "round 1"): 9,
        ("URLs in the crawldb", "round 2"): 13,
        ("URLs in the crawldb", "round 3"): stats["total"],
        ("new URLs", "round 1"): 8,
        ("new URLs", "round 2"): 4,
        ("new URLs", "round 3"): 1,
    }
    assert _values(charts["status-by-round"]) == {
        (status, f"round {r.round}"): count
        for r in written
        for status, count in r.crawldb.items()
        if count
    }
    assert {c for _, c, _ in charts["fetch-by-segment"]["values"]} == {
        "round 1", "round 2", "round 3"
    }  # fmt: skip
    assert page["figures"]["rounds recorded"] == 3
    assert page["missing"] == []


def test_report_leaves_out_a_damaged_file_and_says_so(demo_crawl, tmp_path, capsys):
    crawl_dir = _copy(demo_crawl, tmp_path)
    damaged = sorted((_segments(crawl_dir)[0] / "fetch").glob("part-*.avro"))[0]
    damaged.write_bytes(damaged.read_bytes()[:-20])

    assert main(["report", str(crawl_dir)]) == 0

    out = capsys.readouterr().out
    assert f"report: {crawl_dir / 'report.html'}" in out
    assert f"not shown: Damaged file left out: {damaged}" in out
    assert str(damaged) in (crawl_dir / "report.html").read_text()


def _upload(crawl_dir, root):
    """Every file of ``crawl_dir`` under ``root``, the local version links apart."""
    from apache_beam.io.filesystems import FileSystems

    for path in sorted(crawl_dir.rglob("*")):
        linked = any(p.is_symlink() for p in (path, *path.parents))
        if path.is_file() and not linked:
            rel = path.relative_to(crawl_dir).as_posix()
            with FileSystems.create(f"{root}/{rel}") as out:
                out.write(path.read_bytes())


@pytest.mark.parametrize("scheme", ["s3", "gs"])
def test_report_of_a_crawl_on_an_object_store(
    demo_crawl, tmp_path, scheme, request, monkeypatch, capsys
):
    from apache_beam.io.filesystems import FileSystems

    local = _copy(demo_crawl, tmp_path)
    assert main(["report", str(local), "--html", str(tmp_path / "local.html")]) == 0
    local_lines = capsys.readouterr().out.splitlines()
    store = store_in_use(request, monkeypatch, scheme)
    root = store.url("crawl")
    _upload(local, root)

    done = run_beamcrawl(store, "report", root)

    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"report: {root}/report.html (")
    assert lines[1:] == local_lines[1:]  # the same headline and notes
    assert FileSystems.exists(f"{root}/report.html")


def test_report_of_no_crawl_directory_is_one_line(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nothing")]) == 2

    err = capsys.readouterr().err
    assert err == f"beamcrawl: no crawl directory at {tmp_path / 'nothing'}\n"


def test_report_of_the_python_docs_crawl(pydocs_crawl, tmp_path, browser, capsys):
    stats = _stats(pydocs_crawl.crawl_dir, capsys)
    out = tmp_path / "pydocs.html"

    _, page = _report(pydocs_crawl.crawl_dir, out, browser, capsys)

    assert page["figures"]["URLs in the crawldb"] == stats["total"]
    assert _values(page["charts"]["hosts-pages"]) == {
        (status, "127.0.0.5"): count for status, count in stats["status"].items()
    }
    assert len(page["charts"]) >= 8


def test_report_into_a_missing_directory_is_one_line(demo_crawl, tmp_path, capsys):
    out = tmp_path / "no" / "report.html"

    assert main(["report", str(demo_crawl), "--html", str(out)]) == 2

    err = capsys.readouterr().err
    assert err == f"beamcrawl: cannot write {out}: no directory {out.parent}\n"
