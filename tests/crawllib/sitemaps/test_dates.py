import pytest

from crawllib.sitemaps.dates import parse_rfc822_ms, parse_w3c_ms


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("1997", 852076800000),
        ("1997-07", 867715200000),
        ("1997-07-16", 869011200000),
        ("1997-07-16T19:20+01:00", 869077200000),
        ("1997-07-16T19:20:30+01:00", 869077230000),
        ("1997-07-16T19:20:30.45+01:00", 869077230450),
        ("1997-07-16T19:20:30Z", 869080830000),
        ("1997-07-16T19:20:30", 869080830000),
        (" 1997-07-16 ", 869011200000),
        ("1997-13-01", None),
        ("16 July 1997", None),
        ("", None),
        (None, None),
    ],
)
def test_nutch_w3c_datetimes(text, ms):
    assert parse_w3c_ms(text) == ms


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("Tue, 10 Jun 2003 04:00:00 GMT", 1055217600000),
        ("Tue, 10 Jun 2003 06:00:00 +0200", 1055217600000),
        ("yesterday", None),
        (None, None),
    ],
)
def test_nutch_rss_pubdates(text, ms):
    assert parse_rfc822_ms(text) == ms
