"""crawler-commons' sitemap test vectors, run against beamcrawl's parser.

The facts of crawler-commons' JUnit tests ``SiteMapParserTest`` and its
siblings (``SiteMapParserSAXTest``, ``SiteMapParserExtensionTest``,
``SiteMapParserLimitsTest``, ``SiteMapURLTest``, ``SiteMapIndexTest``,
``SiteMapCrossSubmitValidatorTest``, ``GoogleNewsSiteMapParserTest``,
``AbstractSiteMapTest``; main branch): each file, Content-Type and sitemap
URL with the URLs, ``lastmod``, ``changefreq`` and ``priority`` the Java test
expects. Files: ``tests/data/crawler-commons``.

beamcrawl keeps a listed URL with its ``lastmod``, ``changefreq`` and
``priority``; the image, video, news, link and PageMap metadata of sitemap
extensions is not kept, so for those vectors only the URLs are checked. A
test or case id with ``beamcrawl``/``departure`` asserts beamcrawl's own
answer where it departs on purpose; ``na`` ones cover crawler-commons
options beamcrawl does not have (strict namespaces, partial parsing, URL
filters in the parser) and assert what beamcrawl does instead.
"""

from __future__ import annotations

import gzip
import inspect
import resource
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from crawllib.sitemaps.dates import parse_rfc822_ms, parse_w3c_ms
from crawllib.sitemaps.formats import (
    DEFAULT_PRIORITY,
    ChangeFreq,
    Kind,
    ParsedSitemap,
    SitemapEntry,
    SitemapFormatError,
    TooLargeError,
    UrlDrop,
    base_url,
    parse_priority,
    parse_sitemap,
)

DATA = Path(__file__).parents[2] / "data" / "crawler-commons"
EX = "http://www.example.com"
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
URLSET = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
INDEX = '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'


def _ms(text: str) -> int:
    """Epoch ms of an ISO 8601 date-time with a zone."""
    moment = datetime.fromisoformat(text)
    return round(moment.timestamp() * 1000)


def _read(name: str) -> bytes:
    return (DATA / name).read_bytes()


def _urls(parsed: ParsedSitemap) -> list[str]:
    return [entry.url for entry in parsed.entries]


# the sitemap of SiteMapParserTest.getXMLSitemapAsBytes()
SITEMAP_URLS = [
    (f"{EX}/", "2005-01-01", "monthly", "0.8"),
    (f"{EX}/catalog?desc=vacation_hawaii&amp;item=12", None, "weekly", None),
    (
        f"{EX}/catalog?desc=vacation_new_zealand&amp;item=73",
        "2004-12-23",
        "weekly",
        None,
    ),
    (
        f"{EX}/catalog?desc=vacation_newfoundland&amp;item=74",
        "2004-12-23T18:00:15&#43;00:00",
        None,
        "0.3",
    ),
    (f"{EX}/catalog?desc=vacation_usa&amp;item=83", "2004-11-23", None, None),
]
SITEMAP_ENTRIES = (
    SitemapEntry(f"{EX}/", _ms("2005-01-01T00:00+00:00"), ChangeFreq.MONTHLY, 0.8),
    SitemapEntry(f"{EX}/catalog?desc=vacation_hawaii&item=12", None, ChangeFreq.WEEKLY),
    SitemapEntry(
        f"{EX}/catalog?desc=vacation_new_zealand&item=73",
        _ms("2004-12-23T00:00+00:00"),
        ChangeFreq.WEEKLY,
    ),
    SitemapEntry(
        f"{EX}/catalog?desc=vacation_newfoundland&item=74",
        _ms("2004-12-23T18:00:15+00:00"),
        None,
        0.3,
    ),
    SitemapEntry(
        f"{EX}/catalog?desc=vacation_usa&item=83", _ms("2004-11-23T00:00+00:00")
    ),
)


def _xml_sitemap(prefix: str = "") -> bytes:
    lines = [prefix, XML_DECLARATION, URLSET, "\n"]
    for loc, lastmod, changefreq, priority in SITEMAP_URLS:
        lines.append(f" <url>\n  <loc>{loc}</loc>\n")
        for name, value in (
            ("lastmod", lastmod),
            ("changefreq", changefreq),
            ("priority", priority),
        ):
            if value is not None:
                lines.append(f"  <{name}>{value}</{name}>\n")
        lines.append(" </url>\n")
    lines.append("</urlset>")
    return "".join(lines).encode()


TEXT_SITEMAP = (
    b"http://www.example.com/catalog?item=1\nhttp://www.example.com/catalog?item=11"
)


# --- SiteMapParserTest -----------------------------------------------------------


def test_nutch_site_map_parser_sitemap_index():
    """testSitemapIndex: locs and lastmods, with entities and CDATA."""
    body = (
        f"{XML_DECLARATION}{INDEX}\n <sitemap>\n"
        f"  <loc>{EX}/sitemap1.xml.gz</loc>\n"
        "  <lastmod><![CDATA[2004-10-01T18:23:17+00:00]]></lastmod>\n </sitemap>\n"
        f"<sitemap>\n  <loc>{EX}/sitemap2.xml.gz</loc>\n"
        "  <lastmod>2005-01-01</lastmod>\n"
        f" </sitemap>\n<sitemap>\n  <loc>{EX}/dynsitemap?date=now&amp;all=true</loc>\n"
        "  <lastmod>2004-10-01T18:23:17&#43;00:00</lastmod>\n </sitemap>\n<sitemap>\n"
        f"  <loc>{EX}/dynsitemap<![CDATA[?date=lastyear&all=false]]></loc>\n"
        " </sitemap>\n</sitemapindex>"
    )
    parsed = parse_sitemap(body.encode(), "text/xml", f"{EX}/sitemapindex.xml")
    assert parsed.kind is Kind.INDEX
    assert parsed.entries == (
        SitemapEntry(f"{EX}/sitemap1.xml.gz", _ms("2004-10-01T18:23:17+00:00")),
        SitemapEntry(f"{EX}/sitemap2.xml.gz", _ms("2005-01-01T00:00+00:00")),
        SitemapEntry(
            f"{EX}/dynsitemap?date=now&all=true", _ms("2004-10-01T18:23:17+00:00")
        ),
        SitemapEntry(f"{EX}/dynsitemap?date=lastyear&all=false"),
    )


