import itertools

import pytest

from crawllib.db.dedup import (
    Criterion,
    DedupConfig,
    Group,
    compare,
    decoded_length,
    duplicates,
    entry,
    group_key,
    java_url_decode,
    parse_compare_order,
)
from crawllib.errors import ConfigError
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page

SIG = bytes(range(16))
DEFAULT = parse_compare_order("score,fetchTime,urlLength")
HTTPS = parse_compare_order("score,fetchTime,httpsOverHttp,urlLength")


def _page(url, status=CrawlStatus.FETCHED, signature=SIG, **fields):
    return new_page(url, status=status, signature=signature, **fields)


def test_nutch_default_compare_order():
    assert DedupConfig() == DedupConfig.from_args()
    assert DedupConfig().compare_order == (
        Criterion.SCORE,
        Criterion.FETCH_TIME,
        Criterion.URL_LENGTH,
    )
    assert DedupConfig().group is Group.NONE


def test_compare_order_with_https_over_http():
    assert parse_compare_order("httpsOverHttp, urlLength,score,fetchTime") == (
        Criterion.HTTPS_OVER_HTTP,
        Criterion.URL_LENGTH,
        Criterion.SCORE,
        Criterion.FETCH_TIME,
    )


@pytest.mark.parametrize(
    "order",
    [
        "score,fetchTime",  # Nutch: must contain score, fetchTime and urlLength
        "score,fetchTime,urlLength,size",
        "score,score,fetchTime,urlLength",
        "",
    ],
)
def test_bad_compare_order_is_a_config_error(order):
    with pytest.raises(ConfigError, match="--compareOrder"):
        parse_compare_order(order)


def test_bad_group_is_a_config_error():
    with pytest.raises(ConfigError, match="--group 'ip'"):
        DedupConfig.from_args(group="ip")


def test_nutch_only_fetched_and_notmodified_with_a_signature_take_part():
    assert group_key(_page("http://a.com/"), Group.NONE) == SIG.hex()
    notmodified = _page("http://a.com/", status=CrawlStatus.NOTMODIFIED)
    assert group_key(notmodified, Group.NONE) == SIG.hex()
    for status in CrawlStatus:
        if status not in (CrawlStatus.FETCHED, CrawlStatus.NOTMODIFIED):
            assert group_key(_page("http://a.com/", status=status), Group.NONE) is None
    assert group_key(_page("http://a.com/", signature=None), Group.NONE) is None


def test_nutch_group_by_host_or_domain_appends_it_to_the_signature():
    page = _page("http://WWW.Example.co.uk:8080/x")
    assert group_key(page, Group.HOST) == f"{SIG.hex()} www.example.co.uk"
    assert group_key(page, Group.DOMAIN) == f"{SIG.hex()} example.co.uk"


def test_entry_is_url_score_and_fetch_time():
    page = _page("http://a.com/", score=2.5, fetchTime=42)
    assert entry(page) == ("http://a.com/", 2.5, 42)


def test_nutch_lower_score_is_the_duplicate():
    high, low = ("http://a.com/1", 2.0, 0), ("http://a.com/22", 1.0, 9)
    assert compare(high, low, DEFAULT) == 1
    assert compare(low, high, DEFAULT) == -1
    assert duplicates([low, high], DEFAULT) == ["http://a.com/22"]


def test_nutch_older_fetch_is_the_duplicate():
    new, old = ("http://a.com/long-url", 1.0, 200), ("http://a.com/x", 1.0, 100)
    assert compare(new, old, DEFAULT) == 1
    assert compare(old, new, DEFAULT) == -1
    assert duplicates([old, new], DEFAULT) == ["http://a.com/x"]


def test_nutch_longer_decoded_url_is_the_duplicate():
    short, same = ("http://a.com/%7Euser", 1.0, 5), ("http://a.com/users", 1.0, 5)
    assert decoded_length(short[0]) == len("http://a.com/~user")
    assert compare(short, same, DEFAULT) == 0  # equally long once decoded
    longer = ("http://a.com/user/s", 1.0, 5)
    assert compare(short, longer, DEFAULT) == 1
    assert duplicates([longer, short], DEFAULT) == ["http://a.com/user/s"]


