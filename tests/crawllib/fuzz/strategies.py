"""Hypothesis strategies for structured but broken crawler input.

Each strategy builds text a parser meets on the web: HTML tag soup (nesting,
attributes, entities, comments, scripts, meta refresh / robots / charset),
RSS and Atom feeds, robots.txt lines, seed lines and configuration files,
then breaks it (cut at a random point, stray or missing tags, bad encodings).
"""

from __future__ import annotations

from hypothesis import strategies as st

# Tags that matter to the parsers (links, head elements, line separators,
# script/style, tables and forms that libxml2 moves about) and a few others.
TAGS = (
    "a", "area", "b", "base", "blockquote", "body", "br", "div", "form",
    "frame", "frameset", "h1", "head", "html", "iframe", "img", "input", "li",
    "link", "meta", "noscript", "ol", "option", "p", "pre", "script", "select",
    "source", "span", "style", "table", "td", "textarea", "title", "tr", "ul",
    "svg", "math", "x-custom", "A", "BODY", "Title",
)  # fmt: skip
ATTRIBUTES = (
    "href", "src", "action", "rel", "method", "name", "content", "http-equiv",
    "charset", "alt", "id", "class", "style", "xml:base", "xmlns", "HREF",
)  # fmt: skip
LINK_VALUES = (
    "", " ", "/", "//", "///", "?q", "#f", "../..", "./a/../b", "http://",
    "http://b.org/", "HTTP://B.ORG", "https://b.org:99999/", "http://[::1]/",
    "http://[zz]/", "javascript:void(0)", "mailto:a@b", "data:text/html,x",
    "file:///etc", "ftp://f/x", "url:http://c/", "http://a b/", "\x00",
    "\ud7ff", "%zz", "%E2%82", "http://x.com/\u00e9", "a\tb\nc",
)  # fmt: skip
ROBOTS_META = ("noindex", "nofollow", "none", "noarchive", "all", "NOINDEX,x")
REFRESH = (
    "0", "5", " 5", "5 ", "-1", "2147483648", "0;url=/t", "0; URL='x'",
    '1;url="http://b.org/"', "0;", ";url=x", "3;url=", "0;url=javascript:x",
    "99999999999999999999;url=/", "9" * 5000 + ";url=/",
)  # fmt: skip
CHARSETS = (
    "utf-8", "UTF-16", "utf-16le", "iso-8859-1", "windows-1252", "shift_jis",
    "euc-jp", "gb2312", "koi8-r", "x-user-defined", "bogus", "", "utf-7",
    "utf-32", "\x00", "ascii", "latin1", "big5", "cp1252;", "'utf-8'",
)  # fmt: skip
ENTITIES = (
    "&amp;", "&lt;", "&nbsp;", "&#0;", "&#x0;", "&#xD800;", "&#xDFFF;",
    "&#x110000;", "&#99999999999;", "&#65;", "&#x41", "&unknown;", "&",
    "&#", "&#x;", "&eacute", "&NotANamedOne;", "&#xFDD0;", "&#xFDD1;",
    "&#" + "1" * 5000 + ";", "&#x0000D800;",
)  # fmt: skip
TEXT_PIECES = (
    "\ufdd0", "\ufdd1", "\ufeff", "\x00", "\x0b", "\x1f", "\x85", "\u2028",
    "\r\n", "\t", " ", "\xa0", "<", ">", "]]>", "-->", "<!--", "\ud800",
    "http://t.example/x", "www.example.com", "\U0001f600",
)  # fmt: skip

SAFE_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="<&"), max_size=12)
"""Plain text: any character UTF-8 can hold but markup."""


def _text() -> st.SearchStrategy[str]:
    return st.one_of(
        SAFE_TEXT,
        st.sampled_from(TEXT_PIECES),
        st.sampled_from(ENTITIES),
        st.text(max_size=8),  # lone surrogates and markup too
    )


def _attribute_value() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(LINK_VALUES),
        st.sampled_from(ROBOTS_META),
        st.sampled_from(REFRESH),
        st.sampled_from(CHARSETS),
        SAFE_TEXT,
    )


def _quote(value: str, style: int) -> str:
    if style == 0:
        return f'"{value}"'
    if style == 1:
        return f"'{value}'"
    if style == 2:
        return value  # unquoted
    return f'"{value}'  # never closed


@st.composite
def attributes(draw: st.DrawFn) -> str:
    """`` name=value`` pairs, repeated names, bad quoting and bare names."""
    pieces = []
    for _ in range(draw(st.integers(0, 3))):
        name = draw(
            st.one_of(st.sampled_from(ATTRIBUTES), st.from_regex(r"[a-z]{1,3}"))
        )
        if draw(st.booleans()):
            value = _quote(draw(_attribute_value()), draw(st.integers(0, 3)))
            pieces.append(f" {name}={value}")
        else:
            pieces.append(f" {name}")
    return "".join(pieces)