XXE = (
    f'{XML_DECLARATION}<!DOCTYPE urlset [\n  <!ENTITY test SYSTEM "file:///etc/passwd">\n'
    f"]>\n{URLSET}\n  <url>\n    <loc>{EX}/visit-here</loc>\n"
    "    <lastmod>2019-06-19</lastmod>\n   </url>\n  <url>\n    <loc>&test;</loc>\n"
    "    <lastmod>2019-06-19</lastmod>\n  </url>\n</urlset>"
)


def test_nutch_site_map_parser_sitemap_xxe():
    """testSitemapXXE: a DOCTYPE makes the file unknown."""
    with pytest.raises(SitemapFormatError, match="DOCTYPE"):
        parse_sitemap(XXE.encode(), "text/xml", f"{EX}/sitemap.xxe.xml")


def test_beamcrawl_doctype_is_never_allowed():
    """testSitemapXXEWithDocTypeAllowed (na): no setAllowDocTypeDefinitions here.

    crawler-commons may be told to read DTDs (and then ignores the external
    entity); beamcrawl refuses every DTD, so no entity is ever expanded.
    """
    with pytest.raises(SitemapFormatError, match="DOCTYPE"):
        parse_sitemap(XXE.encode(), "text/xml", f"{EX}/sitemap.xxe.xml", strict=False)


def test_nutch_site_map_parser_sitemap_xinclude_disabled():
    """testSitemapXIncludeDisabled: an xi:include is no loc."""
    body = (
        f'{XML_DECLARATION}<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"\n'
        '        xmlns:xi="http://www.w3.org/2001/XInclude">  <url>\n'
        f"    <loc>{EX}/visit-here</loc>\n"
        "    <lastmod>2019-06-19</lastmod>\n   </url>\n"
        '  <url>\n    <loc><xi:include href="file:///etc/passwd" parse="text"/></loc>\n'
        "    <lastmod>2019-06-19</lastmod>\n  </url>\n</urlset>"
    )
    parsed = parse_sitemap(body.encode(), "text/xml", f"{EX}/sitemap.xinclude.xml")
    assert (parsed.kind, _urls(parsed)) == (Kind.XML, [f"{EX}/visit-here"])


@pytest.mark.parametrize("name", ["sitemap.ns.xml", "sitemap.badns.xml"])
def test_nutch_site_map_parser_sitemap_with_namespace(name):
    """testSitemapWithNamespace, testSitemapWithWrongNamespace (lenient half).

    beamcrawl reads elements by local name whatever their namespace, as
    crawler-commons does without ``setStrictNamespace(true)`` (Nutch's way).
    """
    parsed = parse_sitemap(_read(f"sitemaps/{name}"), None, f"{EX}/{name}")
    assert parsed.kind is Kind.XML
    assert _urls(parsed) == [f"{EX}/1", f"{EX}/2"]
    assert parsed.entries[0].changefreq is ChangeFreq.DAILY


def test_beamcrawl_no_strict_namespace_mode():
    """testSitemapWithWrongNamespace (na): its strict half throws "not accepted".

    beamcrawl has no strict-namespace option; a sitemap in Google's old
    namespace is read like any other.
    """
    parsed = parse_sitemap(_read("sitemaps/sitemap.badns.xml"), None, f"{EX}/s.xml")
    assert len(parsed.entries) == 2


@pytest.mark.parametrize(
    ("content_type", "url"),
    [
        pytest.param("text/plain", f"{EX}/sitemap.txt", id="testSitemapTXT"),
        pytest.param("text/plain", f"{EX}/sitemap.xml", id="testSitemapTXTWithXMLExt"),
        pytest.param(
            "application/bogus",
            f"{EX}/sitemap.xml",
            id="testSitemapTXTWithWrongMimeType",
        ),
    ],
)
def test_nutch_site_map_parser_text(content_type, url):
    parsed = parse_sitemap(TEXT_SITEMAP, content_type, url)
    assert parsed.kind is Kind.TEXT
    assert _urls(parsed) == [f"{EX}/catalog?item=1", f"{EX}/catalog?item=11"]


def test_beamcrawl_text_urls_are_not_normalized_by_the_parser():
    """testSitemapTXTfilterUrls (na): crawler-commons' parser takes a URL filter.

    beamcrawl's parser has none: the sitemap job normalizes and filters what
    it lists (Nutch's ``filterNormalize``); a URL without scheme is dropped
    as malformed and a fragment is left for the normalizer.
    """
    body = (
        b"www.example.com/catalog?item=1\nhttp://www.example.com/catalog?item=11#anchor"
    )
    parsed = parse_sitemap(body, "text/plain", f"{EX}/sitemap.txt")
    assert _urls(parsed) == [f"{EX}/catalog?item=11#anchor"]
    assert parsed.drops == {UrlDrop.MALFORMED: 1}


XML_CONTENT_TYPES = [
    "text/xml",
    "application/x-xml",
    "application/xml",
    "application/atom+xml",
    "application/rss+xml",
]


@pytest.mark.parametrize("content_type", XML_CONTENT_TYPES)
def test_nutch_site_map_parser_sitemap_xml(content_type):
    """testSitemapXML, testSitemapXMLMediaTypes: the five URLs and their fields."""
    parsed = parse_sitemap(_xml_sitemap(), content_type, f"{EX}/sitemap.nonXmlExt")
    assert parsed.kind is Kind.XML
    assert parsed.entries == SITEMAP_ENTRIES


def test_nutch_site_map_parser_sitemap_xml_leading_white_space():
    """testSitemapXMLleadingWhiteSpace: a byte order mark and white space first."""
    body = _xml_sitemap("\ufeff\n \t\r\n")
    parsed = parse_sitemap(body, "text/xml", f"{EX}/sitemap.xml")
    assert (parsed.kind, parsed.entries) == (Kind.XML, SITEMAP_ENTRIES)


def test_beamcrawl_xml_urls_are_not_normalized_by_the_parser():
    """testSitemapXMLfilterUrls (na): no URL filter in the parser (see text)."""
    body = _xml_sitemap().replace(
        b"<loc>http://www.example.com/</loc>", b"<loc>www.example.com/</loc>"
    )
    parsed = parse_sitemap(body, "text/xml", f"{EX}/sitemap.xml")
    assert _urls(parsed) == [entry.url for entry in SITEMAP_ENTRIES[1:]]
    assert parsed.drops == {UrlDrop.MALFORMED: 1}


