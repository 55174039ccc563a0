"""The walker against real servers on 127.0.0.x (tests/sitemapsite.py)."""

import itertools
from collections import Counter

import pytest

from crawllib.config import Properties, SitemapConfig
from crawllib.fetch.protocol.registry import Protocols
from crawllib.fetch.protocol.robots import RobotsCache
from crawllib.sitemaps import Found, SitemapWalker
from tests.sitemapsite import Route, SitemapSite

PROPS = {"http.agent.name": "sitemaptest", "fetcher.server.delay": "0"}


@pytest.fixture(scope="module")
def main():
    site = SitemapSite("127.0.0.1")
    yield site
    site.stop()


@pytest.fixture(scope="module")
def other():
    site = SitemapSite("127.0.0.2")
    yield site
    site.stop()


def _walk(start, *, root=False, **props):
    config = SitemapConfig.from_properties(Properties({**PROPS, **props}))
    protocols = Protocols(config.http)
    walker = SitemapWalker(
        config, protocols.for_url, RobotsCache(config.robots, protocols.for_url)
    )
    outcomes = list(walker.from_root(start) if root else walker.walk(start))
    protocols.close()
    found = [o.url for o in outcomes if isinstance(o, Found)]
    counts: Counter[str] = Counter()
    for o in outcomes:
        if not isinstance(o, Found):
            counts[o.name] += o.count
    return found, dict(counts)


def test_nutch_index_to_nested_index_to_urlset_and_feed(main):
    main.serve("/docs/index.xml", "index.xml")
    main.routes["/docs/nested-index.xml"] = Route(
        b"<sitemapindex><sitemap><loc>" + main.url.encode() + b"/docs/sitemap.xml"
        b"</loc></sitemap></sitemapindex>"
    )
    main.serve("/docs/sitemap.xml", "urlset.xml")
    main.serve("/docs/feed.rss", "rss.xml", "application/rss+xml")

    found, counts = _walk(main.url + "/docs/index.xml")

    docs = main.url + "/docs/"
    assert found == [docs + "a.html", docs + "c.html", docs + "d.html",
                     docs + "news/one.html", docs + "news/two.html"]  # fmt: skip
    assert counts == {
        "sitemap_indexes_processed": 2,
        "sitemaps_processed": 2,
        "urls_from_sitemaps": 5,
        "urls_filtered": 2,  # b.html?x=1&y=2 and skip.gif: regex-urlfilter.txt
        "urls_malformed": 1,
        "urls_not_under_sitemap_path": 2,
    }


def test_beamcrawl_indexes_nested_past_the_depth_limit_are_not_fetched(main):
    for level in range(3):
        child = f"{main.url}/chain/{level + 1}.xml".encode()
        main.routes[f"/chain/{level}.xml"] = Route(
            b"<sitemapindex><sitemap><loc>" + child + b"</loc></sitemap></sitemapindex>"
        )
    main.routes["/chain/3.xml"] = Route(
        f"{main.url}/chain/x.html".encode(), "text/plain"
    )

    assert _walk(main.url + "/chain/0.xml") == (
        [main.url + "/chain/x.html"],
        {
            "sitemap_indexes_processed": 3,
            "sitemaps_processed": 1,
            "urls_from_sitemaps": 1,
        },
    )
    assert _walk(main.url + "/chain/0.xml", **{"sitemap.index.max.depth": "2"}) == (
        [],
        {"sitemap_indexes_processed": 3, "sitemaps_too_deep": 1},
    )


@pytest.mark.parametrize("encoded", [True, False], ids=["content-encoding", "gz-file"])
def test_nutch_gzipped_sitemaps(main, encoded):
    path = f"/gz/{encoded}/sitemap.xml" + ("" if encoded else ".gz")
    body = main.url.encode() + b"/gz/" + str(encoded).encode() + b"/page.html\n"
    main.serve_gzip(path, b"<urlset><url><loc>" + body + b"</loc></url></urlset>",
                    encoded=encoded)  # fmt: skip

    found, counts = _walk(main.url + path)

    assert found == [f"{main.url}/gz/{encoded}/page.html"]
    assert counts == {"sitemaps_processed": 1, "urls_from_sitemaps": 1}


@pytest.mark.parametrize(
    "name",
    ["broken.xml", "billion-laughs.xml", "xxe.xml", "html.html"],
)
def test_nutch_unparsable_sitemaps_give_nothing(main, name):
    main.serve("/bad/" + name, name)

    assert _walk(main.url + "/bad/" + name) == ([], {"sitemaps_unparsable": 1})


