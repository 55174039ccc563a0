import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import CrawlConfig, GenerateConfig, StatsConfig, UrlConfig
from crawllib.db.generate import with_generate_time
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.transforms.urlstates import UrlStates

NOW = 1_700_000_000_000
DELAY = 60_000


def _page(path, status=CrawlStatus.UNFETCHED, retries=0, fetch_time=NOW):
    return new_page(
        f"http://a.com/{path}",
        status=int(status),
        retriesSinceFetch=retries,
        fetchTime=fetch_time,
    )


PAGES = [
    _page("due"),
    _page("later", fetch_time=NOW + 1),
    with_generate_time(_page("generated-now"), NOW - DELAY + 1),
    with_generate_time(_page("generated-long-ago"), NOW - DELAY),
    _page("gone", CrawlStatus.GONE),
    _page("retrying", retries=1, fetch_time=NOW + 5),
    _page("fetched", CrawlStatus.FETCHED, fetch_time=NOW + 86_400_000),
    _page("notmodified", CrawlStatus.NOTMODIFIED),
    _page("moved", CrawlStatus.REDIR_PERM),
]
EXPECTED = {
    "waiting": 3,  # due, later, generated-long-ago (its delay is over)
    "running": 1,
    "error": 2,
    "complete": 3,
    "waiting_due": 2,
}


def test_counts_by_state_with_a_generate_config_and_a_clock(pipeline):
    config = GenerateConfig(urls=UrlConfig(), gen_delay_ms=DELAY)
    with pipeline as p:
        counts = p | beam.Create(PAGES) | UrlStates(config, now_ms=NOW)
        assert_that(counts, equal_to([EXPECTED]))


def test_crawl_config_gives_the_delay_and_generate_cur_time_the_clock(pipeline):
    config = CrawlConfig.from_dict({"crawl.gen.delay": DELAY, "generate.curTime": NOW})
    with pipeline as p:
        counts = p | beam.Create(PAGES) | UrlStates(config)
        assert_that(counts, equal_to([EXPECTED]))


def test_default_gen_delay_is_nutchs_seven_days(pipeline):
    with pipeline as p:
        counts = p | beam.Create(PAGES) | UrlStates(now_ms=NOW)
        assert_that(
            counts,
            equal_to([{**EXPECTED, "waiting": 2, "running": 2, "waiting_due": 1}]),
        )


def test_stats_config_and_an_empty_crawldb_give_all_zeros(pipeline):
    with pipeline as p:
        counts = p | beam.Create([]) | UrlStates(StatsConfig(gen_delay_ms=DELAY))
        assert_that(
            counts,
            equal_to(
                [
                    {
                        "waiting": 0,
                        "running": 0,
                        "error": 0,
                        "complete": 0,
                        "waiting_due": 0,
                    }
                ]
            ),
        )