def test_nutch_site_map_parser_broken_xml():
    """testSitemapParserBrokenXml: badly formed XML can't be read."""
    body = (
        f"{XML_DECLARATION}{URLSET}"
        "<url><!-- This file is not a valid XML file --></url>"
        "<url><loc> http://cs.harding.edu/fmccown/sitemaps/something.html</loc>"
        "</url><!-- missing opening url tag --></url></urlset>"
    )
    with pytest.raises(SitemapFormatError, match="not well-formed"):
        parse_sitemap(body.encode(), "text/xml", f"{EX}/sitemapindex.xml")


def test_nutch_site_map_parser_missing_loc_sitemap_index_file():
    """testMissingLocSitemapIndexFile: the URL as the text of <sitemap>."""
    parsed = parse_sitemap(
        _read("sitemaps/sitemap.index.xml"), None, f"{EX}/sitemap.index.xml"
    )
    assert parsed.kind is Kind.INDEX
    assert len(parsed.entries) == 15
    assert "https://example.com/sitemap.jss?portalCode=10260&lang=en" in _urls(parsed)


def test_nutch_site_map_parser_unclosed_sitemap_index_file():
    """testUnclosedSitemapIndexFile: several <loc> in one <sitemap>."""
    body = (
        '<?xml version="1.0" encoding="UTF-8"?><sitemapindex> <sitemap>'
        "  <loc>https://www.example.org/sitemap1.xml</loc>"
        "  <loc>https://www.example.org/sitemap2.xml</loc> </sitemap></sitemapindex>"
    )
    parsed = parse_sitemap(body.encode(), None, f"{EX}/sitemapindex.xml")
    assert _urls(parsed) == [
        "https://www.example.org/sitemap1.xml",
        "https://www.example.org/sitemap2.xml",
    ]
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex>\n <sitemap>\n'
        "  <loc>https://www.example.org/sitemap1.xml</loc>\n"
        "  <lastmod>2004-10-01T18:23:17+00:00</lastmod>\n"
        "  <loc>https://www.example.org/sitemap2.xml</loc>\n"
        "  <loc>https://www.example.org/sitemap3.xml</loc>\n"
        "  <lastmod>2005-11-02T19:24:18+00:00</lastmod>\n </sitemap>\n</sitemapindex>"
    )
    parsed = parse_sitemap(body.encode(), None, f"{EX}/sitemapindex.xml")
    assert parsed.entries == (
        SitemapEntry(
            "https://www.example.org/sitemap1.xml", _ms("2004-10-01T18:23:17+00:00")
        ),
        SitemapEntry("https://www.example.org/sitemap2.xml"),
        SitemapEntry(
            "https://www.example.org/sitemap3.xml", _ms("2005-11-02T19:24:18+00:00")
        ),
    )


def test_nutch_site_map_parser_strip_unicode_white_space():
    """testStripUnicodeWhiteSpace: no-break and en quad spaces around a loc."""
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex>\n <sitemap>\n  <loc>\n'
        "   <![CDATA[ https://www.example.com/sitemap1.xml ]]>\n  </loc>\n </sitemap>\n"
        " <sitemap>\n  <loc>\n"
        "   <![CDATA[\u00a0https://www.example.com/sitemap2.xml ]]>"
        " \u2000\n  </loc>\n </sitemap>\n</sitemapindex>"
    )
    parsed = parse_sitemap(
        body.encode(), None, "https://www.example.com/sitemapindex.xml"
    )
    assert _urls(parsed) == [
        "https://www.example.com/sitemap1.xml",
        "https://www.example.com/sitemap2.xml",
    ]


GZ_CONTENT_TYPES = [
    "application/gzip",
    "application/x-gzip",
    "application/x-gunzip",
    "application/gzipped",
    "application/gzip-compressed",
    "gzip/document",
]


@pytest.mark.parametrize("content_type", GZ_CONTENT_TYPES)
def test_nutch_site_map_parser_sitemap_gz(content_type):
    """testSitemapGZ, testSitemapGZMediaTypes: gzipped XML."""
    parsed = parse_sitemap(
        _read("sitemaps/xmlSitemap.gz"), content_type, f"{EX}/sitemap"
    )
    assert (parsed.kind, len(parsed.entries)) == (Kind.XML, 5)


def test_nutch_site_map_parser_sitemap_text_gz():
    """testSitemapTextGZ: gzipped text."""
    parsed = parse_sitemap(
        _read("sitemaps/sitemap.txt.gz"), "application/gzip", f"{EX}/sitemap.txt.gz"
    )
    assert (parsed.kind, len(parsed.entries)) == (Kind.TEXT, 5)


def test_nutch_site_map_parser_sitemap_with_invalid_content():
    """testSitemapWithInvalidContent: octet-stream that is no sitemap."""
    with pytest.raises(SitemapFormatError, match="cannot parse a sitemap"):
        parse_sitemap(
            b"this is a bogus sitemap", "application/octet-stream", f"{EX}/sitemap"
        )


def test_nutch_site_map_parser_lenient_parser():
    """testLenientParser: a URL outside the sitemap's path, strict or not."""
    body = f"{XML_DECLARATION}{URLSET}<url><loc>{EX}/</loc></url></urlset>".encode()
    url = f"{EX}/subsection/sitemap.xml"
    assert parse_sitemap(body, "text/xml", url).entries == ()
    assert _urls(parse_sitemap(body, "text/xml", url, strict=False)) == [f"{EX}/"]


def test_nutch_site_map_parser_atom_format():
    """testAtomFormat: the first link without rel, <updated> as lastmod."""
    parsed = parse_sitemap(
        _read("sitemaps/atom.xml"), None, "http://example.org/atom.xml"
    )
    assert parsed.kind is Kind.ATOM
    assert parsed.entries == (
        SitemapEntry(
            "http://example.org/2003/12/13/atom03", _ms("2003-12-13T18:30:02+00:00")
        ),
    )


def test_nutch_site_map_parser_rss_format():
    """testRSSFormat: links, a guid instead, entities, CDATA; a "/" in the query."""
    parsed = parse_sitemap(
        _read("rss/feed.rss"), None, "https://www.example.com/index.php?feed/rss"
    )
    assert parsed.kind is Kind.RSS
    assert parsed.entries == (
        SitemapEntry(
            "https://www.example.com/blog/post/1", _ms("2009-09-06T16:20:00+00:00")
        ),
        SitemapEntry("https://www.example.com/guid.html"),
        SitemapEntry("https://www.example.com/foo?q=a&l=en"),
        SitemapEntry("https://www.example.com/foo?q=a&l=fr"),
    )