@st.composite
def head_tags(draw: st.DrawFn) -> str:
    """Meta robots / refresh / charset / pragma tags, a title or a base."""
    kind = draw(st.integers(0, 6))
    if kind == 0:
        name = draw(st.sampled_from(["robots", "ROBOTS"]))
        return f'<meta name="{name}" content="{draw(st.sampled_from(ROBOTS_META))}">'
    if kind == 1:
        return f'<meta http-equiv="refresh" content="{draw(st.sampled_from(REFRESH))}">'
    if kind == 2:
        return f'<meta charset="{draw(st.sampled_from(CHARSETS))}">'
    if kind == 3:
        charset = draw(st.sampled_from(CHARSETS))
        return (
            f'<meta http-equiv="Content-Type" content="text/html; charset={charset}">'
        )
    if kind == 4:
        return '<meta http-equiv="Pragma" content="no-cache">'
    if kind == 5:
        return f"<title>{draw(_text())}</title>"
    return f'<base href="{draw(st.sampled_from(LINK_VALUES))}">'


@st.composite
def _node(draw: st.DrawFn, depth: int) -> str:
    kind = draw(st.integers(0, 9 if depth < 4 else 3))
    if kind == 0:
        return draw(_text())
    if kind == 1:
        return f"<!--{draw(_text())}-->" if draw(st.booleans()) else "<!--"
    if kind == 2:
        return draw(head_tags())
    if kind == 3:
        return draw(st.sampled_from(["</a>", "</p>", "</html>", "</", "<", "/>"]))
    if kind == 4:
        body = draw(st.sampled_from(["x < y && z", "</scr", "<!--", "'</script>'"]))
        return f"<script>{body}</script>"
    if kind == 5:
        return draw(st.sampled_from(["<![CDATA[x]]>", "<?php x ?>", "<!DOCTYPE html>"]))
    tag = draw(st.sampled_from(TAGS))
    children = draw(st.lists(_node(depth + 1), max_size=4))
    close = draw(st.sampled_from([f"</{tag}>", f"</{tag}>", "", f"</{tag.upper()}>"]))
    return f"<{tag}{draw(attributes())}>{''.join(children)}{close}"


@st.composite
def html_documents(draw: st.DrawFn) -> str:
    """An HTML page as text: a soup of nested elements, or a deep stack of them."""
    if draw(st.integers(0, 9)) == 0:  # deep nesting: libxml2's depth limit
        tag = draw(st.sampled_from(["div", "a", "b", "span", "table"]))
        count = draw(st.integers(200, 3000))
        inner = draw(_text())
        closed = draw(st.booleans())
        return f"<{tag}>" * count + inner + (f"</{tag}>" * count if closed else "")
    head = "".join(draw(st.lists(head_tags(), max_size=4)))
    body = "".join(draw(st.lists(_node(0), max_size=8)))
    prefix = draw(st.sampled_from(["", "<!DOCTYPE html>", '<?xml version="1.0"?>']))
    if draw(st.booleans()):
        return f"{prefix}<html><head>{head}</head><body{draw(attributes())}>{body}"
    return prefix + head + body


