"""--linkPolicy on parse, fetch --parse and crawl: a news site on loopback."""

import os

import pytest

from crawllib.parse.pool import shutdown_pool
from pipelines.cli import main
from tests.avrofiles import read_pages
from tests.sitemapsite import Route, SitemapSite

POLICY = "tests/data/linkpolicies/news_links.py:NewsOnly"
CLOCK = ["-Dinjector.current.time=1700000000000", "-Dgenerate.curTime=1700000000000"]
AGENT = ["-Dhttp.agent.name=testbot", "-Dfetcher.server.delay=0.01"]
OTHER_HOST = "http://127.0.0.2:9/elsewhere"
PAGES = {
    "/": [
        ("/", "home"),
        ("/news/", "news"),
        ("/news/1?utm_source=home", "first"),
        ("/news/2?utm_medium=web&utm_campaign=c", "second"),
        ("/about", "about"),
        (OTHER_HOST, "elsewhere"),
        ("mailto:desk@news.test", "mail us"),
    ],
    "/news/": [
        ("/news/1?utm_source=list", "one"), ("/news/3", "three"), ("/shop/", "shop"),
    ],
    "/news/1": [("/news/2", "two"), (OTHER_HOST, "elsewhere")],
    "/news/2": [],
    "/news/3": [("/news/", "back")],
    "/about": [("/news/secret", "secret")],
}  # fmt: skip


@pytest.fixture
def news_site():
    site = SitemapSite("127.0.0.1")
    for path, links in PAGES.items():
        anchors = "".join(f'<a href="{href}">{text}</a>' for href, text in links)
        html = f"<html><head><title>{path}</title></head><body>{anchors}</body></html>"
        site.routes[path] = Route(html.encode(), "text/html")
    yield site
    site.stop()


@pytest.fixture(autouse=True)
def _fresh_pool():
    shutdown_pool()
    yield
    shutdown_pool()


def _segment(tmp_path, site):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(site.url + "/\n")
    crawldb, segments = tmp_path / "crawldb", tmp_path / "segments"
    assert main(["inject", str(crawldb), str(seeds), *CLOCK]) == 0
    assert main(["generate", str(crawldb), str(segments), *CLOCK]) == 0
    (name,) = os.listdir(segments)
    return segments / name


HOME_OUTLINKS = {"/news/": "news", "/news/1": "first", "/news/2": "second"}
HOME_COUNTERS = (
    "Links/external_dropped=1, Links/internal_dropped=1, Links/internal_filtered=1, "
    "Links/internal_kept=3, Links/internal_rewritten=2, Links/other_dropped=1"
)


@pytest.mark.parametrize("processes", ["0", "2"])
def test_parse_with_a_link_policy_from_a_file(tmp_path, news_site, capsys, processes):
    segment = _segment(tmp_path, news_site)
    assert main(["fetch", str(segment), *AGENT]) == 0
    capsys.readouterr()
    argv = [
        "parse",
        str(segment),
        "--linkPolicy",
        POLICY,
        f"-Dparser.processes={processes}",
    ]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert f"Parser: {HOME_COUNTERS}, success=1\n" in err
    (page,) = read_pages(segment / "parse")
    base = news_site.url
    assert page["outlinks"] == {
        base + path: text for path, text in HOME_OUTLINKS.items()
    }


def test_parse_without_a_policy_keeps_what_nutch_keeps(tmp_path, news_site, capsys):
    segment = _segment(tmp_path, news_site)
    assert main(["fetch", str(segment), *AGENT, "--parse", "-Dparser.processes=0"]) == 0
    err = capsys.readouterr().err
    assert (
        "Links/external_kept=1, Links/internal_filtered=3, Links/internal_kept=4, "
        "Links/other_filtered=1, Links/other_kept=1"
    ) in err  # the "?" filter of regex-urlfilter.txt, the self link, mailto:
    (page,) = read_pages(segment / "parse")
    base = news_site.url
    assert page["outlinks"] == {
        base + "/news/": "news",
        base + "/about": "about",
        OTHER_HOST: "elsewhere",
    }


def test_fetch_parse_takes_the_policy_too(tmp_path, news_site, capsys):
    segment = _segment(tmp_path, news_site)
    argv = ["fetch", str(segment), *AGENT, "--parse", "--linkPolicy", POLICY]
    assert main([*argv, "-Dparser.processes=0"]) == 0
    assert HOME_COUNTERS in capsys.readouterr().err
    (page,) = read_pages(segment / "parse")
    assert set(page["outlinks"]) == {news_site.url + path for path in HOME_OUTLINKS}


def test_a_crawl_follows_only_what_the_policy_keeps(tmp_path, news_site, capsys):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(news_site.url + "/\n")
    crawl_dir = tmp_path / "crawl"
    argv = ["crawl", "--seeds", str(seeds), str(crawl_dir), "4", *AGENT]
    assert main([*argv, f"--linkPolicy={POLICY}", "-Dparser.processes=2"]) == 0
    urls = [page["url"] for page in read_pages(crawl_dir / "crawldb" / "current")]
    base = news_site.url
    assert urls == [
        base + path for path in ("/", "/news/", "/news/1", "/news/2", "/news/3")
    ]
    assert sorted(path for path in news_site.requested() if path != "/robots.txt") == [
        "/", "/news/", "/news/1", "/news/2", "/news/3",
    ]  # fmt: skip
    err = capsys.readouterr().err
    assert f"round 1 outlinks: {HOME_COUNTERS}\n" in err
    assert (
        "round 2 outlinks: Links/external_dropped=1, Links/internal_dropped=1, "
        "Links/internal_kept=3, Links/internal_rewritten=1\n"
    ) in err
    assert "round 3 outlinks: Links/internal_kept=1\n" in err


@pytest.mark.parametrize(
    ("argv", "spec"),
    [
        (["parse", "SEGMENT"], "no_such_module_zz:policy"),
        (["fetch", "SEGMENT", "--parse"], "tests/data/linkpolicies/news_links.py:Nope"),
        (["crawl", "--seeds", "SEEDS", "CRAWL", "1"], "no-colon"),
    ],
)
def test_an_unloadable_policy_is_one_line_before_any_job(tmp_path, capsys, argv, spec):
    paths = {"SEGMENT": tmp_path / "segment", "SEEDS": tmp_path / "seeds.txt"}
    paths["CRAWL"] = tmp_path / "crawl"
    paths["SEEDS"].write_text("http://127.0.0.1:9/\n")
    argv = [str(paths.get(arg, arg)) for arg in argv]
    assert main([*argv, "--linkPolicy", spec, *AGENT]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"beamcrawl: link policy {spec!r}: ")
    assert err.count("\n") == 1
    assert not (tmp_path / "crawl").exists()  # crawl: nothing injected


def test_a_bad_policy_property_stops_a_crawl_before_inject(tmp_path, capsys):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("http://127.0.0.1:9/\n")
    argv = ["crawl", "--seeds", str(seeds), str(tmp_path / "crawl"), "1", *AGENT]
    assert main([*argv, "-Dparse.link.policy=nowhere"]) == 2
    assert capsys.readouterr().err == (
        "beamcrawl: link policy 'nowhere': "
        "expected package.module:name or path/file.py:name\n"
    )
    assert not (tmp_path / "crawl").exists()
