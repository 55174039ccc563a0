"""A sitemap's own URL is filtered as if not gzipped; every other rule holds."""

import pytest

from crawllib.config import Properties, SitemapConfig
from crawllib.sitemaps.sitemapurls import SitemapUrlCleaner, unpacked
from crawllib.urls.cleaner import Rejection, UrlCleaner

PROPS = {"http.agent.name": "sitemaptest"}


def _config(tmp_path=None, rules=None):
    props = dict(PROPS)
    if rules is not None:
        path = tmp_path / "regex-urlfilter.txt"
        path.write_text(rules)
        props["urlfilter.regex.file"] = str(path)
    return SitemapConfig.from_properties(Properties(props)).urls


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://h/sitemap.xml.gz", "http://h/sitemap.xml"),
        ("http://h/s/SITEMAP.XML.GZ", "http://h/s/SITEMAP.XML"),
        ("http://h/sitemap.gz?page=2#x", "http://h/sitemap?page=2#x"),
        ("http://h/sitemap.xml", "http://h/sitemap.xml"),
        ("http://h/sitemap.xml?f=a.gz", "http://h/sitemap.xml?f=a.gz"),
        ("http://h/a.tgz", "http://h/a.tgz"),
        ("http://[bad/x.gz", "http://[bad/x.gz"),
    ],
)
def test_unpacked_takes_gz_off_the_path_only(url, expected):
    assert unpacked(url) == expected


def test_nutch_default_rules_drop_a_gzipped_sitemap_as_a_page_url():
    # regex-urlfilter.txt: -(?i)\.(?:gif|...|gz|...)$
    pages = UrlCleaner(_config(), "default")
    assert pages.clean("http://h.com/sitemap.xml.gz") is Rejection.FILTERED


def test_beamcrawl_default_rules_keep_a_gzipped_sitemap():
    sitemaps = SitemapUrlCleaner(_config())
    for url in ("http://h.com/sitemap.xml.gz", "http://h.com/sitemap.txt.GZ"):
        assert sitemaps.clean(url) == url
    # normalized as Nutch does, and the real URL is what is kept
    assert sitemaps.clean("HTTP://H.com:80/a/../sitemap.xml.gz") == (
        "http://h.com/sitemap.xml.gz"
    )


def test_beamcrawl_every_other_rule_still_drops_a_sitemap(tmp_path):
    rules = "-^http://denied\\.com/\n-/private/\n-\\.gif$\n+.\n"
    sitemaps = SitemapUrlCleaner(_config(tmp_path, rules))
    assert sitemaps.clean("http://denied.com/sitemap.xml.gz") is Rejection.FILTERED
    assert sitemaps.clean("http://h.com/private/s.xml.gz") is Rejection.FILTERED
    assert sitemaps.clean("http://h.com/s.gif") is Rejection.FILTERED
    assert sitemaps.clean("http://h.com/s.gif.gz") is Rejection.FILTERED
    assert sitemaps.clean("http://h.com/s.xml.gz") == "http://h.com/s.xml.gz"
    assert sitemaps.clean("ftp//nothing") is Rejection.MALFORMED


def test_beamcrawl_no_filter_and_no_normalize_are_still_obeyed():
    config = _config()
    assert SitemapUrlCleaner(config, filter_urls=False).clean("http://h.com/x.gif") == (
        "http://h.com/x.gif"
    )
    assert SitemapUrlCleaner(config, normalize=False).clean(
        "HTTP://h.com/s.xml.gz"
    ) == ("HTTP://h.com/s.xml.gz")
