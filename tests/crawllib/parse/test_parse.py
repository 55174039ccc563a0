import dataclasses
import hashlib
from typing import Any

from crawllib.config import ParseConfig, load_properties
from crawllib.fetch.records import REDIRECT_DISCOVERED, TRUNCATED
from crawllib.parse.parse import PageParser, ParseSkip, is_truncated, skip_reason
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page

CONFIG = ParseConfig.from_properties(load_properties())
URL = "http://www.a.com/dir/page.html"
HTML = (
    b"<html><head><title>The Title</title></head><body><p>Hello world</p>"
    b'<a href="other.html">Other</a> <a href="http://b.org/x.gif">img</a>'
    b'<a href="http://b.org/">B</a></body></html>'
)


def _fetched(content: bytes = HTML, **fields: Any) -> Any:
    fields.setdefault("status", CrawlStatus.FETCHED)
    fields.setdefault("contentType", "text/html")
    fields.setdefault("markers", {"_gnmrk_": "s1", "_ftcmrk_": "s1"})
    return new_page(URL, content=content, **fields)


def _parse(page: Any, config: ParseConfig = CONFIG) -> Any:
    parser = PageParser(config)
    try:
        return parser.parse_page(page)
    finally:
        parser.close()


def test_nutch_successful_parse_sets_text_title_signature_outlinks_and_mark():
    old_signature = b"\x01" * 16
    page = _parse(_fetched(signature=old_signature))
    assert page["parseStatus"] == {"majorCode": 1, "minorCode": 0, "args": []}
    assert page["title"] == "The Title"
    assert page["text"].split() == [
        "The",
        "Title",
        "Hello",
        "world",
        "Other",
        "img",
        "B",
    ]
    assert page["signature"] == hashlib.md5(HTML).digest()
    assert page["prevSignature"] == old_signature
    assert page["outlinks"] == {
        "http://www.a.com/dir/other.html": "Other",
        "http://b.org/": "B",
    }
    assert page["markers"]["__prsmrk__"] == "s1"
    assert page["metadata"]["OriginalCharEncoding"]


def test_nutch_text_profile_signature_is_configurable():
    config = dataclasses.replace(CONFIG, signature="text_profile")
    one = _parse(_fetched(), config)["signature"]
    two = _parse(_fetched(HTML.replace(b"Hello world", b"Hello  world!")), config)[
        "signature"
    ]
    assert one == two
    assert one != hashlib.md5(HTML).digest()


def test_nutch_only_fetched_pages_are_parsed():
    for status in (CrawlStatus.REDIR_TEMP, CrawlStatus.GONE, CrawlStatus.NOTMODIFIED):
        page = _fetched(status=status)
        assert _parse(page) == page


def test_nutch_meta_refresh_records_the_redirect_only():
    html = b'<html><head><meta http-equiv="refresh" content="0; url=/target.html">'
    page = _parse(_fetched(html))
    assert page["parseStatus"]["majorCode"] == 1
    assert page["parseStatus"]["minorCode"] == 100
    assert page["outlinks"] == {"http://www.a.com/target.html": ""}
    assert page["metadata"][REDIRECT_DISCOVERED] == b"y"
    assert (
        page["reprUrl"] == "http://www.a.com/target.html"
    )  # temporary: fewer path parts
    assert "__prsmrk__" not in page["markers"]
    assert page["text"] is None


def test_nutch_failed_parse_changes_only_the_parse_status():
    page = _fetched(b"\x00\xff\x00\xfe" * 100, contentType="application/x-unknown")
    parsed = _parse(page)
    assert parsed["parseStatus"]["majorCode"] == 0  # notparsed: no parser for it
    assert {k: v for k, v in parsed.items() if k != "parseStatus"} == {
        k: v for k, v in page.items() if k != "parseStatus"
    }


def test_binary_junk_labelled_html_never_raises():
    junk = bytes(range(256)) * 50
    parsed = _parse(_fetched(junk))
    assert parsed["parseStatus"]["majorCode"] in (1, 2)


def test_nutch_skip_rules_in_mapper_order():
    unfetched = new_page(URL, status=CrawlStatus.FETCHED)
    assert skip_reason(unfetched, CONFIG) is ParseSkip.NOT_FETCHED
    parsed = _fetched(markers={"_ftcmrk_": "s", "__prsmrk__": "s"})
    assert skip_reason(parsed, CONFIG) is None
    assert skip_reason(parsed, CONFIG, resume=True) is ParseSkip.ALREADY_PARSED
    assert skip_reason(parsed, CONFIG, resume=True, force=True) is None


def test_nutch_truncated_pages_are_skipped_unless_configured():
    by_header = _fetched(b"abc", headers={"Content-Length": "10"})
    by_flag = _fetched(b"abc", metadata={TRUNCATED: b"true"})
    whole = _fetched(b"abc", headers={"content-length": "3"})
    assert is_truncated(by_header)
    assert is_truncated(by_flag)
    assert not is_truncated(whole)
    assert skip_reason(by_header, CONFIG) is ParseSkip.TRUNCATED
    keep = dataclasses.replace(CONFIG, skip_truncated=False)
    assert skip_reason(by_header, keep) is None
