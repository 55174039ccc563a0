import gzip
import resource

import pytest

from crawllib.sitemaps.formats import (
    ChangeFreq,
    Kind,
    SitemapEntry,
    SitemapFormatError,
    TooLargeError,
    UrlDrop,
    base_url,
    parse_changefreq,
    parse_priority,
    parse_sitemap,
)
from tests.sitemapsite import DATA

BASE = "http://h.test"
OTHER = "http://other.test"


def _data(name: str) -> bytes:
    raw = (DATA / name).read_bytes()
    return raw.replace(b"{BASE}", BASE.encode()).replace(b"{OTHER}", OTHER.encode())


def _parse(name, url=f"{BASE}/docs/sitemap.xml", content_type="application/xml", **kw):
    return parse_sitemap(_data(name), content_type, url, **kw)


def test_nutch_urlset_fields_as_crawler_commons_reads_them():
    parsed = _parse("urlset.xml")

    assert parsed.kind is Kind.XML
    assert parsed.entries == (
        SitemapEntry(f"{BASE}/docs/a.html", 1104537600000, ChangeFreq.MONTHLY, 0.8),
        SitemapEntry(
            f"{BASE}/docs/b.html?x=1&y=2", 1103824815000, ChangeFreq.WEEKLY, 0.5
        ),
        SitemapEntry(f"{BASE}/docs/c.html", None, None, 0.5),
        SitemapEntry(f"{BASE}/docs/d.html", 1101197100000, ChangeFreq.NEVER, 0.0),
        SitemapEntry(f"{BASE}/docs/skip.gif", None, None, 0.5),
    )
    assert parsed.drops == {UrlDrop.NOT_UNDER_PATH: 2, UrlDrop.MALFORMED: 1}


def test_nutch_no_strict_keeps_urls_outside_the_sitemap_path():
    parsed = _parse("urlset.xml", strict=False)

    assert [e.url for e in parsed.entries] == [
        f"{BASE}/docs/a.html",
        f"{BASE}/docs/b.html?x=1&y=2",
        f"{BASE}/docs/c.html",
        f"{BASE}/docs/d.html",
        f"{BASE}/elsewhere.html",
        f"{OTHER}/docs/e.html",
        f"{BASE}/docs/skip.gif",
    ]
    assert parsed.entries[4].changefreq is ChangeFreq.DAILY
    assert parsed.drops == {UrlDrop.MALFORMED: 1}


def test_nutch_index_entries_are_not_checked_against_the_path():
    parsed = _parse("index.xml", url=f"{BASE}/deep/dir/index.xml")

    assert parsed.kind is Kind.INDEX
    assert [e.url for e in parsed.entries] == [
        f"{BASE}/docs/nested-index.xml",
        f"{BASE}/docs/feed.rss",
    ]
    assert parsed.drops == {}


def test_nutch_rss_items_as_sitemap_urls():
    parsed = _parse("rss.xml", content_type="application/rss+xml")

    assert parsed.kind is Kind.RSS
    assert parsed.entries == (
        SitemapEntry(f"{BASE}/docs/news/one.html", 1055217600000),
        SitemapEntry(f"{BASE}/docs/news/two.html", None),
    )


def test_nutch_atom_entries_as_sitemap_urls():
    parsed = _parse("atom.xml", content_type="application/atom+xml")

    assert parsed.kind is Kind.ATOM
    assert parsed.entries == (SitemapEntry(f"{BASE}/docs/robots.html", 1071340202250),)
    assert parsed.drops == {UrlDrop.NOT_UNDER_PATH: 1}


def test_nutch_text_sitemap_one_url_a_line():
    parsed = _parse(
        "sitemap.txt", url=f"{BASE}/docs/sitemap.txt", content_type="text/plain"
    )

    assert parsed.kind is Kind.TEXT
    assert [e.url for e in parsed.entries] == [
        f"{BASE}/docs/t1.html",
        f"{BASE}/docs/t2.html",
    ]
    assert parsed.drops == {UrlDrop.NOT_UNDER_PATH: 1, UrlDrop.MALFORMED: 1}


