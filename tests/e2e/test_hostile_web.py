"""A hostile public site tries to lead the crawler inside; the crawler refuses.

Tried as an attacker would, with default settings but a permissive URL
filter (so that only the address policy stands in the way): the public
site (127.0.0.2, declared public with ``http.address.public``) links,
redirects, meta-refreshes and points its robots.txt and sitemaps at an
internal server (127.0.0.1) in every spelling of its address, at the cloud
metadata address and at local files. The internal server must see no
request at all; each refused URL is recorded ``ADDRESS_DENIED``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from crawllib.status import CrawlStatus, ProtocolStatus
from pipelines.cli import main
from tests.avrofiles import read_pages
from tests.sitemapsite import Route, SitemapSite
from tests.sites import Site, start_site

PUBLIC_HOST = "127.0.0.2"
PERMISSIVE = [
    "-Dhttp.agent.name=hostiletest",
    "-Dfetcher.server.delay=0",
    f"-Dhttp.address.public={PUBLIC_HOST}",
    "-Durlfilter.regex.rules=+.",  # let every URL through: only zones refuse
    "-Dplugin.includes=protocol-(http|file)|urlfilter-regex|parse-html"
    "|scoring-opic|urlnormalizer-(pass|regex|basic)",
]


@pytest.fixture
def inside() -> Iterator[Site]:
    site = start_site("127.0.0.1", robots="User-agent: *\nDisallow: /\n")
    yield site
    site.stop()


def _spellings(port: int) -> dict[str, str]:
    """The internal server's admin URLs, each under another spelling of 127.0.0.1."""
    return {
        "plain": f"http://127.0.0.1:{port}/admin/plain",
        "decimal": f"http://2130706433:{port}/admin/decimal",
        "hex": f"http://0x7f000001:{port}/admin/hex",
        "octal": f"http://0177.0.0.1:{port}/admin/octal",
        "short": f"http://127.1:{port}/admin/short",
        "mapped": f"http://[::ffff:127.0.0.1]:{port}/admin/mapped",
    }


@pytest.fixture
def public(inside: Site) -> Iterator[SitemapSite]:
    site = SitemapSite(PUBLIC_HOST)
    internal = f"http://127.0.0.1:{inside.port}"
    links = [
        *_spellings(inside.port).values(),
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "file:/etc/passwd",
        "/redirect",
        "/refresh",
    ]
    anchors = "".join(f'<a href="{link}">x</a>' for link in links)
    site.routes["/"] = Route(
        f"<html><body>{anchors}</body></html>".encode(), "text/html"
    )
    site.routes["/redirect"] = Route(
        b"", "text/html", 302, (("Location", f"{internal}/admin/delete-everything"),)
    )
    refresh = f'<meta http-equiv="refresh" content="0; url={internal}/admin/refreshed">'
    site.routes["/refresh"] = Route(refresh.encode(), "text/html")
    site.routes["/robots.txt"] = Route(
        b"", "text/plain", 302, (("Location", f"{internal}/robots.txt"),)
    )
    yield site
    site.stop()


def _crawl(tmp_path: Path, seed: str, *extra: str) -> Path:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(seed + "\n")
    crawl_dir = tmp_path / "crawl"
    assert (
        main(["crawl", "--seeds", str(seeds), str(crawl_dir), "3", *PERMISSIVE, *extra])
        == 0
    )
    return crawl_dir


def _statuses(crawl_dir: Path) -> dict[str, tuple[int, int]]:
    return {
        page["url"]: (
            page["status"],
            page["protocolStatus"]["code"] if page["protocolStatus"] else 0,
        )
        for page in read_pages(crawl_dir / "crawldb" / "current")
    }


REFUSED = (int(CrawlStatus.GONE), int(ProtocolStatus.ADDRESS_DENIED))


