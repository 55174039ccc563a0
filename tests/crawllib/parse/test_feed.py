import codecs
import random

import pytest

from crawllib.parse import Outlink
from crawllib.parse.feed import looks_like_feed, parse_feed
from crawllib.status import ParseMajor, ParseMinor

URL = "http://example.com/news/feed.xml"

RSS2 = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
     xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
  <title>Example &amp; Co</title>
  <link>http://example.com/</link>
  <atom:link rel="self" href="http://example.com/news/feed.xml"/>
  <description>News &lt;b&gt;from&lt;/b&gt; us</description>
  <!-- a comment -->
  <item>
    <title>First post</title>
    <link> /posts/1 </link>
    <description><![CDATA[<p>Hello <b>world</b></p><p>Second
      paragraph</p><script>evil()</script><style>p {}</style>]]></description>
  </item>
  <item>
    <title>Second</title>
    <guid>http://example.com/posts/2</guid>
    <content:encoded>&lt;div&gt;Full text&lt;/div&gt;</content:encoded>
  </item>
  <item>
    <title>No link</title>
    <guid isPermaLink="false">tag:example.com,2024:3</guid>
    <description>Plain description</description>
  </item>
</channel>
</rss>"""

RSS1 = b"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
         xmlns="http://purl.org/rss/1.0/">
  <channel rdf:about="http://example.org/rss">
    <title>RDF Site</title>
    <link>http://example.org/</link>
    <description>An RSS 1.0 feed</description>
    <items><rdf:Seq><rdf:li resource="http://example.org/a"/></rdf:Seq></items>
  </channel>
  <item rdf:about="http://example.org/a">
    <title>Item A</title>
    <link>http://example.org/a</link>
    <description>About A</description>
  </item>
  <item rdf:about="http://example.org/b">
    <title>Item B</title>
    <link>b.html</link>
  </item>
</rdf:RDF>"""

ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://example.org/blog/">
  <title type="html">Blog &lt;i&gt;Café&lt;/i&gt;</title>
  <subtitle>All the news</subtitle>
  <link rel="self" href="feed.atom"/>
  <link href="./"/>
  <entry xml:base="2024/">
    <title>Entry one</title>
    <link rel="edit" href="one/edit"/>
    <link rel="alternate" type="text/html" href="one.html"/>
    <summary type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Para
      <b>bold</b></p><p>two</p></div></summary>
  </entry>
  <entry>
    <title type="text">Entry &lt;two&gt;</title>
    <link href="/elsewhere/two"/>
    <content type="html">&lt;p&gt;Body &amp;amp; more&lt;/p&gt;</content>
  </entry>
  <entry>
    <title>Entry three</title>
    <link rel="enclosure" href="three.mp3"/>
    <summary>Just text &lt;not a tag&gt;</summary>
  </entry>
