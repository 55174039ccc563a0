"""Tests for crawllib.parse.charset, the one decoder of html, text and feed.

The parsers' own tests (test_html, test_text, test_feed) check decoding
through them; these pin the order of the clues, the sniffers, the label
guards and the recorded names.
"""

from __future__ import annotations

import codecs
import encodings.aliases
import random
from pathlib import Path

import pytest

from crawllib.config.parse import HtmlConfig, ParseConfig
from crawllib.config.properties import Properties
from crawllib.errors import ConfigError
from crawllib.parse.charset import (
    ENCODING_KEYS,
    SNIFF_BYTES,
    CharsetGuess,
    decode_document,
    detect_charset,
    encoding_metadata,
    meta_charset,
    resolve_charset,
    xml_encoding,
)
from crawllib.parse.dispatch import Parsers

LATIN = "Grüße, naïve café"
# the first paragraph of the Russian corpus (bash's help text for "function")
CORPUS = Path(__file__).parents[2] / "data" / "charsets"
RUSSIAN = (CORPUS / "ru.txt").read_text(encoding="utf-8").split("\n")[1]
META = b'<meta http-equiv="Content-Type" content="text/html; charset=%s">'


def _header(charset: str) -> dict[str, str | None]:
    return {"Content-Type": f"text/html; charset={charset}"}


def test_decode_document_uses_the_documents_declaration_after_the_header():
    content = "Grüße".encode("latin-1")

    assert decode_document(content, {}, "utf-8", "iso-8859-15") == (
        "Grüße",
        "iso-8859-15",
    )
    header = {"Content-Type": "text/xml; charset=utf-8"}
    assert decode_document(content, header, "utf-8", "latin1")[1] == "utf-8"


@pytest.mark.parametrize(
    ("headers", "content_type", "declared", "recorded"),
    [
        (_header("koi8-r"), "text/plain; charset=iso-8859-5", "cp1251", "koi8-r"),
        ({}, "text/plain; charset=iso-8859-5", "cp1251", "iso-8859-5"),
        ({}, "text/plain", "cp1251", "windows-1251"),
        (_header("bogus"), "text/plain; charset=bogus", "koi8-u", "koi8-u"),
    ],
    ids=["header", "content-type", "declared", "unusable-labels"],
)
def test_clues_in_order_header_content_type_declared(
    headers, content_type, declared, recorded
):
    content = b"plain \xe9 text " * 3

    _, name = decode_document(
        content, headers, "windows-1252", declared, content_type=content_type
    )

    assert name == recorded


def test_beamcrawl_byte_order_mark_beats_every_declaration():
    content = codecs.BOM_UTF8 + LATIN.encode()

    assert decode_document(content, _header("latin1"), "ascii", "gbk") == (
        LATIN,
        "utf-8",
    )


@pytest.mark.parametrize(
    ("bom", "codec", "recorded"),
    [
        (codecs.BOM_UTF32_LE, "utf-32-le", "utf-32le"),  # starts as UTF-16 LE's
        (codecs.BOM_UTF32_BE, "utf-32-be", "utf-32be"),
        (codecs.BOM_UTF16_LE, "utf-16-le", "utf-16le"),
        (codecs.BOM_UTF16_BE, "utf-16-be", "utf-16be"),
    ],
)
def test_byte_order_marks(bom, codec, recorded):
    assert decode_document(bom + LATIN.encode(codec), {}, "utf-8") == (
        LATIN,
        recorded,
    )


def test_nutch_header_is_found_in_any_case_and_none_is_skipped():
    headers = {"Server": "x", "content-TYPE": None, "CONTENT-TYPE": "text/html"}
    headers["content-type"] = 'text/html; charset="GBK"'

    text, name = decode_document("中文".encode("gbk"), headers, "utf-8")

    assert (text, name) == ("中文", "gb18030")


def test_sniffer_runs_only_when_no_bom_or_header_decides():
    calls: list[bytes] = []

    def sniff(content: bytes) -> str:
        calls.append(content)
        return "koi8-r"

    decode_document(codecs.BOM_UTF8 + b"x", {}, "utf-8", sniff)
    decode_document(b"x", _header("utf-8"), "utf-8", sniff)
    assert calls == []
    assert decode_document("Привет".encode("koi8-r"), {}, "utf-8", sniff) == (
        "Привет",
        "koi8-r",
    )
    assert calls == ["Привет".encode("koi8-r")]


@pytest.mark.parametrize(
    "label",
    ["utf\x00", "utf-8\x00junk", "\udc80", "x" * 500, "", " ", "'\"", "base64",
     "rot13", "hex", "zlib", "utf-7", "idna", "punycode", "undefined",
     "unicode-escape", "charmap", "aliases", "encodings.utf_8", ".."],
)  # fmt: skip
def test_beamcrawl_junk_labels_are_passed_over_never_raised(label):
    content = LATIN.encode()

    assert resolve_charset(label) is None
    assert decode_document(content, _header(label), label, label) == (LATIN, "utf-8")
    assert decode_document(b"ascii", {}, label, content_type=f"a; charset={label}") == (
        "ascii",
        "windows-1252",
    )