RSS10 = (
    '<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax'
    '-ns#"  xmlns="http://purl.org/rss/1.0/"><channel rdf:about="http://www.xml.com/xml'
    f'/news.rss"><title>XML.com</title><link>{EX}/pub</link><description>example.com'
    f'</description><image rdf:resource="{EX}/universal/images/xml_tiny.gif" /><items>'
    f'<rdf:Seq><rdf:li resource="{EX}/pub/2000/08/09/xslt/xslt.html" /><rdf:li resource'
    f'="{EX}/pub/2000/08/09/rdfdb/index.html" /></rdf:Seq></items></channel><image '
    f'rdf:about="{EX}/universal/images/xml_tiny.gif"><title>XML.com</title><link>'
    f"http://www.xml.com</link><url>{EX}/universal/images/xml_tiny.gif</url></image>"
    f'<item rdf:about="{EX}/pub/2000/08/09/xslt/xslt.html"><title>Processing Inclusions'
    f" with XSLT</title><link>{EX}/pub/2000/08/09/xslt/xslt.html</link><description>"
    "Processing document inclusions with general XML tools can be problematic."
    "</description> </item> </rdf:RDF>"
)


@pytest.mark.parametrize("content_type", ["text/xml", "application/rdf+xml", None])
def test_nutch_site_map_parser_rss10_syndication_format(content_type):
    """testRSS10SyndicationFormat: items outside <channel> (RSS 1.0)."""
    parsed = parse_sitemap(RSS10.encode(), content_type, f"{EX}/sitemapindex.xml")
    assert _urls(parsed) == [f"{EX}/pub/2000/08/09/xslt/xslt.html"]


def test_nutch_site_map_parser_rss_pub_date():
    """testRSSPubDate: RFC 822 dates, short years, no weekday; no zone is no date."""
    parsed = parse_sitemap(_read("rss/xmlRss_pubDate.xml"), "text/xml", f"{EX}/rss.xml")
    pub_date = 1483619690000  # Thu, 05 Jan 17 12:34:50 GMT
    assert parsed.kind is Kind.RSS
    assert [(e.url, e.lastmod_ms) for e in parsed.entries] == [
        (f"{EX}/article_1", pub_date + 1000),
        (f"{EX}/article_2", pub_date + 2000),
        (f"{EX}/article_3", pub_date + 3000),
        (f"{EX}/article_4", pub_date + 4000),
        (f"{EX}/article_5", None),
        (f"{EX}/article_6", None),
        (f"{EX}/article_7", None),
    ]


@pytest.mark.parametrize(
    "body",
    [
        f"{XML_DECLARATION}{URLSET}<url><loc>{EX}/</lo",
        f"{XML_DECLARATION}{INDEX}<sitemap><loc>{EX}/sitemap1.xml.gz</loc><las",
    ],
    ids=["testPartialSitemapsAllowed", "testPartialSitemapIndicesAllowed"],
)
def test_beamcrawl_no_partial_sitemaps(body):
    """(na) ``new SiteMapParser(false, true)`` keeps what a broken file had.

    Nutch creates its parser with ``allowPartial`` false, as beamcrawl reads:
    a file that breaks off is lost as a whole.
    """
    with pytest.raises(SitemapFormatError, match="not well-formed"):
        parse_sitemap(
            body.encode(), "text/xml", f"{EX}/subsection/sitemap.xml", strict=False
        )


@pytest.mark.parametrize(
    ("sitemap", "url", "valid"),
    [
        (
            "http://example.com/catalog/sitemap.xml",
            "http://example.com/catalog/show?item=233&user=3453",
            True,
        ),
        (
            "http://example.com/catalog/sitemap.xml",
            "http://example.com/image/show?item=233&user=3453",
            False,
        ),
        (
            "http://example.com/catalog/sitemap.xml",
            "https://example.com/catalog/page1.php",
            False,
        ),
        (
            "https://example.com/index.php?route=path/sitemap",
            "https://example.com/catalog/page1.php",
            True,
        ),
    ],
)
def test_nutch_site_map_parser_file_location_validation(sitemap, url, valid):
    """testFileLocationValidation: the base URL; a "/" in the query does not count."""
    assert url.startswith(base_url(sitemap)) is valid
    body = f"{url}\n".encode()
    parsed = parse_sitemap(body, "text/plain", sitemap)
    assert (len(parsed.entries) == 1) is valid


def test_nutch_site_map_parser_url_loc_url():
    """testUrlLocUrl: a <url> inside <loc> holds the URL."""
    body = (
        f"{XML_DECLARATION}{URLSET}<url><loc><url><![CDATA[http://jobs.optistaffing.com/"
        "EXPERIENCED-DISPATCHER-NEEDED-NOW----Jobs-in-Vancouver-WA/2333221]]></url></loc>"
        "<lastmod>2015-04-28</lastmod><changefreq>daily</changefreq></url></urlset>"
    )
    parsed = parse_sitemap(
        body.encode(), "text/xml", f"{EX}/subsection/sitemap.xml", strict=False
    )
    assert parsed.entries == (
        SitemapEntry(
            "http://jobs.optistaffing.com/EXPERIENCED-DISPATCHER-NEEDED-NOW"
            "----Jobs-in-Vancouver-WA/2333221",
            _ms("2015-04-28T00:00+00:00"),
            ChangeFreq.DAILY,
        ),
    )


# --- SiteMapParserSAXTest (crawler-commons 0.x SiteMapParserSAX, since merged) ---


