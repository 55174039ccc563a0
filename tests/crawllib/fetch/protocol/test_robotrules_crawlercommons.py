"""crawler-commons' robots.txt test vectors, run against beamcrawl's parser.

The facts of crawler-commons' JUnit tests ``SimpleRobotRulesParserTest``,
``GoogleRobotsTxtTest`` and ``SimpleRobotRulesTest`` (main branch, 1.5+;
Nutch 1.x parses robots.txt with this ``SimpleRobotRulesParser``): each
robots.txt, agent names and URL with the answer, crawl delay, sitemaps or
rule count the Java test expects. Files: ``tests/data/crawler-commons``.

How the port reads them:

* ``createRobotRules("Some Name", ...)`` splits the name at commas and white
  space and lowercases it: :func:`_names` does the same.
* Exact (RFC 9309) user-agent matching is crawler-commons' default and the
  only mode of beamcrawl (and Nutch). A vector written for its legacy prefix
  matching (``exactUserAgentMatching=false``) passes where exact matching
  gives the same answer; where it does not, the case id starts with
  ``na-prefix`` and asserts the exact-matching answer, which is the answer
  of the group that then applies (reasoned per case, in its comment).
* A case id starting with ``departure`` asserts beamcrawl's own answer where
  it departs on purpose (module docstring of :mod:`crawllib.fetch.protocol.robotrules`);
  ``na-`` cases cover features beamcrawl does not have.
"""

from __future__ import annotations

import pickle
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from crawllib.fetch.protocol.robotrules import RobotRules, Rule, parse_robots

DATA = Path(__file__).parents[3] / "data" / "crawler-commons" / "robots"
LF, CR, CRLF = "\n", "\r", "\r\n"
FAKE_ROBOTS_URL = "http://domain.com"


def _names(crawler: str | Sequence[str]) -> list[str]:
    """The agent names crawler-commons' tests pass (split and lowercased)."""
    if not isinstance(crawler, str):
        return [name.lower() for name in crawler]
    return [n for n in re.split(r"\s*,\s*|\s+", crawler.lower().strip()) if n]


def _parse(robots: str | bytes, crawler: str | Sequence[str]) -> RobotRules:
    content = robots.encode() if isinstance(robots, str) else robots
    return parse_robots(content, _names(crawler), "text/plain", FAKE_ROBOTS_URL)


def _file(name: str) -> bytes:
    return (DATA / name).read_bytes()


Row = tuple[str, bool]


def _cases(
    test: str,
    robots: str | bytes,
    crawler: str | Sequence[str],
    rows: Iterable[Row],
    *,
    differ: Iterable[str] = (),
) -> list[object]:
    """One case per (URL, allowed) row; a URL in ``differ`` makes an na-prefix case."""
    marked = set(differ)
    return [
        pytest.param(
            robots,
            crawler,
            url,
            allowed,
            id=f"{'na-prefix-' if url in marked else ''}{test}-{i}",
        )
        for i, (url, allowed) in enumerate(rows)
    ]


def _flip(rows: Iterable[Row], urls: Iterable[str]) -> list[Row]:
    """``rows`` with the answer for ``urls`` inverted (the exact-matching answer)."""
    flipped = set(urls)
    return [(url, not ok if url in flipped else ok) for url, ok in rows]


# --- SimpleRobotRulesParserTest: allowed or not ---------------------------------

FICT = "http://www.fict.com"
FISH_ROWS = [
    (f"{FICT}/fish", False),
    (f"{FICT}/fish.html", False),
    (f"{FICT}/fish/salmon.html", False),
    (f"{FICT}/fishheads", False),
    (f"{FICT}/fishheads/yummy.html", False),
    (f"{FICT}/fish.php?id=anything", False),
    (f"{FICT}/Fish.asp", True),
    (f"{FICT}/catfish", True),
    (f"{FICT}/?id=fish", True),
    (f"{FICT}/fis", True),
]
ORG = "http://www.fict.org"
MIXED_ENDINGS_1 = (
    f"# /robots.txt for http://www.fict.org/{CRLF}# comments to webmaster@fict.org"
    f"{CRLF}User-agent: unhipbot{LF}Disallow: /{CR}{CRLF}User-agent: webcrawler{LF}"
    f"User-agent: excite{CR}Disallow: \u0085{CR}User-agent: *{CRLF}"
    f"Disallow: /org/plans.html{LF}Allow: /org/{CR}Allow: /serv{CRLF}Allow: /~mak{LF}"
    f"Disallow: /{CRLF}"
)
MIXED_ENDINGS_2 = MIXED_ENDINGS_1.replace(
    f"webmaster@fict.org{CRLF}User", f"webmaster@fict.org{LF}{CR}User"
)
RFP = (
    f"# /robots.txt for http://www.fict.org/{CRLF}# comments to webmaster@fict.org"
    f"{CRLF}{CRLF}User-agent: unhipbot{CRLF}Disallow: /{CRLF}{CRLF}"
    f"User-agent: webcrawler{CRLF}User-agent: excite{CRLF}Disallow: {CRLF}{CRLF}"
    f"User-agent: *{CRLF}Disallow: /org/plans.html{CRLF}Allow: /org/{CRLF}"
    f"Allow: /serv{CRLF}Allow: /~mak{CRLF}Disallow: /{CRLF}"
)
RFP_URLS = [
    f"{ORG}/",
    f"{ORG}/index.html",
    f"{ORG}/robots.txt",
    f"{ORG}/server.html",
    f"{ORG}/services/fast.html",
    f"{ORG}/services/slow.html",
    f"{ORG}/orgo.gif",
    f"{ORG}/org/about.html",
    f"{ORG}/org/plans.html",
    f"{ORG}/%7Ejim/jim.html",
    f"{ORG}/%7Emak/mak.html",
]
RFP_WILDCARD = list(
    zip(
        RFP_URLS,
        [False, False, True, True, True, True, False, True, False, False, True],
        strict=True,
    )
)
RFP_UNHIPBOT = list(zip(RFP_URLS, [False] * 2 + [True] + [False] * 8, strict=True))
# the URLs where the "*" group (which exact matching selects for a name with a
# version) and unhipbot's or webcrawler's group answer differently
RFP_WILDCARD_VS_UNHIPBOT = [
    url for (url, a), (_, b) in zip(RFP_WILDCARD, RFP_UNHIPBOT, strict=True) if a != b
]
RFP_WILDCARD_VS_ALL = [url for url, ok in RFP_WILDCARD if not ok]
NUTCH = (
    f"User-Agent: Agent1 #foo{CR}Disallow: /a{CR}Disallow: /b/a{CR}#Disallow: /c{CR}"
    f"{CR}{CR}User-Agent: Agent2 Agent3#foo{CR}User-Agent: Agent4{CR}Disallow: /d{CR}"
    f"Disallow: /e/d/{CR}{CR}User-Agent: *{CR}Disallow: /foo/bar/{CR}"
)
D = "http://www.domain.com"
NUTCH_URLS = [
    "/a",
    "/a/",
    "/a/bloh/foo.html",
    "/b",
    "/b/a",
    "/b/a/index.html",
    "/b/b/foo.html",
    "/c",
    "/c/a",
    "/c/a/index.html",
    "/c/b/foo.html",
    "/d",
    "/d/a",
    "/e/a/index.html",
    "/e/d",
    "/e/d/foo.html",
    "/e/doh.html",
    "/f/index.html",
    "/foo/bar/baz.html",
    "/f/",
]
NUTCH_AGENT1 = [not path.startswith(("/a", "/b/a")) for path in NUTCH_URLS]
NUTCH_AGENT2 = [not path.startswith(("/d", "/e/d/")) for path in NUTCH_URLS]
NUTCH_WILDCARD = [not path.startswith("/foo/bar/") for path in NUTCH_URLS]
NUTCH_MERGED = [
    a and b and c
    for a, b, c in zip(NUTCH_AGENT1, NUTCH_AGENT2, NUTCH_WILDCARD, strict=True)
]


def _nutch(answers: list[bool]) -> list[Row]:
    return [(D + path, ok) for path, ok in zip(NUTCH_URLS, answers, strict=True)]


def _nutch_differ(expected: list[bool], exact: list[bool]) -> list[str]:
    return [
        D + p for p, a, b in zip(NUTCH_URLS, expected, exact, strict=True) if a != b
    ]


