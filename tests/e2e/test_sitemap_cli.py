"""``beamcrawl sitemap`` end to end: real servers, DirectRunner, the crawldb on disk."""

import pytest

from crawllib.db.buckets import Bucketing
from crawllib.db.scoring import injected_score
from crawllib.javanum import f32
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.cli import main
from pipelines.storage import bucketfiles
from tests.avrofiles import read_pages
from tests.e2e.crafted import write_pages
from tests.sitemapsite import Route, SitemapSite

NOW_MS = 1_700_000_000_000
FLAGS = ["-Dhttp.agent.name=sitemaptest", "-Dfetcher.server.delay=0",
         f"-Dinjector.current.time={NOW_MS}"]  # fmt: skip
MONTH_S = 2_592_000


@pytest.fixture(scope="module")
def hosts():
    main_site, other = SitemapSite("127.0.0.1"), SitemapSite("127.0.0.2")
    main_site.serve("/docs/sitemap.xml", "urlset.xml", other=other.url)
    other.routes["/robots.txt"] = Route(
        (
            f"User-agent: *\nDisallow: /private/\nSitemap: {other.url}/public/s.txt\n"
            f"Sitemap: {other.url}/private/s.txt\n"
        ).encode(),
        "text/plain",
    )
    other.routes["/public/s.txt"] = Route(
        f"{other.url}/public/p1.html\n{other.url}/public/p2.html\n".encode(),
        "text/plain",
    )
    yield main_site, other
    main_site.stop()
    other.stop()


def _crawldb(tmp_path, main_site, other, zone=b"local"):
    """A crawldb of two fetched pages; their zone ``local``: injected seeds."""
    crawldb = tmp_path / "crawldb"
    metadata = {"_zone_": zone}
    existing = [
        new_page(main_site.url + "/docs/a.html", status=int(CrawlStatus.FETCHED),
                 fetchTime=5, fetchInterval=100, score=3.0, modifiedTime=7,
                 metadata=metadata),
        new_page(other.url + "/", status=int(CrawlStatus.FETCHED), fetchTime=5,
                 metadata=metadata),
    ]  # fmt: skip
    write_pages(crawldb / "current", existing)
    urls = tmp_path / "sitemaps"
    urls.mkdir()
    (urls / "list.txt").write_text(
        f"# sitemaps\n{main_site.url}/docs/sitemap.xml\thint=x\nhttp://x.test/s.gif\n"
    )
    return crawldb, urls, {page["url"]: page for page in existing}


def _sitemap(capsys, *args):
    capsys.readouterr()
    code = main(["sitemap", *map(str, args), *FLAGS])
    return code, capsys.readouterr().err.strip().splitlines()[-1]


def _new(url, score=0.5, interval=MONTH_S, modified=0):
    # listed in a sitemap served from loopback: the zone of the links there
    return injected_score(
        new_page(url, status=int(CrawlStatus.UNFETCHED), fetchTime=NOW_MS,
                 fetchInterval=interval, modifiedTime=modified, score=f32(score),
                 stmPriority=f32(score), markers={"dist": "0"},
                 metadata={"_zone_": b"loopback"})
    )  # fmt: skip


# an older crawldb (one part file), and one bucketed: merged bucket by bucket
@pytest.mark.parametrize("buckets", [None, 4])
def test_nutch_sitemap_adds_new_urls_and_keeps_existing_ones(
    tmp_path, hosts, capsys, buckets
):
    main_site, other = hosts
    crawldb, urls, existing = _crawldb(tmp_path, main_site, other)
    if buckets:
        assert main(["bucketdb", str(crawldb), "--buckets", str(buckets)]) == 0

    code, summary = _sitemap(capsys, crawldb, "--sitemapUrls", urls, "--fromRobots")

    assert code == 0
    assert summary == (
        "SitemapProcessor: existing_sitemap_entries=1, failed_fetches=1, "
        "filtered_records=1, new_sitemap_entries=4, sitemap_seeds=1, "
        "sitemaps_from_hostname=3, sitemaps_processed=2, sitemaps_robots_denied=1, "
        "urls_filtered=2, urls_from_sitemaps=5, urls_malformed=1, "
        "urls_not_under_sitemap_path=2"
    )
    docs = main_site.url + "/docs/"
    assert read_pages(crawldb / "current") == sorted(
        [
            existing[docs + "a.html"],
            _new(docs + "c.html"),
            _new(docs + "d.html", 0.0, 2147483647, 1101197100000),
            existing[other.url + "/"],
            _new(other.url + "/public/p1.html"),
            _new(other.url + "/public/p2.html"),
        ],
        key=lambda page: page["url"],
    )
    # the new version bucketed: as many buckets as before, or chosen from its size
    layout = bucketfiles.read_layout(str(crawldb / "current"))
    assert layout == Bucketing(buckets or 1)


