"""``beamcrawl index`` and ``beamcrawl search`` on real crawls (real servers)."""

import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest
import tantivy

from crawllib.index.search import document_count, open_index
from pipelines.cli import main
from pipelines.demo import DEMO_PROPERTIES, DemoSite
from tests.crawllib.index.test_formats import read_bulk, read_solr_update

FLAGS = [f"-D{p}" for p in DEMO_PROPERTIES] + ["-Dfetcher.server.delay=0"]
DEMO_COUNTERS = (
    "Indexer: indexed (add/update)=7, skipped (duplicates)=1, "
    "skipped (fetch not successful)=3, skipped (not in segments)=1, "
    "skipped (redirects)=1, skipped (robots=noindex)=1"
)
DEMO_DOCS = {
    "main/", "main/about.html", "main/docs/", "main/docs/history.html",
    "main/docs/keepers.html", "blog/", "blog/posts/spring.html",
}  # fmt: skip


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo site crawled three rounds: (site, crawl dir)."""
    tmp = tmp_path_factory.mktemp("demo")
    site = DemoSite().start()
    try:
        seeds = tmp / "seeds.txt"
        seeds.write_text(site.url("main") + "/\n")
        crawl_dir = tmp / "crawl"
        assert main(["crawl", "--seeds", str(seeds), str(crawl_dir), "3", *FLAGS]) == 0
        yield site, crawl_dir
    finally:
        site.stop()


def _index(crawl_dir, index_dir, *extra):
    crawl = str(crawl_dir)
    dbs = [
        f"{crawl}/crawldb",
        "--dir",
        f"{crawl}/segments",
        "--linkdb",
        f"{crawl}/linkdb",
    ]
    return main(["index", str(index_dir), *dbs, *extra])


def _short(site, url):
    for name in ("main", "blog"):
        if url.startswith(site.url(name) + "/"):
            return name + url[len(site.url(name)) :]
    raise AssertionError(url)


def test_index_the_demo_crawl_and_find_a_phrase(demo, tmp_path, capsys):
    site, crawl_dir = demo
    index_dir = tmp_path / "index"

    assert _index(crawl_dir, index_dir) == 0
    err = capsys.readouterr().err
    assert DEMO_COUNTERS in err
    assert f"Indexer: 7 documents in {index_dir}" in err

    assert main(["search", str(index_dir), '"founded by keepers and sailors"']) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("1. ")
    assert out[0].endswith("  About the society")
    assert out[1] == f"   {site.url('main')}/about.html"
    assert "**founded** **by** **keepers** **and** **sailors**." in out[2]

    # the same segments again: every document replaced in place, none added
    assert _index(crawl_dir, index_dir) == 0
    assert document_count(str(index_dir)) == 7


def test_search_json_lists_ranked_hits(demo, tmp_path, capsys):
    site, crawl_dir = demo
    assert _index(crawl_dir, tmp_path / "index") == 0
    capsys.readouterr()

    assert main(["search", str(tmp_path / "index"), "lighthouse", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    hits = found["hits"]
    assert found["query"] == "lighthouse"
    assert [hit["rank"] for hit in hits] == list(range(1, len(hits) + 1))
    assert [hit["score"] for hit in hits] == sorted(
        (hit["score"] for hit in hits), reverse=True
    )
    assert {_short(site, hit["url"]) for hit in hits} <= DEMO_DOCS
    first = hits[0]
    assert first["title"] == "Harbour Lighthouse Society"
    marked = {first["snippet"][s:e] for s, e in first["highlights"]}
    assert marked == {"Lighthouse", "lighthouses"}  # English stemming


def test_solr_and_elasticsearch_files_of_the_demo_crawl(demo, tmp_path):
    site, crawl_dir = demo

    assert _index(crawl_dir, tmp_path / "solr", "--format", "solr", "--deleteGone") == 0
    assert _index(crawl_dir, tmp_path / "es", "--format", "elasticsearch") == 0

    solr = [read_solr_update(f.read_text()) for f in (tmp_path / "solr").iterdir()]
    commands = [c for file_commands in solr for c in file_commands]
    adds = {_short(site, body["doc"]["id"]) for name, body in commands if name == "add"}
    deletes = {_short(site, body["id"]) for name, body in commands if name == "delete"}
    assert adds == DEMO_DOCS
    assert deletes == {
        "main/missing.html",  # 404
        "main/private/members.html",  # robots.txt denied: gone
        "main/old-news.html",  # 301
        "blog/posts/storm.html",  # meta refresh
        "main/docs/history-copy.html",  # dedup's duplicate
    }
    bulk = [read_bulk(f.read_text()) for f in (tmp_path / "es").iterdir()]
    sources = {meta["_id"]: source for body in bulk for _, meta, source in body}
    assert {_short(site, url) for url in sources} == DEMO_DOCS
    about = sources[site.url("main") + "/about.html"]
    assert about["title"] == "About the society"
    assert about["anchor"] == ["About the society"]
    assert (about["host"], about["site"]) == ("127.0.0.1", "127.0.0.1")
    # Solr/ES files are not mixed with an earlier run's
    assert _index(crawl_dir, tmp_path / "es", "--format", "elasticsearch") == 2


def test_user_errors_are_one_line(demo, tmp_path, capsys):
    _, crawl_dir = demo

    assert main(["search", str(tmp_path / "none"), "x"]) == 2
    assert capsys.readouterr().err == f"beamcrawl: no search index at {tmp_path}/none\n"
    assert _index(crawl_dir, "gs://bucket/index") == 2
    err = capsys.readouterr().err
    assert err.startswith("beamcrawl: beamcrawl index: a tantivy index must be on")
    assert main(["search", str(tmp_path), "x", "--limit", "0"]) == 2
    assert "--limit 0" in capsys.readouterr().err


class _Pages(BaseHTTPRequestHandler):
    """A small site whose pages a test can take away (they answer 404)."""

    pages: ClassVar[dict[str, str]] = {}

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        body = self.pages.get(self.path)
        code = 200 if body is not None else 404
        data = (body or "<html><body>Not found</body></html>").encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def shrinking_site():
    pages = {
        "/robots.txt": "",
        "/": '<html><title>Home</title><body><a href="/a.html">A</a>'
        '<a href="/b.html">B</a></body></html>',
        "/a.html": "<html><title>Alpha</title><body>The alpha page.</body></html>",
        "/b.html": "<html><title>Beta</title><body>The beta page.</body></html>",
    }

    class Handler(_Pages):
        pass

    Handler.pages = pages
    server = ThreadingHTTPServer(("127.0.0.3", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.3:{server.server_port}", pages
    finally:
        server.shutdown()
        server.server_close()


def _tstamp(index_dir, url):
    index = open_index(str(index_dir))
    query = tantivy.Query.term_query(index.schema, "id", url)
    ((_, address),) = index.searcher().search(query, 2).hits
    return index.searcher().doc(address)["tstamp"][0]


def test_a_gone_page_leaves_the_index_with_delete_gone(
    shrinking_site, tmp_path, capsys
):
    base, pages = shrinking_site
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(base + "/\n")
    crawl_dir, index_dir = tmp_path / "crawl", tmp_path / "index"
    flags = ["-Dhttp.agent.name=test", "-Dfetcher.server.delay=0"]
    assert main(["crawl", "--seeds", str(seeds), str(crawl_dir), "2", *flags]) == 0
    assert _index(crawl_dir, index_dir) == 0
    assert document_count(str(index_dir)) == 3
    first = _tstamp(index_dir, base + "/a.html")

    # a later round, a day on: b.html has gone
    del pages["/b.html"]
    later = int(time.time() * 1000) + 31 * 86_400_000
    due = [*flags, f"-Dgenerate.curTime={later}"]
    assert main(["crawl", "--seeds", str(seeds), str(crawl_dir), "3", *due]) == 0

    assert _index(crawl_dir, index_dir) == 0
    assert document_count(str(index_dir)) == 3  # gone, but not deleted
    assert _tstamp(index_dir, base + "/a.html") > first  # replaced by the new fetch
    capsys.readouterr()
    assert _index(crawl_dir, index_dir, "--deleteGone") == 0
    assert "deleted (gone)=1, indexed (add/update)=2" in capsys.readouterr().err
    assert document_count(str(index_dir)) == 2
    assert main(["search", str(index_dir), "beta", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"] == []
    assert main(["search", str(index_dir), "alpha", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["hits"]) == 1


def test_index_the_python_docs_crawl(pydocs_crawl, tmp_path, capsys):
    crawl = pydocs_crawl.crawl_dir
    index_dir = tmp_path / "index"

    assert _index(crawl, index_dir) == 0
    err = capsys.readouterr().err
    count = document_count(str(index_dir))
    assert f"Indexer: indexed (add/update)={count}," in err
    assert count > 400

    phrase = '"Python is an easy to learn, powerful programming language"'
    assert main(["search", str(index_dir), phrase, "--json", "--limit", "3"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits[0]["url"] == f"{pydocs_crawl.base}/tutorial/index.html"
    assert hits[0]["title"] == "The Python Tutorial — Python 3.11.2 documentation"


def test_beamcrawl_search_runs_without_importing_beam(demo, tmp_path):
    """A search is interactive, and importing Beam alone takes most of a second."""
    _, crawl_dir = demo
    index_dir = tmp_path / "index"
    assert _index(crawl_dir, index_dir) == 0
    probe = (
        "import sys; from pipelines.cli import main; "
        f"code = main(['search', {str(index_dir)!r}, 'lighthouse']); "
        "sys.exit(code or 3 * ('apache_beam' in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Harbour Lighthouse Society" in done.stdout