HTML_ROBOTS = (
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN"><HTML>\n<HEAD>\n'
    "<TITLE>/robots.txt</TITLE>\n</HEAD>\n<BODY>\nUser-agent: mybot<BR>\n"
    "Disallow: <BR>\nCrawl-Delay: 10<BR>\n\nUser-agent: *<BR>\nDisallow: /<BR>\n"
    "Crawl-Delay: 30<BR>\n\n</BODY>\n</HTML>\n"
)
HERITRIX = (
    "User-agent: *\nDisallow: /cgi-bin/\nDisallow: /details/software\n\n"
    "User-agent: denybot\nDisallow: /\n\nUser-agent: allowbot1\nDisallow: \n\n"
    "User-agent: allowbot2\nDisallow: /foo\nAllow: /\n\nUser-agent: delaybot\n"
    "Disallow: /\nCrawl-Delay: 20\nAllow: /images/\n"
)
KRUGLE = (
    f"User-agent: *{CR}Disallow: /maintenance.html{CR}Disallow: /perl/{CR}"
    f"Disallow: /cgi-bin/{CR}Disallow: /examples/{CR}Crawl-delay: 3{CR}{CR}"
    f"User-agent: googlebot{CR}Crawl-delay: 1{CR}{CR}User-agent: qihoobot{CR}"
    "Disallow: /"
)
KRUGLE_URLS = ["http://www.krugle.com/examples/index.html", "http://www.krugle.com/"]
EMPTY_DISALLOW_LAST = (
    f"User-agent: *{CRLF}Disallow: /disallowed/{CRLF}Allow: /allowed/{CRLF}Disallow: "
)
EMPTY_DISALLOW_GROUP = (
    f"User-agent: *{CRLF}Disallow: /disallowed/{CRLF}Allow: /allowed/{CRLF}"
    f"User-agent: *{CRLF}Disallow: "
)
EX = "http://www.example.com"
EMPTY_DISALLOW_ROWS = [
    (f"{EX}/", True),
    (f"{EX}/anypage.html", True),
    (f"{EX}/disallowed/index.html", False),
    (f"{EX}/allowed/index.html", True),
]
UNICODE_PATHS = (
    f"User-agent: *{CRLF}Disallow: /bücher/{CRLF}Disallow: /k%C3%B6nyvek/{CRLF}{CRLF}"
    f"User-agent: GoodBot{CRLF}Allow: /"
)
WWW = "https://www.example.com"
CRAWL_DELAY_GROUPS = (
    f"User-Agent: bingbot{CRLF}Crawl-delay: 1{CRLF}{CRLF}User-Agent: msnbot{CRLF}"
    f"Crawl-delay: 2{CRLF}{CRLF}User-Agent: pinterestbot{CRLF}Crawl-delay: 0.2{CRLF}"
    f"{CRLF}User-agent: *{CRLF}Disallow: /login{CRLF}"
    f"Sitemap: http://www.example.com/sitemap.xml{CRLF}Disallow: /assets/"
)
BUTTERFLY = (
    "User-agent: Mozilla/5.0 (compatible; Butterfly/1.0; "
    "+http://labs.topsy.com/butterfly/) Gecko/2009032608 Firefox/3.0.8\nDisallow: /"
)
EO = "https://example.org"
EXT_GROUPS = _file("extensions-group-merging.txt")
EC = "https://example.com"