def test_nutch_site_map_parser_sax_sitemap_xml():
    """testSitemapXML: the fifth URL in CDATA inside a <url> inside <loc>."""
    urls = [
        f"{EX}/",
        f"{EX}/catalog?item=12&amp;desc=vacation_hawaii",
        f"{EX}/catalog?item=73&amp;desc=vacation_new_zealand",
        f"{EX}/catalog?item=74&amp;desc=vacation_newfoundland",
    ]
    body = (
        f'<?xml version="1.0" encoding="UTF-8"?>{URLSET}'
        f"<url>  <loc>{urls[0]}</loc>  <lastmod>2005-01-01</lastmod>  <changefreq>"
        "monthly</changefreq>  <priority>0.8</priority></url>"
        f"<url>  <loc>{urls[1]}</loc>  <changefreq>weekly</changefreq></url>"
        f"<url>  <loc>{urls[2]}</loc>  <lastmod>2004-12-23</lastmod>"
        "  <changefreq>weekly"
        "</changefreq></url>"
        f"<url>  <loc>{urls[3]}</loc>  <lastmod>2004-12-23T18:00:15+00:00</lastmod>"
        "  <priority>0.3</priority></url>"
        "<url>  <loc><url>"
        f"<![CDATA[{EX}/catalog?item=83&desc=vacation_usa]]></url></loc>"
        "  <lastmod>2004-11-23</lastmod></url></urlset>"
    )
    for content_type in XML_CONTENT_TYPES:
        parsed = parse_sitemap(body.encode(), content_type, f"{EX}/sitemap.xml")
        assert _urls(parsed) == [url.replace("&amp;", "&") for url in urls] + [
            f"{EX}/catalog?item=83&desc=vacation_usa"
        ]


def test_nutch_site_map_parser_sax_octet_stream_is_sniffed():
    """testSitemapWithOctetMediaType (na): the 0.x SAX parser refused octet-stream.

    Today's ``SiteMapParser`` (MimeTypeDetector) looks at the bytes, and so
    does beamcrawl: an XML sitemap served as octet-stream is read.
    """
    parsed = parse_sitemap(_xml_sitemap(), "application/octet-stream", f"{EX}/sitemap")
    assert parsed.entries == SITEMAP_ENTRIES


# --- SiteMapParserExtensionTest --------------------------------------------------


@pytest.mark.parametrize(
    ("name", "url", "count"),
    [
        pytest.param(
            "sitemap-videos.xml", f"{EX}/sitemap-video.xml", 3, id="testVideosSitemap"
        ),
        pytest.param(
            "sitemap-videos-tvshow.xml",
            "https://example.org/sitemap.xml",
            1,
            id="testVideosSitemapTVShow",
        ),
        pytest.param(
            "sitemap-images.xml", f"{EX}/sitemap-images.xml", 1, id="testImageSitemap"
        ),
        pytest.param(
            "sitemap-links.xml",
            f"{EX}/sitemap-links.xml",
            3,
            id="testXHTMLLinksSitemap",
        ),
        pytest.param(
            "sitemap-news.xml",
            "http://www.example.org/sitemap-news.xml",
            2,
            id="testNewsSitemap",
        ),
        pytest.param(
            "shinpaideshou-news-sitemap.xml",
            "https://shinpaideshou.wordpress.com/news-sitemap.xml",
            3,
            id="testShinpaideshuNewsSitemap",
        ),
        pytest.param(
            "hebdenbridgetimes-articles-sitemap.xml",
            "http://www.hebdenbridgetimes.co.uk/sitemap-article-2015-18.xml",
            74,
            id="testHebdenbridgetimesArticlesSitemap",
        ),
        pytest.param(
            "pagemaps-sitemap.xml",
            f"{EX}/pagemaps-sitemap.xml",
            2,
            id="testPageMapSitemap",
        ),
    ],
)
def test_nutch_site_map_parser_extension_sitemaps(name, url, count):
    """The pages of extension sitemaps: an <image:loc> or <video:...> is no page."""
    parsed = parse_sitemap(_read(f"sitemaps/extension/{name}"), "text/xml", url)
    assert (parsed.kind, len(parsed.entries), parsed.drops) == (Kind.XML, count, {})


def test_nutch_site_map_parser_extension_urls():
    """testVideosSitemap, testXHTMLLinksSitemap: which URLs, not the metadata."""
    videos = parse_sitemap(
        _read("sitemaps/extension/sitemap-videos.xml"),
        "text/xml",
        f"{EX}/sitemap-video.xml",
    )
    assert _urls(videos) == [
        f"{EX}/videos/some_video_landing_page.html",
        f"{EX}/videos/some_video_landing_page-2.html",
        f"{EX}/videos/some_video_landing_page-3.html",
    ]
    links = parse_sitemap(
        _read("sitemaps/extension/sitemap-links.xml"),
        "text/xml",
        f"{EX}/sitemap-links.xml",
    )
    assert _urls(links) == [
        f"{EX}/english/",
        f"{EX}/deutsch/",
        f"{EX}/schweiz-deutsch/",
    ]


# --- SiteMapParserLimitsTest -----------------------------------------------------


def _generate(header: str, item: str, footer: str, count: int) -> bytes:
    return (header + "".join(item % i for i in range(count)) + footer).encode()


def _xml(count: int) -> bytes:
    return _generate(
        f"{XML_DECLARATION}{URLSET}\n",
        f" <url><loc>{EX}/page%d.html</loc></url>\n",
        "</urlset>",
        count,
    )


def _text(count: int) -> bytes:
    return _generate("", f"{EX}/page%d.html\n", "", count)


LIMITED = [
    pytest.param(_xml(25), "text/xml", f"{EX}/sitemap.xml", id="testXmlSitemapMaxUrls"),
    pytest.param(
        gzip.compress(_xml(25)),
        "application/gzip",
        f"{EX}/sitemap.xml.gz",
        id="testGzippedXmlSitemapMaxUrls",
    ),
    pytest.param(
        _generate(
            f"{XML_DECLARATION}{INDEX}\n",
            f" <sitemap><loc>{EX}/sitemap%d.xml</loc></sitemap>\n",
            "</sitemapindex>",
            25,
        ),
        "text/xml",
        f"{EX}/sitemapindex.xml",
        id="testSitemapIndexMaxUrls",
    ),
    pytest.param(
        _generate(
            f'{XML_DECLARATION}<rss version="2.0">\n<channel>\n<title>Test'
            f"</title>\n<link>{EX}/</link>\n",
            f" <item><link>{EX}/page%d.html</link></item>\n",
            "</channel>\n</rss>",
            25,
        ),
        "application/rss+xml",
        f"{EX}/feed.rss",
        id="testRssMaxUrls",
    ),
    pytest.param(
        _generate(
            f'{XML_DECLARATION}<feed xmlns="http://www.w3.org/2005/Atom">'
            "\n<title>Test</title>\n",
            f' <entry><link href="{EX}/page%d.html"/></entry>\n',
            "</feed>",
            25,
        ),
        "application/atom+xml",
        f"{EX}/feed.atom",
        id="testAtomMaxUrls",
    ),
    pytest.param(
        _text(25), "text/plain", f"{EX}/sitemap.txt", id="testTextSitemapMaxUrls"
    ),
    pytest.param(
        gzip.compress(_text(25)),
        "application/gzip",
        f"{EX}/sitemap.txt.gz",
        id="testTextSitemapMaxUrls-gz",
    ),
]