@pytest.mark.parametrize(
    ("label", "by_header"),
    [("utf-16", "utf-16"), ("UTF-16LE", "utf-16le"), ("utf-32be", "utf-32be")],
)
def test_beamcrawl_declared_utf16_or_utf32_means_utf8(label, by_header):
    html = b"<html><head>" + META % label.encode() + "</head>é".encode()
    xml = f"<?xml version='1.0' encoding='{label}'?><a>é</a>".encode()

    assert decode_document(html, {}, "ascii", meta_charset) == (
        "<html><head>" + (META % label.encode()).decode() + "</head>é",
        "utf-8",
    )
    assert decode_document(xml, {}, "ascii", xml_encoding)[1] == "utf-8"
    # a header was not read from the bytes: it is believed
    assert decode_document(b"", _header(label), "ascii")[1] == by_header


def test_beamcrawl_undeclared_content():
    assert decode_document(b"plain", {}, "iso-8859-15") == ("plain", "iso-8859-15")
    assert decode_document(b"plain", {}, "no-such") == ("plain", "windows-1252")
    assert decode_document(LATIN.encode(), {}, "ascii") == (LATIN, "utf-8")
    assert decode_document(b"\x00" * 100, {}, "iso-8859-15") == (
        "\x00" * 100,
        "iso-8859-15",
    )


@pytest.mark.parametrize(
    "text", ["<p>Tarte à la crème</p>", "Preis: 5 €", "„Grüße“ \u2013 naïve café"]
)
def test_nutch_undeclared_windows_1252_is_read_with_the_default(text):
    # issue 11: these came out as windows-1250 and UTF-16BE before
    content = text.encode("cp1252")

    assert decode_document(content, {}, "windows-1252") == (text, "windows-1252")
    # with the detector on, it finds nothing against the default either
    assert decode_document(content, {}, "windows-1252", min_confidence=0) == (
        text,
        "windows-1252",
    )
    assert detect_charset(content) is None


def test_nutch_undeclared_legacy_charset_is_read_with_the_default():
    # encodingdetector.charset.min.confidence -1: no detector runs
    content = RUSSIAN.encode("koi8-r")

    assert decode_document(content, {}, "windows-1252") == (
        content.decode("cp1252", "replace"),
        "windows-1252",
    )
    assert decode_document(content, {}, "windows-1251")[1] == "windows-1251"


def test_nutch_detector_guess_is_used_when_its_confidence_reaches_the_threshold():
    content = RUSSIAN.encode("koi8-r")
    guess = detect_charset(content)
    assert guess == CharsetGuess("koi8-r", "koi8-r", 100)

    for threshold in (0, 80, 100):
        assert decode_document(
            content, {}, "windows-1252", min_confidence=threshold
        ) == (RUSSIAN, "koi8-r")
    assert decode_document(content, {}, "windows-1252", min_confidence=101) == (
        content.decode("cp1252", "replace"),
        "windows-1252",
    )


def test_beamcrawl_confidence_needs_evidence():
    # a short text gives the detector little to go on: at most one point
    # of confidence per byte that ASCII text does not hold
    for chars in (8, 20, 40, 60):
        content = RUSSIAN[:chars].encode("koi8-r")
        telling = sum(byte >= 0x80 for byte in content)
        guess = detect_charset(content)
        assert guess is None or guess.confidence <= telling, chars


def test_nutch_content_of_four_bytes_or_less_is_never_detected():
    content = "Дом!".encode("koi8-r")

    assert detect_charset(content) is None
    assert decode_document(content, {}, "windows-1252", min_confidence=0) == (
        content.decode("cp1252"),
        "windows-1252",
    )


def test_beamcrawl_declared_charset_wins_over_a_confident_guess():
    # Nutch lets a detector clue at the threshold outvote header and meta
    content = RUSSIAN.encode("koi8-r")
    meta = META % b"windows-1251" + content

    assert decode_document(
        content, _header("windows-1251"), "windows-1252", min_confidence=0
    ) == (content.decode("cp1251"), "windows-1251")
    assert decode_document(
        meta, {}, "windows-1252", meta_charset, min_confidence=0
    ) == (meta.decode("cp1251"), "windows-1251")


def test_beamcrawl_valid_utf8_is_read_before_any_detector():
    content = RUSSIAN.encode()

    assert decode_document(content, {}, "windows-1252", min_confidence=0) == (
        RUSSIAN,
        "utf-8",
    )


def test_utf16_without_a_byte_order_mark_needs_the_detector():
    page = "<html><body>" + "hello, world: a page of text. " * 5 + "</body></html>"
    content = page.encode("utf-16-le")

    nuls = "".join(c + "\x00" for c in page)
    assert decode_document(content, {}, "utf-8") == (nuls, "utf-8")
    assert decode_document(content, {}, "utf-8", min_confidence=80) == (
        page,
        "utf-16le",
    )


