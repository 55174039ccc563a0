import copy
import math
import random
import struct

import pytest

from crawllib.config import ScoringConfig
from crawllib.db.scoring import (
    CASH_KEY,
    cash_of,
    distribute_to_outlinks,
    generator_sort_value,
    initial_score,
    injected_score,
    update_score,
    with_cash,
)
from crawllib.javanum import f32
from crawllib.webpage import new_page

OPIC = ScoringConfig()


def test_nutch_opic_sort_value_is_the_score():
    assert generator_sort_value(new_page("u", score=2.5)) == 2.5
    assert generator_sort_value(new_page("u", score=2.5), init_sort=2.0) == 5.0


def test_beamcrawl_nan_score_sorts_as_zero():
    assert generator_sort_value(new_page("u", score=math.nan)) == 0.0


def test_nutch_injected_cash_is_the_score():
    # 2.x OPICScoringFilter.injectedScore
    page = injected_score(new_page("http://a.com/", score=2.5))
    assert page["metadata"][CASH_KEY] == b"\x40\x20\x00\x00"
    assert cash_of(page) == 2.5
    assert page["score"] == 2.5


def test_nutch_initial_score_and_cash_are_zero():
    # 2.x OPICScoringFilter.initialScore
    page = initial_score(with_cash(new_page("http://a.com/", score=3.0), 3.0))
    assert page["score"] == 0.0
    assert page["metadata"][CASH_KEY] == b"\x00\x00\x00\x00"


def test_nutch_cash_is_stored_as_a_big_endian_float():
    # 2.x Bytes.toBytes(float): the raw int bits, big-endian
    page = with_cash(new_page("u"), 0.1)
    assert page["metadata"][CASH_KEY] == bytes.fromhex("3dcccccd")
    assert cash_of(page) == struct.unpack(">f", bytes.fromhex("3dcccccd"))[0]
    assert cash_of(with_cash(page, cash_of(page))) == cash_of(page)
    assert cash_of(with_cash(page, 1e39)) == math.inf  # float overflow, as Java


@pytest.mark.parametrize(
    "raw", [None, b"", b"\x00\x00\x00", b"12345", b"\x7f\xc0\x00\x00"]
)
def test_beamcrawl_missing_or_bad_cash_is_zero(raw):
    metadata = {} if raw is None else {CASH_KEY: raw}
    assert cash_of(new_page("u", metadata=metadata)) == 0.0


def test_nutch_shares_use_the_internal_and_external_factors():
    # 2.x distributeScoreToOutlinks: unit = cash / outlinks; same host
    # (case-insensitive) x db.score.link.internal, else x external
    config = ScoringConfig(internal=0.5, external=2.0)
    page = with_cash(new_page("http://a.com/", score=7.0), 1.0)
    targets = ["http://a.com/x", "http://A.COM:8080/y", "http://b.com/z", "::bad"]

    after, shares = distribute_to_outlinks(page, targets, len(targets), config)

    assert shares == [
        ("http://a.com/x", 0.125),
        ("http://A.COM:8080/y", 0.125),
        ("http://b.com/z", 0.5),
        ("::bad", 0.5),  # a malformed URL counts as external
    ]
    assert cash_of(after) == 0.0
    assert after["score"] == 7.0


def test_nutch_count_filtered_divides_by_all_outlinks():
    page = with_cash(new_page("http://a.com/"), 1.0)
    targets = ["http://a.com/x", "http://b.com/"]
    kept = distribute_to_outlinks(page, targets, 8, OPIC)[1]
    assert [share for _, share in kept] == [0.5, 0.5]
    counted = distribute_to_outlinks(
        page, targets, 8, ScoringConfig(count_filtered=True)
    )
    assert [share for _, share in counted[1]] == [0.125, 0.125]


def test_beamcrawl_all_count_below_the_targets_counts_the_targets():
    page = with_cash(new_page("http://a.com/"), 1.0)
    config = ScoringConfig(count_filtered=True)
    shares = distribute_to_outlinks(
        page, ["http://a.com/x", "http://b.com/"], 0, config
    )[1]
    assert [share for _, share in shares] == [0.5, 0.5]


