"""Signatures. Values marked "Java" come from the Nutch 1.x TextProfileSignature
loop and Hadoop's ``UTF8.getBytes`` run on OpenJDK 17."""

import dataclasses
import hashlib

import pytest

from crawllib.config import ParseConfig, load_properties
from crawllib.parse.signature import (
    compute_signature,
    md5_signature,
    text_md5_signature,
    text_profile,
    text_profile_signature,
)

URL = "http://example.com/page.html"
CONFIG = ParseConfig.from_properties(load_properties())

ARTICLE = """
The committee met on Tuesday to discuss the new library budget. The committee
agreed that the library needs more books, more computers and longer opening
hours. The budget for the library will grow next year, the committee said,
and the library staff welcomed the budget. Books, computers and hours: the
committee wants the library open to everyone, and the budget makes it so.
The library will publish the budget and the committee minutes next week.
"""


def _md5(data: bytes) -> bytes:
    return hashlib.md5(data).digest()


def test_nutch_md5_signature_hashes_the_content():
    assert md5_signature(b"hello", URL).hex() == "5d41402abc4b2a76b9719d911017c592"


@pytest.mark.parametrize("content", [b"", None])
def test_nutch_md5_signature_without_content_hashes_the_url(content):
    assert md5_signature(content, URL) == _md5(URL.encode("utf-8"))
    assert md5_signature(content, "http://例え.jp/") == _md5("http://例え.jp/".encode())


def test_nutch_text_md5_signature_hashes_the_text():
    assert text_md5_signature("hello", b"<p>hello</p>", URL) == _md5(b"hello")


@pytest.mark.parametrize("text", ["", None])
def test_nutch_text_signatures_fall_back_to_md5_of_content_then_url(text):
    assert text_md5_signature(text, b"raw", URL) == _md5(b"raw")
    assert text_md5_signature(text, None, URL) == _md5(URL.encode())
    assert text_profile_signature(text, b"raw", URL) == _md5(b"raw")
    assert text_profile_signature(text, b"", URL) == _md5(URL.encode())


def test_nutch_strings_hash_as_hadoop_utf8_one_utf16_unit_at_a_time():
    # MD5Hash.digest(String): an emoji is two 3-byte surrogates, not 4 bytes.
    text = "a😀b 😀 text"
    assert (
        text_md5_signature(text, None, URL).hex() == "41c8d6f58c18119a5af7613c5eacf2b7"
    )
    assert text_md5_signature(text, None, URL) != _md5(text.encode("utf-8"))
    assert text_md5_signature("Grüße", None, URL) == _md5("Grüße".encode())


def test_nutch_profile_quant_is_one_when_every_token_occurs_once():
    assert text_profile("alpha beta gamma") == "alpha 1\nbeta 1\ngamma 1"
    signature = text_profile_signature("alpha beta gamma", None, URL)
    assert signature.hex() == "a81b3c7fdf2c63a07996f87da6a1d28a"  # Java


def test_nutch_profile_quant_is_two_when_max_freq_is_five():
    text = "foo foo foo foo foo bar bar bar baz"
    # counts rounded down to even numbers; baz (1) falls below QUANT
    assert text_profile(text) == "foo 4\nbar 2"
    assert text_profile_signature(text, None, URL).hex() == (
        "40360f70d6c6b0827cc1506582c52407"  # Java
    )


def test_nutch_profile_quant_rounds_half_up_in_single_precision():
    # Math.round(250 * 0.01f) = 3; Python's round(2.5) would give 2.
    text = "aaa " * 250 + "bbb " * 7
    assert text_profile(text) == "aaa 249\nbbb 6"
    assert text_profile_signature(text, None, URL).hex() == (
        "b631228d8d5b068e7dbbdda9ee4fc4bf"  # Java
    )