def test_nutch_min_confidence_property():
    assert HtmlConfig.from_properties(Properties()).charset_min_confidence == -1
    props = Properties({"encodingdetector.charset.min.confidence": " 60 "})
    assert HtmlConfig.from_properties(props).charset_min_confidence == 60
    bad = Properties({"encodingdetector.charset.min.confidence": "high"})
    with pytest.raises(ConfigError, match=r"encodingdetector\.charset\.min\."):
        HtmlConfig.from_properties(bad)


@pytest.mark.parametrize("threshold", [-1, 80])
def test_every_parser_reads_undeclared_bytes_alike(threshold):
    props = Properties({"encodingdetector.charset.min.confidence": str(threshold)})
    parsers = Parsers(ParseConfig.from_properties(props))
    title = RUSSIAN.split(".")[0]
    documents = {
        "text/html": f"<html><head><title>{title}</title></head>"
        f"<body>{RUSSIAN}</body></html>",
        "application/rss+xml": f'<?xml version="1.0"?><rss><channel><title>{title}'
        f"</title><description>{RUSSIAN}</description></channel></rss>",
        "text/plain": f"{title}\n\n{RUSSIAN}",
    }
    expected = "koi8-r" if threshold >= 0 else "windows-1252"

    try:
        for media, document in documents.items():
            content = document.encode("koi8-r")
            result = parsers.parse("http://h/x", content, media, {})
            assert dict(result.metadata)["OriginalCharEncoding"] == expected, media
            assert (RUSSIAN in result.text) is (threshold >= 0), media
    finally:
        parsers.close()


def test_bad_bytes_become_replacement_characters():
    assert decode_document(b"ok \xff\xfe end", _header("utf-8"), "utf-8") == (
        "ok \ufffd\ufffd end",
        "utf-8",
    )


@pytest.mark.parametrize(
    ("head", "label"),
    [
        (META % b"koi8-r", "koi8-r"),
        (b"<META HTTP-EQUIV=content-type CONTENT='text/html;charset=GBK'>", "GBK"),
        (b"<meta charset='big5'>", "big5"),
        (b"<meta charset=x-user-defined/>", "x-user-defined"),
        (b"<meta name=description content='charset=gbk'>", None),
        (b"<meta charset=''>", None),
        (b"<p>no meta</p>", None),
        (b" " * SNIFF_BYTES + META % b"koi8-r", None),  # past the sniffed bytes
    ],
)
def test_nutch_meta_charset_sniffer(head, label):
    assert meta_charset(b"<html><head>" + head + b"</head></html>") == label


@pytest.mark.parametrize(
    ("content", "label"),
    [
        (b"<?xml version='1.0' encoding='ISO-8859-1'?><rss/>", "ISO-8859-1"),
        (b'\n  <?xml version="1.0" encoding = "gbk" ?><rss/>', "gbk"),
        (b'<?xml version="1.0"?><rss/>', None),
        (b'<rss/><?xml version="1.0" encoding="gbk"?>', None),
        (b'<?xml encoding="utf\x00"?><rss/>', "utf"),
        (b"", None),
    ],
)
def test_xml_encoding_sniffer(content, label):
    assert xml_encoding(content) == label


@pytest.mark.parametrize(
    ("label", "recorded", "codec"),
    [
        ("ISO-8859-1", "windows-1252", "cp1252"),
        ("US-ASCII", "windows-1252", "cp1252"),
        ("GB2312", "gb18030", "gb18030"),
        ("GBK", "gb18030", "gb18030"),
        ("Big5", "big5", "big5hkscs"),
        ("EUC-KR", "x-windows-949", "cp949"),
        ("Shift_JIS", "shift_jis", "cp932"),
        ("UTF-8", "utf-8", "utf-8"),
        ("'ISO-8859-15'", "iso-8859-15", "iso8859-15"),
        ("windows-1251", "windows-1251", "cp1251"),
        ("KOI8-R", "koi8-r", "koi8-r"),
        ("EUC-JP", "euc-jp", "euc_jp"),
        ("ISO-2022-JP", "iso-2022-jp", "iso2022_jp"),
        ("IBM850", "ibm850", "cp850"),
        ("cp858", "ibm00858", "cp858"),
        ("cp875", "x-ibm875", "cp875"),
        ("x-mac-roman", "x-macroman", "mac-roman"),
        ("johab", "x-johab", "johab"),
    ],
)
def test_nutch_labels_resolve_to_lowercased_java_names(label, recorded, codec):
    assert resolve_charset(label) == (recorded, codec)


def test_every_usable_python_codec_is_recorded_lowercase_and_decodes_junk():
    junk = random.Random(7).randbytes(300)
    labels = set(encodings.aliases.aliases) | set(encodings.aliases.aliases.values())
    for label in sorted(labels):
        found = resolve_charset(label)
        if found is not None:
            name, codec = found
            assert name == name.lower(), label
            assert isinstance(junk.decode(codec, "replace"), str), label


def test_encoding_metadata_records_the_name_under_both_keys():
    assert encoding_metadata("gb18030") == (
        ("OriginalCharEncoding", "gb18030"),
        ("CharEncodingForConversion", "gb18030"),
    )
    assert ENCODING_KEYS == ("OriginalCharEncoding", "CharEncodingForConversion")