SIMPLE_ALLOWED = [
    *_cases("testEmptyRules", "", "anybot", [(f"{D}/anypage.html", True)]),
    *_cases(
        "testQueryParamInDisallow",
        f"User-agent: *{CRLF}Disallow: /index.cfm?fuseaction=sitesearch.results*",
        "anybot",
        [
            (
                "http://searchservice.domain.com/index.cfm?fuseaction="
                "sitesearch.results&type=People&qry=california&pg=2",
                False,
            )
        ],
    ),
    *_cases(
        "testGooglePatternMatching1",
        f"User-agent: *{CRLF}Disallow: /fish{CRLF}",
        "anybot",
        FISH_ROWS,
    ),
    *_cases(
        "testGooglePatternMatching1*",
        f"User-agent: *{CRLF}Disallow: /fish*{CRLF}",
        "anybot",
        FISH_ROWS,
    ),
    *_cases(
        "testGooglePatternMatching2",
        f"User-agent: *{CRLF}Disallow: /fish/{CRLF}",
        "anybot",
        [
            (f"{FICT}/fish/", False),
            (f"{FICT}/fish/?id=anything", False),
            (f"{FICT}/fish/salmon.htm", False),
            (f"{FICT}/fish", True),
            (f"{FICT}/fish.html", True),
            (f"{FICT}/Fish/Salmon.asp", True),
        ],
    ),
    *_cases(
        "testGooglePatternMatching3",
        f"User-agent: *{CRLF}Disallow: /*.php{CRLF}",
        "anybot",
        [
            (f"{FICT}/filename.php", False),
            (f"{FICT}/folder/filename.php", False),
            (f"{FICT}/folder/filename.php?parameters", False),
            (f"{FICT}/folder/any.php.file.html", False),
            (f"{FICT}/filename.php/", False),
            (f"{FICT}/", True),
            (f"{FICT}/windows.PHP", True),
        ],
    ),
    *_cases(
        "testGooglePatternMatching4",
        f"User-agent: *{CRLF}Disallow: /*.php${CRLF}",
        "anybot",
        [
            (f"{FICT}/filename.php", False),
            (f"{FICT}/folder/filename.php", False),
            (f"{FICT}/filename.php?parameters", True),
            (f"{FICT}/filename.php/", True),
            (f"{FICT}/filename.php5", True),
            (f"{FICT}/windows.PHP", True),
        ],
    ),
    *_cases(
        "testGooglePatternMatching5",
        f"User-agent: *{CRLF}Disallow: /fish*.php{CRLF}",
        "anybot",
        [
            (f"{FICT}/fish.php", False),
            (f"{FICT}/fishheads/catfish.php?parameters", False),
            (f"{FICT}/Fish.PHP", True),
        ],
    ),
    *_cases(
        "testGooglePatternMatching6",
        f"User-agent: *{CRLF}Disallow: /*fish*.php{CRLF}",
        "anybot",
        [
            (f"{FICT}/fish.php", False),
            (f"{FICT}/superfishheads/catfish.php?parameters", False),
            (f"{FICT}/fishheads/catfish.htm", True),
        ],
    ),
    *_cases(
        "testCommentedOutLines",
        "#user-agent: testAgent\n\n#allow: /index.html\n#allow: /test\n\n"
        "#user-agent: test\n\n#allow: /index.html\n#disallow: /test\n\n"
        "#user-agent: someAgent\n\n#disallow: /index.html\n#disallow: /test\n\n",
        "anybot",
        [(f"{D}/anypage.html", True)],
    ),
    *_cases(
        "testRobotsTxtAlwaysAllowed",
        f"User-agent: *{CRLF}Disallow: /",
        "any-darn-crawler",
        [(f"{D}/robots.txt", True)],
    ),
    *_cases(
        "testAgentNotListed",
        f"User-agent: crawler1{CRLF}Disallow: /index.html{CRLF}Allow: /{CRLF}{CRLF}"
        f"User-agent: crawler2{CRLF}Disallow: /",
        "crawler3",
        [(f"{D}/anypage.html", True), (f"{D}/index.html", True)],
    ),
    *_cases(
        "testNonAsciiEncoding",
        f"User-agent: * # \u00a2 \u20b5{CRLF}Disallow:",
        "anybot",
        [(f"{D}/anypage.html", True)],
    ),
    *_cases(
        "testUnicodeUnescapedPaths",
        UNICODE_PATHS,
        "mybot",
        [
            (f"{WWW}/", True),
            (f"{WWW}/b%C3%BCcher/book1.html", False),
            (f"{WWW}/bücher/book2.html", False),
            (f"{WWW}/k%C3%B6nyvek/book1.html", False),
            (f"{WWW}/könyvek/book2.html", False),
        ],
    ),
    *_cases(
        "testUnicodeUnescapedPaths-latin1-goodbot",
        UNICODE_PATHS.encode("latin-1"),
        "goodbot",
        [(f"{WWW}/", True), (f"{WWW}/b%C3%BCcher/book1.html", True)],
    ),
    *_cases(
        "testUnicodeUnescapedPaths-latin1-mybot",
        UNICODE_PATHS.encode("latin-1"),
        "mybot",
        [
            (f"{WWW}/", True),
            (f"{WWW}/k%C3%B6nyvek/book1.html", False),
            (f"{WWW}/könyvek/book2.html", False),
        ],
    ),
    *_cases(
        "testSimplestAllowAll",
        f"User-agent: *{CRLF}Disallow:",
        "anybot",
        [(f"{D}/anypage.html", True)],
    ),
    *_cases(
        "testDisallowWithQueryOnly",
        f"User-agent: *{CRLF}Disallow: /",
        "anybot",
        [(EX, False), (f"{EX}?q=a", False)],
    ),
    # prefix matching: "webcrawler/3.0" names no group exactly, so "*" applies
    *_cases(
        "testMixedEndings1",
        MIXED_ENDINGS_1,
        "WebCrawler/3.0",
        _flip(
            [(f"{ORG}/", True), (f"{ORG}/index.html", True)],
            [f"{ORG}/", f"{ORG}/index.html"],
        ),
        differ=[f"{ORG}/", f"{ORG}/index.html"],
    ),
    *_cases("testMixedEndings2", MIXED_ENDINGS_2, "Unknown/1.0", RFP_WILDCARD),
    # prefix matching: names with a version select "*" under exact matching
    *_cases(
        "testRfpCases-unhipbot",
        RFP,
        "UnhipBot/0.1",
        RFP_WILDCARD,
        differ=RFP_WILDCARD_VS_UNHIPBOT,
    ),
    *_cases(
        "testRfpCases-webcrawler",
        RFP,
        "WebCrawler/3.0",
        RFP_WILDCARD,
        differ=RFP_WILDCARD_VS_ALL,
    ),
    *_cases(
        "testRfpCases-excite",
        RFP,
        "Excite/1.0",
        RFP_WILDCARD,
        differ=RFP_WILDCARD_VS_ALL,
    ),
    *_cases("testRfpCases2", RFP, "Unknown/1.0", RFP_WILDCARD),
    *_cases("testNutchCases-agent1", NUTCH, "Agent1", _nutch(NUTCH_AGENT1)),
    # prefix matching: only "Agent1" names a group exactly ("Agent2 Agent3" is
    # no product token and its leading token is "Agent")
    *_cases(
        "testNutchCases-merged",
        NUTCH,
        "Agent5,Agent2,Agent1,Agent3,*",
        _nutch(NUTCH_AGENT1),
        differ=_nutch_differ(NUTCH_MERGED, NUTCH_AGENT1),
    ),
    *_cases(
        "testNutchCases2-agent2",
        NUTCH,
        "Agent2",
        _nutch(NUTCH_WILDCARD),
        differ=_nutch_differ(NUTCH_AGENT2, NUTCH_WILDCARD),
    ),
    *_cases(
        "testNutchCases2-agent3",
        NUTCH,
        "Agent3",
        _nutch(NUTCH_WILDCARD),
        differ=_nutch_differ(NUTCH_AGENT2, NUTCH_WILDCARD),
    ),
    *_cases("testNutchCases2-agent4", NUTCH, "Agent4", _nutch(NUTCH_AGENT2)),
    *_cases("testNutchCases3", NUTCH, "Agent5", _nutch(NUTCH_WILDCARD)),
    *_cases(
        "testHtmlMarkupInRobotsTxt-mybot",
        HTML_ROBOTS,
        "mybot",
        [(f"{D}/index.html", True)],
    ),
    *_cases(
        "testHtmlMarkupInRobotsTxt-bogusbot",
        HTML_ROBOTS,
        "bogusbot",
        [(f"{D}/index.html", False)],
    ),
    *_cases(
        "testIgnoreOfHtml",
        "<HTML><HEAD><TITLE>Site under Maintenance</TITLE></HTML>",
        "anybot",
        [(f"{D}/", True)],
    ),
    *_cases(
        "testHeritrixCases-allowbot1",
        HERITRIX,
        "Mozilla allowbot1 99.9",
        [(f"{D}/path", True), (f"{D}/", True)],
    ),
    *_cases(
        "testHeritrixCases-allowbot2",
        HERITRIX,
        "Mozilla allowbot2 99.9",
        [(f"{D}/path", True), (f"{D}/", True), (f"{D}/foo", False)],
    ),
    *_cases(
        "testHeritrixCases-denybot",
        HERITRIX,
        "Mozilla denybot 99.9",
        [(f"{D}/path", False), (f"{D}/", False)],
    ),
    *_cases(
        "testHeritrixCases-anonbot",
        HERITRIX,
        "Mozilla anonbot 99.9",
        [(f"{D}/path", True), (f"{D}/cgi-bin/foo.pl", False)],
    ),
    *_cases(
        "testCaseSensitivePaths",
        f"User-agent: *{CRLF}Allow: /AnyPage.html{CRLF}Allow: /somepage.html{CRLF}"
        "Disallow: /",
        "anybot",
        [
            (f"{D}/AnyPage.html", True),
            (f"{D}/anypage.html", False),
            (f"{D}/somepage.html", True),
            (f"{D}/SomePage.html", False),
        ],
    ),
    *_cases(
        "testEmptyDisallow",
        f"User-agent: *{CRLF}Disallow:",
        "anybot",
        [(f"{D}/anypage.html", True)],
    ),
    *_cases(
        "testEmptyAllow",
        f"User-agent: *{CRLF}Allow:",
        "anybot",
        [(f"{D}/anypage.html", True)],
    ),
    *_cases(
        "testEmptyDisallowLowestPrecedence",
        EMPTY_DISALLOW_LAST,
        "anybot",
        EMPTY_DISALLOW_ROWS,
    ),
    *_cases(
        "testEmptyDisallowLowestPrecedence-merged",
        EMPTY_DISALLOW_GROUP,
        "anybot",
        EMPTY_DISALLOW_ROWS,
    ),
    *_cases(
        "testMultiWildcard",
        f"User-agent: *{CRLF}Disallow: /index.html{CRLF}Allow: /{CRLF}{CRLF}"
        f"User-agent: *{CRLF}Disallow: /",
        "anybot",
        [(f"{D}/index.html", False), (f"{D}/anypage.html", True)],
    ),
    *_cases(
        "testMultiMatches",
        f"User-agent: crawlerbot{CRLF}Disallow: /index.html{CRLF}Allow: /{CRLF}{CRLF}"
        f"User-agent: crawler{CRLF}Disallow: /",
        "crawlerbot",
        [(f"{D}/index.html", False), (f"{D}/anypage.html", True)],
    ),
    # prefix matching: the leading token of "crawler1 crawler2" is "crawler",
    # so no group applies under exact matching and all is allowed
    *_cases(
        "testMultiAgentNames",
        f"User-agent: crawler1 crawler2{CRLF}Disallow: /index.html{CRLF}Allow: /",
        "crawler2",
        [(f"{D}/index.html", True), (f"{D}/anypage.html", True)],
        differ=[f"{D}/index.html"],
    ),
    *_cases(
        "testMultiWordAgentName",
        f"User-agent: Download Ninja{CRLF}Disallow: /index.html{CRLF}Allow: /",
        "Download Ninja",
        [(f"{D}/index.html", False), (f"{D}/anypage.html", True)],
    ),
    *_cases(
        "testAgentTokenMatch-version",
        f"User-agent: foo/1.2{CRLF}Disallow: /index.html{CRLF}Allow: /",
        "foo",
        [(f"{D}/index.html", False), (f"{D}/anypage.html", True)],
    ),
    *_cases(
        "testAgentTokenMatch-words",
        f"User-agent: foo bar{CRLF}Disallow: /index.html{CRLF}Allow: /",
        "foo",
        [(f"{D}/index.html", False), (f"{D}/anypage.html", True)],
    ),
    *_cases(
        "testUnsupportedFields",
        f"User-agent: crawler1{CRLF}Disallow: /index.html{CRLF}Allow: /{CRLF}"
        f"newfield: 234{CRLF}User-agent: crawler2{CRLF}Disallow: /",
        "crawler2",
        [(f"{D}/anypage.html", False)],
    ),
    # prefix matching: "googlebot/2.1" names no group exactly, "*" applies
    *_cases(
        "testBrokenKrugleRobotsTxtFile-prefix",
        KRUGLE,
        "googlebot/2.1",
        [(KRUGLE_URLS[0], False), (KRUGLE_URLS[1], True)],
        differ=[KRUGLE_URLS[1]],
    ),
    *_cases(
        "testBrokenKrugleRobotsTxtFile-googlebot",
        KRUGLE,
        "googlebot",
        [(KRUGLE_URLS[0], False), (KRUGLE_URLS[1], False)],
    ),
    *_cases(
        "testBrokenKrugleRobotsTxtFile-qihoobot",
        KRUGLE,
        "qihoobot",
        [(KRUGLE_URLS[0], False), (KRUGLE_URLS[1], False)],
    ),
    *_cases(
        "testBrokenKrugleRobotsTxtFile-anybot",
        KRUGLE,
        "anybot",
        [(KRUGLE_URLS[0], False), (KRUGLE_URLS[1], True)],
    ),
    *[
        case
        for agent in ("bingbot", "msnbot", "anybot")
        for case in _cases(
            f"testSelectCrawlDelayGroup-{agent}",
            CRAWL_DELAY_GROUPS,
            agent,
            [(f"{EX}/login", False), (f"{EX}/assets/", False), (f"{EX}/", True)],
        )
    ],
    *[
        case
        for bom in ("utf8", "utf16le", "utf16be")
        for case in _cases(
            f"testRobotsWith{bom}BOM",
            _file(f"robots-with-{bom}-bom.txt"),
            "foobot",
            [(f"{D}/profile", False)],
        )
    ],
    *_cases(
        "testIgnoringHost",
        _file("www.flot.com-robots.txt"),
        "foobot",
        [("http://www.flot.com/img/", False)],
    ),
    *_cases(
        "testDirectiveTypos-bot1",
        _file("directive-typos-robots.txt"),
        "bot1",
        [
            ("http://domain.com/desallow/", False),
            ("http://domain.com/dissalow/", False),
        ],
    ),
    *[
        case
        for bot, path in (
            ("bot2", "useragent"),
            ("bot3", "useg-agent"),
            ("bot4", "useragent-no-colon"),
        )
        for case in _cases(
            f"testDirectiveTypos-{bot}",
            _file("directive-typos-robots.txt"),
            bot,
            [(f"http://domain.com/{path}/", False)],
        )
    ],
    *_cases(
        "testFormatErrors-bot1",
        _file("format-errors-robots.txt"),
        "bot1",
        [
            ("http://domain.com/whitespace-before-colon/", False),
            ("http://domain.com/no-colon/", False),
        ],
    ),
    *_cases(
        "testFormatErrors-bot2",
        _file("format-errors-robots.txt"),
        "bot2",
        [("http://domain.com/no-colon-useragent/", False)],
    ),
    *_cases(
        "testFormatErrors-bot3",
        _file("format-errors-robots.txt"),
        "bot3",
        [("http://domain.com/whitespace-before-colon/", True)],
    ),
    *_cases(
        "testManyUserAgents-wget",
        _file("many-user-agents.txt"),
        "wget",
        [("http://domain.com/", False)],
    ),
    *_cases(
        "testManyUserAgents-other",
        _file("many-user-agents.txt"),
        "mysuperlongbotnamethatmatchesnothing",
        [("http://domain.com/", True), ("http://domain.com/bot-trap/", False)],
    ),
    *_cases(
        "testManyUserAgentsMergeRules",
        _file("merge-rules.txt"),
        "wget",
        [
            ("http://domain.com/foo/bar/bar.txt", True),
            ("http://domain.com/tmp/bar/bar.txt", False),
            ("http://domain.com/chk/bar/bar.txt", True),
        ],
    ),
    *_cases(
        "testPrecedenceOfRules-wget",
        _file("precedence-of-rules.txt"),
        "wget",
        [
            ("http://domain.com/", True),
            ("http://domain.com/foo/bar", True),
            ("http://domain.com/bar/foo", False),
        ],
    ),
    *_cases(
        "testPrecedenceOfRules-testy",
        _file("precedence-of-rules.txt"),
        "testy",
        [
            ("http://domain.com/", True),
            ("http://domain.com/foo/bar", True),
            ("http://domain.com/foo/blue", False),
            ("http://domain.com/foo/", False),
            ("http://domain.com/foo/tar", False),
        ],
    ),
    *_cases(
        "testMalformedPathInRobotsFile",
        _file("malformed-path.txt"),
        "bot1",
        [
            ("http://en.wikipedia.org/wiki/Wikipedia_talk:Mediation_Committee/", False),
            ("http://en.wikipedia.org/wiki/", True),
        ],
    ),
    *_cases(
        "testDOSlineEndings",
        _file("dos-line-endings.txt"),
        "bot1",
        [("http://ford.com/", True)],
    ),
    *_cases(
        "testAmazonRobotsWithWildcards",
        _file("wildcards.txt"),
        "anybot",
        [
            (f"{FICT}/wishlist/bogus", False),
            (f"{FICT}/wishlist/universal/page", True),
            (f"{FICT}/anydirectoryhere/gcrnsts", False),
        ],
    ),
    *_cases(
        "testAllowBeforeDisallow",
        f"User-agent: *{CRLF}Disallow: /fish{CRLF}Allow: /fish{CRLF}",
        "anybot",
        [(f"{FICT}/fish", True)],
    ),
    *_cases(
        "testSpacesInMultipleUserAgentNames-one",
        f"User-agent: One, Two, Three{CRLF}Disallow: /{CRLF}{CRLF}User-agent: *{CRLF}"
        f"Allow: /{CRLF}",
        "One",
        [(f"{FICT}/fish", False)],
    ),
    # prefix matching: the leading token of "One, Two, Three" is "One" only
    *[
        case
        for agent in ("Two", "Three")
        for case in _cases(
            f"testSpacesInMultipleUserAgentNames-{agent}",
            f"User-agent: One, Two, Three{CRLF}Disallow: /{CRLF}{CRLF}"
            f"User-agent: *{CRLF}Allow: /{CRLF}",
            agent,
            [(f"{FICT}/fish", True)],
            differ=[f"{FICT}/fish"],
        )
    ],
    *_cases(
        "testSpacesInMultipleUserAgentNames-anybot",
        f"User-agent: One, Two, Three{CRLF}Disallow: /{CRLF}{CRLF}User-agent: *{CRLF}"
        f"Allow: /{CRLF}",
        "anybot",
        [(f"{FICT}/fish", True)],
    ),
    *[
        case
        for order, robots in enumerate(
            (
                "User-agent: crawlerbot\nDisallow: /foo/bar\n\nUser-agent: crawler\n"
                "Allow: /foo/bar\n",
                "User-agent: crawler\nAllow: /foo/bar\n\nUser-agent: crawlerbot\n"
                "Disallow: /foo/bar\n",
            )
        )
        for agent, ok in (("crawlerbot", False), ("crawler", True))
        for case in _cases(
            f"testMatchingOfUserAgentNamesIndependentFromSequentialOrder-{order}-{agent}",
            robots,
            agent,
            [("https://example.com/foo/bar", ok)],
        )
    ],
    *_cases(
        "testMatchingUserAgentNamesHttpHeader-exact",
        BUTTERFLY,
        "butterfly",
        [("http://example.org/", True)],
    ),
    *_cases(
        "testMatchingUserAgentNamesHttpHeader-prefix",
        BUTTERFLY,
        "butterfly",
        [("http://example.org/", True)],
    ),
    # prefix matching: "butterfly/1.0;" is in the line, but no name equals it
    # nor its leading token "mozilla"
    *_cases(
        "testMatchingUserAgentNamesHttpHeader-prefix-tokens",
        BUTTERFLY,
        ["butterfly", "butterfly/1.0", "butterfly/1.0;"],
        [("http://example.org/", True)],
        differ=["http://example.org/"],
    ),
    *_cases(
        "testMatchingUserAgentNamesHttpHeader-full-line",
        BUTTERFLY,
        [
            "butterfly",
            "butterfly/1.0",
            "mozilla/5.0 (compatible; butterfly/1.0; "
            "+http://labs.topsy.com/butterfly/) gecko/2009032608 firefox/3.0.8",
        ],
        [("http://example.org/", False)],
    ),
    *_cases(
        "testMatchingUserAgentNamesHttpHeader-other",
        BUTTERFLY,
        ["mybot", "mybot/1.0", "mozilla/5.0 (compatible; mybot/1.0)"],
        [("http://example.org/", True)],
    ),
    *_cases(
        "testExamplesRobotsTxtRFC9309-foobot",
        _file("rfc9309-example-simple-robots.txt"),
        "foobot",
        [
            (f"{EO}/example/page.html", True),
            (f"{EO}/example/allowed.gif", True),
            (f"{EO}/", False),
            (f"{EO}/path/index.html", False),
        ],
    ),
    *[
        case
        for bot in ("barbot", "bazbot")
        for case in _cases(
            f"testExamplesRobotsTxtRFC9309-{bot}",
            _file("rfc9309-example-simple-robots.txt"),
            bot,
            [(f"{EO}/", True), (f"{EO}/example/page.html", False)],
        )
    ],
    *_cases(
        "testExamplesRobotsTxtRFC9309-quxbot",
        _file("rfc9309-example-simple-robots.txt"),
        "quxbot",
        [(f"{EO}/", True), (f"{EO}/example/page.html", True)],
    ),
    *_cases(
        "testExamplesRobotsTxtRFC9309-anyotherbot",
        _file("rfc9309-example-simple-robots.txt"),
        "anyotherbot",
        [
            (f"{EO}/publications/doc1.html", True),
            (f"{EO}/example/page.html", False),
            (f"{EO}/example.gif", False),
            (f"{EO}/", True),
        ],
    ),
    *_cases(
        "testExamplesRobotsTxtRFC9309-longest",
        _file("rfc9309-example-longest-match-robots.txt"),
        "foobot",
        [
            (f"{EO}/example/page/", True),
            (f"{EO}/example/page/index.html", True),
            (f"{EO}/example/page/disallowed.gif", False),
            (f"{EO}/", True),
        ],
    ),
    *_cases(
        "testExamplesRobotsTxtRFC9309-merging-examplebot",
        _file("rfc9309-example-rule-group-merging.txt"),
        "examplebot",
        [
            (f"{EO}/foo", False),
            (f"{EO}/bar", False),
            (f"{EO}/baz", False),
            (f"{EO}/", True),
        ],
    ),
    *_cases(
        "testExamplesRobotsTxtRFC9309-merging-anyotherbot",
        _file("rfc9309-example-rule-group-merging.txt"),
        "anyotherbot",
        [
            (f"{EO}/foo", False),
            (f"{EO}/bar", False),
            (f"{EO}/baz", True),
            (f"{EO}/", True),
        ],
    ),
    *_cases(
        "testExamplesRobotsTxtRFC9309-merging-bazbot",
        _file("rfc9309-example-rule-group-merging.txt"),
        "bazbot",
        [
            (f"{EO}/foo", True),
            (f"{EO}/bar", True),
            (f"{EO}/baz", False),
            (f"{EO}/", True),
        ],
    ),
    *[
        case
        for names, rows in (
            ([], [(f"{WWW}/allowed/page.html", True), (f"{WWW}/", False)]),
            (["anybot"], [(f"{WWW}/allowed/page.html", True), (f"{WWW}/", False)]),
            (["allowedbot"], [(f"{WWW}/", True)]),
        )
        for case in _cases(
            f"testAPIemptyUserAgentList-{'-'.join(names)}",
            f"User-agent: *{CRLF}Allow: /allowed/{CRLF}Disallow: /{CRLF}"
            f"User-agent: allowedbot{CRLF}Allow: /",
            names,
            rows,
        )
    ],
    *_cases(
        "testAPIsanitizeUserAgentList",
        _file("rfc9309-example-simple-robots.txt"),
        ["FOOBOT", "*"],
        [
            (f"{EO}/example/page.html", True),
            (f"{EO}/example/allowed.gif", True),
            (f"{EO}/", False),
            (f"{EO}/path/index.html", False),
        ],
    ),
    *[
        case
        for bot, ok in (("foobot", True), ("anybot", False))
        for case in _cases(
            f"testMatchedWildcard-{bot}",
            f"User-agent: *{CRLF}Allow: /{CRLF}User-agent: anybot{CRLF}"
            "Disallow: /search",
            bot,
            [(f"{WWW}/search", ok), (f"{WWW}/home", True)],
        )
    ],
    *_cases(
        "testExtensionLlmPolicyEnabled",
        f"User-agent: *{CRLF}Allow: /{CRLF}LLM-Policy: /llms.txt{CRLF}"
        "Sitemap: /sitemap.xml",
        [],
        [(f"{D}/anypage.html", True)],
    ),
    *_cases(
        "testExtensionPerGroupNotLeakedFromWildcard",
        f"User-agent: *{CRLF}Request-rate: 1/10m{CRLF}Disallow: /wild/{CRLF}{CRLF}"
        f"User-agent: mybot{CRLF}Disallow: /bot/",
        ["mybot"],
        [(f"{EX}/wild/", True), (f"{EX}/bot/", False)],
    ),
    *_cases(
        "testEnableAllExtensions",
        _file("extension-robots.txt"),
        ["mybot"],
        [
            ("http://domain.com/private/page.html", False),
            ("http://domain.com/public/page.html", True),
        ],
    ),
    *_cases(
        "testExtensionDoesNotAffectCoreRules",
        f"User-agent: *{CRLF}Disallow: /private/{CRLF}Allow: /private/public.html"
        f"{CRLF}LLM-Policy: /llms.txt",
        [],
        [
            ("http://domain.com/private/secret.html", False),
            ("http://domain.com/private/public.html", True),
            ("http://domain.com/other.html", True),
        ],
    ),
    *_cases(
        "testCrawlDelayGroupMerging-mybot",
        _file("crawl-delay-group-merging.txt"),
        ["mybot"],
        [(f"{EC}/private/", False), (f"{EC}/login/", True), (f"{EC}/", True)],
    ),
    *_cases(
        "testCrawlDelayGroupMerging-yourbot",
        _file("crawl-delay-group-merging.txt"),
        ["yourbot"],
        [(f"{EC}/private/", False), (f"{EC}/login/", False), (f"{EC}/", True)],
    ),
    *_cases(
        "testCrawlDelayGroupMerging-anyotherbot",
        _file("crawl-delay-group-merging.txt"),
        ["anyotherbot"],
        [(f"{EC}/private/", True), (f"{EC}/login/", True), (f"{EC}/", True)],
    ),
    *_cases(
        "testExtensionsGroupMerging-mybot",
        EXT_GROUPS,
        ["mybot"],
        [(f"{EC}/private/", False), (f"{EC}/login/", False), (f"{EC}/", True)],
    ),
    *_cases(
        "testExtensionsGroupMerging-yourbot",
        EXT_GROUPS,
        ["yourbot"],
        [(f"{EC}/private/", False), (f"{EC}/login/", False), (f"{EC}/", True)],
    ),
    *_cases(
        "testExtensionsGroupMerging-anyotherbot",
        EXT_GROUPS,
        ["anyotherbot"],
        [
            (f"{EC}/private/", False),
            (f"{EC}/login/", False),
            (f"{EC}/", False),
            (f"{EC}/llms.txt", True),
        ],
    ),
]


