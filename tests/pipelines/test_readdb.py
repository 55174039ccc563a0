import apache_beam as beam
from apache_beam.testing.util import assert_that, equal_to

from crawllib.config import CrawlConfig, StatsConfig
from crawllib.db.generate import with_generate_time
from crawllib.status import CrawlStatus
from crawllib.webpage import new_page
from pipelines.readdb import CrawlDbStats


def _page(i, status):
    return new_page(
        f"http://h{i % 3}.com/{i}",
        status=status,
        score=float(i),
        fetchInterval=3600,
        fetchTime=60_000 * i,
    )


def _ranked(figures):
    """Quantiles are approximate: replace each by whether it is within a rank.

    Scores are 1..150, so the exact q-quantile is about 1 + q * 149.
    """
    quantiles = figures["score"]["quantiles"]
    for label, value in quantiles.items():
        quantiles[label] = abs(value - (1 + float(label) * 149)) <= 1.0
    return figures


def test_stats_over_a_crawldb(pipeline):
    pages = [_page(i, CrawlStatus.UNFETCHED) for i in range(1, 101)]
    pages += [_page(i, CrawlStatus.FETCHED) for i in range(101, 151)]
    config = StatsConfig(quantiles=(0.1, 0.5, 0.99))
    with pipeline as p:
        reports = p | beam.Create(pages) | CrawlDbStats("db", config)
        figures = reports | beam.Map(lambda report: _ranked(report["json"]))
        assert_that(
            figures,
            equal_to(
                [
                    {
                        "total": 150,
                        "status": {"status_unfetched": 100, "status_fetched": 50},
                        "status_codes": {"1": 100, "2": 50},
                        "retry": {"0": 150},
                        "score": {
                            "min": 1.0,
                            "avg": 75.5,
                            "max": 150.0,
                            "nan": 0,
                            "quantiles": {"0.1": True, "0.5": True, "0.99": True},
                        },
                        "fetch_interval_s": {"min": 3600, "avg": 3600.0, "max": 3600},
                        "fetch_time_ms": {
                            "min": 60_000,
                            "avg": 60_000 * 75 + 30_000,
                            "max": 60_000 * 150,
                        },
                        "states": {
                            "waiting": 100,
                            "running": 0,
                            "error": 0,
                            "complete": 50,
                            "waiting_due": 100,
                        },
                    }
                ]
            ),
        )


def test_stats_of_an_empty_crawldb(pipeline):
    with pipeline as p:
        reports = p | beam.Create([]) | CrawlDbStats("db", StatsConfig((0.5,)))
        texts = reports | beam.Map(lambda report: report["text"])
        assert_that(
            texts,
            equal_to(
                ["Statistics for CrawlDb: db\nTOTAL urls:\t0\nCrawlDb statistics: done"]
            ),
        )


def test_stats_count_url_states_at_the_given_clock(pipeline):
    now = 60_000 * 50
    pages = [_page(i, CrawlStatus.UNFETCHED) for i in range(1, 101)]
    pages[0] = with_generate_time(pages[0], now - 1)
    pages[1] = {**pages[1], "retriesSinceFetch": 1}
    pages += [_page(i, CrawlStatus.GONE) for i in range(101, 104)]
    config = CrawlConfig.from_dict({"crawl.gen.delay": 2})  # ms: running till now+1
    with pipeline as p:
        reports = p | beam.Create(pages) | CrawlDbStats("db", config, now_ms=now)
        states = reports | beam.Map(lambda report: report["json"]["states"])
        lines = reports | beam.Map(lambda report: report["text"].splitlines()[-6:])
        assert_that(
            states,
            equal_to(
                [
                    {
                        "waiting": 98,
                        "running": 1,
                        "error": 4,
                        "complete": 0,
                        "waiting_due": 48,
                    }
                ]
            ),
            label="States",
        )
        assert_that(
            lines,
            equal_to(
                [
                    [
                        "URL states (waiting / running / error / complete):",
                        "waiting:\t98\t(due now: 48)",
                        "running:\t1",
                        "error:\t4",
                        "complete:\t0",
                        "CrawlDb statistics: done",
                    ]
                ]
            ),
            label="Text",
        )