@pytest.mark.parametrize(("body", "content_type", "url"), LIMITED)
def test_nutch_site_map_parser_limits_max_urls(body, content_type, url):
    """setMaxUrls(10): the first ten are kept, the rest counted."""
    parsed = parse_sitemap(body, content_type, url, max_urls=10)
    assert len(parsed.entries) == 10
    assert parsed.entries[-1].url.endswith(("page9.html", "sitemap9.xml"))
    assert parsed.drops == {UrlDrop.OVER_LIMIT: 15}


@pytest.mark.parametrize("count", [10, 50_000])
def test_nutch_site_map_parser_limits_exactly_max_urls(count):
    """testXmlSitemapDefaultMaxUrls, testTextSitemapMaxUrls: exactly max is all."""
    parsed = parse_sitemap(_xml(count), "text/xml", f"{EX}/sitemap.xml", max_urls=count)
    assert (len(parsed.entries), parsed.drops) == (count, {})


def test_nutch_site_map_parser_limits_default_max_urls():
    """testXmlSitemapDefaultMaxUrls, testDefaultLimits: 50,000 URLs, 50 MiB."""
    defaults = inspect.signature(parse_sitemap).parameters
    assert (defaults["max_urls"].default, defaults["max_bytes"].default) == (
        50_000,
        52_428_800,
    )
    parsed = parse_sitemap(_xml(50_001), "text/xml", f"{EX}/sitemap.xml")
    assert (len(parsed.entries), parsed.drops) == (50_000, {UrlDrop.OVER_LIMIT: 1})


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (_xml(100), "text/xml"),
        (gzip.compress(_xml(100)), "application/gzip"),
        (_text(100), "text/plain"),
        (gzip.compress(_text(100)), "application/gzip"),
    ],
)
def test_nutch_site_map_parser_limits_max_bytes(body, content_type):
    """testMaxBytesNotExceeded, testMaxBytesExceeded: the limit, gzipped or not."""
    size = len(gzip.decompress(body) if body.startswith(b"\x1f\x8b") else body)
    url = f"{EX}/sitemap"
    assert len(parse_sitemap(body, content_type, url, max_bytes=size).entries) == 100
    with pytest.raises(TooLargeError):
        parse_sitemap(body, content_type, url, max_bytes=size - 1)


def test_nutch_site_map_parser_limits_highly_compressed_gzip():
    """testMaxBytesExceededGzipHighlyCompressed: small packed, large unpacked."""
    body = _generate(
        f"{XML_DECLARATION}{URLSET}\n",
        f" <url><loc>{EX}/page%d.html</loc></url>" + " " * 1024 + "\n",
        "</urlset>",
        2048,
    )
    packed = gzip.compress(body)
    assert len(packed) < 1024 * 1024
    with pytest.raises(TooLargeError):
        parse_sitemap(
            packed, "application/gzip", f"{EX}/s.xml.gz", max_bytes=1024 * 1024
        )


NOT_APPLICABLE_LIMITS = [
    "testInvalidLimits (2): limits are checked where sitemap.* properties are read",
    "testXmlSitemapMaxUrlsSkippedNotCounted: no URL filter in the parser",
    "testMaxBytesExceededPartialAllowed (4): no allowPartial (Nutch's setting)",
]


# --- SiteMapURLTest, SiteMapIndexTest, SiteMapCrossSubmitValidatorTest -----------


@pytest.mark.parametrize(
    ("text", "priority"),
    [
        (None, DEFAULT_PRIORITY),
        ("0.6", 0.6),
        ("1.1", DEFAULT_PRIORITY),
        ("BAD VALUE", DEFAULT_PRIORITY),
    ],
)
def test_nutch_site_map_url_set_priority(text, priority):
    """testSetPriority: [0, 1] or the default 0.5."""
    assert parse_priority(text) == priority


def test_nutch_site_map_index_skips_an_invalid_entry():
    """testNPE: an index entry that is no URL is left out."""
    body = (
        f"{XML_DECLARATION}{INDEX}<sitemap><loc>INVALID</loc></sitemap>"
        "<sitemap><loc>https://example.com/sitemap1.xml</loc></sitemap></sitemapindex>"
    )
    parsed = parse_sitemap(body.encode(), None, "https://example.com/index.xml")
    assert _urls(parsed) == ["https://example.com/sitemap1.xml"]
    assert parsed.drops == {UrlDrop.MALFORMED: 1}


def test_beamcrawl_index_entries_are_not_deduplicated_by_the_parser():
    """testDeduplication (na): ``getSitemaps(true)`` drops repeated entries.

    beamcrawl lists every entry; the walker fetches a sitemap once
    (``sitemaps_already_seen``).
    """
    body = (
        f"{XML_DECLARATION}{INDEX}<sitemap><loc>https://example.com/sitemap1.xml</loc>"
        "</sitemap><sitemap><loc>https://example.com/sitemap1.xml</loc></sitemap>"
        "</sitemapindex>"
    )
    parsed = parse_sitemap(body.encode(), None, "https://example.com/index.xml")
    assert len(parsed.entries) == 2


@pytest.mark.parametrize(
    ("url", "body", "count"),
    [
        (
            "https://blog.example.com/sitemap.txt",
            "https://blog.example.com/blog-1.html\nhttps://blog.example.com/blog-2.html",
            2,
        ),
        (
            "https://www.example.com/sitemap.txt",
            "https://blog.example.com/blog-1.html\nhttps://blog.example.com/blog-2.html",
            2,
        ),
        (
            "https://www.example.com/sitemap.txt",
            "https://blog.example.com/blog-1.html\nhttps://blog.example.com/blog-2.html\n"
            "https://docs.example.com/index.html",
            3,
        ),
        (
            "https://www.example.com/sitemap.txt",
            "https://this.github.io/this.html\nhttps://that.github.io/that-1.html\n"
            "https://that.github.io/that-2.html",
            3,
        ),
    ],
)
def test_nutch_site_map_cross_submit_validator_sitemaps(url, body, count):
    """SiteMapCrossSubmitValidatorTest's sitemaps, read with strict off.

    The cross-submit validation itself (which hosts announced a sitemap) is
    no part of beamcrawl's parser: na.
    """
    assert (
        len(parse_sitemap(body.encode(), "text/plain", url, strict=False).entries)
        == count
    )