def test_nutch_profile_tokens_are_java_letters_or_digits_lowercased():
    arabic_digits = "\u0661\u0662\u0663"  # Nd: digits to Java
    odos_upper = "\u039f\u0394\u039f\u03a3"  # ends in a capital sigma
    odos_final = "\u03bf\u03b4\u03bf\u03c2"  # ends in a final small sigma
    odos_lowered = "\u03bf\u03b4\u03bf\u03c3"  # Character.toLowerCase: medial
    math_abc = "\U0001d400\U0001d401\U0001d402"  # letters, but outside the BMP
    text = (
        f"Straße STRASSE straße {arabic_digits} {arabic_digits} x²y x²y ⅫⅫⅫ ⅫⅫⅫ "
        f"İSTANBUL istanbul {odos_upper} {odos_upper} {odos_final} "
        f"{math_abc}word {math_abc}word ab ab of of"
    )
    # '²' (No) and Roman numerals (Nl) split tokens though str.isalnum takes
    # them; İ lowers to i; surrogates are no letters; "ab", "of", "x" too short.
    assert text_profile(text).split("\n") == [
        "istanbul 2",
        "straße 2",
        "word 2",
        f"{odos_lowered} 2",
        f"{arabic_digits} 2",
    ]
    assert text_profile_signature(text, None, URL).hex() == (
        "40251e045ed6ca00c02f3ddc8ff55e61"  # Java
    )


def test_nutch_profile_min_token_len():
    text = "ab ab abc abc abcd abcd"
    assert text_profile(text, min_token_len=2) == "abc 2\nabcd 2"
    assert text_profile(text, min_token_len=3) == "abcd 2"
    assert text_profile(text, min_token_len=1) == "ab 2\nabc 2\nabcd 2"


def test_nutch_profile_of_text_without_tokens_is_md5_of_nothing():
    signature = text_profile_signature("a b ! ?", b"raw", URL)
    assert signature.hex() == "d41d8cd98f00b204e9800998ecf8427e"


def test_nutch_profile_without_sec_sort_lex_keeps_java_hashmap_order():
    words = (
        "delta alpha charlie bravo echo foxtrot golf hotel india juliet kilo lima mike "
    )
    profile = text_profile(words * 2, sort_lex=False)
    java_order = [  # Java: a 13-entry HashMap, grown to 32 buckets
        "lima", "foxtrot", "mike", "delta", "echo", "india", "bravo", "golf",
        "juliet", "kilo", "alpha", "hotel", "charlie",
    ]  # fmt: skip
    assert profile.split("\n") == [f"{word} 2" for word in java_order]
    assert text_profile(words * 2) == "\n".join(
        f"{word} 2" for word in sorted(words.split())
    )


def test_text_profile_is_the_same_for_near_identical_texts():
    base = text_profile_signature(ARTICLE, None, URL)
    variants = [
        " ".join(ARTICLE.split()),  # whitespace
        ARTICLE.replace(",", " ;").replace(":", "!").replace(".", " . "),  # punctuation
        ARTICLE.upper(),  # case
        ARTICLE.replace("Tuesday", "Wednesday").replace("everyone", "all"),  # words
        ARTICLE.replace("opening", "closing") + " Posted by admin.",  # additions
        "\n".join(reversed(ARTICLE.strip().split("\n"))),  # line order
    ]
    for variant in variants:
        assert text_profile_signature(variant, b"other content", URL) == base
    assert text_md5_signature(variants[0], None, URL) != text_md5_signature(
        ARTICLE, None, URL
    )


def test_text_profile_differs_for_different_texts():
    other = ARTICLE.replace("library", "museum")
    assert text_profile_signature(other, None, URL) != text_profile_signature(
        ARTICLE, None, URL
    )
    more_budget = ARTICLE + " budget budget budget budget"
    assert text_profile_signature(more_budget, None, URL) != text_profile_signature(
        ARTICLE, None, URL
    )


def test_compute_signature_follows_db_signature_class():
    content, text = b"<p>Hello hello world</p>", "Hello hello world"
    md5 = dataclasses.replace(CONFIG, signature="md5")
    text_md5 = dataclasses.replace(CONFIG, signature="text_md5")
    profile = dataclasses.replace(CONFIG, signature="text_profile")
    assert compute_signature("md5", content, text, URL, md5) == _md5(content)
    assert compute_signature("text_md5", content, text, URL, text_md5) == _md5(
        text.encode()
    )
    assert compute_signature("text_profile", content, text, URL, profile) == _md5(
        b"hello 2"
    )


def test_compute_signature_passes_the_profile_settings():
    config = dataclasses.replace(
        CONFIG, profile_min_token_len=0, profile_quant_rate=0.5, profile_sort_lex=True
    )
    text = "x x x x y y"  # maxFreq 4: QUANT = round(2.0) = 2
    assert compute_signature("text_profile", None, text, URL, config) == _md5(
        b"x 4\ny 2"
    )


def test_compute_signature_rejects_an_unknown_kind():
    with pytest.raises(ValueError, match="simhash"):
        compute_signature("simhash", b"x", "x", URL, CONFIG)