def test_nutch_gzipped_sitemap_is_detected_by_its_bytes():
    packed = gzip.compress(_data("urlset.xml"))

    parsed = parse_sitemap(packed, "application/octet-stream", f"{BASE}/docs/s.xml.gz")

    assert parsed == _parse("urlset.xml")


def test_beamcrawl_gunzipped_size_is_limited():
    packed = gzip.compress(b"<urlset>" + b" " * 10_000 + b"</urlset>")

    with pytest.raises(TooLargeError):
        parse_sitemap(packed, None, f"{BASE}/s.xml.gz", max_bytes=10_000)


def test_nutch_broken_xml_drops_the_whole_file():
    """SiteMapParser(strict) has allowPartial false: a SAX error loses the file."""
    with pytest.raises(SitemapFormatError, match="not well-formed"):
        _parse("broken.xml")


@pytest.mark.parametrize("name", ["billion-laughs.xml", "xxe.xml"])
def test_nutch_doctype_is_refused_before_any_entity_is_expanded(name):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    with pytest.raises(SitemapFormatError, match="DOCTYPE"):
        _parse(name)

    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kb < 50_000  # expanded, &lol9; alone is 3 GB


@pytest.mark.parametrize(
    ("body", "content_type", "message"),
    [
        (_data("html.html"), "text/html", "cannot parse a sitemap of type 'text/html'"),
        (_data("html.html"), "application/xml", "unknown XML format"),
        (b"\x00\x01binary", "image/png", "cannot parse a sitemap of type"),
        (b"\x1f\x8bnot really gzip", None, "broken gzip"),
    ],
)
def test_nutch_unknown_formats_are_unparsable(body, content_type, message):
    with pytest.raises(SitemapFormatError, match=message):
        parse_sitemap(body, content_type, f"{BASE}/sitemap.xml")


def test_beamcrawl_keeps_the_first_50000_urls_and_counts_the_rest():
    urls = "".join(f"<url><loc>{BASE}/p{i}</loc></url>" for i in range(50_003))
    body = (
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    )

    parsed = parse_sitemap(body.encode(), "text/xml", f"{BASE}/sitemap.xml")

    assert len(parsed.entries) == 50_000
    assert parsed.entries[-1].url == f"{BASE}/p49999"
    assert parsed.drops == {UrlDrop.OVER_LIMIT: 3}


def test_beamcrawl_url_limit_counts_text_lines_too():
    body = "".join(f"{BASE}/p{i}\n" for i in range(5)).encode()

    parsed = parse_sitemap(body, "text/plain", f"{BASE}/s.txt", max_urls=3)

    assert [e.url for e in parsed.entries] == [f"{BASE}/p0", f"{BASE}/p1", f"{BASE}/p2"]
    assert parsed.drops == {UrlDrop.OVER_LIMIT: 2}


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("http://h/a/b/sitemap.xml", "http://h/a/b/"),
        ("http://h/sitemap.xml", "http://h/"),
        ("http://h/dir/", "http://h/dir/"),
    ],
)
def test_nutch_base_url_is_the_sitemap_directory(url, base):
    assert base_url(url) == base


@pytest.mark.parametrize(
    ("text", "priority"),
    [(None, 0.5), ("", 0.5), ("0.3", 0.3), (" 1.0 ", 1.0), ("1.01", 0.5),
     ("-0.1", 0.5), ("NaN", 0.5), ("high", 0.5)],
)  # fmt: skip
def test_nutch_priority_defaults_to_half(text, priority):
    assert parse_priority(text) == priority


@pytest.mark.parametrize(
    ("text", "freq"),
    [("always", ChangeFreq.ALWAYS), ("HOURLY", ChangeFreq.HOURLY),
     (" daily ", ChangeFreq.DAILY), ("biweekly", ChangeFreq.WEEKLY),
     ("yearly", ChangeFreq.YEARLY), ("Never", ChangeFreq.NEVER),
     ("often", None), (None, None)],
)  # fmt: skip
def test_nutch_changefreq_matches_by_substring(text, freq):
    assert parse_changefreq(text) is freq