</feed>""".encode()

LATIN1_FEED = (
    '<?xml version="1.0" encoding="ISO-8859-1"?>'
    "<rss><channel><title>Grüße</title></channel></rss>"
)


def _parse(content, content_type="application/rss+xml", headers=None, url=URL):
    return parse_feed(url, content, content_type, headers or {}, "windows-1252")


def test_nutch_rss2_title_text_and_item_links():
    result = _parse(RSS2)
    assert result.major is ParseMajor.SUCCESS
    assert result.title == "Example & Co"
    assert result.text.split("\n") == [
        "Example & Co",
        "News from us",
        "First post",
        "Hello world Second paragraph",
        "Second",
        "Full text",
        "No link",
        "Plain description",
    ]
    assert result.outlinks == (
        Outlink("http://example.com/", "Example & Co"),
        Outlink("http://example.com/posts/1", "First post"),
        Outlink("http://example.com/posts/2", "Second"),  # permalink guid
    )
    assert dict(result.metadata)["OriginalCharEncoding"] == "utf-8"


def test_nutch_rss1_rdf_items_beside_the_channel():
    result = _parse(RSS1, "application/rdf+xml", url="http://example.org/rss")
    assert result.title == "RDF Site"
    assert result.text == "RDF Site\nAn RSS 1.0 feed\nItem A\nAbout A\nItem B"
    assert result.outlinks == (
        Outlink("http://example.org/", "RDF Site"),
        Outlink("http://example.org/a", "Item A"),
        Outlink("http://example.org/b.html", "Item B"),
    )


def test_nutch_rss090_namespace_is_a_feed_too():
    rss090 = RSS1.replace(
        b"http://purl.org/rss/1.0/", b"http://my.netscape.com/rdf/simple/0.9/"
    )
    result = _parse(rss090, "text/xml", url="http://example.org/rss")
    assert result.title == "RDF Site"
    assert [link.anchor for link in result.outlinks] == ["RDF Site", "Item A", "Item B"]


def test_nutch_atom_links_resolve_against_xml_base_and_skip_other_rels():
    result = _parse(ATOM, "application/atom+xml", url="http://example.org/feeds/atom")
    assert result.title == "Blog Café"
    assert result.text.split("\n") == [
        "Blog Café",
        "All the news",
        "Entry one",
        "Para bold two",
        "Entry <two>",
        "Body & more",
        "Entry three",
        "Just text <not a tag>",
    ]
    assert result.outlinks == (
        Outlink("http://example.org/blog/", "Blog Café"),
        Outlink("http://example.org/blog/2024/one.html", "Entry one"),
        Outlink("http://example.org/elsewhere/two", "Entry <two>"),
    )


def test_atom_without_xml_base_resolves_against_the_feed_url():
    atom = b"""<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title>
      <entry><title>E</title><link href="../post?id=1"/></entry></feed>"""
    result = _parse(atom, "application/atom+xml")
    assert result.outlinks == (Outlink("http://example.com/post?id=1", "E"),)


def test_nutch_links_resolve_as_parse_html_resolves_them():
    # URLUtil.resolveURL: a pure query keeps the last path segment; schemes
    # java.net.URL has no handler for are malformed and dropped.
    rss = b"""<rss><channel><title>T</title>
      <item><title>Query</title><link>?page=2</link></item>
      <item><title>Script</title><link>javascript:alert(1)</link></item>
      <item><title>Mail</title><link>mailto:editor@example.com</link></item>
      </channel></rss>"""
    assert _parse(rss).outlinks == (
        Outlink("http://example.com/news/feed.xml?page=2", "Query"),
        Outlink("mailto:editor@example.com", "Mail"),
    )


def test_atom_03_tagline_and_escaped_content():
    atom03 = b"""<feed version="0.3" xmlns="http://purl.org/atom/ns#">
      <title>Old</title><tagline>Old tagline</tagline>
      <link rel="alternate" type="text/html" href="http://old.example/"/>
      <entry><title>Post</title><link rel="alternate" href="http://old.example/p"/>
        <content type="text/html" mode="escaped"
          >&lt;p&gt;Escaped &lt;b&gt;html&lt;/b&gt;&lt;/p&gt;</content>
      </entry></feed>"""
    result = _parse(atom03, "application/atom+xml")
    assert result.text == "Old\nOld tagline\nPost\nEscaped html"
    assert result.outlinks == (
        Outlink("http://old.example/", "Old"),
        Outlink("http://old.example/p", "Post"),
    )


def test_malformed_feed_is_recovered_up_to_the_damage():
    truncated = RSS2[: RSS2.index(b"<title>No link")]
    result = _parse(truncated)
    assert result.major is ParseMajor.SUCCESS
    assert [link.anchor for link in result.outlinks] == [
        "Example & Co",
        "First post",
        "Second",
    ]
    broken = RSS2.replace(b"<title>Second</title>", b"<title>Second</titel>")
    assert _parse(broken).title == "Example & Co"


@pytest.mark.parametrize(
    "content", [b"", b"   \n", b"not xml at all", b"\x00\x01\x02\x03garbage", b"<"]
)
def test_content_without_an_element_fails_cleanly(content):
    result = _parse(content)
    assert result.major is ParseMajor.FAILED
    assert result.minor is ParseMinor.EXCEPTION
    assert result.args[0].startswith("not XML")


@pytest.mark.parametrize("seed", range(5))
def test_binary_junk_as_a_feed_never_raises(seed):
    junk = random.Random(seed).randbytes(4096)
    for content in (junk, b"<rss><channel><title>" + junk):
        result = _parse(content)
        assert result.major in (ParseMajor.SUCCESS, ParseMajor.FAILED)


def test_xxe_external_entities_are_not_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-VALUE")
    uri = secret.as_uri()
    attacks = [
        f'<!DOCTYPE rss [<!ENTITY x SYSTEM "{uri}">]>'
        "<rss><channel><title>a &x; b</title><link>http://e.com/&x;</link></channel></rss>",
        f'<!DOCTYPE rss [<!ENTITY % p SYSTEM "{uri}"> %p;]>'
        "<rss><channel><title>t</title></channel></rss>",
        f'<!DOCTYPE rss SYSTEM "{uri}"><rss><channel><title>t</title></channel></rss>',
        '<rss xmlns:xi="http://www.w3.org/2001/XInclude"><channel><title>'
        f'<xi:include href="{uri}" parse="text"/></title></channel></rss>',
    ]
    for attack in attacks:
        result = _parse(attack.encode())
        assert result.major is ParseMajor.SUCCESS
        found = [result.title, result.text, *(link.url for link in result.outlinks)]
        assert not any("TOP-SECRET" in value for value in found), attack
    assert _parse(attacks[0].encode()).title == "a b"


def test_entity_expansion_bombs_are_not_expanded():
    lol = '<!ENTITY lol0 "lollollollollollollollollollol">'
    levels = "".join(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10))
    laughs = f"<!DOCTYPE rss [{lol}{levels}]><rss><channel><title>&lol9;</title>"
    quadratic = f'<!DOCTYPE rss [<!ENTITY a "{"x" * 100_000}">]><rss><channel>'
    quadratic += f"<title>T</title><description>{'&a;' * 20_000}</description>"
    for bomb in (laughs, quadratic):
        result = _parse(
            f"{bomb}<item><title>after</title></item></channel></rss>".encode()
        )
        # libxml2 stops at the first expansion it would have to check: the
        # parse ends there, quickly, with what came before.
        assert result.major is ParseMajor.SUCCESS
        assert len(result.text) < 10
        assert "lol" not in result.text
        assert "xx" not in result.text


def test_beamcrawl_references_to_surrogates_read_as_replacement_characters():
    # found by fuzzing: libxml2's recovering parser kept "&#xD800;" as the
    # invalid UTF-8 of a lone surrogate, and reading the text raised
    # UnicodeDecodeError (Xerces, under Tika, rejects such a document)
    doc = (
        b'<feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://h/&#xD800;/">'
        b"<title>a&#xD800;b &#56320;&#x0DFFF;</title>"
        b'<entry><title>&#xd7ff;&#xE000;</title><link href="e&#xDC00;"/></entry>'
        b"</feed>"
    )
    result = _parse(doc, "application/atom+xml")
    assert result.major is ParseMajor.SUCCESS
    assert result.title == "a\ufffdb \ufffd\ufffd"
    assert result.outlinks == (Outlink("http://h/\ufffd/e\ufffd", "\ud7ff\ue000"),)


def test_beamcrawl_references_of_thousands_of_digits_are_not_surrogates():
    digits = "1" * 5000  # more than int() takes
    doc = f"<r>a&#{digits};&#x{digits};&#0000055296;&#x000000D800;b</r>"
    result = _parse(doc.encode(), "text/xml")
    assert result.major is ParseMajor.SUCCESS
    assert result.text.startswith("a")
    assert result.text.endswith("\ufffd\ufffdb")


def test_beamcrawl_entities_declared_in_a_dtd_are_dropped():
    # No entity expansion at all: safer than libxml2's amplification limits.
    doc = (
        b'<!DOCTYPE rss [<!ENTITY co "Example">]>'
        b"<rss><channel><title>&co; Co &amp; &#233;</title></channel></rss>"
    )
    assert _parse(doc).title == "Co & \u00e9"


def test_nutch_other_xml_gives_its_text_without_title_or_links():
    # Tika's XMLParser: element text with a space between elements.
    doc = b"""<?xml version="1.0"?><catalog><book id="1"><title>Dune</title>
      <author>Herbert</author></book><book><title>Emma</title>x<b>y</b>z</book>
      <a href="http://example.com/">link</a></catalog>"""
    result = _parse(doc, "application/rdf+xml")
    assert result.major is ParseMajor.SUCCESS
    assert result.title == ""
    assert result.text == "Dune Herbert Emma x y z link"
    assert result.outlinks == ()


def test_rdf_that_is_not_rss_is_other_xml():
    doc = b"""<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
      xmlns:foaf="http://xmlns.com/foaf/0.1/"><foaf:Person><foaf:name>Ada</foaf:name>
      </foaf:Person></rdf:RDF>"""
    result = _parse(doc, "application/rdf+xml")
    assert (result.title, result.text, result.outlinks) == ("", "Ada", ())


def test_xml_declaration_encoding_is_used():
    doc = LATIN1_FEED
    result = _parse(doc.encode("latin-1"))
    assert result.title == "Grüße"
    assert dict(result.metadata)["OriginalCharEncoding"] == "windows-1252"


def test_beamcrawl_header_charset_beats_the_xml_declaration():
    # RFC 7303; Nutch's parse-feed also reads the header first.
    doc = LATIN1_FEED
    headers = {"Content-Type": "application/rss+xml; charset=utf-8"}
    assert _parse(doc.encode("utf-8"), headers=headers).title == "Grüße"


def test_utf16_feed_with_byte_order_mark():
    doc = '<?xml version="1.0" encoding="UTF-16"?><rss><channel><title>日本語</title>'
    doc += "</channel></rss>"
    result = _parse(codecs.BOM_UTF16_LE + doc.encode("utf-16-le"))
    assert result.title == "日本語"
    assert dict(result.metadata)["OriginalCharEncoding"] == "utf-16le"


@pytest.mark.parametrize(
    "content_type",
    ["application/rss+xml", "application/atom+xml", "application/rdf+xml"],
)
def test_feed_types_always_look_like_feeds(content_type):
    assert looks_like_feed(b"<html/>", content_type)
    assert looks_like_feed(b"", content_type.upper() + "; charset=utf-8")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (RSS2, True),
        (RSS1, True),
        (ATOM, True),
        (b"<?xml version='1.0'?>\n<!-- hi -->\n<!DOCTYPE rss>\n<rss/>", True),
        (
            codecs.BOM_UTF16_LE
            + '<feed xmlns="http://www.w3.org/2005/Atom"/>'.encode("utf-16-le"),
            True,
        ),
        (b'<feed xmlns="http://example.com/not-atom"/>', False),
        (b"<catalog><rss/></catalog>", False),
        (b"<html><body>hi</body></html>", False),
        (b"", False),
        (b"\x00\xff junk", False),
    ],
)
def test_generic_xml_looks_like_a_feed_by_its_root(content, expected):
    assert looks_like_feed(content, "text/xml") is expected
    assert looks_like_feed(content, "application/xml") is expected


def test_other_types_never_look_like_feeds():
    assert not looks_like_feed(RSS2, "text/html")
    assert not looks_like_feed(RSS2, "text/plain")
    assert not looks_like_feed(RSS2, None)
