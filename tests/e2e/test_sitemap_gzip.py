"""Gzipped sitemaps through ``beamcrawl sitemap``, and a failure's one warning.

A real server on loopback serves ``.xml.gz`` sitemaps: given with
``--sitemapUrls``, listed in robots.txt and listed in an index. Nutch's
default URL filter drops them (``-...gz...$``); beamcrawl reads them
(crawllib/sitemaps/sitemapurls.py) and every other rule still applies.
"""

import pytest

from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.cli import main
from tests.avrofiles import read_pages
from tests.e2e.crafted import write_pages
from tests.sitemapsite import SitemapSite

FLAGS = ["-Dhttp.agent.name=sitemaptest", "-Dfetcher.server.delay=0"]


def _urlset(*urls):
    entries = "".join(f"<url><loc>{url}</loc></url>" for url in urls)
    return f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'


def _index(*urls):
    entries = "".join(f"<sitemap><loc>{url}</loc></sitemap>" for url in urls)
    return f"<sitemapindex>{entries}</sitemapindex>"


@pytest.fixture(scope="module")
def site():
    site = SitemapSite("127.0.0.1")
    base = site.url
    site.routes["/robots.txt"] = SitemapSite.text_route(
        f"User-agent: *\nSitemap: {base}/robots.xml.gz\n"
    )
    site.serve_gzip("/robots.xml.gz", _urlset(f"{base}/r.html").encode(), encoded=False)
    site.serve_gzip(
        "/index.xml.gz", _index(f"{base}/nested.xml.gz").encode(), encoded=False
    )
    site.serve_gzip(
        "/nested.xml.gz",
        _urlset(f"{base}/n.html", f"{base}/files/n.tar.gz").encode(),
        encoded=False,
    )
    site.serve_gzip("/private/p.xml.gz", _urlset(f"{base}/private/p.html").encode(),
                    encoded=False)  # fmt: skip
    yield site
    site.stop()


def _run(capsys, tmp_path, site, *args):
    crawldb = tmp_path / "crawldb"
    root = new_page(site.url + "/", status=int(CrawlStatus.FETCHED), fetchTime=5,
                    metadata={"_zone_": b"local"})  # fmt: skip
    write_pages(crawldb / "current", [root])
    lists = tmp_path / "sitemaps"
    lists.mkdir()
    (lists / "list.txt").write_text(
        f"{site.url}/index.xml.gz\n{site.url}/private/p.xml.gz\n"
    )
    capsys.readouterr()
    code = main(["sitemap", str(crawldb), "--sitemapUrls", str(lists),
                 "--fromRobots", *FLAGS, *args])  # fmt: skip
    summary = capsys.readouterr().err.strip().splitlines()[-1]
    urls = sorted(page["url"] for page in read_pages(crawldb / "current"))
    return code, summary, urls


def test_beamcrawl_gzipped_sitemaps_are_read_by_default(tmp_path, site, capsys):
    code, summary, urls = _run(capsys, tmp_path, site)

    assert code == 0
    base = site.url
    # the page URL ending in .gz is a page: the default rules drop it
    assert urls == [
        f"{base}/",
        f"{base}/n.html",
        f"{base}/private/p.html",
        f"{base}/r.html",
    ]
    assert summary == (
        "SitemapProcessor: new_sitemap_entries=3, "
        "sitemap_indexes_processed=1, sitemap_seeds=2, sitemaps_from_hostname=1, "
        "sitemaps_processed=3, urls_filtered=1, urls_from_sitemaps=3"
    )
    assert "/index.xml.gz" in site.requested()


def test_beamcrawl_a_users_own_deny_rules_still_apply(tmp_path, site, capsys):
    rules = tmp_path / "regex-urlfilter.txt"
    rules.write_text("-/private/\n-/nested\\.xml\n+.\n")

    code, summary, urls = _run(
        capsys, tmp_path, site, f"-Durlfilter.regex.file={rules}"
    )

    assert code == 0
    assert urls == [f"{site.url}/", f"{site.url}/r.html"]
    assert "filtered_records=1," in summary  # /private/p.xml.gz
    assert "filtered_sitemaps_from_index=1," in summary  # /nested.xml.gz


def test_beamcrawl_failed_fetches_are_one_warning_with_the_cause(tmp_path, capsys):
    # hosts under .invalid never resolve (RFC 6761): every robots.txt fails
    crawldb = tmp_path / "crawldb"
    pages = [
        new_page(f"http://h{n}.beamcrawl.invalid/", status=int(CrawlStatus.FETCHED),
                 fetchTime=5, metadata={"_zone_": b"local"})
        for n in range(6)
    ]  # fmt: skip
    write_pages(crawldb / "current", pages)

    capsys.readouterr()
    code = main(["sitemap", str(crawldb), "--fromRobots", *FLAGS])

    assert code == 0
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == ("SitemapProcessor: failed_fetches=6, sitemaps_from_hostname=6")
    warnings = [line.split(": ", 1)[1] for line in err if " WARNING " in line]
    assert len(warnings) == 1, err
    assert warnings[0].startswith("sitemap failed_fetches: http://h")
    assert "robots.txt unreachable" in warnings[0]
    assert "gaierror: " in warnings[0]
    assert warnings[0].endswith("(further ones only counted as Sitemap/failed_fetches)")