@pytest.mark.parametrize("redirects", ["0", "3"], ids=["recorded", "followed"])
def test_beamcrawl_a_public_site_cannot_lead_the_crawl_inside(
    tmp_path, inside, public, redirects, capsys
):
    crawl_dir = _crawl(tmp_path, public.url + "/", f"-Dhttp.redirect.max={redirects}")
    err = capsys.readouterr().err

    assert inside.requests_for("/") == []  # not one request reached it
    statuses = _statuses(crawl_dir)
    internal = f"http://127.0.0.1:{inside.port}"
    refused = [
        f"{internal}/admin/plain",
        f"{internal}/admin/decimal",  # every spelling normalized to 127.0.0.1
        f"{internal}/admin/hex",
        f"{internal}/admin/octal",
        f"{internal}/admin/short",
        f"http://[::ffff:7f00:1]:{inside.port}/admin/mapped",
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "file:/etc/passwd",
        f"{internal}/admin/delete-everything",
        f"{internal}/admin/refreshed",
    ]
    assert {url: statuses.get(url) for url in refused} == dict.fromkeys(
        refused, REFUSED
    )
    # robots.txt led inside too: refused, so the public pages were fetched
    assert statuses[public.url + "/"][1] == ProtocolStatus.SUCCESS
    for url in refused:
        assert f"refused {url}: " in err
    assert (
        "127.0.0.1 is a loopback address and the URL was found on a public one" in err
    )
    assert "169.254.169.254 is never fetched" in err
    assert "file: URL found on a public page" in err
    fetched = [
        page
        for segment in (crawl_dir / "segments").iterdir()
        for page in read_pages(segment / "fetch")
    ]
    passwd = [p for p in fetched if p["url"] == "file:/etc/passwd"]
    assert passwd
    assert all(page["content"] is None for page in passwd)


def test_beamcrawl_an_intranet_crawl_works_with_no_setting(tmp_path):
    intranet = SitemapSite("127.0.0.3")  # loopback, not declared public
    intranet.routes["/"] = Route(b'<a href="/admin/page">admin</a>', "text/html")
    intranet.routes["/admin/page"] = Route(b"<p>inside</p>", "text/html")
    try:
        crawl_dir = _crawl(tmp_path, intranet.url + "/")
    finally:
        intranet.stop()

    statuses = _statuses(crawl_dir)
    fetched = (int(CrawlStatus.FETCHED), int(ProtocolStatus.SUCCESS))
    assert statuses[intranet.url + "/"] == fetched
    assert statuses[intranet.url + "/admin/page"] == fetched


def test_beamcrawl_parsechecker_follows_no_redirect_inside(inside, public, capsys):
    code = main(
        ["parsechecker", public.url + "/redirect", "--followRedirects", *PERMISSIVE]
    )
    out = capsys.readouterr().out

    assert code == 1
    assert "Fetch failed with protocol status: ADDRESS_DENIED" in out
    assert "is a loopback address and the URL was found on a public one" in out
    assert inside.requests_for("/") == []


def test_beamcrawl_a_public_sitemap_cannot_list_inside(
    tmp_path, inside, public, capsys
):
    internal = f"http://127.0.0.1:{inside.port}"
    public.routes["/sitemap-index.xml"] = Route(
        (
            "<sitemapindex>"
            "<sitemap><loc>file:///etc/passwd</loc></sitemap>"
            f"<sitemap><loc>{internal}/sitemap.xml</loc></sitemap>"
            f"<sitemap><loc>{public.url}/sitemap.xml</loc></sitemap>"
            "</sitemapindex>"
        ).encode()
    )
    public.routes["/sitemap.xml"] = Route(
        (
            "<urlset>"
            f"<url><loc>{internal}/admin/listed</loc></url>"
            f"<url><loc>{public.url}/listed</loc></url>"
            "</urlset>"
        ).encode()
    )
    listing = tmp_path / "sitemaps"
    listing.mkdir()
    (listing / "urls.txt").write_text(public.url + "/sitemap-index.xml\n")
    crawldb = tmp_path / "crawldb"

    # --noStrict: a sitemap may list URLs off its own path (and host)
    sitemap = ["sitemap", str(crawldb), "--sitemapUrls", str(listing), "--noStrict"]
    code = main([*sitemap, *PERMISSIVE])
    err = capsys.readouterr().err

    assert code == 0
    assert inside.requests_for("/") == []
    assert "sitemaps_address_denied=2" in err  # file:///etc/passwd and inside
    pages = {page["url"]: page for page in read_pages(crawldb / "current")}
    # the URLs a public sitemap lists are public: the inside one is refused
    # when fetched, never fetched from inside
    assert pages[f"{internal}/admin/listed"]["metadata"]["_zone_"] == b"public"
    assert pages[f"{public.url}/listed"]["metadata"]["_zone_"] == b"public"
