import codecs
import random

import pytest

from crawllib.parse import Outlink
from crawllib.parse.text import collapse_whitespace, parse_text
from crawllib.status import ParseMajor

URL = "http://example.com/notes.txt"
BIG5_TEXT = (
    "中華民國的首都是臺北市。這是一個用來測試字元編碼偵測的繁體中文段落、內容需要足夠長、"
    "才能讓偵測程式有把握地判斷編碼。我們在這裡多寫幾句話、讓文字看起來更自然一些。"
    "台灣的山很高、海很藍、人民很友善。夜市裡有很多好吃的小吃、例如珍珠奶茶和蚵仔煎。"
)


def _parse(
    content,
    headers=None,
    content_type="text/plain",
    default="windows-1252",
    min_confidence=-1,
):
    return parse_text(
        URL, content, content_type, headers or {}, default, min_confidence
    )


def _encoding(result):
    metadata = dict(result.metadata)
    assert metadata["OriginalCharEncoding"] == metadata["CharEncodingForConversion"]
    return metadata["OriginalCharEncoding"]


def test_nutch_plain_text_is_parsed_with_empty_title_and_collapsed_whitespace():
    # Tika's TXTParser puts the text in one <p>; DOMContentUtils collapses it.
    result = _parse("  Grüße aus Köln\n\n\tZweite  Zeile \r\n".encode())
    assert result.major is ParseMajor.SUCCESS
    assert result.title == ""
    assert result.text == "Grüße aus Köln Zweite Zeile"
    assert _encoding(result) == "utf-8"


def test_nutch_only_ascii_whitespace_is_collapsed():
    # Java's \s and String.trim: a no-break space is text.
    assert (
        _parse("a\u00a0\u00a0b\u2003\u2003c".encode()).text
        == "a\u00a0\u00a0b\u2003\u2003c"
    )


@pytest.mark.parametrize(
    ("bom", "codec", "name"),
    [
        (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16le"),
        (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16be"),
        (codecs.BOM_UTF8, "utf-8", "utf-8"),
        (codecs.BOM_UTF32_LE, "utf-32-le", "utf-32le"),
    ],
)
def test_byte_order_mark_decides_and_is_dropped(bom, codec, name):
    result = _parse(bom + "Olá, 世界 mundo".encode(codec))
    assert result.text == "Olá, 世界 mundo"
    assert _encoding(result) == name


def test_beamcrawl_byte_order_mark_beats_the_header_charset():
    content = codecs.BOM_UTF16_LE + "naïve text".encode("utf-16-le")
    result = _parse(content, {"Content-Type": "text/plain; charset=ISO-8859-1"})
    assert result.text == "naïve text"


def test_nutch_gbk_declared_by_header_is_read_as_gb18030():
    # EncodingDetector's alias GBK -> GB18030 (a superset).
    content = "中文测试简体字的内容。".encode("gbk")
    result = _parse(content, {"content-type": 'text/plain; charset="GBK"'})
    assert result.text == "中文测试简体字的内容。"
    assert _encoding(result) == "gb18030"


def test_charset_in_the_content_type_argument_counts_too():
    result = _parse(
        "Привет".encode("koi8-r"), content_type="text/plain; charset=koi8-r"
    )
    assert result.text == "Привет"
    assert _encoding(result) == "koi8-r"


def test_nutch_iso_8859_1_is_read_as_windows_1252():
    content = b"\x93smart quotes\x94 \xe9t\xe9"
    result = _parse(content, {"Content-Type": "text/plain; charset=iso-8859-1"})
    assert result.text == "\u201csmart quotes\u201d été"
    assert _encoding(result) == "windows-1252"


def test_nutch_undeclared_big5_is_read_with_the_default():
    # encodingdetector.charset.min.confidence -1: no detector, as Nutch
    content = BIG5_TEXT.encode("big5")
    result = _parse(content)
    assert result.text == collapse_whitespace(content.decode("cp1252", "replace"))
    assert _encoding(result) == "windows-1252"


def test_nutch_undeclared_big5_is_detected_when_the_detector_is_on():
    result = _parse(BIG5_TEXT.encode("big5"), min_confidence=80)
    assert result.text == BIG5_TEXT
    assert _encoding(result) == "big5"


def test_undeclared_valid_utf8_is_utf8_and_ascii_is_the_default_encoding():
    assert _encoding(_parse("日本語".encode())) == "utf-8"
    assert _encoding(_parse(b"plain ascii", default="utf-8")) == "utf-8"
    assert _encoding(_parse(b"plain ascii")) == "windows-1252"


@pytest.mark.parametrize("charset", ["x-klingon", "base64", "rot13", "utf\x00"])
def test_unknown_or_non_text_header_charsets_are_passed_over(charset):
    headers = {"Content-Type": f"text/plain; charset={charset}"}
    result = _parse("Grüße".encode(), headers)
    assert result.text == "Grüße"
    assert _encoding(result) == "utf-8"


def test_bad_bytes_in_the_declared_charset_become_replacement_characters():
    result = _parse(b"ok \xff\xfe bytes", {"Content-Type": "text/plain; charset=utf-8"})
    assert result.text == "ok \ufffd\ufffd bytes"


def test_unknown_default_encoding_falls_back_to_windows_1252():
    result = _parse(b"caf\xe9 \x80 \x81" * 3, default="no-such-charset")
    assert result.major is ParseMajor.SUCCESS
    assert result.text == "café € \ufffdcafé € \ufffdcafé € \ufffd"
    assert _encoding(result) == "windows-1252"


def test_nutch_undeclared_windows_1252_is_read_with_the_default():
    # issue 11: "Tarte à la crème" came out as windows-1250, "5 €" as UTF-16BE
    text = "Tarte à la crème, „Preis“: 5 € \u2013 naïve"
    for min_confidence in (-1, 0):
        result = _parse(text.encode("cp1252"), min_confidence=min_confidence)
        assert result.text == text
        assert _encoding(result) == "windows-1252"


@pytest.mark.parametrize("seed", range(5))
def test_binary_junk_as_text_plain_is_read_with_the_default(seed):
    junk = random.Random(seed).randbytes(8192)
    result = _parse(junk)
    assert result.major is ParseMajor.SUCCESS
    assert result.text == collapse_whitespace(junk.decode("cp1252", "replace"))
    assert _encoding(result) == "windows-1252"


@pytest.mark.parametrize("seed", range(5))
def test_binary_junk_with_the_detector_on_never_raises(seed):
    junk = random.Random(seed).randbytes(8192)
    result = _parse(junk, min_confidence=0)
    assert result.major is ParseMajor.SUCCESS
    assert result.text == result.text.strip(" \t\n\r")
    assert _encoding(result)


def test_empty_content_is_an_empty_successful_parse():
    result = _parse(b"")
    assert result.major is ParseMajor.SUCCESS
    assert result.text == ""
    assert result.outlinks == ()


def test_nutch_outlinks_are_urls_found_in_the_text():
    # TikaParser falls back to OutlinkExtractor when the DOM has no anchors;
    # its regex takes trailing ',' and '.' and any scheme, anchor "".
    text = (
        "See http://example.com/a?b=1#top and mailto:me@example.org, or\n"
        "ftp://files.example.org/x.tar.gz. Not a link: 10:30 or x: y."
    )
    assert _parse(text.encode()).outlinks == (
        Outlink("http://example.com/a?b=1#top"),
        Outlink("mailto:me@example.org,"),
        Outlink("ftp://files.example.org/x.tar.gz."),
    )