def test_nutch_google_news_site_map_parser():
    """GoogleNewsSiteMapParserTest: the URL (the news metadata is not kept)."""
    body = (
        f"{XML_DECLARATION}"
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"\n'
        '        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">\n'
        "  <url>\n"
        "    <loc>http://www.example.org/business/article55.html</loc>\n"
        "    <news:news>\n      <news:publication>\n        <news:name>The Sample Times"
        "</news:name>\n        <news:language>en</news:language>\n"
        "      </news:publication>\n"
        "      <news:genres>PressRelease, Blog</news:genres>\n"
        "      <news:publication_date>2008-12-23</news:publication_date>\n"
        "      <news:title>Companies A, B in Merger Talks</news:title>\n"
        "    </news:news>\n"
        "  </url>\n</urlset>"
    )
    parsed = parse_sitemap(
        body.encode(), "text/xml", "http://www.example.org/sitemapindex.xml"
    )
    assert _urls(parsed) == ["http://www.example.org/business/article55.html"]


# --- AbstractSiteMapTest: dates --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("blah", None),
        (None, None),
        ("2014", "2014-01-01T00:00+00:00"),
        ("2014-06", "2014-06-01T00:00+00:00"),
        ("2014-06-03", "2014-06-03T00:00+00:00"),
        ("2014-06-03T10:30+00:00", "2014-06-03T10:30+00:00"),
        ("2014-06-03T10:30:45+00:00", "2014-06-03T10:30:45+00:00"),
        ("2014-06-03T10:30:45-05:00", "2014-06-03T15:30:45+00:00"),
        ("2014-06-03T10:30:45.82+00:00", "2014-06-03T10:30:45.820+00:00"),
        ("1997", "1997-01-01T00:00+00:00"),
        ("1997-07", "1997-07-01T00:00+00:00"),
        ("1997-07-16", "1997-07-16T00:00+00:00"),
        ("1997-07-16T19:20+01:00", "1997-07-16T18:20+00:00"),
        ("1997-07-16T19:20:30+01:00", "1997-07-16T18:20:30+00:00"),
        ("1997-07-16T19:20:30.45+01:00", "1997-07-16T18:20:30.450+00:00"),
        ("1994-11-05T13:15:30Z", "1994-11-05T13:15:30+00:00"),
        ("1994-11-05T08:15:30-05:00", "1994-11-05T13:15:30+00:00"),
    ],
)
def test_nutch_abstract_site_map_date_parsing(text, iso):
    """testDateParsing, testFullDateFormat: W3C dates; short ones at 00:00 UTC."""
    assert parse_w3c_ms(text) == (None if iso is None else _ms(iso))


@pytest.mark.parametrize(
    ("text", "iso"),
    [
        ("incorrect", None),
        ("Thu, 05 Jan 2017 12:34:50 GMT", "2017-01-05T12:34:50+00:00"),
        ("Thu, 05 Jan 2017 13:34:51 +0100", "2017-01-05T12:34:51+00:00"),
        ("05 Jan 2017 11:34:52 -0100", "2017-01-05T12:34:52+00:00"),
        ("05 Jan 17 12:34:53 GMT", "2017-01-05T12:34:53+00:00"),
        ("Thu, 05 Jan 17 12:34:54 GMT", "2017-01-05T12:34:54+00:00"),
    ],
)
def test_nutch_abstract_site_map_rss_date_normalizing(text, iso):
    """testRssDateNormalyzing: RFC 822 dates with and without weekday and century."""
    assert parse_rfc822_ms(text) == (None if iso is None else _ms(iso))


def test_beamcrawl_w3c_dates_are_read_leniently():
    """crawler-commons: a time without a zone, ``+hhmm`` or padding is no date.

    beamcrawl reads them (UTC for no zone): a lastmod is only a hint for
    scheduling, and dropping a usable one loses more than misreading it.
    """
    assert parse_w3c_ms("2004-12-23T18:00:15") == _ms("2004-12-23T18:00:15+00:00")
    assert parse_w3c_ms("2004-12-23T18:00:15+0100") == _ms("2004-12-23T17:00:15+00:00")
    assert parse_w3c_ms("\n  2005-01-01\n") == _ms("2005-01-01T00:00+00:00")


def test_beamcrawl_rss_dates_take_rfc822_zone_names():
    """crawler-commons reads only GMT and +hhmm; RFC 822 names are read here."""
    assert parse_rfc822_ms("Sun, 06 Sep 2009 12:20:00 EDT") == _ms(
        "2009-09-06T16:20:00+00:00"
    )


# --- the bugs of issue 26, in crawler-commons' terms -----------------------------


def test_nutch_shop_sitemap_with_a_slash_in_its_query():
    """SiteMap.setBaseUrl: ``index.php?route=feed/sitemap`` lists the whole shop."""
    body = f"{XML_DECLARATION}{URLSET}<url><loc>https://shop.example/p?id=1</loc></url>"
    body += "<url><loc>https://shop.example/cat/shoes</loc></url></urlset>"
    url = "https://shop.example/index.php?route=feed/sitemap"
    parsed = parse_sitemap(body.encode(), "application/xml", url)
    assert _urls(parsed) == [
        "https://shop.example/p?id=1",
        "https://shop.example/cat/shoes",
    ]
    assert base_url(url) == "https://shop.example/"


@pytest.mark.parametrize(
    ("content_type", "packed"),
    [
        ("text/html", False),
        ("application/octet-stream", True),
        ("text/html; charset=utf-8", False),
        (None, True),
        ("image/png", False),
    ],
)
def test_nutch_wrong_content_types_are_sniffed(content_type, packed):
    """parseSiteMap(contentType, ...): an untrusted type gives way to the bytes."""
    body = gzip.compress(_xml_sitemap()) if packed else _xml_sitemap()
    parsed = parse_sitemap(body, content_type, f"{EX}/sitemap.xml")
    assert parsed.entries == SITEMAP_ENTRIES