@pytest.mark.parametrize(("robots", "crawler", "url", "allowed"), SIMPLE_ALLOWED)
def test_nutch_simple_robot_rules_parser_allows(robots, crawler, url, allowed):
    assert _parse(robots, crawler).allowed(url) is allowed


ESCAPED_PATHS = [
    # (a) percent-encoded white space is not trimmed
    (True, "/*%20", f"{WWW}/"),
    (False, "/*%20", f"{WWW}/foobar%20/"),
    (True, "/*%20", f"{WWW}/foobar/"),
    # (b) %2F matches a literal %2F, not a slash
    (True, "/*%2F*", f"{WWW}/path/index.html"),
    (False, "/*%2F*", f"{WWW}/topic/9%2F11/index.html"),
    (False, "/topic/9%2F11/", f"{WWW}/topic/9%2F11/index.html"),
    (False, "/topic/9%2F11/", f"{WWW}/topic/9%2f11/index.html"),
    (False, "/q?*mime=application%2Fpdf", f"{WWW}/q?mime=application%2Fpdf"),
    # (c) percent-encoded $ and *
    (False, "/$", f"{WWW}/"),
    (True, "/$", f"{WWW}/foobar"),
    (True, "/%24", f"{WWW}/"),
    (False, "/%24", f"{WWW}/%24100"),
    (False, "/%24", f"{WWW}/$100"),
    (True, "/search/%2A/", f"{WWW}/search/foobar/"),
    (False, "/search/%2A/", f"{WWW}/search/%2A/"),
    (False, "/search/%2A/", f"{WWW}/search/%2a/"),
    (False, "/search/%2a/", f"{WWW}/search/%2a/"),
    (False, "/search/%2a/", f"{WWW}/search/*/"),
    (False, "/search/*/", f"{WWW}/search/foobar/"),
    # RFC 9309 2.2.2
    (False, "/foo/bar?baz=quz", f"{WWW}/foo/bar?baz=quz"),
    (False, "/foo/bar?baz=https://foo.bar", f"{WWW}/foo/bar?baz=https://foo.bar"),
    (
        False,
        "/foo/bar?baz=https%3A%2F%2Ffoo.bar",
        f"{WWW}/foo/bar?baz=https%3A%2F%2Ffoo.bar",
    ),
    (False, "/foo/bar/\u30c4", f"{WWW}/foo/bar/%E3%83%84"),
    (False, "/foo/bar/%E3%83%84", f"{WWW}/foo/bar/%E3%83%84"),
    (False, "/foo/bar/%62%61%7A", f"{WWW}/foo/bar/baz"),
    # RFC 9309 2.2.3
    (False, "/path/file-with-a-%2A.html", f"{WWW}/path/file-with-a-*.html"),
    (True, "/path/file-with-a-%2A.html", f"{WWW}/path/file-with-a-foo.html"),
    (False, "/path/file-with-a-%2A.html", f"{WWW}/path/file-with-a-%2A.html"),
    (False, "/path/foo-%24", f"{WWW}/path/foo-$"),
    (True, "/path/foo-%24", f"{WWW}/path/foo-"),
    (False, "/path/foo-%24", f"{WWW}/path/foo-%24"),
]