def test_nutch_https_over_http_when_only_the_scheme_differs():
    http, https = ("http://a.com/x", 1.0, 5), ("https://a.com/x", 1.0, 5)
    assert compare(http, https, HTTPS) == -1
    assert compare(https, http, HTTPS) == 1
    assert duplicates([http, https], HTTPS) == ["http://a.com/x"]
    # without the criterion the shorter http URL wins on length
    assert duplicates([http, https], DEFAULT) == ["https://a.com/x"]
    # another host: httpsOverHttp does not decide, urlLength does
    assert compare(http, ("https://b.com/x", 1.0, 5), HTTPS) == 1


def test_nutch_first_deciding_criterion_wins():
    order = parse_compare_order("fetchTime,score,urlLength")
    newer_low, older_high = ("http://a.com/1", 1.0, 200), ("http://a.com/2", 9.0, 100)
    assert duplicates([newer_low, older_high], order) == ["http://a.com/2"]
    assert duplicates([newer_low, older_high], DEFAULT) == ["http://a.com/1"]


def test_nutch_nan_score_decides_nothing():
    nan, one = ("http://a.com/1", float("nan"), 100), ("http://a.com/2", 1.0, 200)
    assert compare(nan, one, DEFAULT) == -1  # decided by fetchTime


def test_beamcrawl_full_tie_keeps_the_smallest_url():
    # Nutch marks neither of two documents equal in every criterion
    tied = [("http://a.com/b", 1.0, 5), ("http://a.com/a", 1.0, 5)]
    assert compare(tied[0], tied[1], DEFAULT) == 0
    assert duplicates(tied, DEFAULT) == ["http://a.com/b"]


def test_beamcrawl_one_survivor_whatever_the_input_order():
    group = [
        ("http://a.com/a", 1.0, 5),  # ties with b
        ("http://a.com/b", 1.0, 5),
        ("http://a.com/c", 2.0, 5),  # the best
        ("http://a.com/dd", 2.0, 5),  # as good but longer
        ("http://a.com/e", 2.0, 1),  # as good but older
    ]
    results = {
        tuple(sorted(duplicates(order, DEFAULT)))
        for order in itertools.permutations(group)
    }
    assert results == {
        ("http://a.com/a", "http://a.com/b", "http://a.com/dd", "http://a.com/e")
    }


def test_beamcrawl_cyclic_order_still_gives_one_survivor():
    # httpsOverHttp first: A beats B (https), C beats A (score), B beats C
    order = parse_compare_order("httpsOverHttp,score,fetchTime,urlLength")
    a, b = ("https://a.com/", 1.0, 0), ("http://a.com/", 3.0, 0)
    c = ("http://c.com/", 2.0, 0)
    assert compare(a, b, order) == 1
    assert compare(a, c, order) == -1
    assert compare(b, c, order) == 1
    results = {
        tuple(sorted(duplicates(perm, order)))
        for perm in itertools.permutations([a, b, c])
    }
    assert len(results) == 1
    assert len(next(iter(results))) == 2


def test_duplicates_of_a_single_page_or_none():
    assert duplicates([], DEFAULT) == []
    assert duplicates([("http://a.com/", 1.0, 0)], DEFAULT) == []


@pytest.mark.parametrize(
    ("text", "decoded"),
    [
        ("http://a.com/x", "http://a.com/x"),
        ("a+b", "a b"),  # form decoding, as URLDecoder
        ("%41%42c", "ABc"),
        ("%C3%A9t%C3%A9", "été"),
        ("%e2%82%ac", "€"),
        ("%FF", "\ufffd"),  # malformed UTF-8 becomes U+FFFD
        ("%+1", "\x01"),  # Integer.parseInt accepts a sign
        ("100%", None),  # incomplete trailing escape
        ("%4", None),
        ("%zz", None),
        ("%-1", None),  # negative
    ],
)
def test_java_url_decode(text, decoded):
    assert java_url_decode(text) == decoded


def test_nutch_url_length_falls_back_to_the_encoded_url():
    assert decoded_length("http://a.com/100%") == len("http://a.com/100%")


def test_url_length_counts_utf16_code_units():
    assert decoded_length("http://a.com/%F0%9F%98%80") == len("http://a.com/") + 2