def test_beamcrawl_gzip_is_unpacked_whatever_its_content_type():
    """crawler-commons trusts text/xml and then fails on gzip bytes; not here."""
    parsed = parse_sitemap(gzip.compress(_xml_sitemap()), "text/xml", f"{EX}/s.xml")
    assert parsed.entries == SITEMAP_ENTRIES


def test_nutch_gzip_inside_gzip_is_no_sitemap():
    """The bytes inside a gzip are sniffed, and gzip is neither XML nor text."""
    body = gzip.compress(gzip.compress(_xml_sitemap()))
    with pytest.raises(SitemapFormatError):
        parse_sitemap(body, "application/gzip", f"{EX}/s.xml.gz")


def test_beamcrawl_utf16_and_declared_encodings_are_read():
    """crawler-commons reads every XML sitemap's bytes as UTF-8."""
    text = _xml_sitemap().decode().replace('encoding="UTF-8"', 'encoding="UTF-16"')
    parsed = parse_sitemap(b"\xff\xfe" + text.encode("utf-16-le"), None, f"{EX}/s.xml")
    assert parsed.entries == SITEMAP_ENTRIES
    latin = f'<?xml version="1.0" encoding="ISO-8859-1"?>{URLSET}<url><loc>{EX}/caf\xe9'
    latin += "</loc></url></urlset>"
    parsed = parse_sitemap(latin.encode("latin-1"), None, f"{EX}/s.xml")
    assert _urls(parsed) == [f"{EX}/caf\xe9"]


def test_nutch_several_locs_in_a_url():
    """XMLHandler: each <loc> of a <url> lists an entry, fields after it go with it."""
    body = (
        f"{XML_DECLARATION}{URLSET}<url><loc>{EX}/a</loc><priority>0.1</priority>"
        f"<loc>{EX}/b</loc><changefreq>daily</changefreq></url></urlset>"
    )
    parsed = parse_sitemap(body.encode(), None, f"{EX}/s.xml")
    assert parsed.entries == (
        SitemapEntry(f"{EX}/a", priority=0.1),
        SitemapEntry(f"{EX}/b", changefreq=ChangeFreq.DAILY),
    )


def test_beamcrawl_a_url_as_bare_text_is_kept_when_its_url_closes():
    """crawler-commons adds it when the next <url> opens, so loses the last one."""
    body = f"{XML_DECLARATION}{URLSET}<url>{EX}/a</url><url> {EX}/b </url></urlset>"
    parsed = parse_sitemap(body.encode(), None, f"{EX}/s.xml")
    assert _urls(parsed) == [f"{EX}/a", f"{EX}/b"]


def test_beamcrawl_feed_items_are_read_from_their_own_elements():
    """crawler-commons lets the channel's <link>/<pubDate> stand in for an item's.

    An RSS item without a link, or with only a UUID as guid, lists nothing
    here; crawler-commons would list the channel's link, or the UUID resolved
    against the feed's URL. A relative Atom href is resolved against the
    feed's URL (crawler-commons drops it).
    """
    rss = (
        f"<rss><channel><link>{EX}/main.html</link><pubDate>Sun, 06 Sep 2009 16:20:00"
        " +0000</pubDate><item><title>no link</title></item><item><guid>7bd204c6-1655"
        f"</guid></item><item><link>{EX}/post</link></item></channel></rss>"
    )
    parsed = parse_sitemap(rss.encode(), None, f"{EX}/feed.rss")
    assert parsed.entries == (SitemapEntry(f"{EX}/post"),)
    atom = '<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="a.html"/>'
    atom += "</entry></feed>"
    parsed = parse_sitemap(atom.encode(), None, f"{EX}/feed.atom")
    assert _urls(parsed) == [f"{EX}/a.html"]


# --- safety ---------------------------------------------------------------------

SAFE = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
_PIECES = st.sampled_from(
    [
        "<?xml version='1.0'?>",
        "\ufeff",
        " \n",
        "<urlset>",
        "</urlset>",
        "<sitemapindex>",
        "</sitemapindex>",
        "<url>",
        "</url>",
        "<sitemap>",
        "</sitemap>",
        "<loc>",
        "</loc>",
        "<lastmod>2005-01-01</lastmod>",
        "<rss><channel>",
        "<item>",
        "</item>",
        "<feed>",
        "<entry>",
        "<link href='x'/>",
        "<link>",
        "</link>",
        "<guid>",
        "</guid>",
        f"{EX}/p",
        "\u00a0",
        "\u2000",
        "&amp;",
        "<![CDATA[x]]>",
        "<!-- c -->",
        "<!DOCTYPE x>",
        "<image:loc xmlns:image='http://www.google.com/schemas/"
        "sitemap-image/1.1'>http://i/</image:loc>",
        "https://",
        "\x00",
        "<",
    ]
)


@SAFE
@given(
    st.one_of(st.binary(max_size=200), st.lists(_PIECES, max_size=25).map("".join)),
    st.sampled_from([None, "text/xml", "text/plain", "text/html", "application/gzip"]),
    st.booleans(),
)
def test_any_bytes_give_a_sitemap_or_a_format_error(body, content_type, packed):
    content = body if isinstance(body, bytes) else body.encode()
    if packed:
        content = gzip.compress(content)
    try:
        parsed = parse_sitemap(content, content_type, f"{EX}/d/s.xml", max_urls=5)
    except SitemapFormatError:
        return
    assert isinstance(parsed.kind, Kind)
    assert len(parsed.entries) <= 5
    for entry in parsed.entries:
        assert entry.url
        assert entry.url == entry.url.strip()
        assert 0.0 <= entry.priority <= 1.0


def test_sitemap_urls_fit_their_kind_of_date():
    """Guard the test helper: ``_ms`` and W3C dates agree on an example."""
    assert _ms("2005-01-01T00:00+00:00") == int(
        datetime(2005, 1, 1, tzinfo=timezone.utc).timestamp() * 1000
    )


def test_elements_outside_items_are_freed_as_they_close():
    """A hostile sitemap of junk elements costs no memory of its own."""
    body = b"<urlset>" + b"<a/>" * 300_000 + f"<url><loc>{EX}/x</loc></url>".encode()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    parsed = parse_sitemap(body + b"</urlset>", "text/xml", f"{EX}/s.xml")
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert _urls(parsed) == [f"{EX}/x"]
    assert grown_kb < 20_000  # kept, the junk took ~40 MB
