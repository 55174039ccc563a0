import struct

import pytest

from crawllib.config import InjectConfig, UrlConfig
from crawllib.db.inject import Seed, merge_injected, parse_seed_line, seed_page
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page

NOW_MS = 1_700_000_000_000
CONFIG = InjectConfig(urls=UrlConfig())


@pytest.mark.parametrize("line", ["", "   ", "# comment", "  #http://a.com/"])
def test_nutch_blank_and_comment_lines_are_skipped(line):
    assert parse_seed_line(line) is None


def test_nutch_seed_line_with_metadata_score_and_interval():
    seed = parse_seed_line(
        "  http://www.nutch.org/\tnutch.score=10\tnutch.fetchInterval=2592000"
        "\tuserType=open_source\tnoequals\tformula=a=b \n"
    )
    assert seed == Seed(
        url="http://www.nutch.org/",
        line="http://www.nutch.org/\tnutch.score=10\tnutch.fetchInterval=2592000"
        "\tuserType=open_source\tnoequals\tformula=a=b",
        score=10.0,
        fetch_interval_s=2592000,
        metadata=(("userType", "open_source"), ("formula", "a=b")),
    )


@pytest.mark.parametrize(
    "field",
    [
        "nutch.score=high",
        "nutch.score=nan",
        "nutch.score=1e39",  # finite as a double, Infinity as a Java float
        "nutch.fetchInterval=1.5x",
        "nutch.fetchInterval=99999999999",
    ],
)
def test_nutch_bad_numbers_are_ignored_and_reported(field):
    seed = parse_seed_line(f"http://a.com/\t{field}")
    assert seed is not None
    assert (seed.score, seed.fetch_interval_s) == (None, None)
    assert seed.invalid_fields == (field,)


def test_nutch_score_is_read_as_a_java_float():
    # found by fuzzing: the score was kept as a double, which the WebPage's
    # Avro float field rounds (Nutch: Float.parseFloat)
    seed = parse_seed_line("http://a.com/\tnutch.score=-2147483649")
    assert seed is not None
    assert seed.score == -2147483648.0
    tiny = parse_seed_line("http://a.com/\tnutch.score=1e-50")
    assert tiny is not None
    assert tiny.score == 0.0


def test_nutch_fixed_interval_and_negative_intervals():
    fixed = parse_seed_line("http://a.com/\tnutch.fetchInterval.fixed=600")
    assert fixed is not None
    assert (fixed.fetch_interval_s, fixed.fixed_interval) == (600, True)
    negative = parse_seed_line("http://a.com/\tnutch.fetchInterval=-5")
    assert negative is not None
    assert (negative.fetch_interval_s, negative.invalid_fields) == (None, ())


def test_nutch_injected_page_fields():
    seed = parse_seed_line("http://a.com/\tnutch.score=2.5\tsource=list")
    assert seed is not None
    page = seed_page(seed, "http://a.com/", CONFIG, NOW_MS)
    assert page == new_page(
        "http://a.com/",
        status=CrawlStatus.UNFETCHED,
        fetchTime=NOW_MS,
        fetchInterval=2592000,
        score=2.5,
        metadata={
            "source": b"list",
            "_zone_": b"local",
            "_csh_": struct.pack(">f", 2.5),
        },
        markers={"_injmrk_": "y", "dist": "0"},
    )


def test_beamcrawl_a_seed_line_may_set_its_zone():
    seed = parse_seed_line("http://a.com/\t_zone_=public")
    assert seed is not None
    page = seed_page(seed, "http://a.com/", CONFIG, NOW_MS)
    assert page["metadata"]["_zone_"] == b"public"


def test_defaults_apply_without_seed_columns():
    config = InjectConfig(urls=UrlConfig(), score_injected=0.5, fetch_interval_s=60)
    seed = parse_seed_line("http://a.com/")
    assert seed is not None
    page = seed_page(seed, "http://a.com/", config, NOW_MS)
    assert (page["score"], page["fetchInterval"]) == (0.5, 60)


def test_fixed_interval_is_recorded_as_metadata():
    seed = parse_seed_line("http://a.com/\tnutch.fetchInterval.fixed=600")
    assert seed is not None
    page = seed_page(seed, "http://a.com/", CONFIG, NOW_MS)
    assert page["metadata"]["fixedInterval"] == b"600.0"


def _fetched(url="http://a.com/"):
    return new_page(
        url,
        status=CrawlStatus.FETCHED,
        score=7.0,
        fetchInterval=100,
        metadata={"old": b"1"},
    )


def _injected(url="http://a.com/", score=1.0, interval=2592000):
    return new_page(
        url,
        status=CrawlStatus.UNFETCHED,
        score=score,
        fetchInterval=interval,
        metadata={"new": b"2"},
    )


@pytest.mark.parametrize("status", list(CrawlStatus))
def test_nutch_injecting_an_existing_url_keeps_its_state(status):
    # TestCrawlDbStates.testCrawlDbStatTransitionInject
    existing = new_page("http://a.com/", status=status, score=3.0)
    assert merge_injected(_injected(), existing, CONFIG) == existing


@pytest.mark.parametrize("zone", [None, b"public", b"private"])
def test_beamcrawl_injecting_an_existing_url_makes_it_the_operators(zone):
    metadata = {} if zone is None else {"_zone_": zone}
    existing = new_page("http://a.com/", status=CrawlStatus.GONE, metadata=metadata)
    seed = parse_seed_line("http://a.com/")
    assert seed is not None
    injected = seed_page(seed, "http://a.com/", CONFIG, NOW_MS)

    merged = merge_injected(injected, existing, CONFIG)

    assert merged == {**existing, "metadata": {"_zone_": b"local"}}


def test_nutch_new_url_is_injected_and_old_only_is_kept():
    assert merge_injected(_injected(), None, CONFIG) == _injected()
    assert merge_injected(None, _fetched(), CONFIG) == _fetched()


def test_nutch_injector_overwrite_replaces_the_record():
    config = InjectConfig(urls=UrlConfig(), overwrite=True)
    assert merge_injected(_injected(), _fetched(), config) == _injected()


def test_nutch_injector_update_merges_metadata_and_non_default_values():
    config = InjectConfig(urls=UrlConfig(), update=True)
    same_as_defaults = merge_injected(_injected(), _fetched(), config)
    assert same_as_defaults is not None
    assert (same_as_defaults["score"], same_as_defaults["fetchInterval"]) == (7.0, 100)
    assert same_as_defaults["metadata"] == {"old": b"1", "new": b"2"}
    assert same_as_defaults["status"] == CrawlStatus.FETCHED
    custom = merge_injected(_injected(score=9.0, interval=60), _fetched(), config)
    assert custom is not None
    assert (custom["score"], custom["fetchInterval"]) == (9.0, 60)


def test_nutch_purge_404_drops_gone_records_before_merging():
    # Injector.InjectMapper drops them, so a re-injected URL starts afresh
    config = InjectConfig(urls=UrlConfig(), purge_404=True)
    gone = new_page("http://a.com/", status=CrawlStatus.GONE)
    assert merge_injected(None, gone, config) is None
    assert merge_injected(_injected(), gone, config) == _injected()
    assert merge_injected(None, _fetched(), config) == _fetched()