@pytest.mark.parametrize(("allowed", "disallow", "url"), ESCAPED_PATHS)
def test_nutch_simple_robot_rules_parser_escaped_paths(allowed, disallow, url):
    """testEscapedPaths: special characters, percent-encoded or not."""
    rules = _parse(f"User-agent: *{CRLF}Disallow: {disallow}{CRLF}Allow: /", "mybot")
    assert rules.allowed(url) is allowed


# --- SimpleRobotRulesParserTest: crawl delays, sitemaps, rule counts -------------

DELAYS = [
    pytest.param(HTML_ROBOTS, "mybot", 10.0, id="testHtmlMarkupInRobotsTxt-mybot"),
    pytest.param(
        HTML_ROBOTS, "bogusbot", 30.0, id="testHtmlMarkupInRobotsTxt-bogusbot"
    ),
    pytest.param(
        HERITRIX, "Mozilla denybot 99.9", None, id="testHeritrixCases-denybot"
    ),
    pytest.param(
        HERITRIX, "Mozilla delaybot 99.9", 20.0, id="testHeritrixCases-delaybot"
    ),
    pytest.param(
        f"User-agent: bixo{CR}Crawl-delay: 10{CR}User-agent: foobot{CR}"
        f"Crawl-delay: 20{CR}User-agent: *{CR}Disallow:/baz{CR}",
        "bixo",
        10.0,
        id="testCrawlDelay-1",
    ),
    pytest.param(
        f"User-agent: foobot{CR}Crawl-delay: 20{CR}User-agent: *{CR}Disallow:/baz{CR}",
        "bixo",
        None,
        id="testCrawlDelay-2",
    ),
    # prefix matching: "googlebot/2.1" gets the "*" group's 3 s (not googlebot's 1 s)
    pytest.param(
        KRUGLE,
        "googlebot/2.1",
        3.0,
        id="na-prefix-testBrokenKrugleRobotsTxtFile-prefix",
    ),
    pytest.param(
        KRUGLE, "googlebot", 1.0, id="testBrokenKrugleRobotsTxtFile-googlebot"
    ),
    pytest.param(KRUGLE, "qihoobot", None, id="testBrokenKrugleRobotsTxtFile-qihoobot"),
    pytest.param(KRUGLE, "anybot", 3.0, id="testBrokenKrugleRobotsTxtFile-anybot"),
    pytest.param(
        CRAWL_DELAY_GROUPS, "bingbot", 1.0, id="testSelectCrawlDelayGroup-bing"
    ),
    pytest.param(CRAWL_DELAY_GROUPS, "msnbot", 2.0, id="testSelectCrawlDelayGroup-msn"),
    pytest.param(
        CRAWL_DELAY_GROUPS, "anybot", None, id="testSelectCrawlDelayGroup-any"
    ),
    pytest.param(
        f"User-agent: *{CR}Crawl-delay: 0.5{CR}Disallow:{CR}",
        "bixo",
        0.5,
        id="testFloatingPointCrawlDelay",
    ),
    pytest.param(_file("dos-line-endings.txt"), "bot1", 1.0, id="testDOSlineEndings"),
    pytest.param(
        _file("crawl-delay-group-merging.txt"),
        ["mybot"],
        10.0,
        id="testCrawlDelayGroupMerging-mybot",
    ),
    pytest.param(
        _file("crawl-delay-group-merging.txt"),
        ["yourbot"],
        None,
        id="testCrawlDelayGroupMerging-yourbot",
    ),
    pytest.param(
        _file("crawl-delay-group-merging.txt"),
        ["anyotherbot"],
        30.0,
        id="testCrawlDelayGroupMerging-anyotherbot",
    ),
]