def test_beamcrawl_from_robots_reads_a_host_in_the_zone_of_its_urls(
    tmp_path, hosts, capsys
):
    # URLs found on the public web (zone public) on a loopback host: its
    # robots.txt and sitemaps are never asked for
    main_site, other = hosts
    crawldb, _, existing = _crawldb(tmp_path, main_site, other, zone=b"public")
    asked = len(other.log)

    code, summary = _sitemap(capsys, crawldb, "--fromRobots")

    assert code == 0
    assert summary == (
        "SitemapProcessor: sitemaps_address_denied=2, sitemaps_from_hostname=2"
    )
    assert len(other.log) == asked
    assert read_pages(crawldb / "current") == sorted(
        existing.values(), key=lambda page: page["url"]
    )


def test_nutch_no_strict_and_overwrite_existing(tmp_path, hosts, capsys):
    main_site, other = hosts
    crawldb, urls, existing = _crawldb(tmp_path, main_site, other)

    code, summary = _sitemap(capsys, crawldb, "--sitemapUrls", urls, "--noStrict",
                             "-Dsitemap.url.overwrite.existing=true")  # fmt: skip

    assert code == 0
    assert "new_sitemap_entries=4," in summary
    assert "urls_not_under_sitemap_path" not in summary
    docs = main_site.url + "/docs/"
    pages = {page["url"]: page for page in read_pages(crawldb / "current")}
    assert sorted(pages) == sorted(
        [docs + "a.html", docs + "c.html", docs + "d.html", other.url + "/",
         main_site.url + "/elsewhere.html", other.url + "/docs/e.html"]
    )  # fmt: skip
    assert pages[docs + "a.html"] == {
        **existing[docs + "a.html"],
        "score": 0.800000011920929,
        "fetchInterval": MONTH_S,
        "modifiedTime": 1104537600000,
    }
    assert pages[main_site.url + "/elsewhere.html"] == _new(
        main_site.url + "/elsewhere.html", interval=86400
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "beamcrawl: beamcrawl sitemap: give --sitemapUrls DIR or --fromRobots"),
        (["--fromRobots", "-Dhttp.agent.name="], "beamcrawl: Fetcher: No agents"),
        (["--fromRobots", "-Dhttp.agent.name=t", "-Dsitemap.redir.max=-1"],
         "beamcrawl: property sitemap.redir.max='-1' is invalid"),
    ],
)  # fmt: skip
def test_user_errors_are_one_line_and_exit_2(tmp_path, capsys, args, message):
    capsys.readouterr()
    code = main(["sitemap", str(tmp_path / "crawldb"), *FLAGS[1:], *args])
    err = capsys.readouterr().err

    assert code == 2
    assert err.startswith(message)
    assert len(err.strip().splitlines()) == 1
    assert not (tmp_path / "crawldb").exists()


def test_locked_crawldb_is_left_alone_unless_forced(tmp_path, hosts, capsys):
    main_site, other = hosts
    crawldb, urls, _ = _crawldb(tmp_path, main_site, other)
    (crawldb / ".locked").write_text("")
    before = read_pages(crawldb / "current")

    code, summary = _sitemap(capsys, crawldb, "--sitemapUrls", urls)

    assert code == 2
    assert "lock" in summary
    assert read_pages(crawldb / "current") == before

    code, summary = _sitemap(capsys, crawldb, "--sitemapUrls", urls, "--force")

    assert code == 0
    assert "new_sitemap_entries=2," in summary
    assert len(read_pages(crawldb / "current")) == 4
