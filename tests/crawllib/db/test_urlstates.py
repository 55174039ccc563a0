import pytest

from crawllib.config import GenerateConfig, UrlConfig, load_properties
from crawllib.db.generate import GenerateSkip, Selector, with_generate_time
from crawllib.db.urlstates import UrlState, UrlStateCounts, is_due, url_state
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page

NOW = 1_700_000_000_000
DELAY = 604_800_000  # crawl.gen.delay's default, 7 days


def _page(status=CrawlStatus.UNFETCHED, retries=0, fetch_time=NOW - 1, url="http://a/"):
    return new_page(
        url, status=int(status), retriesSinceFetch=retries, fetchTime=fetch_time
    )


def _generated(page, at_ms):
    return with_generate_time(page, at_ms)


def test_states_are_the_seed_spiders_four_as_strings():
    assert [state.value for state in UrlState] == [
        "waiting",
        "running",
        "error",
        "complete",
    ]
    assert UrlState("running") is UrlState.RUNNING
    assert isinstance(UrlState.RUNNING, str)


def test_unfetched_without_retries_is_waiting():
    assert url_state(_page(), NOW, DELAY) is UrlState.WAITING
    assert url_state(_page(fetch_time=NOW + 10), NOW, DELAY) is UrlState.WAITING


@pytest.mark.parametrize(
    "status",
    [
        CrawlStatus.FETCHED,
        CrawlStatus.NOTMODIFIED,
        CrawlStatus.REDIR_TEMP,
        CrawlStatus.REDIR_PERM,
        CrawlStatus.DUPLICATE,
    ],
)
def test_fetched_notmodified_redirects_and_duplicates_are_complete(status):
    assert url_state(_page(status), NOW, DELAY) is UrlState.COMPLETE


def test_a_settled_record_stays_complete_even_with_a_retry_count():
    assert url_state(_page(CrawlStatus.REDIR_PERM, retries=2), NOW, DELAY) == "complete"
    assert url_state(_page(CrawlStatus.FETCHED, retries=1), NOW, DELAY) == "complete"


def test_gone_retry_status_and_retrying_unfetched_are_error():
    assert url_state(_page(CrawlStatus.GONE), NOW, DELAY) is UrlState.ERROR
    assert url_state(_page(CrawlStatus.RETRY), NOW, DELAY) is UrlState.ERROR
    assert url_state(_page(retries=1), NOW, DELAY) is UrlState.ERROR


def test_an_unknown_status_is_waiting_unless_retrying():
    assert url_state(_page(status=0), NOW, DELAY) is UrlState.WAITING
    assert url_state(_page(status=0, retries=3), NOW, DELAY) is UrlState.ERROR


@pytest.mark.parametrize(
    "status", [CrawlStatus.UNFETCHED, CrawlStatus.FETCHED, CrawlStatus.GONE]
)
def test_generated_within_the_gen_delay_is_running_whatever_the_status(status):
    page = _generated(_page(status, retries=1), NOW - 5)
    assert url_state(page, NOW, DELAY) is UrlState.RUNNING


def test_running_ends_exactly_when_the_gen_delay_has_passed():
    still = _generated(_page(), NOW - DELAY + 1)
    over = _generated(_page(), NOW - DELAY)
    assert url_state(still, NOW, DELAY) is UrlState.RUNNING
    assert url_state(over, NOW, DELAY) is UrlState.WAITING
    assert url_state(_generated(_page(CrawlStatus.GONE), NOW - DELAY), NOW, DELAY) == (
        "error"
    )


def test_a_generate_time_in_the_future_is_running():
    assert url_state(_generated(_page(), NOW + 1), NOW, DELAY) is UrlState.RUNNING


def test_an_unreadable_generate_time_is_ignored():
    page = new_page("http://a/", status=1, metadata={"_ngt_": b"not a number"})
    assert url_state(page, NOW, DELAY) is UrlState.WAITING


def test_nutch_running_is_what_the_generator_skips_as_wait_for_update():
    """Generator.Selector's crawl.gen.delay test is the oracle for RUNNING."""
    config = GenerateConfig(
        urls=UrlConfig.from_properties(load_properties()), gen_delay_ms=DELAY
    )
    selector = Selector(config, NOW)
    offsets = [-DELAY - 1, -DELAY, -DELAY + 1, -1, 0, 1]
    for offset in offsets:
        page = _generated(_page(), NOW + offset)
        skipped = selector.select(page) is GenerateSkip.WAIT_FOR_UPDATE
        assert (url_state(page, NOW, DELAY) is UrlState.RUNNING) == skipped, offset
    assert selector.select(_page()) == 0.0  # not generated: selectable


def test_due_is_fetch_time_not_after_now():
    assert is_due(_page(fetch_time=NOW), NOW)
    assert not is_due(_page(fetch_time=NOW + 1), NOW)


PAGES = [
    _page(url="http://a/due"),
    _page(url="http://a/due-edge", fetch_time=NOW),
    _page(url="http://a/later", fetch_time=NOW + 1),
    _generated(_page(url="http://a/generated"), NOW - 1000),
    _page(CrawlStatus.GONE, url="http://a/gone"),
    _page(retries=2, url="http://a/retrying"),
    _page(CrawlStatus.FETCHED, fetch_time=NOW + DELAY, url="http://a/fetched"),
    _page(CrawlStatus.DUPLICATE, url="http://a/duplicate"),
]


def _counts(pages):
    counts = UrlStateCounts()
    for page in pages:
        counts.add(page, NOW, DELAY)
    return counts


def test_counts_partition_the_records_and_count_waiting_due():
    counts = _counts(PAGES)
    assert counts.as_dict() == {
        "waiting": 3,
        "running": 1,
        "error": 2,
        "complete": 2,
        "waiting_due": 2,
    }
    assert list(counts.as_dict()) == [
        "waiting",
        "running",
        "error",
        "complete",
        "waiting_due",
    ]


def test_merged_tallies_equal_one_pass():
    merged = UrlStateCounts()
    for part in (PAGES[:3], [], PAGES[3:]):
        merged.merge(_counts(part))
    assert merged == _counts(PAGES)
    assert UrlStateCounts().as_dict() == dict.fromkeys(
        ["waiting", "running", "error", "complete", "waiting_due"], 0
    )