_ENCODINGS = ("utf-8", "utf-16", "utf-16-be", "latin-1", "cp1252", "shift_jis")
_BOMS = (b"", b"", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")


@st.composite
def encoded(draw: st.DrawFn, text: st.SearchStrategy[str]) -> bytes:
    """``text`` encoded in some charset, maybe behind a BOM, maybe cut short."""
    content = draw(text).encode(draw(st.sampled_from(_ENCODINGS)), "replace")
    content = draw(st.sampled_from(_BOMS)) + content
    if content and draw(st.integers(0, 4)) == 0:
        content = content[: draw(st.integers(0, len(content)))]
    return content


FEED_LINKS = (*LINK_VALUES, "relative/x", "http://feed.example/item")


@st.composite
def _feed_text(draw: st.DrawFn) -> str:
    return draw(
        st.one_of(
            SAFE_TEXT,
            st.sampled_from(ENTITIES),
            st.just("<![CDATA[<b>bold</b> &amp; ]]>"),
            st.just("&lt;p&gt;escaped &lt;script&gt;x&lt;/script&gt;"),
            st.just("<div xmlns='http://www.w3.org/1999/xhtml'><p>x</p></div>"),
        )
    )


@st.composite
def _rss_item(draw: st.DrawFn) -> str:
    parts = []
    for name in draw(
        st.lists(
            st.sampled_from(
                ["title", "link", "description", "guid", "content:encoded", "item"]
            ),
            max_size=5,
        )
    ):
        if name == "link" or name == "guid":
            value = draw(st.sampled_from(FEED_LINKS))
            permalink = draw(st.sampled_from(["", ' isPermaLink="false"']))
            parts.append(f"<{name}{permalink}>{value}</{name}>")
        else:
            parts.append(f"<{name}>{draw(_feed_text())}</{name}>")
    return "".join(parts)


@st.composite
def _atom_entry(draw: st.DrawFn) -> str:
    parts = []
    for name in draw(
        st.lists(
            st.sampled_from(["title", "link", "summary", "content", "entry", "id"]),
            max_size=5,
        )
    ):
        if name == "link":
            rel = draw(st.sampled_from(["", ' rel="alternate"', ' rel="self"', " rel"]))
            href = draw(st.sampled_from(FEED_LINKS))
            base = draw(st.sampled_from(["", ' xml:base="http://base.example/d/"']))
            parts.append(f'<link{rel}{base} href="{href}"/>')
        else:
            kind = draw(
                st.sampled_from(
                    ["", ' type="html"', ' type="xhtml"', ' mode="escaped"']
                )
            )
            parts.append(f"<{name}{kind}>{draw(_feed_text())}</{name}>")
    return "".join(parts)


_DECLARATIONS = (
    "",
    '<?xml version="1.0"?>',
    '<?xml version="1.0" encoding="{charset}"?>',
    "<?xml version='1.1' encoding='{charset}' standalone='yes'?>",
)
_DOCTYPES = (
    "",
    '<!DOCTYPE rss [<!ENTITY e "expanded">]>',
    '<!DOCTYPE x [<!ENTITY a "&b;&b;"><!ENTITY b "&a;">]>',
    '<!DOCTYPE x [<!ENTITY l0 "ha"><!ENTITY l1 "&l0;&l0;&l0;&l0;&l0;">]>',
    '<!DOCTYPE x SYSTEM "http://127.0.0.1:9/never.dtd">',
    '<!DOCTYPE x [<!ENTITY ext SYSTEM "file:///etc/passwd">]>',
)


@st.composite
def feed_documents(draw: st.DrawFn) -> str:
    """An RSS 2.0, RSS 1.0 or Atom feed (or other XML), often malformed."""
    charset = draw(st.sampled_from(CHARSETS))
    declaration = draw(st.sampled_from(_DECLARATIONS)).format(charset=charset)
    doctype = draw(st.sampled_from(_DOCTYPES))
    entity = draw(st.sampled_from(["", "&e;", "&a;", "&l1;", "&ext;"]))
    kind = draw(st.integers(0, 3))
    if kind == 0:
        items = "".join(
            f"<item>{draw(_rss_item())}</item>" for _ in range(draw(st.integers(0, 3)))
        )
        channel = f"{draw(_rss_item())}{entity}{items}"
        body = f"<rss version='2.0'><channel>{channel}</channel></rss>"
    elif kind == 1:
        items = "".join(
            f"<item>{draw(_rss_item())}</item>" for _ in range(draw(st.integers(0, 3)))
        )
        body = (
            '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
            'xmlns="http://purl.org/rss/1.0/"><channel>'
            f"{draw(_rss_item())}</channel>{items}{entity}</rdf:RDF>"
        )
    elif kind == 2:
        namespace = draw(
            st.sampled_from(["http://www.w3.org/2005/Atom", "http://purl.org/atom/ns#"])
        )
        entries = "".join(
            f"<entry>{draw(_atom_entry())}</entry>"
            for _ in range(draw(st.integers(0, 3)))
        )
        body = (
            f'<feed xmlns="{namespace}">{draw(_atom_entry())}{entity}{entries}</feed>'
        )
    else:
        inner = f"<x a='1'>{draw(_feed_text())}</x>"
        body = f"<root>{draw(_feed_text())}{entity}{inner}</root>"
    if draw(st.integers(0, 3)) == 0:
        body = body[: draw(st.integers(0, len(body)))]
    return declaration + doctype + body


_DIRECTIVES = (
    "User-agent", "user-agent", "USER-AGENT", "useragent", "ser-agent",
    "Disallow", "disallow", "dissalow", "Allow", "Crawl-delay", "crawl delay",
    "Sitemap", "http", "Host", "Noindex", "",
)  # fmt: skip
_ROBOTS_VALUES = (
    "*", "bot", "Bot/1.0", "botx", "other", "", "/", "/*", "/$", "/a*b$",
    "/%", "/%zz", "/%E2%82%AC", "/\u20ac", "*.gif$", "$", "**", "/a?b=1",
    "1", "0.5", "-1", "1e308", "1e999", ".", "2147483648", "NaN", "inf",
    "http://s.example/sitemap.xml", "//s.example/map", "/rel/sitemap",
    "://sitemap", "http://[::1/sitemap", "http://a:99999/sitemap", "9" * 5000,
)  # fmt: skip


@st.composite
def robots_documents(draw: st.DrawFn) -> str:
    """A robots.txt: directive lines with odd separators, comments and HTML."""
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        directive = draw(st.sampled_from(_DIRECTIVES))
        separator = draw(st.sampled_from([":", ": ", " : ", " ", "\t", "", "::"]))
        value = draw(st.one_of(st.sampled_from(_ROBOTS_VALUES), SAFE_TEXT))
        comment = draw(st.sampled_from(["", " # comment", "#", "<br>"]))
        lines.append(f"{directive}{separator}{value}{comment}")
    end = draw(st.sampled_from(["\n", "\r\n", "\r", "\u2028", "\x85"]))
    text = end.join(lines)
    if draw(st.integers(0, 5)) == 0:
        text = f"<html><body>{text}</body></html>"
    return text


_SEED_KEYS = (
    "nutch.score", "nutch.fetchInterval", "nutch.fetchInterval.fixed", "key",
    "", "=", "nutch.score ",
)  # fmt: skip
_SEED_VALUES = (
    "1", "0.5", "-0", "nan", "inf", "-inf", "1e309", "1_000", " 7 ", "0x10",
    "2147483648", "-2147483649", "\u0661", "", "=", "\x00", "\ud800", "9" * 5000,
    "1e39",
)  # fmt: skip


@st.composite
def seed_lines(draw: st.DrawFn) -> str:
    """``url<TAB>key=value...``, with bad numbers, extra tabs and odd spacing."""
    url = draw(st.one_of(st.sampled_from(LINK_VALUES), SAFE_TEXT))
    fields = []
    for _ in range(draw(st.integers(0, 4))):
        key = draw(st.one_of(st.sampled_from(_SEED_KEYS), SAFE_TEXT))
        value = draw(st.one_of(st.sampled_from(_SEED_VALUES), st.text(max_size=6)))
        sep = draw(st.sampled_from(["=", "", "=="]))
        fields.append(f"{key}{sep}{value}")
    lead = draw(st.sampled_from(["", " ", "#", "\t", "\ufeff"]))
    return lead + "\t".join([url, *fields]) + draw(st.sampled_from(["", "\n", " \t"]))


_PROPERTY_NAMES = (
    "http.agent.name", "parser.timeout", "db.signature.class", "x", "",
    " ", "a.b", "${x}", "\u00e9",
)  # fmt: skip
_PROPERTY_VALUES = (
    "", "1", "-1", "true", "nan", "${x}", "${http.agent.name}", "${", "}",
    "${a${b}}", "&amp;", "\x00", "<", "a\nb",
)  # fmt: skip


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;")


@st.composite
def site_xml_files(draw: st.DrawFn) -> str:
    """A ``nutch-site.xml``: properties with missing, repeated or odd parts."""
    props = []
    for _ in range(draw(st.integers(0, 5))):
        parts = []
        for part in draw(
            st.lists(
                st.sampled_from(["name", "value", "description", "final"]), max_size=4
            )
        ):
            raw = draw(st.sampled_from(_PROPERTY_NAMES + _PROPERTY_VALUES))
            text = raw if draw(st.integers(0, 4)) == 0 else _xml_escape(raw)
            parts.append(f"<{part}>{text}</{part}>")
        props.append(f"<property>{''.join(parts)}</property>")
    declaration = draw(st.sampled_from(_DECLARATIONS)).format(
        charset=draw(st.sampled_from(["utf-8", "UTF-16", "latin1", "bogus"]))
    )
    doctype = draw(st.sampled_from(_DOCTYPES))
    root = draw(st.sampled_from(["configuration", "conf", "property"]))
    text = f"{declaration}{doctype}<{root}>{''.join(props)}</{root}>"
    if draw(st.integers(0, 3)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return text


@st.composite
def key_value_files(draw: st.DrawFn) -> str:
    """A ``name=value`` file with comments, blank lines and lines without ``=``."""
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        name = draw(st.one_of(st.sampled_from(_PROPERTY_NAMES), SAFE_TEXT))
        value = draw(st.one_of(st.sampled_from(_PROPERTY_VALUES), SAFE_TEXT))
        sep = draw(st.sampled_from(["=", " = ", "", ":"]))
        lead = draw(st.sampled_from(["", "#", " ", "\ufeff"]))
        lines.append(f"{lead}{name}{sep}{value}")
    return draw(st.sampled_from(["\n", "\r\n", "\r"])).join(lines)