def test_nutch_size_limit_on_plain_and_gzipped_sitemaps(main):
    big = b"<urlset>" + b" " * 5000 + b"</urlset>"
    main.routes["/big.xml"] = Route(big)
    main.serve_gzip("/big.xml.gz", big, encoded=False)
    main.serve_gzip("/big-encoded.xml", big, encoded=True)
    limit = {"sitemap.size.max": "4096"}

    for path in ("/big.xml", "/big.xml.gz", "/big-encoded.xml"):
        assert _walk(main.url + path, **limit) == ([], {"sitemaps_too_large": 1}), path
    assert _walk(main.url + "/big.xml") == ([], {"sitemaps_processed": 1})


def test_nutch_redirects_followed_up_to_sitemap_redir_max(main):
    main.routes["/moved/0.xml"] = Route(
        status=301, headers=(("Location", "/moved/1.xml"),)
    )
    main.routes["/moved/1.xml"] = Route(
        status=302, headers=(("Location", "/moved/s.txt"),)
    )
    main.routes["/moved/s.txt"] = Route(
        f"{main.url}/moved/p.html".encode(), "text/plain"
    )

    assert _walk(main.url + "/moved/0.xml") == (
        [main.url + "/moved/p.html"],
        {"sitemaps_processed": 1, "urls_from_sitemaps": 1},
    )
    assert _walk(main.url + "/moved/0.xml", **{"sitemap.redir.max": "1"}) == (
        [],
        {"failed_fetches": 1},
    )
    assert _walk(main.url + "/nothing-here.xml") == ([], {"failed_fetches": 1})


def test_nutch_sitemaps_from_robots_txt_and_robots_rules_obeyed(other, main):
    other.routes["/robots.txt"] = Route(
        (
            "User-agent: *\nDisallow: /private/\n"
            f"Sitemap: {other.url}/public/sitemap.txt\n"
            f"Sitemap: {other.url}/private/sitemap.txt\n"
            f"Sitemap: {other.url}/public/skip.gif\n"
        ).encode(),
        "text/plain",
    )
    other.routes["/public/sitemap.txt"] = Route(
        f"{other.url}/public/a.html\n".encode(), "text/plain"
    )
    other.routes["/private/sitemap.txt"] = Route(
        f"{other.url}/private/a.html\n".encode(), "text/plain"
    )

    found, counts = _walk(other.url + "/", root=True)

    assert found == [other.url + "/public/a.html"]
    assert counts == {
        "sitemaps_from_hostname": 3,
        "filtered_sitemaps_from_hostname": 1,
        "sitemaps_robots_denied": 1,
        "sitemaps_processed": 1,
        "urls_from_sitemaps": 1,
    }
    assert "/private/sitemap.txt" not in other.requested()


def test_nutch_host_without_sitemap_lines_gets_sitemap_xml_tried(main):
    main.serve("/sitemap.xml", "sitemap.txt", "text/plain")  # {BASE}/docs/ under /

    found, counts = _walk(main.url + "/", root=True)

    assert found == [
        main.url + "/docs/t1.html",
        main.url + "/docs/t2.html",
        main.url + "/t3.html",
    ]
    assert counts["sitemaps_from_hostname"] == 1
    off = {"sitemap.url.default.sitemap.xml": "false"}
    assert _walk(main.url + "/", root=True, **off) == ([], {})


def test_beamcrawl_requests_to_one_host_are_spaced_by_the_server_delay():
    site = SitemapSite("127.0.0.3")
    try:
        for name in ("a", "b"):
            site.routes[f"/{name}.txt"] = Route(
                f"{site.url}/{name}.html".encode(), "text/plain"
            )
        site.routes["/index.xml"] = Route(
            f"<sitemapindex><sitemap><loc>{site.url}/a.txt</loc></sitemap>"
            f"<sitemap><loc>{site.url}/b.txt</loc></sitemap></sitemapindex>".encode()
        )

        found, _ = _walk(site.url + "/index.xml", **{"fetcher.server.delay": "0.3"})

        assert found == [site.url + "/a.html", site.url + "/b.html"]
        sitemap_hits = [(p, t) for p, t in site.log if p != "/robots.txt"]
        assert [p for p, _ in sitemap_hits] == ["/index.xml", "/a.txt", "/b.txt"]
        gaps = [b[1] - a[1] for a, b in itertools.pairwise(sitemap_hits)]
        assert min(gaps) >= 0.3  # the server's view: never sooner than the delay
    finally:
        site.stop()