@pytest.mark.parametrize(("robots", "crawler", "delay_s"), DELAYS)
def test_nutch_simple_robot_rules_parser_crawl_delay(robots, crawler, delay_s):
    assert _parse(robots, crawler).crawl_delay_s == delay_s


SITEMAPS = [
    pytest.param(
        _file("sitemap-robots.txt"),
        [
            "http://domain.com/sitemap.xml",
            "http://domain.com/dir/my-sitemap.xml",
            "http://domain.com/dir/MixedCased-sitemap.xml",
        ],
        id="testSitemap",
    ),
    pytest.param(
        _file("relative-sitemap-robots.txt"),
        ["http://domain.com/sitemap.xml"],
        id="testRelativeSitemap",
    ),
    pytest.param(
        _file("sitemap-robots-dedup.txt"),
        ["http://example.org/sitemap.xml"],
        id="testSitemapDedup",
    ),
    pytest.param(
        f"User-agent: a{CRLF}Disallow: /content/dam/{CRLF}{CRLF}User-agent: b"
        f"{CRLF}Disallow: /content/dam/{CRLF}{CRLF}User-agent: c{CRLF}"
        f"Disallow: /content/dam/{CRLF}{CRLF}{CRLF}"
        "Sitemap: https://wwwfoocom/sitemapxml",
        ["https://wwwfoocom/sitemapxml"],
        id="testSitemapAtEndOfFile",
    ),
    pytest.param(
        CRAWL_DELAY_GROUPS,
        ["http://www.example.com/sitemap.xml"],
        id="testSelectCrawlDelayGroup",
    ),
]


@pytest.mark.parametrize(("robots", "sitemaps"), SITEMAPS)
def test_nutch_simple_robot_rules_parser_sitemaps(robots, sitemaps):
    assert list(_parse(robots, "bot1").sitemaps) == sitemaps


def test_nutch_simple_robot_rules_parser_sitemap_with_an_invalid_base_url():
    """testSitemapInvalidBaseUrl: an absolute Sitemap needs no base URL."""
    body = b"Sitemap: https://www.example.com/sitemap.xml"
    rules = parse_robots(body, ["a"], "text/plain", "example.com")
    assert rules.sitemaps == ("https://www.example.com/sitemap.xml",)


RULE_COUNTS = [
    pytest.param("rfc9309-example-simple-robots.txt", "foobot", 3),
    pytest.param("rfc9309-example-simple-robots.txt", "barbot", 1),
    pytest.param("rfc9309-example-simple-robots.txt", "bazbot", 1),
    pytest.param("rfc9309-example-simple-robots.txt", "quxbot", 0),
    pytest.param("rfc9309-example-simple-robots.txt", "anyotherbot", 3),
    pytest.param("rfc9309-example-rule-group-merging.txt", "examplebot", 3),
    pytest.param("rfc9309-example-rule-group-merging.txt", "anyotherbot", 2),
    pytest.param("rfc9309-example-rule-group-merging.txt", "bazbot", 1),
]


@pytest.mark.parametrize(("name", "crawler", "count"), RULE_COUNTS)
def test_nutch_simple_robot_rules_parser_rule_counts(name, crawler, count):
    """testExamplesRobotsTxtRFC9309: how many rules the groups selected have."""
    assert len(_parse(_file(name), crawler).rules) == count


def test_nutch_simple_robot_rules_parser_ignores_html_without_agents():
    """testIgnoreOfHtml: an HTML page is no robots.txt (allowed, not deferred)."""
    body = b"<HTML><HEAD><TITLE>Site under Maintenance</TITLE></HTML>"
    assert _parse(body, "anybot") == RobotRules()


def test_beamcrawl_a_huge_crawl_delay_is_kept_for_the_fetcher():
    """testBigCrawlDelay: crawler-commons forbids all above 300 s by default.

    beamcrawl keeps the delay and lets ``fetcher.max.crawl.delay`` decide (a
    host whose delay is above it is skipped), as StormCrawler's parser does
    with ``setMaxCrawlDelay(Long.MAX_VALUE)``: one limit, the operator's.
    """
    rules = _parse(f"User-agent: *{CR}Crawl-delay: 3600{CR}Disallow:{CR}", "bixo")
    assert (rules.crawl_delay_s, rules.allowed("http://www.domain.com/")) == (
        3600,
        True,
    )


def test_beamcrawl_agent_names_are_sanitized_not_refused():
    """testAPIsanitizeUserAgentList: crawler-commons throws for "FOOBOT" or "*".

    beamcrawl lowercases the names and drops ``*`` itself, as Nutch does
    before it calls crawler-commons (``sanitizeRobotNames``); the rules are
    then those the Java test expects after sanitizing.
    """
    robots = _file("rfc9309-example-simple-robots.txt")
    rules = parse_robots(robots, ["FOOBOT", "*"], "text/plain", FAKE_ROBOTS_URL)
    assert rules == parse_robots(robots, ["foobot"], "text/plain", FAKE_ROBOTS_URL)
    assert len(rules.rules) == 3