@pytest.mark.parametrize("metadata", [{}, {CASH_KEY: b"\x00\x00\x00\x00"}])
def test_nutch_no_cash_distributes_nothing(metadata):
    page = new_page("http://a.com/", score=1.0, metadata=metadata)
    after, shares = distribute_to_outlinks(page, ["http://b.com/"], 1, OPIC)
    assert shares == []
    assert after == page


def test_nutch_cash_without_outlinks_is_spent():
    # 2.x resets the cash whether or not the row has outlinks
    page = with_cash(new_page("http://a.com/"), 1.0)
    after, shares = distribute_to_outlinks(page, [], 0, OPIC)
    assert shares == []
    assert cash_of(after) == 0.0


def test_nutch_update_score_adds_the_shares_to_score_and_cash():
    # 2.x updateScore: score += sum, cash += sum
    page = with_cash(new_page("u", score=1.0), 0.5)
    after = update_score(page, [0.25, 0.125])
    assert after["score"] == 1.375
    assert cash_of(after) == 0.875
    assert update_score(page, []) == {**page, "score": 1.0}


def test_nutch_shares_are_summed_as_java_floats():
    # ten times 0.1f summed as a float is 1.0000001f
    after = update_score(new_page("u"), [0.1] * 10)
    assert after["score"] == 1.0000001192092896
    assert cash_of(after) == 1.0000001192092896


def test_beamcrawl_shares_sum_to_the_same_score_in_any_order():
    # a float sum depends on its order; a runner delivers the inlinks in any
    # order, so the same crawl must not score differently from run to run
    rng = random.Random(7)
    page = with_cash(new_page("u", score=0.3), 0.2)
    differing_orders = 0
    for _ in range(2000):
        shares = [
            f32(rng.uniform(0, 1) / rng.choice([1, 3, 7, 30]))
            for _ in range(rng.randint(3, 8))
        ]
        shuffled = rng.sample(shares, len(shares))
        if _sum_in_order(shares) != _sum_in_order(shuffled):
            differing_orders += 1
        assert update_score(page, shuffled) == update_score(page, shares)
    assert differing_orders > 20  # the trials do reach orders that matter


def _sum_in_order(shares):
    total = 0.0
    for share in shares:
        total = f32(total + share)
    return total


def test_scoring_never_changes_its_input():
    page = with_cash(new_page("http://a.com/", score=1.0), 1.0)
    before = copy.deepcopy(page)
    injected_score(page)
    initial_score(page)
    distribute_to_outlinks(page, ["http://b.com/"], 1, OPIC)
    update_score(page, [1.0])
    assert page == before


# A small web: a.com has two pages, b.com and c.com one each; every page
# links somewhere, and the seeds are a.com/ and c.com/.
_GRAPH = {
    "http://a.com/": ["http://a.com/about", "http://b.com/"],
    "http://a.com/about": ["http://b.com/"],
    "http://b.com/": ["http://a.com/", "http://c.com/", "http://a.com/about"],
    "http://c.com/": ["http://a.com/"],
}


def _round(pages, config):
    """Every page spends its cash on its outlinks, then banks what it got."""
    received: dict[str, list[float]] = {url: [] for url in pages}
    spent = {}
    for url, page in pages.items():
        spent[url], shares = distribute_to_outlinks(
            page, _GRAPH[url], len(_GRAPH[url]), config
        )
        for target, share in shares:
            received[target].append(share)
    return {url: update_score(spent[url], received[url]) for url in pages}


def test_nutch_opic_conserves_cash_with_unit_factors():
    pages = {url: initial_score(new_page(url)) for url in _GRAPH}
    for seed in ("http://a.com/", "http://c.com/"):
        pages[seed] = injected_score({**pages[seed], "score": 1.0})
    injected = sum(cash_of(page) for page in pages.values())

    for _ in range(12):
        previous = {url: page["score"] for url, page in pages.items()}
        pages = _round(pages, OPIC)
        total = sum(cash_of(page) for page in pages.values())
        assert total == pytest.approx(injected, rel=1e-6)
        assert all(pages[url]["score"] >= previous[url] for url in pages)

    assert injected == 2.0
    assert all(page["score"] > 0 for page in pages.values())


def test_opic_cash_shrinks_with_an_external_factor_below_one():
    pages = {url: with_cash(new_page(url), 1.0) for url in _GRAPH}
    after = _round(pages, ScoringConfig(external=0.5))
    assert sum(cash_of(page) for page in after.values()) < 4.0