NOT_APPLICABLE_SIMPLE = [
    "testAcapFields: number of parser warnings (beamcrawl logs none)",
    "testStatusCodeCreation (4 cases): robots.txt fetch results, which "
    "crawllib.fetch.protocol.robots.verdict_for maps, not the parser",
    "testExtendedStandard, testExtendedStandardWithExtensionsEnabled, "
    "testContentSignal*: extension-robots file not in the copy, extension data",
    "testMatchedWildcard (2): RobotRules has no isMatchedWildcard flag",
    "testOverrideUserAgentMatcher (2): no pluggable agent matcher",
    "extension data (LLM-Policy, Request-rate, Content-Signal, Visit-time, "
    "Clean-param, Host, Comment, Noindex): not kept",
]


# --- GoogleRobotsTxtTest ---------------------------------------------------------

FOO = "http://foo.bar"
GROUPS = (
    "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\n"
    "user-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\n"
    "user-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n"
)
LONG_LINE = "/x/" + "a" * (2083 * 8 - len("/x/") - len("disallow: ") - 1)
LONG_A = "/x/" + "a" * (2083 * 8 - len("/x/") - len("allow: ") - 1)
LONG_B = LONG_A.replace("a", "b")
DOC = "user-agent: FooBot\ndisallow: /\nallow: {}\n"


def _google(
    test: str, robots: str, rows: Iterable[tuple[str, str, bool]]
) -> list[object]:
    return [
        pytest.param(robots, agent, url, ok, id=f"{test}-{i}")
        for i, (agent, url, ok) in enumerate(rows)
    ]


GOOGLE = [
    *_google("GoogleOnlySystemTest-empty", "", [("FooBot", "", True), ("", "", True)]),
    *_google(
        "GoogleOnlySystemTest",
        "user-agent: FooBot\ndisallow: /\n",
        [("", "", True), ("FooBot", "", False)],
    ),
    *_google(
        "ID_LineSyntax_Line",
        "user-agent: FooBot\ndisallow: /\n",
        [("FooBot", f"{FOO}/x/y", False)],
    ),
    *_google(
        "ID_LineSyntax_Line-incorrect",
        "foo: FooBot\nbar: /\n",
        [("FooBot", f"{FOO}/x/y", True)],
    ),
    *_google(
        "ID_LineSyntax_Line-no-colon",
        "user-agent FooBot\ndisallow /\n",
        [("FooBot", f"{FOO}/x/y", False)],
    ),
    *_google(
        "ID_LineSyntax_Groups",
        GROUPS,
        [
            ("FooBot", f"{FOO}/x/b", True),
            ("FooBot", f"{FOO}/z/d", True),
            ("FooBot", f"{FOO}/y/c", False),
            ("BarBot", f"{FOO}/y/c", True),
            ("BarBot", f"{FOO}/w/a", True),
            ("BarBot", f"{FOO}/z/d", False),
            ("BazBot", f"{FOO}/z/d", True),
            ("FooBot", f"{FOO}/foo/bar/", False),
            ("BarBot", f"{FOO}/foo/bar/", False),
            ("BazBot", f"{FOO}/foo/bar/", False),
        ],
    ),
    *_google(
        "ID_LineSyntax_Groups_OtherRules-sitemap",
        "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\n"
        "Disallow: /\n",
        [("FooBot", f"{FOO}/", False), ("BarBot", f"{FOO}/", False)],
    ),
    *_google(
        "ID_LineSyntax_Groups_OtherRules-unknown",
        "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\n"
        "Disallow: /\n",
        [("FooBot", f"{FOO}/", False), ("BarBot", f"{FOO}/", False)],
    ),
    *[
        case
        for style, robots in (
            ("upper", "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n"),
            ("lower", "user-agent: FooBot\nallow: /x/\ndisallow: /\n"),
            ("camel", "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n"),
        )
        for case in _google(
            f"ID_REPLineNamesCaseInsensitive-{style}",
            robots,
            [("FooBot", f"{FOO}/x/y", True), ("FooBot", f"{FOO}/a/b", False)],
        )
    ],
    *[
        case
        for style, robots in (
            ("upper", "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n"),
            ("lower", "user-agent: foo bar\nAllow: /x/\nDisallow: /\n: /\n"),
            ("camel", "uSeR-aGeNt: FoO bAr\nAllow: /x/\nDisallow: /\n"),
        )
        for agent in ("Foo", "foo")
        for case in _google(
            f"ID_UserAgentValueCaseInsensitive-{style}-{agent}",
            robots,
            [(agent, f"{FOO}/x/y", True), (agent, f"{FOO}/a/b", False)],
        )
    ],
    *_google(
        "GoogleOnly_AcceptUserAgentUpToFirstSpace",
        "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n",
        [("Foo", f"{FOO}/x/y", True), ("Foo Bar", f"{FOO}/x/y", True)],
    ),
    *_google("ID_GlobalGroups_Secondary-empty", "", [("FooBot", f"{FOO}/x/y", True)]),
    *_google(
        "ID_GlobalGroups_Secondary-global",
        "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n",
        [("FooBot", f"{FOO}/x/y", False), ("BarBot", f"{FOO}/x/y", True)],
    ),
    *_google(
        "ID_GlobalGroups_Secondary-specific",
        "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\n"
        "user-agent: BazBot\ndisallow: /\n",
        [("QuxBot", f"{FOO}/x/y", True)],
    ),
    *_google(
        "ID_AllowDisallow_Value_CaseSensitive-lower",
        "user-agent: FooBot\ndisallow: /x/\n",
        [("FooBot", f"{FOO}/x/y", False)],
    ),
    *_google(
        "ID_AllowDisallow_Value_CaseSensitive-upper",
        "user-agent: FooBot\ndisallow: /X/\n",
        [("FooBot", f"{FOO}/x/y", True)],
    ),
    *_google(
        "ID_LongestMatch-1",
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n",
        [("FooBot", f"{FOO}/x/page.html", False)],
    ),
    *_google(
        "ID_LongestMatch-2",
        "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n",
        [("FooBot", f"{FOO}/x/page.html", True), ("FooBot", f"{FOO}/x/", False)],
    ),
    *_google(
        "ID_LongestMatch-3",
        "user-agent: FooBot\ndisallow: \nallow: \n",
        [("FooBot", f"{FOO}/x/page.html", True)],
    ),
    *_google(
        "ID_LongestMatch-4",
        "user-agent: FooBot\ndisallow: /\nallow: /\n",
        [("FooBot", f"{FOO}/x/page.html", True)],
    ),
    *_google(
        "ID_LongestMatch-5",
        "user-agent: FooBot\ndisallow: /x\nallow: /x/\n",
        [("FooBot", f"{FOO}/x", False), ("FooBot", f"{FOO}/x/", True)],
    ),
    *_google(
        "ID_LongestMatch-6",
        "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n",
        [("FooBot", f"{FOO}/x/page.html", True)],
    ),
    *_google(
        "ID_LongestMatch-7",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n",
        [("FooBot", f"{FOO}/page.html", False), ("FooBot", f"{FOO}/page", True)],
    ),
    *_google(
        "ID_LongestMatch-8",
        "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n",
        [("FooBot", f"{FOO}/x/page.html", True), ("FooBot", f"{FOO}/x/y.html", False)],
    ),
    *_google(
        "ID_LongestMatch-9",
        "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n",
        [("FooBot", f"{FOO}/x/page", True), ("FooBot", f"{FOO}/y/page", False)],
    ),
    *_google(
        "ID_Encoding-1",
        "User-agent: FooBot\nDisallow: /\n"
        "Allow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n",
        [("FooBot", f"{FOO}/foo/bar?qux=taz&baz=http://foo.bar?tar&par", True)],
    ),
    *_google(
        "ID_Encoding-2",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n",
        [
            ("FooBot", f"{FOO}/foo/bar/%E3%83%84", True),
            ("FooBot", f"{FOO}/foo/bar/ツ", True),
        ],
    ),
    *_google(
        "ID_Encoding-3",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n",
        [
            ("FooBot", f"{FOO}/foo/bar/%E3%83%84", True),
            ("FooBot", f"{FOO}/foo/bar/ツ", True),
        ],
    ),
    *_google(
        "ID_Encoding-4",
        "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n",
        [
            ("FooBot", f"{FOO}/foo/bar/baz", True),
            ("FooBot", f"{FOO}/foo/bar/%62%61%7A", True),
        ],
    ),
    *_google(
        "ID_SpecialCharacters-1",
        "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n",
        [
            ("FooBot", f"{FOO}/foo/bar/quz", False),
            ("FooBot", f"{FOO}/foo/quz", True),
            ("FooBot", f"{FOO}/foo//quz", True),
            ("FooBot", f"{FOO}/foo/bax/quz", True),
        ],
    ),
    *_google(
        "ID_SpecialCharacters-2",
        "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n",
        [
            ("FooBot", f"{FOO}/foo/bar", False),
            ("FooBot", f"{FOO}/foo/bar/qux", True),
            ("FooBot", f"{FOO}/foo/bar/", True),
            ("FooBot", f"{FOO}/foo/bar/baz", True),
        ],
    ),
    *_google(
        "ID_SpecialCharacters-3",
        "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n",
        [("FooBot", f"{FOO}/foo/bar", True), ("FooBot", f"{FOO}/foo/quz", False)],
    ),
    *_google(
        "GoogleOnly_IndexHTMLisDirectory",
        "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n",
        [
            ("foobot", "http://foo.com/allowed-slash/", True),
            ("foobot", "http://foo.com/allowed-slash/index.htm", False),
            ("foobot", "http://foo.com/allowed-slash/index.html", True),
            ("foobot", "http://foo.com/anyother-url", False),
        ],
    ),
    *_google(
        "GoogleOnly_LineTooLong-1",
        f"user-agent: FooBot\ndisallow: {LONG_LINE}/qux\n",
        [("FooBot", f"{FOO}/fux", True), ("FooBot", f"{FOO}{LONG_LINE}/fux", True)],
    ),
    *_google(
        "GoogleOnly_LineTooLong-2",
        f"user-agent: FooBot\ndisallow: /\nallow: {LONG_A}/qux\nallow: {LONG_B}/qux\n",
        [
            ("FooBot", f"{FOO}/", False),
            # the Java test asks about the first part's URL here
            ("FooBot", f"{FOO}{LONG_LINE}/fux", False),
            ("FooBot", f"{FOO}{LONG_B}/fux", False),
        ],
    ),
    *_google(
        "GoogleOnly_DocumentationChecks-fish",
        DOC.format("/fish"),
        [
            ("FooBot", f"{FOO}/bar", False),
            ("FooBot", f"{FOO}/fish", True),
            ("FooBot", f"{FOO}/fish.html", True),
            ("FooBot", f"{FOO}/fish/salmon.html", True),
            ("FooBot", f"{FOO}/fishheads", True),
            ("FooBot", f"{FOO}/fishheads/yummy.html", True),
            ("FooBot", f"{FOO}/fish.html?id=anything", True),
            ("FooBot", f"{FOO}/Fish.asp", False),
            ("FooBot", f"{FOO}/catfish", False),
            ("FooBot", f"{FOO}/?id=fish", False),
        ],
    ),
    *_google(
        "GoogleOnly_DocumentationChecks-fish*",
        DOC.format("/fish*"),
        [
            ("FooBot", f"{FOO}/bar", False),
            ("FooBot", f"{FOO}/fish", True),
            ("FooBot", f"{FOO}/fish.html", True),
            ("FooBot", f"{FOO}/fish/salmon.html", True),
            ("FooBot", f"{FOO}/fishheads", True),
            ("FooBot", f"{FOO}/fishheads/yummy.html", True),
            ("FooBot", f"{FOO}/fish.html?id=anything", True),
            ("FooBot", f"{FOO}/Fish.bar", False),
            ("FooBot", f"{FOO}/catfish", False),
            ("FooBot", f"{FOO}/?id=fish", False),
        ],
    ),
    *_google(
        "GoogleOnly_DocumentationChecks-fish/",
        DOC.format("/fish/"),
        [
            ("FooBot", f"{FOO}/bar", False),
            ("FooBot", f"{FOO}/fish/", True),
            ("FooBot", f"{FOO}/fish/salmon", True),
            ("FooBot", f"{FOO}/fish/?salmon", True),
            ("FooBot", f"{FOO}/fish/salmon.html", True),
            ("FooBot", f"{FOO}/fish/?id=anything", True),
            ("FooBot", f"{FOO}/fish", False),
            ("FooBot", f"{FOO}/fish.html", False),
            ("FooBot", f"{FOO}/Fish/Salmon.html", False),
        ],
    ),
    *_google(
        "GoogleOnly_DocumentationChecks-php",
        DOC.format("/*.php"),
        [
            ("FooBot", f"{FOO}/bar", False),
            ("FooBot", f"{FOO}/filename.php", True),
            ("FooBot", f"{FOO}/folder/filename.php", True),
            ("FooBot", f"{FOO}/folder/filename.php?parameters", True),
            ("FooBot", f"{FOO}//folder/any.php.file.html", True),
            ("FooBot", f"{FOO}/filename.php/", True),
            ("FooBot", f"{FOO}/index?f=filename.php/", True),
            ("FooBot", f"{FOO}/php/", False),
            ("FooBot", f"{FOO}/index?php", False),
            ("FooBot", f"{FOO}/windows.PHP", False),
        ],
    ),
    *_google(
        "GoogleOnly_DocumentationChecks-php$",
        DOC.format("/*.php$"),
        [
            ("FooBot", f"{FOO}/bar", False),
            ("FooBot", f"{FOO}/filename.php", True),
            ("FooBot", f"{FOO}/folder/filename.php", True),
            ("FooBot", f"{FOO}/filename.php?parameters", False),
            ("FooBot", f"{FOO}/filename.php/", False),
            ("FooBot", f"{FOO}/filename.php5", False),
            ("FooBot", f"{FOO}/php/", False),
            ("FooBot", f"{FOO}/filename?php", False),
            ("FooBot", f"{FOO}/aaaphpaaa", False),
            ("FooBot", f"{FOO}//windows.PHP", False),
        ],
    ),
    *_google(
        "GoogleOnly_DocumentationChecks-fish*php",
        DOC.format("/fish*.php"),
        [
            ("FooBot", f"{FOO}/bar", False),
            ("FooBot", f"{FOO}/fish.php", True),
            ("FooBot", f"{FOO}/fishheads/catfish.php?parameters", True),
            ("FooBot", f"{FOO}/Fish.PHP", False),
        ],
    ),
    *_google(
        "GoogleOnly_DocumentationChecks-order-1",
        "user-agent: FooBot\nallow: /p\ndisallow: /\n",
        [("FooBot", "http://example.com/page", True)],
    ),
    *_google(
        "GoogleOnly_DocumentationChecks-order-2",
        "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n",
        [("FooBot", "http://example.com/folder/page", True)],
    ),
    *_google(
        "GoogleOnly_DocumentationChecks-order-3",
        "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n",
        [("FooBot", "http://example.com/page.htm", False)],
    ),
    *_google(
        "GoogleOnly_DocumentationChecks-order-4",
        "user-agent: FooBot\nallow: /$\ndisallow: /\n",
        [
            ("FooBot", "http://example.com/", True),
            ("FooBot", "http://example.com/page.html", False),
        ],
    ),
]


@pytest.mark.parametrize(("robots", "agent", "url", "allowed"), GOOGLE)
def test_nutch_google_robots_txt(robots, agent, url, allowed):
    """GoogleRobotsTxtTest: Google's robots_test.cc as crawler-commons reads it."""
    rules = parse_robots(
        robots.encode(), [agent.lower()], "text/plain", FAKE_ROBOTS_URL
    )
    assert rules.allowed(url) is allowed


@pytest.mark.parametrize("first", [True, False])
def test_nutch_google_robots_txt_sitemap_anywhere(first):
    """ID_NonStandardLineExample_Sitemap: a Sitemap line may be anywhere."""
    groups = "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n"
    line = "Sitemap: http://foo.bar/sitemap.xml\n"
    robots = line + groups if first else groups + line
    assert _parse(robots, []).sitemaps == ("http://foo.bar/sitemap.xml",)


NOT_APPLICABLE_GOOGLE = [
    "ID_VerifyValidUserAgentsToObey (10): the product-token check is private "
    "(robotrules._PRODUCT_TOKEN), exercised by the agent-matching vectors",
    "ID_LinesNumbersAreCountedCorrectly, ID_UTF8ByteOrderMarkIsSkipped, "
    "TestGetPathParamsQuery, TestMaybeEscapePattern: empty in crawler-commons",
]


# --- SimpleRobotRulesTest --------------------------------------------------------


def test_nutch_simple_robot_rules_survive_serialization():
    """testSerialization: rules that cross a process boundary are equal (pickle)."""
    rules = RobotRules((Rule(True, "/images/"),), sitemaps=("http://h/sitemap.xml",))
    copy = pickle.loads(pickle.dumps(rules))
    assert copy == rules
    assert copy.allowed("http://h/images/x")
    assert not copy.forbid_all


def test_beamcrawl_robots_txt_is_allowed_whatever_its_query():
    """testRobotsTxtAlwaysAllowed: crawler-commons allows exactly ``/robots.txt``.

    protego allows ``/robots.txt?x`` too; fetching robots.txt itself is no
    crawl of the site's content, so the difference is left as it is.
    """
    rules = _parse(f"User-agent: *{CRLF}Disallow: /", "any-darn-crawler")
    assert rules.allowed(f"{D}/robots.txt?x=1") is True
